//! A stateless (2026-07-28) `tools/call` answered here, in the connection's own task:
//! the request is read once into borrowed parts, dispatched and written back as one JSON
//! body. rmcp answers the same request by reading the body through its untagged message
//! enums, serializing it again to check the standard headers, and spawning a task and a
//! channel per request; that is most of the time such a request takes (PERFORMANCE.md).
//!
//! Only the plainest request takes this way: every check rmcp makes is either made
//! here the same way or, where the request needs anything more (a session, a progress
//! token, a log level, `Mcp-Param-*` headers, an approval retry, an unknown tool, an
//! unusual header or field), the request goes to rmcp as before. Whatever this path
//! answers, rmcp would have answered with the same bytes (tests/mcp_server.rs holds the
//! two together).

use std::borrow::Cow;
use std::convert::Infallible;

use http_body_util::combinators::BoxBody;
use hyper::body::Bytes;
use hyper::http::request::Parts;
use hyper::{HeaderMap, Response, StatusCode, header};
use rmcp::model::{CallToolResponse, NumberOrString, ServerJsonRpcMessage, ServerResult};
use serde::Deserialize;
use serde_json::{Map, Value};
use tracing::Instrument as _;

use super::Shared;
use crate::context::Context;
use crate::mcp::call::{self, request_id};
use crate::mcp::{IDEMPOTENCY_KEY_META, results, trace};

/// The protocol version whose requests carry everything they need in themselves.
const STATELESS: &str = "2026-07-28";
const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// A `tools/call` this path answers.
pub(super) struct DirectCall<'a> {
    id: NumberOrString,
    name: Cow<'a, str>,
    arguments: Map<String, Value>,
    meta: Map<String, Value>,
    /// The length of the body it came in.
    bytes: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Message<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: Value,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    #[serde(rename = "_meta")]
    meta: Map<String, Value>,
}

impl DirectCall<'_> {
    /// The called tool's name.
    pub(super) fn name(&self) -> &str {
        &self.name
    }
}

/// The call in `body`, when this path may answer it; `None` sends the request to rmcp.
pub(super) fn read<'a>(shared: &Shared, parts: &Parts, body: &'a [u8]) -> Option<DirectCall<'a>> {
    if shared.client_approval {
        return None;
    }
    read_plain(parts, body, |name| {
        !shared.through_sdk.contains(name) && shared.registry.get(name).is_some()
    })
}

/// The call in `body` when it and its headers ask for nothing beyond a plain call of a
/// tool `answerable` accepts.
fn read_plain<'a>(
    parts: &Parts,
    body: &'a [u8],
    answerable: impl Fn(&str) -> bool,
) -> Option<DirectCall<'a>> {
    if !plain_headers(&parts.headers) {
        return None;
    }
    let message: Message<'a> = serde_json::from_slice(body).ok()?;
    let Params {
        name,
        arguments,
        meta,
    } = message.params;
    let id = match message.id {
        Value::Number(number) => NumberOrString::Number(number.as_i64()?),
        Value::String(text) => NumberOrString::String(text.into()),
        _ => return None,
    };
    let known_meta = meta.iter().all(|(key, value)| match key.as_str() {
        PROTOCOL_VERSION => value.as_str() == Some(STATELESS),
        CLIENT_CAPABILITIES => value.is_object(),
        CLIENT_INFO => ["name", "version"]
            .iter()
            .all(|field| value.get(field).is_some_and(Value::is_string)),
        IDEMPOTENCY_KEY_META | "traceparent" | "tracestate" => value.is_string(),
        _ => false,
    });
    let headers = &parts.headers;
    let plain = message.jsonrpc == "2.0"
        && message.method == "tools/call"
        && known_meta
        && [PROTOCOL_VERSION, CLIENT_CAPABILITIES, CLIENT_INFO]
            .iter()
            .all(|key| meta.contains_key(*key))
        && only_value(headers, "mcp-method") == Some(b"tools/call".as_slice())
        && only_value(headers, "mcp-name") == Some(name.as_bytes())
        && answerable(&name);
    plain.then(|| DirectCall {
        id,
        name,
        arguments: arguments.unwrap_or_default(),
        meta,
        bytes: body.len(),
    })
}

/// Headers that ask for nothing beyond a plain stateless call: the stateless version, no
/// session, no `Origin`, no `Mcp-Param-*`, a JSON body, and both media types accepted.
/// (`Host` was checked for every request before: hosts.rs.)
fn plain_headers(headers: &HeaderMap) -> bool {
    let (mut json, mut stream) = (false, false);
    for accepted in headers.get_all(header::ACCEPT) {
        let Ok(accepted) = accepted.to_str() else {
            return false;
        };
        for essence in accepted.split(',') {
            let essence = essence.split(';').next().unwrap_or_default().trim();
            json |= essence.eq_ignore_ascii_case("application/json");
            stream |= essence.eq_ignore_ascii_case("text/event-stream");
        }
    }
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split(';').next().unwrap_or_default().trim();
            essence.eq_ignore_ascii_case("application/json")
        });
    json && stream
        && json_body
        && only_value(headers, "mcp-protocol-version") == Some(STATELESS.as_bytes())
        && !headers.contains_key("mcp-session-id")
        && !headers.contains_key(header::ORIGIN)
        && !headers
            .keys()
            .any(|name| name.as_str().starts_with("mcp-param-"))
}

/// The value of a header sent exactly once.
fn only_value<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h [u8]> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    values.next().is_none().then_some(value.as_bytes())
}

/// Runs `call` in `ctx` (the server's context, with the request's caller) and writes its
/// answer, as rmcp would have.
pub(super) async fn answer(
    shared: &Shared,
    call: DirectCall<'_>,
    ctx: &Context,
    headers: &HeaderMap,
) -> Response<BoxBody<Bytes, Infallible>> {
    let DirectCall {
        id,
        name,
        arguments,
        meta,
        bytes,
    } = call;
    // Each stateless request is a session of its own (see `McpServer::new_session`).
    let session = crate::approval::random_id();
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let span = trace::request_span(&session, &name, || request_id(&id), &meta, &header);
    // Read as a string already (`read_plain`): a key of another type goes to rmcp's path.
    let key = call::idempotency_key(meta.get(IDEMPOTENCY_KEY_META)).unwrap_or_default();
    let mut call = call::tool_call(request_id(&id), name.into_owned(), arguments, key, &session);
    call.sent_in_bytes = Some(bytes);
    let dispatch = shared.registry.dispatch(ctx, call);
    let result = Box::pin(dispatch.instrument(span.clone())).await;
    let message = match results::render(&result) {
        Ok(answer) => {
            let answer = trace::hand_back(&span, CallToolResponse::from(answer));
            ServerJsonRpcMessage::response(ServerResult::from(answer), id)
        }
        Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
    };
    match serde_json::to_vec(&message) {
        Ok(body) => super::responses::json_bytes(StatusCode::OK, Bytes::from(body)),
        Err(error) => super::responses::plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            Bytes::from(format!("Internal Server Error: {error}")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::{only_value, plain_headers, read_plain};
    use hyper::HeaderMap;
    use serde_json::{Value, json};

    fn request(headers: &[(&'static str, &'static str)]) -> hyper::http::request::Parts {
        let mut builder = hyper::Request::post("/mcp");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(()).unwrap().into_parts().0
    }

    type Change = Box<dyn Fn(&mut Value)>;

    fn body(change: impl FnOnce(&mut Value)) -> Vec<u8> {
        let mut body = json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {
                "name": "add", "arguments": {"a": 2},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                    "dev.toolwright/idempotency-key": "k",
                    "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                },
            },
        });
        change(&mut body);
        serde_json::to_vec(&body).unwrap()
    }

    #[test]
    fn only_a_plain_call_of_an_answerable_tool_is_read() {
        let parts = request(&PLAIN);
        let plain = body(|_| {});
        let call = read_plain(&parts, &plain, |name| name == "add").expect("a plain call");
        assert_eq!(call.name, "add");
        assert_eq!(call.arguments["a"], 2);
        assert!(
            read_plain(&parts, &plain, |_| false).is_none(),
            "a tool it may not answer"
        );
        let meta = "/params/_meta";
        let changes: [(&str, Change); 11] = [
            (
                "a session-era version",
                Box::new(|b| {
                    b.pointer_mut(meta).unwrap()["io.modelcontextprotocol/protocolVersion"] =
                        json!("2025-11-25")
                }),
            ),
            (
                "no client info",
                Box::new(|b| {
                    drop(
                        b.pointer_mut(meta)
                            .unwrap()
                            .as_object_mut()
                            .unwrap()
                            .remove("io.modelcontextprotocol/clientInfo"),
                    )
                }),
            ),
            (
                "a progress token",
                Box::new(|b| b.pointer_mut(meta).unwrap()["progressToken"] = json!(1)),
            ),
            (
                "a key that is not text",
                Box::new(|b| {
                    b.pointer_mut(meta).unwrap()["dev.toolwright/idempotency-key"] = json!(1)
                }),
            ),
            (
                "an approval retry",
                Box::new(|b| b["params"]["requestState"] = json!("s")),
            ),
            (
                "arguments that are not an object",
                Box::new(|b| b["params"]["arguments"] = json!([1])),
            ),
            ("a fractional id", Box::new(|b| b["id"] = json!(1.5))),
            (
                "no id",
                Box::new(|b| drop(b.as_object_mut().unwrap().remove("id"))),
            ),
            (
                "another method",
                Box::new(|b| b["method"] = json!("tools/list")),
            ),
            (
                "another JSON-RPC",
                Box::new(|b| b["jsonrpc"] = json!("1.0")),
            ),
            (
                "a name the header does not carry",
                Box::new(|b| b["params"]["name"] = json!("sub")),
            ),
        ];
        for (what, change) in changes {
            let changed = body(change);
            assert!(read_plain(&parts, &changed, |_| true).is_none(), "{what}");
        }
        let twice = request(&[
            PLAIN[0],
            PLAIN[1],
            PLAIN[2],
            PLAIN[3],
            PLAIN[4],
            PLAIN[5],
            ("mcp-name", "add"),
        ]);
        assert!(
            read_plain(&twice, &plain, |_| true).is_none(),
            "Mcp-Name twice"
        );
        let no_method = request(&[PLAIN[0], PLAIN[1], PLAIN[2], PLAIN[3], PLAIN[5]]);
        assert!(
            read_plain(&no_method, &plain, |_| true).is_none(),
            "no Mcp-Method"
        );
        let string_id = body(|b| b["id"] = json!("call-1"));
        assert!(
            read_plain(&parts, &string_id, |_| true).is_some(),
            "a string id"
        );
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, value.parse().unwrap());
        }
        headers
    }

    const PLAIN: [(&str, &str); 6] = [
        ("host", "127.0.0.1:8080"),
        ("accept", "application/json, text/event-stream"),
        ("content-type", "application/json; charset=utf-8"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "add"),
    ];

    #[test]
    fn only_plain_stateless_headers_are_answered_directly() {
        assert!(plain_headers(&headers(&PLAIN)));
        assert!(plain_headers(&headers(&[
            ("host", "[::1]:9"),
            PLAIN[1],
            PLAIN[2],
            PLAIN[3]
        ])));
        assert!(plain_headers(&headers(&[
            ("host", "LOCALHOST"),
            PLAIN[1],
            PLAIN[2],
            PLAIN[3]
        ])));
        let refused: [&[(&'static str, &'static str)]; 7] = [
            &[PLAIN[0], ("accept", "application/json"), PLAIN[2], PLAIN[3]],
            &[PLAIN[0], PLAIN[1], ("content-type", "text/plain"), PLAIN[3]],
            &[
                PLAIN[0],
                PLAIN[1],
                PLAIN[2],
                ("mcp-protocol-version", "2025-11-25"),
            ],
            &[PLAIN[0], PLAIN[1], PLAIN[2]],
            &[
                PLAIN[0],
                PLAIN[1],
                PLAIN[2],
                PLAIN[3],
                ("mcp-session-id", "s"),
            ],
            &[
                PLAIN[0],
                PLAIN[1],
                PLAIN[2],
                PLAIN[3],
                ("origin", "http://a"),
            ],
            &[
                PLAIN[0],
                PLAIN[1],
                PLAIN[2],
                PLAIN[3],
                ("mcp-param-region", "eu"),
            ],
        ];
        for pairs in refused {
            assert!(!plain_headers(&headers(pairs)), "{pairs:?}");
        }
    }

    #[test]
    fn a_header_sent_twice_has_no_single_value() {
        let twice = headers(&[("mcp-name", "add"), ("mcp-name", "add")]);
        assert_eq!(only_value(&twice, "mcp-name"), None);
        assert_eq!(
            only_value(&headers(&PLAIN), "mcp-name"),
            Some(b"add".as_slice())
        );
        assert_eq!(only_value(&headers(&PLAIN), "mcp-other"), None);
    }
}
