//! The server side of `scripts/measure/bench-mcp-http`: one trivial `add` tool over Streamable
//! HTTP, served either by toolwright (`McpServer::serve_http_on`, as shipped) or by rmcp
//! alone (a hand-written `ServerHandler` on rmcp's `StreamableHttpService`, configured at
//! its best: TCP_NODELAY on every socket and JSON response bodies), so the two can be
//! measured side by side with the same client.
//!
//! ```sh
//! cargo run --release --example mcp_bench --features mcp_bench -- toolwright 127.0.0.1:8801
//! cargo run --release --example mcp_bench --features mcp_bench -- rmcp 127.0.0.1:8802
//! ```

use std::sync::Arc;

use toolwright::mcp::McpServer;
use toolwright::mcp::rmcp::ServerHandler;
use toolwright::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use toolwright::mcp::rmcp::service::{RequestContext, RoleServer};
use toolwright::{Context, Registry, ToolError, tool};

/// Add two integers.
#[tool(effect = "read_only")]
fn add(
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
) -> Result<i64, ToolError> {
    a.checked_add(b)
        .ok_or_else(|| ToolError::failed("the sum overflows"))
}

/// The same tool written directly against rmcp.
#[derive(Clone)]
struct RmcpAdd {
    tools: Arc<[Tool]>,
}

impl RmcpAdd {
    fn new() -> Self {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        });
        let schema = match schema {
            serde_json::Value::Object(map) => map,
            _ => unreachable!("an object literal"),
        };
        Self {
            tools: vec![Tool::new("add", "Add two integers.", schema)].into(),
        }
    }
}

impl ServerHandler for RmcpAdd {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let number = |name: &str| {
            arguments
                .get(name)
                .and_then(serde_json::Value::as_i64)
                .ok_or_else(|| {
                    ErrorData::invalid_params(format!("'{name}' must be an integer"), None)
                })
        };
        let sum = number("a")?
            .checked_add(number("b")?)
            .ok_or_else(|| ErrorData::invalid_params("the sum overflows", None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(sum.to_string())]).into())
    }
}

/// rmcp's Streamable HTTP service on `listener`, at its best configuration.
async fn serve_rmcp(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    use hyper_util::rt::TokioIo;
    use hyper_util::service::TowerToHyperService;
    use toolwright::mcp::rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use toolwright::mcp::rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let handler = RmcpAdd::new();
    let service = TowerToHyperService::new(StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_json_response(true),
    ));
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let service = service.clone();
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: mcp_bench toolwright|rmcp 127.0.0.1:PORT";
    let (mode, addr) = (args.next().ok_or(usage)?, args.next().ok_or(usage)?);
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .map_err(|e| format!("{addr}: {e}"))?;
    eprintln!(
        "mcp_bench: {mode} on http://{}/mcp",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    let served = match mode.as_str() {
        "toolwright" => {
            let server = McpServer::new(
                Registry::builder().with(Add).build().unwrap(),
                Context::new(),
            )
            .map_err(|e| e.to_string())?;
            server.serve_http_on(listener).await
        }
        "rmcp" => serve_rmcp(listener).await,
        other => return Err(format!("unknown mode {other}; {usage}")),
    };
    served.map_err(|e| e.to_string())
}
