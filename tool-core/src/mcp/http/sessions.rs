//! The sessions of Streamable HTTP: rmcp's own (`LocalSessionManager`), each session's
//! transport keeping its protocol era when the server serves tasks, so that a
//! 2025-11-25 session's task requests are answered in their own form (`legacy_tasks.rs`).

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionId;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionManager};

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::transport::Transport;

use crate::mcp::era::Era;

type Inner = <LocalSessionManager as SessionManager>::Transport;

/// rmcp's session manager; each session's transport keeps its [`Era`] when `tasks` is
/// set.
#[derive(Default)]
pub(super) struct Sessions {
    pub(super) inner: LocalSessionManager,
    pub(super) tasks: bool,
}

impl SessionManager for Sessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = Kept;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, inner) = self.inner.create_session().await?;
        let era = self.tasks.then(|| Arc::new(Era::default()));
        Ok((id, Kept { inner, era }))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }
}

/// A session's transport, with its [`Era`] when the server serves tasks.
pub(super) struct Kept {
    inner: Inner,
    era: Option<Arc<Era>>,
}

impl Transport<RoleServer> for Kept {
    type Error = <Inner as Transport<RoleServer>>::Error;

    fn send(
        &mut self,
        message: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let message = match &self.era {
            Some(era) => era.outgoing(message),
            None => message,
        };
        self.inner.send(message)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        let message = self.inner.receive().await?;
        Some(match &self.era {
            Some(era) => era.incoming(message),
            None => message,
        })
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}
