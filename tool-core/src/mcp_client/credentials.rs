//! Credentials for a server over HTTP: a bearer token kept out of logs, and OAuth client
//! credentials with the access tokens they get (rmcp's `auth`).

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

/// The HTTP client that adds the access token to every request.
type OAuthClient = rmcp::transport::AuthClient<reqwest::Client>;

/// The HTTP client holding the access token, made at the first connection and kept
/// across reconnections.
#[derive(Default)]
pub(super) struct Tokens(tokio::sync::Mutex<Option<OAuthClient>>);

impl Tokens {
    /// The HTTP client with an access token for `url`, got with `credentials` the first
    /// time (the authorization server found from the server's metadata); or why not.
    pub(super) async fn client(
        &self,
        url: &str,
        credentials: &ClientCredentials,
    ) -> Result<OAuthClient, String> {
        let mut held = self.0.lock().await;
        if let Some(client) = &*held {
            return Ok(client.clone());
        }
        let auth = |error: rmcp::transport::AuthError| error.to_string();
        let mut state = rmcp::transport::auth::OAuthState::new(url, None)
            .await
            .map_err(auth)?;
        state
            .authenticate_client_credentials(credentials.config(url))
            .await
            .map_err(auth)?;
        let manager = state
            .into_authorization_manager()
            .ok_or("the authorization server gave no access token")?;
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|error| error.to_string())?;
        let client = rmcp::transport::AuthClient::new(http, manager);
        *held = Some(client.clone());
        Ok(client)
    }

    /// Gets a new access token with the client credentials (they come without a refresh
    /// token), after the server refused the old one. Whether one was had.
    pub(super) async fn renew(&self, url: &str, credentials: &ClientCredentials) -> bool {
        let held = self.0.lock().await;
        let Some(client) = &*held else {
            return false;
        };
        let manager = client.auth_manager.lock().await;
        match manager
            .exchange_client_credentials(&credentials.config(url))
            .await
        {
            Ok(_) => true,
            Err(error) => {
                tracing::warn!(%error, "a new access token could not be had");
                false
            }
        }
    }
}
