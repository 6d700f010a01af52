//! JWT access tokens (RFC 9068), checked against the issuer's JSON Web Key Set.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use super::{AuthError, AuthFuture, Authenticator};
use crate::policy::Caller;

/// Checks JWT access tokens: the signature against the issuer's key set (fetched from
/// `jwks_uri`, cached, fetched again when a token names a key it does not hold, so the
/// issuer can rotate keys), `iss`, `aud` (this resource, RFC 8707), `exp` and `nbf` with
/// a leeway for clock skew. Only asymmetric algorithms are accepted (RS*, PS*, ES*,
/// EdDSA): `alg: none` and HMAC tokens are refused, whatever the key set holds.
///
/// The caller is the token's `sub`; its scopes are the space-separated `scope` claim
/// (RFC 8693), or the `scp` array some issuers send.
pub struct JwtValidator {
    issuer: String,
    audience: String,
    jwks_uri: String,
    leeway: Duration,
    algorithms: Vec<Algorithm>,
    keys_ttl: Duration,
    refetch_interval: Duration,
    fetch_timeout: Duration,
    cache: Mutex<Option<Arc<Keys>>>,
    /// One fetch at a time: a burst of tokens with a new key id fetches once.
    fetching: tokio::sync::Mutex<()>,
}

struct Keys {
    set: JwkSet,
    fetched: Instant,
}

/// The largest metadata or key set document read: 1 MiB.
const MAX_JWKS_BYTES: u64 = 1 << 20;

impl JwtValidator {
    /// Tokens of `issuer` (compared exactly with `iss`) for `audience` (the resource's
    /// URL, compared with `aud`), signed by a key of the set at `jwks_uri`.
    pub fn new(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        jwks_uri: impl Into<String>,
    ) -> Self {
        use Algorithm::*;
        JwtValidator {
            issuer: issuer.into(),
            audience: audience.into(),
            jwks_uri: jwks_uri.into(),
            leeway: Duration::from_secs(30),
            algorithms: vec![
                RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA,
            ],
            keys_ttl: Duration::from_secs(600),
            refetch_interval: Duration::from_secs(10),
            fetch_timeout: Duration::from_secs(5),
            cache: Mutex::new(None),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// Tokens of `issuer` for `audience`, with the key set its metadata names: the
    /// `jwks_uri` of `{issuer}/.well-known/oauth-authorization-server` (RFC 8414), or of
    /// `{issuer}/.well-known/openid-configuration` when the first has none.
    pub async fn discover(
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, AuthError> {
        let issuer = issuer.into();
        let base = issuer.trim_end_matches('/');
        let mut why = String::new();
        for document in ["oauth-authorization-server", "openid-configuration"] {
            let url = format!("{base}/.well-known/{document}");
            match get_json(url.clone(), Duration::from_secs(5)).await {
                Ok(metadata) => match metadata.get("jwks_uri").and_then(|uri| uri.as_str()) {
                    Some(jwks_uri) => return Ok(JwtValidator::new(issuer, audience, jwks_uri)),
                    None => why = format!("{url} names no jwks_uri"),
                },
                Err(error) => why = format!("{url}: {error}"),
            }
        }
        Err(AuthError::Unavailable(format!(
            "the key set of {issuer} could not be discovered: {why}"
        )))
    }

    /// How far `exp` and `nbf` may be off (default 30 s).
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The signing algorithms accepted (default: every asymmetric one). HMAC
    /// algorithms are dropped: a resource server never holds the issuer's secret.
    pub fn with_algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms
            .into_iter()
            .filter(|algorithm| {
                !matches!(
                    algorithm,
                    Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512
                )
            })
            .collect();
        self
    }

    /// How long a fetched key set is used before it is fetched again (default 10 min),
    /// and the least time between two fetches caused by unknown key ids (default 10 s:
    /// tokens naming made-up keys cannot make the server hammer the issuer).
    pub fn with_key_refresh(mut self, ttl: Duration, least_interval: Duration) -> Self {
        self.keys_ttl = ttl;
        self.refetch_interval = least_interval;
        self
    }

    async fn check(&self, token: &str) -> Result<Caller, AuthError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|error| AuthError::invalid(format!("not a signed JWT: {error}")))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(AuthError::invalid(format!(
                "tokens signed with {:?} are not accepted",
                header.alg
            )));
        }
        let key = self.key(header.kid.as_deref()).await?;
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let claims = jsonwebtoken::decode::<Claims>(token, &key, &validation)
            .map_err(|error| AuthError::invalid(describe(error.kind())))?
            .claims;
        let scopes: Vec<String> = match (claims.scope, claims.scp) {
            (Some(scope), _) => scope.split_ascii_whitespace().map(str::to_owned).collect(),
            (None, Some(scp)) => scp,
            (None, None) => Vec::new(),
        };
        Ok(Caller::new(claims.sub, scopes))
    }

    /// The key `kid` names (or the set's only key when the token names none).
    async fn key(&self, kid: Option<&str>) -> Result<DecodingKey, AuthError> {
        let cached = lock(&self.cache).clone();
        if let Some(keys) = &cached {
            let fresh = keys.fetched.elapsed() < self.keys_ttl;
            match find(&keys.set, kid) {
                Some(key) if fresh => return key,
                None if fresh && keys.fetched.elapsed() < self.refetch_interval => {
                    return Err(unknown_key(kid));
                }
                _ => {}
            }
        }
        let _fetching = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        let latest = lock(&self.cache).clone();
        let newer = match (&latest, &cached) {
            (Some(latest), Some(cached)) => latest.fetched > cached.fetched,
            (Some(_), None) => true,
            _ => false,
        };
        let keys = match latest {
            Some(keys) if newer => keys,
            stale => match self.fetch().await {
                Ok(set) => {
                    let keys = Arc::new(Keys {
                        set,
                        fetched: Instant::now(),
                    });
                    *lock(&self.cache) = Some(keys.clone());
                    keys
                }
                // The issuer is unreachable: a key it published before still checks.
                Err(error) => match stale.as_ref().and_then(|keys| find(&keys.set, kid)) {
                    Some(key) => {
                        tracing::warn!(%error, "the issuer's key set could not be fetched; using the one held");
                        return key;
                    }
                    None => return Err(error),
                },
            },
        };
        find(&keys.set, kid).unwrap_or_else(|| Err(unknown_key(kid)))
    }

    async fn fetch(&self) -> Result<JwkSet, AuthError> {
        get_json(self.jwks_uri.clone(), self.fetch_timeout)
            .await
            .and_then(|value| {
                serde_json::from_value::<JwkSet>(value)
                    .map_err(|error| format!("not a JSON Web Key Set: {error}"))
            })
            .map_err(|error| {
                AuthError::Unavailable(format!(
                    "the issuer's keys at {} could not be fetched: {error}",
                    self.jwks_uri
                ))
            })
    }
}

/// The JSON document at `url` (at most 1 MiB), fetched off the async threads.
async fn get_json(url: String, timeout: Duration) -> Result<serde_json::Value, String> {
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .build()
            .into();
        let text = agent
            .get(&url)
            .call()
            .map_err(|error| error.to_string())?
            .body_mut()
            .with_config()
            .limit(MAX_JWKS_BYTES)
            .read_to_string()
            .map_err(|error| error.to_string())?;
        serde_json::from_str(&text).map_err(|error| format!("not JSON: {error}"))
    })
    .await
    .map_err(|error| error.to_string())
    .and_then(|fetched| fetched)
}

impl Authenticator for JwtValidator {
    fn authenticate<'a>(&'a self, token: &'a str) -> AuthFuture<'a> {
        Box::pin(self.check(token))
    }
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Vec<String>>,
}

fn find(set: &JwkSet, kid: Option<&str>) -> Option<Result<DecodingKey, AuthError>> {
    let jwk = match kid {
        Some(kid) => set.find(kid)?,
        None => match set.keys.as_slice() {
            [only] => only,
            _ => return None,
        },
    };
    Some(
        DecodingKey::from_jwk(jwk).map_err(|error| {
            AuthError::invalid(format!("the signing key cannot be used: {error}"))
        }),
    )
}

fn unknown_key(kid: Option<&str>) -> AuthError {
    match kid {
        Some(kid) => AuthError::invalid(format!(
            "signed with key {kid:?}, which the issuer does not publish"
        )),
        None => AuthError::invalid("the token names no key (kid) and the issuer publishes several"),
    }
}

/// What was wrong, for the `error_description` (never the token itself).
fn describe(kind: &jsonwebtoken::errors::ErrorKind) -> String {
    use jsonwebtoken::errors::ErrorKind::*;
    match kind {
        InvalidSignature => "the signature does not verify".into(),
        ExpiredSignature => "the token has expired".into(),
        ImmatureSignature => "the token is not valid yet (nbf)".into(),
        InvalidAudience => "the token is for another resource (aud)".into(),
        InvalidIssuer => "the token is from another issuer (iss)".into(),
        MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        InvalidAlgorithm => "the token's algorithm does not match its key".into(),
        other => format!("the token cannot be read: {other:?}"),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
