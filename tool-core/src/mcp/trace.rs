//! The server's span of a `tools/call` (OpenTelemetry's MCP conventions): a child of the
//! client's span when the request carries W3C trace context (`_meta`, SEP-414, or the
//! HTTP headers; feature `otel`), and that context handed back in the result's `_meta`.

use rmcp::model::CallToolResponse;
use serde_json::{Map, Value};
use tracing::Span;

/// The span of one `tools/call` of session `session` calling `tool`, request `id`, with
/// the request's `_meta` and its HTTP headers read by `header`; made only when a
/// subscriber was ever set, like the call's own span (so `id` is only rendered then).
pub(super) fn request_span<'a>(
    session: &str,
    tool: &str,
    id: impl FnOnce() -> String,
    meta: &Map<String, Value>,
    header: &dyn Fn(&str) -> Option<&'a str>,
) -> Span {
    if !tracing::dispatcher::has_been_set() {
        return Span::none();
    }
    let span = tracing::info_span!(
        target: "toolwright",
        "tools/call",
        otel.name = format!("tools/call {tool}"),
        otel.kind = "server",
        mcp.method.name = "tools/call",
        mcp.session.id = session,
        jsonrpc.request.id = id(),
        gen_ai.tool.name = tool,
    );
    #[cfg(feature = "otel")]
    if !span.is_disabled() {
        crate::otel::adopt_parent(&span, meta, header);
    }
    #[cfg(not(feature = "otel"))]
    let _ = (meta, header);
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
