//! The server's span of a `tools/call` (OpenTelemetry's MCP conventions): a child of the
//! client's span when the request carries W3C trace context (`_meta`, SEP-414, or the
//! HTTP headers; feature `otel`), and that context handed back in the result's `_meta`.

use rmcp::model::{CallToolRequestParams, CallToolResponse};
use rmcp::service::{RequestContext, RoleServer};
use tracing::Span;

/// The span of one `tools/call` of session `session`; made only when a subscriber was
/// ever set, like the call's own span.
pub(super) fn request_span(
    session: &str,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Span {
    if !tracing::dispatcher::has_been_set() {
        return Span::none();
    }
    let span = tracing::info_span!(
        target: "toolwright",
        "tools/call",
        otel.name = format!("tools/call {}", request.name),
        otel.kind = "server",
        mcp.method.name = "tools/call",
        mcp.session.id = session,
        jsonrpc.request.id = super::call::request_id(&context.id),
        gen_ai.tool.name = &*request.name,
    );
    #[cfg(feature = "otel")]
    if !span.is_disabled() {
        let headers = context
            .extensions
            .get::<hyper::http::request::Parts>()
            .map(|parts| &parts.headers);
        crate::otel::adopt_parent(&span, &context.meta, headers);
    }
    span
}

/// `answer` with `span`'s trace context in its `_meta` (with feature `otel`, when the
/// span is recorded).
#[cfg_attr(not(feature = "otel"), allow(unused_mut, unused_variables))]
pub(super) fn hand_back(span: &Span, mut answer: CallToolResponse) -> CallToolResponse {
    #[cfg(feature = "otel")]
    if !span.is_disabled()
        && let CallToolResponse::Complete(result) = &mut answer
    {
        let mut meta = result.meta.take().unwrap_or_default();
        for (key, value) in crate::otel::trace_context(span) {
            meta.0.insert(key, serde_json::Value::String(value));
        }
        result.meta = Some(meta);
    }
    answer
}
