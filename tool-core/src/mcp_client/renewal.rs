//! New credentials for a connection whose server refused a request for want of
//! authorization, at most a few times per request.

use rmcp::service::ServiceError;

use super::link::{Endpoint, Link};

/// How many times one request (a handshake, a list, a call) is sent again with new
/// credentials before the server's refusal is the answer: a sign-in and two requests for
/// more scopes.
const MAX_RENEWALS: usize = 3;

/// The renewal of a connection's credentials after a refusal.
impl Link {
    /// How many times new credentials were had; read before a request is sent, for
    /// [`renew_at_most`](Self::renew_at_most).
    pub(super) fn renewals(&self) -> u64 {
        self.oauth.renewals()
    }

    /// New credentials after the server refused a request for want of authorization
    /// with `challenge` (see [`auth_challenge`]), unless some were had since `seen`: the
    /// request may then be sent again (the server did not run it). Or why there are
    /// none.
    async fn renew(&self, challenge: &str, seen: u64) -> Result<(), String> {
        match &self.endpoint {
            Endpoint::Http {
                url,
                oauth: Some(grant),
                ..
            } => self.oauth.renew(url, grant, challenge, seen).await,
            _ => Err(format!(
                "the server asks for authorization ({}); give the source a bearer_token, client_credentials or sign_in",
                if challenge.is_empty() {
                    "no challenge"
                } else {
                    challenge
                }
            )),
        }
    }

    /// [`renew`](Self::renew), unless `renewed` has reached [`MAX_RENEWALS`] (then the
    /// refusal is the answer); counts one up.
    pub(super) async fn renew_at_most(
        &self,
        renewed: &mut usize,
        challenge: &str,
        seen: u64,
    ) -> Result<(), String> {
        if *renewed == MAX_RENEWALS {
            return Err(format!(
                "the server still refuses after {MAX_RENEWALS} new credentials ({challenge})"
            ));
        }
        *renewed += 1;
        self.renew(challenge, seen).await
    }
}

/// The server's `WWW-Authenticate` challenge when it refused a request for want of
/// authorization (`401`, or `403` asking for more scopes); empty when it sent none.
pub(super) fn auth_challenge(error: &ServiceError) -> Option<&str> {
    error
        .auth_challenge()
        .or(error.is_authorization_required().then_some(""))
}
