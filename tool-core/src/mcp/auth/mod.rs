//! OAuth 2.1 for the Streamable HTTP transport, as the MCP specification's authorization
//! section asks of a server (2025-06-18 onward): the server is a *resource server*. It
//! validates the bearer token of every request, answers 401 with a `WWW-Authenticate`
//! challenge pointing at its protected-resource metadata (RFC 9728) when the token is
//! missing or invalid, and 403 `insufficient_scope` naming the scopes an operation needs
//! (RFC 6750 §3.1; per operation, as SEP-2350 settled). A valid token becomes the call's
//! [`Caller`]: its subject the caller's id, its scopes the caller's scopes, so
//! `#[tool(scopes = [...])]` is enforced per client.
//!
//! [`JwtValidator`] (feature `oauth`) checks JWT access tokens against the issuer's key
//! set; any other scheme (RFC 7662 introspection, an API gateway's header, opaque tokens
//! in a database) is an [`Authenticator`] of your own.

#[cfg(feature = "oauth")]
mod jwt;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::policy::Caller;

/// The signing algorithms [`JwtValidator::with_algorithms`] takes (from `jsonwebtoken`).
#[cfg(feature = "oauth")]
pub use jsonwebtoken::Algorithm;
#[cfg(feature = "oauth")]
pub use jwt::JwtValidator;

/// The future an [`Authenticator`] returns.
pub type AuthFuture<'a> = Pin<Box<dyn Future<Output = Result<Caller, AuthError>> + Send + 'a>>;

/// Turns a bearer token into the caller it stands for.
///
/// ```
/// # use std::collections::HashMap;
/// use toolwright::mcp::auth::{AuthError, AuthFuture, Authenticator};
/// use toolwright::policy::Caller;
///
/// /// Opaque tokens issued out of band, looked up in a table.
/// struct Table(HashMap<String, Caller>);
///
/// impl Authenticator for Table {
///     fn authenticate<'a>(&'a self, token: &'a str) -> AuthFuture<'a> {
///         let caller = self.0.get(token).cloned();
///         Box::pin(async move { caller.ok_or_else(|| AuthError::invalid("unknown token")) })
///     }
/// }
/// ```
pub trait Authenticator: Send + Sync + 'static {
    /// The caller `token` stands for, or why it stands for none. `token` is secret: do
    /// not log it or put it in the error.
    fn authenticate<'a>(&'a self, token: &'a str) -> AuthFuture<'a>;
}

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthError {
    /// The token is not valid here (bad signature, expired, another audience or
    /// issuer, unknown): 401 with `error="invalid_token"`.
    InvalidToken(String),
    /// The token could not be checked now (the issuer's keys are unreachable): 503,
    /// so the client retries instead of asking its user to sign in again.
    Unavailable(String),
}

impl AuthError {
    /// [`AuthError::InvalidToken`] with this description.
    pub fn invalid(description: impl Into<String>) -> Self {
        AuthError::InvalidToken(description.into())
    }
}

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthError::InvalidToken(why) => write!(f, "invalid token: {why}"),
            AuthError::Unavailable(why) => write!(f, "the token cannot be checked now: {why}"),
        }
    }
}

impl std::error::Error for AuthError {}

/// The MCP server as an OAuth protected resource: where clients get tokens, what it
/// accepts, and who checks them.
///
/// ```
/// # #[cfg(feature = "oauth")] {
/// use toolwright::mcp::auth::{JwtValidator, ResourceServer};
///
/// let resource = "https://tools.example.com/mcp";
/// let issuer = "https://auth.example.com";
/// let auth = ResourceServer::new(
///     resource,
///     [issuer],
///     JwtValidator::new(issuer, resource, "https://auth.example.com/jwks.json"),
/// );
/// # }
/// ```
#[derive(Clone)]
pub struct ResourceServer {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Option<Vec<String>>,
    required_scopes: Vec<String>,
    scope_challenge: bool,
    max_token_bytes: usize,
    pub(crate) authenticator: Arc<dyn Authenticator>,
}

impl ResourceServer {
    /// The resource `resource` (the exact URL clients dial, `https://host/mcp`), whose
    /// tokens come from `authorization_servers` (issuer URLs) and are checked by
    /// `authenticator`. The metadata document is served at
    /// `/.well-known/oauth-protected-resource/mcp` (RFC 9728's place for a path-suffixed
    /// resource) and at `/.well-known/oauth-protected-resource`.
    pub fn new(
        resource: impl Into<String>,
        authorization_servers: impl IntoIterator<Item = impl Into<String>>,
        authenticator: impl Authenticator,
    ) -> Self {
        ResourceServer {
            resource: resource.into(),
            authorization_servers: authorization_servers.into_iter().map(Into::into).collect(),
            scopes_supported: None,
            required_scopes: Vec::new(),
            scope_challenge: true,
            max_token_bytes: 8 << 10,
            authenticator: Arc::new(authenticator),
        }
    }

    /// The `scopes_supported` of the metadata document (default: every scope the
    /// registry's tools declare, plus the required ones).
    pub fn with_scopes_supported(
        mut self,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Scopes every request needs, whatever it does (default: none); a token without
    /// them gets 403 `insufficient_scope`.
    pub fn with_required_scopes(
        mut self,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Answers a `tools/call` whose token lacks the tool's scopes with 200 and the
    /// tool's `denied` result only. By default the same result comes with HTTP 403 and
    /// `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."`, as the MCP
    /// specification asks, so a client can step up its authorization and retry.
    pub fn without_scope_challenge(mut self) -> Self {
        self.scope_challenge = false;
        self
    }

    /// The longest `Authorization` token accepted (default 8 KiB); longer ones are
    /// refused before any parsing.
    pub fn with_max_token_bytes(mut self, bytes: usize) -> Self {
        self.max_token_bytes = bytes;
        self
    }

    /// The resource's URL, as clients dial it.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// Where the metadata document is: the resource's origin, then
    /// `/.well-known/oauth-protected-resource`, then the resource's path.
    pub fn metadata_url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}{WELL_KNOWN}{}", path.trim_end_matches('/'))
    }

    pub(crate) fn scope_challenge(&self) -> bool {
        self.scope_challenge
    }

    pub(crate) fn required_scopes(&self) -> &[String] {
        &self.required_scopes
    }

    pub(crate) fn max_token_bytes(&self) -> usize {
        self.max_token_bytes
    }

    /// The RFC 9728 document; `tool_scopes` are the registry's, used when no
    /// `scopes_supported` was set.
    pub(crate) fn metadata(&self, tool_scopes: &[String]) -> Value {
        let scopes: Vec<&String> = match &self.scopes_supported {
            Some(scopes) => scopes.iter().collect(),
            None => {
                let mut scopes: Vec<&String> =
                    self.required_scopes.iter().chain(tool_scopes).collect();
                scopes.sort();
                scopes.dedup();
                scopes
            }
        };
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        // RFC 9728: the field is optional; an empty list would say no scope exists.
        if !scopes.is_empty() {
            document["scopes_supported"] = json!(scopes);
        }
        document
    }

    /// The `WWW-Authenticate` value of a 401 (`error` set for a token that was sent) or
    /// of a 403 for missing `scopes`.
    pub(crate) fn challenge(&self, error: Option<(&str, &str)>, scopes: &[String]) -> String {
        let mut challenge = format!("Bearer resource_metadata=\"{}\"", self.metadata_url());
        if let Some((code, description)) = error {
            challenge.push_str(&format!(
                ", error=\"{code}\", error_description=\"{}\"",
                quotable(description)
            ));
        }
        if !scopes.is_empty() {
            challenge.push_str(&format!(", scope=\"{}\"", quotable(&scopes.join(" "))));
        }
        challenge
    }
}

/// The prefix RFC 9728 puts the metadata document under.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// `https://host:8443/mcp` → (`https://host:8443`, `/mcp`).
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    match url[after_scheme..].find('/') {
        Some(at) => url.split_at(after_scheme + at),
        None => (url, ""),
    }
}

/// `text` fit for a quoted-string of a header: printable ASCII without `"` or `\`.
fn quotable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            ' '..='~' => c,
            _ => '?',
        })
        .collect()
}

/// The bearer token of an `Authorization` header value, or why there is none usable.
pub(crate) fn bearer_token(header: &[u8], max_bytes: usize) -> Result<&str, &'static str> {
    let Some(scheme_end) = header.iter().position(|&byte| byte == b' ') else {
        return Err("the Authorization header is not `Bearer <token>`");
    };
    let (scheme, token) = header.split_at(scheme_end);
    if !scheme.eq_ignore_ascii_case(b"bearer") {
        return Err("the Authorization scheme must be Bearer");
    }
    let token = token.trim_ascii();
    if token.len() > max_bytes {
        return Err("the token is larger than this server accepts");
    }
    // RFC 6750's b64token: what a bearer token may be made of.
    let b64token = |byte: &u8| byte.is_ascii_alphanumeric() || b"-._~+/=".contains(byte);
    if token.is_empty() || !token.iter().all(b64token) {
        return Err("the bearer token has characters a token cannot have");
    }
    std::str::from_utf8(token).map_err(|_| "the bearer token is not text")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Nobody;
    impl Authenticator for Nobody {
        fn authenticate<'a>(&'a self, _: &'a str) -> AuthFuture<'a> {
            Box::pin(async { Err(AuthError::invalid("no one")) })
        }
    }

    #[test]
    fn the_metadata_url_puts_the_well_known_prefix_before_the_resource_path() {
        let server = |resource: &str| ResourceServer::new(resource, ["https://a"], Nobody);
        assert_eq!(
            server("https://tools.example.com/mcp").metadata_url(),
            "https://tools.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            server("http://127.0.0.1:8080/mcp/").metadata_url(),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            server("https://tools.example.com").metadata_url(),
            "https://tools.example.com/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn scopes_supported_is_left_out_when_there_is_nothing_to_list() {
        let server = ResourceServer::new("https://t/mcp", ["https://a"], Nobody);
        let document = server.metadata(&[]);
        assert_eq!(document.get("scopes_supported"), None, "{document}");
        assert_eq!(document["resource"], "https://t/mcp");
        let document = server.metadata(&["notes:write".into(), "notes:write".into()]);
        assert_eq!(document["scopes_supported"], json!(["notes:write"]));
    }

    #[test]
    fn a_challenge_never_breaks_its_quoting() {
        let server = ResourceServer::new("https://t/mcp", ["https://a"], Nobody);
        let challenge = server.challenge(
            Some(("invalid_token", "bad \"sig\" \\ é")),
            &["a:read".into(), "b".into()],
        );
        assert_eq!(
            challenge,
            "Bearer resource_metadata=\"https://t/.well-known/oauth-protected-resource/mcp\", \
             error=\"invalid_token\", error_description=\"bad 'sig' ' ?\", scope=\"a:read b\""
        );
    }

    #[test]
    fn only_a_well_formed_bearer_token_is_taken() {
        assert_eq!(
            bearer_token(b"Bearer abc.DEF-_~+/=", 64),
            Ok("abc.DEF-_~+/=")
        );
        assert_eq!(bearer_token(b"bearer  abc ", 64), Ok("abc"));
        assert!(bearer_token(b"Basic dXNlcjpwYXNz", 64).is_err());
        assert!(bearer_token(b"Bearer", 64).is_err());
        assert!(bearer_token(b"Bearer ", 64).is_err());
        assert!(bearer_token(b"Bearer a\"b", 64).is_err());
        assert!(bearer_token(b"Bearer a b", 64).is_err());
        assert!(bearer_token(&[b"Bearer ".as_slice(), &[b'a'; 65]].concat(), 64).is_err());
    }
}
