//! Credentials for a server over HTTP: a bearer token kept out of logs; OAuth client
//! credentials (a machine on its own behalf); a person's sign-in (the authorization-code
//! flow); and the access tokens they get, renewed when the server refuses them (rmcp's
//! `auth`).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationRequest, CredentialStore, OAuthState, WWWAuthenticateParams,
};

/// A value that must not reach a log: its `Debug` says only that it is there.
#[derive(Clone)]
pub(super) struct Secret(pub(super) String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// OAuth client credentials (RFC 6749 section 4.4, SEP-1046): the client authenticates
/// to the server's authorization server (found from the server's metadata) and gets an
/// access token for the server (the resource, RFC 8707), then a new one when the server
/// refuses the old.
#[derive(Debug, Clone)]
pub(super) struct ClientCredentials {
    pub(super) client_id: String,
    pub(super) client_secret: Secret,
    pub(super) scopes: Vec<String>,
}

impl ClientCredentials {
    fn config(&self, resource: &str) -> rmcp::transport::auth::ClientCredentialsConfig {
        rmcp::transport::auth::ClientCredentialsConfig::ClientSecret {
            client_id: self.client_id.clone(),
            client_secret: self.client_secret.0.clone(),
            scopes: self.scopes.clone(),
            resource: Some(resource.to_owned()),
        }
    }
}

/// What shows a person the authorization server's page and gives back where it sent
/// them: the URL of the redirect, with its `code`, `state` and `iss`.
type Authorize = Arc<
    dyn Fn(String) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send>> + Send + Sync,
>;

/// A person signs in to use the server (OAuth 2.1's authorization-code flow with PKCE,
/// as MCP's authorization specification has it), for
/// [`McpSourceBuilder::sign_in`](super::McpSourceBuilder::sign_in).
///
/// Nothing happens until the server asks: a request it refuses with `401` and a
/// `WWW-Authenticate` challenge starts the sign-in. The server's protected-resource
/// metadata (RFC 9728) names its authorization server, whose metadata (RFC 8414, its
/// issuer checked) gives the endpoints. The client is identified by, in this order: a
/// client registered beforehand ([`registered_client`](Self::registered_client)), a
/// client metadata document ([`client_metadata_url`](Self::client_metadata_url)) when
/// the authorization server takes one, or dynamic registration (RFC 7591). The scopes
/// asked for are the challenge's, else the server's metadata's, else none; `authorize`
/// is given the authorization URL (PKCE S256, `resource` the server's URL) and answers
/// with the URL the person was sent back to, whose `state` and `iss` (RFC 9207) are
/// checked before the code is exchanged.
///
/// Later, a token the server refuses is refreshed, or the person signs in again (a new
/// authorization server included, its client registered anew); a `403` asking for more
/// scopes (`insufficient_scope`) asks the person for them, the scopes held kept, at most
/// three times. The request refused is then sent again: the server did not run it. The
/// tokens, the code and a client secret are never logged, nor shown by `Debug`.
pub struct SignIn {
    redirect_uri: String,
    authorize: Authorize,
    client_id: Option<String>,
    client_secret: Option<Secret>,
    client_metadata_url: Option<String>,
    client_name: Option<String>,
    scopes: Vec<String>,
    store: Option<Arc<dyn CredentialStore>>,
}

impl std::fmt::Debug for SignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignIn")
            .field("redirect_uri", &self.redirect_uri)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_name", &self.client_name)
            .field("scopes", &self.scopes)
            .field("store", &self.store.is_some())
            .finish_non_exhaustive()
    }
}

impl SignIn {
    /// A sign-in whose authorization server sends the person back to `redirect_uri`
    /// (for a program on the person's machine, a loopback address it listens on,
    /// `http://127.0.0.1:8976/callback`). `authorize` shows the person the
    /// authorization URL it is given (opens a browser, prints it) and answers with the
    /// full URL they were sent back to, or why there is none.
    pub fn new<F, Fut>(redirect_uri: impl Into<String>, authorize: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        Self {
            redirect_uri: redirect_uri.into(),
            authorize: Arc::new(move |url| Box::pin(authorize(url))),
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            client_name: None,
            scopes: Vec::new(),
            store: None,
        }
    }

    /// Identifies the client with an id registered with the authorization server
    /// beforehand, and its secret for a confidential client. Comes before every other
    /// way.
    pub fn registered_client(
        mut self,
        client_id: impl Into<String>,
        client_secret: Option<impl Into<String>>,
    ) -> Self {
        self.client_id = Some(client_id.into());
        self.client_secret = client_secret.map(|secret| Secret(secret.into()));
        self
    }

    /// Identifies the client by the HTTPS URL of its client metadata document
    /// (SEP-991), where the authorization server takes one.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// The client's name in a dynamic registration (default `toolwright`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = Some(name.into());
        self
    }

    /// Asks for these scopes instead of those the server names.
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Keeps the tokens (and the client's registration) in `store`, so a person signed
    /// in once is not asked again when the program starts anew (default: in memory,
    /// for the life of the source). Tokens of another authorization server than the
    /// one the server names now are not used.
    pub fn credential_store(mut self, store: impl CredentialStore + 'static) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// A manager for `url` keeping its tokens in the store.
    async fn manager(&self, url: &str) -> Result<AuthorizationManager, String> {
        let mut manager = AuthorizationManager::new(url).await.map_err(auth)?;
        if let Some(store) = &self.store {
            manager.set_credential_store(SharedStore(store.clone()));
        }
        Ok(manager)
    }

    /// Asks the authorization server, through the person, for a token: the discovery
    /// seeded by the server's `challenge`.
    async fn run(&self, url: &str, challenge: &str) -> Result<AuthorizationManager, String> {
        let mut request = AuthorizationRequest::new(&self.redirect_uri)
            .with_client_name(self.client_name.as_deref().unwrap_or("toolwright"))
            .with_challenge(challenge);
        if !self.scopes.is_empty() {
            request = request.with_scopes(self.scopes.iter().cloned());
        }
        if let Some(id) = &self.client_id {
            request = request.with_preregistered_client(id);
        }
        if let Some(Secret(secret)) = &self.client_secret {
            request = request.with_client_secret(secret);
        }
        if let Some(document) = &self.client_metadata_url {
            request = request.with_client_metadata_url(document);
        }
        let mut state = OAuthState::Unauthorized(self.manager(url).await?);
        state.start_authorization(request).await.map_err(auth)?;
        let page = state.get_authorization_url().await.map_err(auth)?;
        let back = (self.authorize)(page).await?;
        state.handle_callback_url(&back).await.map_err(auth)?;
        state
            .into_authorization_manager()
            .ok_or_else(|| "the authorization server gave no access token".to_owned())
    }

    /// Asks the person for the scopes `challenge` names on top of those held.
    async fn step_up(&self, client: &OAuthClient, scope: &str) -> Result<(), String> {
        let page = {
            let manager = client.auth_manager.lock().await;
            manager.request_scope_upgrade(scope).await.map_err(auth)?
        };
        let back = (self.authorize)(page).await?;
        let callback =
            rmcp::transport::auth::AuthorizationCallback::from_redirect_url(&back).map_err(auth)?;
        let manager = client.auth_manager.lock().await;
        manager
            .exchange_code_for_token_with_issuer(
                &callback.code,
                &callback.csrf_token,
                callback.issuer.as_deref(),
            )
            .await
            .map_err(auth)?;
        Ok(())
    }
}

/// The user's store, shared by every manager the sign-ins make.
struct SharedStore(Arc<dyn CredentialStore>);

#[async_trait::async_trait]
impl CredentialStore for SharedStore {
    async fn load(
        &self,
    ) -> Result<Option<rmcp::transport::auth::StoredCredentials>, rmcp::transport::AuthError> {
        self.0.load().await
    }

    async fn save(
        &self,
        credentials: rmcp::transport::auth::StoredCredentials,
    ) -> Result<(), rmcp::transport::AuthError> {
        self.0.save(credentials).await
    }

    async fn clear(&self) -> Result<(), rmcp::transport::AuthError> {
        self.0.clear().await
    }

    async fn on_refresh_token_rejected(
        &self,
        credentials: &rmcp::transport::auth::StoredCredentials,
    ) -> Result<(), rmcp::transport::AuthError> {
        self.0.on_refresh_token_rejected(credentials).await
    }

    async fn acquire_refresh_guard(
        &self,
    ) -> Result<Option<rmcp::transport::auth::CredentialRefreshGuard>, rmcp::transport::AuthError>
    {
        self.0.acquire_refresh_guard().await
    }
}

/// How access tokens are had for a server.
#[derive(Debug)]
pub(super) enum Grant {
    ClientCredentials(ClientCredentials),
    SignIn(SignIn),
}

fn auth(error: rmcp::transport::AuthError) -> String {
    error.to_string()
}

/// The HTTP client that adds the access token to every request.
type OAuthClient = rmcp::transport::AuthClient<reqwest::Client>;

/// The HTTP client holding the access token, made at the first connection and kept
/// across reconnections; a new token replaces the old inside it, so a connection made
/// before sends the new one.
#[derive(Default)]
pub(super) struct Tokens {
    client: tokio::sync::Mutex<Option<OAuthClient>>,
    /// One renewal at a time.
    renewing: tokio::sync::Mutex<()>,
    /// How many times new credentials were had: a request refused with older ones is
    /// sent again with these instead of asking anew.
    renewals: AtomicU64,
}

impl Tokens {
    /// The count of renewals, read before a request is sent.
    pub(super) fn renewals(&self) -> u64 {
        self.renewals.load(Ordering::Acquire)
    }

    /// The HTTP client for `url`: with client credentials, holding a token got at once;
    /// for a sign-in, the token kept in its store, else none yet (the server's refusal
    /// starts the sign-in). Or why there is none.
    pub(super) async fn client(&self, url: &str, grant: &Grant) -> Result<OAuthClient, String> {
        let mut held = self.client.lock().await;
        if let Some(client) = &*held {
            return Ok(client.clone());
        }
        let manager = match grant {
            Grant::ClientCredentials(credentials) => {
                let mut state = OAuthState::new(url, None).await.map_err(auth)?;
                state
                    .authenticate_client_credentials(credentials.config(url))
                    .await
                    .map_err(auth)?;
                state
                    .into_authorization_manager()
                    .ok_or("the authorization server gave no access token")?
            }
            Grant::SignIn(sign_in) => {
                let mut manager = sign_in.manager(url).await?;
                if sign_in.store.is_some()
                    && let Err(error) = manager.initialize_from_store().await
                {
                    tracing::warn!(%error, "the stored credentials could not be used");
                }
                manager
            }
        };
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|error| error.to_string())?;
        let client = rmcp::transport::AuthClient::new(http, manager);
        *held = Some(client.clone());
        Ok(client)
    }

    /// New credentials after the server refused a request with `challenge` (its
    /// `WWW-Authenticate`), unless some were had since `seen`: client credentials ask
    /// for a new token (they come without a refresh token); a sign-in asks the person
    /// again (`401`) or for more scopes (`403 insufficient_scope`).
    pub(super) async fn renew(
        &self,
        url: &str,
        grant: &Grant,
        challenge: &str,
        seen: u64,
    ) -> Result<(), String> {
        let _one = self.renewing.lock().await;
        if self.renewals() != seen {
            return Ok(());
        }
        let client = self.client.lock().await.clone();
        let client = match client {
            Some(client) => client,
            None => self.client(url, grant).await?,
        };
        let base = url.parse().map_err(|error| format!("{error}"))?;
        let asked = WWWAuthenticateParams::parse(challenge, &base);
        match grant {
            Grant::ClientCredentials(_) if asked.is_insufficient_scope() => {
                return Err(format!(
                    "the server wants scopes the client credentials were not given: {}",
                    asked.scope.as_deref().unwrap_or("(none named)")
                ));
            }
            Grant::ClientCredentials(credentials) => {
                let manager = client.auth_manager.lock().await;
                manager
                    .exchange_client_credentials(&credentials.config(url))
                    .await
                    .map_err(auth)?;
            }
            Grant::SignIn(sign_in) if asked.is_insufficient_scope() => {
                let scope = asked.scope.as_deref().unwrap_or_default();
                sign_in.step_up(&client, scope).await?;
            }
            Grant::SignIn(sign_in) => {
                let manager = sign_in.run(url, challenge).await?;
                *client.auth_manager.lock().await = manager;
            }
        }
        self.renewals.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
}
