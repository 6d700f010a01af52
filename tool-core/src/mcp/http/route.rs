//! One request on the HTTP transport: the metadata document, the bearer token, the cap
//! on calls in flight, the body within its size and time, the scope challenge, and the
//! answer: a plain stateless call's own (`direct.rs`), else the SDK's (or the shutdown
//! error when the grace period ends first).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::service::Service as _;
use hyper::{Method, Request, Response, StatusCode};
use rmcp::model::ErrorData;
use serde_json::Value;

use super::connections::{Busy, Held, Stage};
use super::direct;
use super::responses::{json_bytes, json_response, plain};
use super::{Body, HTTP_PATH, Shared};
use crate::mcp::auth::{AuthError, ResourceServer, WELL_KNOWN, bearer_token};
use crate::mcp::messages::{
    MAX_MESSAGE_BYTES, MessageBytes, called_tool, error_reply, read_message, request_id,
    task_requested, too_large,
};
use crate::policy::Caller;

pub(super) async fn route(
    shared: Arc<Shared>,
    request: Request<Incoming>,
    busy: Busy,
) -> Result<Response<Body>, Infallible> {
    let hold = |response: Response<BoxBody<Bytes, Infallible>>, permit| {
        Ok(response.map(|body| Held::new(body, (busy, permit))))
    };
    let limits = shared.connections.limits();
    if shared.connections.stage() != Stage::Serving {
        // The request's id, for the client to match the answer, if its body comes soon.
        let body = Limited::new(request.into_body(), MAX_MESSAGE_BYTES).collect();
        let id = match tokio::time::timeout(Duration::from_secs(1), body).await {
            Ok(Ok(body)) => request_id(&body.to_bytes()),
            _ => Value::Null,
        };
        return hold(shutting_down(id, limits.retry_after), None);
    }
    if !shared.hosts.allow(request.uri(), request.headers()) {
        tracing::warn!(
            host = ?request.headers().get(header::HOST),
            "refused a request whose Host this server does not answer to (DNS-rebinding protection)"
        );
        let message = "forbidden: the Host header names a host this server does not answer to";
        return hold(plain(StatusCode::FORBIDDEN, message.into()), None);
    }
    let path = request.uri().path();
    if shared.auth.is_some()
        && (path == WELL_KNOWN || path.strip_prefix(WELL_KNOWN) == Some(HTTP_PATH))
    {
        let response = if request.method() == Method::GET {
            json_bytes(StatusCode::OK, shared.metadata.clone())
        } else {
            plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "GET the metadata document".into(),
            )
        };
        return hold(response, None);
    }
    if path != HTTP_PATH {
        let message = format!("not found: MCP is served at {HTTP_PATH}");
        return hold(plain(StatusCode::NOT_FOUND, message.into()), None);
    }
    let (mut parts, body) = request.into_parts();
    let caller = match &shared.auth {
        None => None,
        Some(auth) => match authenticate(auth, &parts.headers).await {
            Ok(caller) => Some(caller),
            Err(response) => return hold(*response, None),
        },
    };
    let Ok(permit) = shared.in_flight.clone().try_acquire_owned() else {
        let error = ErrorData::internal_error(
            "the server is answering as many calls as it takes; retry after the Retry-After delay",
            None,
        );
        let mut response = json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            &error_reply(Value::Null, error),
        );
        retry_after(&mut response, limits.retry_after);
        return hold(response, None);
    };
    let body = match tokio::time::timeout(
        limits.body_read_timeout,
        Limited::new(body, MAX_MESSAGE_BYTES).collect(),
    )
    .await
    {
        Ok(Ok(body)) => {
            let body = body.to_bytes();
            parts.extensions.insert(MessageBytes(body.len()));
            if let Some(task) = task_requested(&body) {
                parts.extensions.insert(task);
            }
            body
        }
        Ok(Err(_)) => {
            let reply = error_reply(Value::Null, too_large());
            return hold(
                json_response(StatusCode::PAYLOAD_TOO_LARGE, &reply),
                Some(permit),
            );
        }
        Err(_) => {
            let error = ErrorData::invalid_request(
                format!(
                    "Invalid request: the body did not arrive within {} s",
                    limits.body_read_timeout.as_secs_f64()
                ),
                None,
            );
            let mut response = json_response(
                StatusCode::REQUEST_TIMEOUT,
                &error_reply(Value::Null, error),
            );
            close_after(&mut response);
            return hold(response, Some(permit));
        }
    };
    let post = parts.method == Method::POST;
    // A plain stateless `tools/call` is answered here; everything else by rmcp.
    let direct = post.then(|| direct::read(&shared, &parts, &body)).flatten();
    // The caller's view of the server's context, built once for the checks below and the
    // direct answer (rmcp's path builds its own from the request's extensions).
    let context = crate::mcp::call::caller_context(&shared.context, caller.as_ref());
    // The scopes a called tool needs that the token lacks: its `denied` result comes
    // with the 403 challenge that lets the client step up.
    let mut lacking = Vec::new();
    if let (Some(auth), Some(caller)) = (&shared.auth, &caller)
        && auth.scope_challenge()
        && let Some(tool) = match &direct {
            Some(call) => shared.registry.get(call.name()),
            None => called_tool(&body).and_then(|name| shared.registry.get(&name)),
        }
        // A tool this caller is not offered is unknown to it, not a scope to step up to.
        && (!shared.registry.filters() || shared.registry.offered(context.as_ref(), tool.spec()))
    {
        lacking = tool
            .spec()
            .scopes
            .iter()
            .filter(|scope| !caller.scopes.contains(*scope))
            .cloned()
            .collect();
    }
    let call = async {
        match direct {
            Some(call) => {
                let ctx = context.as_ref().unwrap_or(&shared.context);
                let answer = direct::answer(&shared, call, ctx, &parts.headers);
                Ok(Box::pin(answer).await)
            }
            None => {
                if let Some(caller) = caller {
                    parts.extensions.insert(caller);
                }
                let request = Request::from_parts(parts, Full::new(body.clone()));
                shared.sdk.call(request).await
            }
        }
    };
    let mut stage = shared.connections.watch_stage();
    let closing = stage.wait_for(|stage| *stage == Stage::Closing);
    let mut response = tokio::select! {
        response = call => match response {
            Ok(response) => response,
            Err(infallible) => match infallible {},
        },
        _ = closing => {
            return hold(shutting_down(request_id(&body), limits.retry_after), Some(permit));
        }
    };
    // The SDK answers a body it cannot read with a bare 415; say what was wrong, as a
    // JSON-RPC error with the request's id where there is one. (Parsed again only then.)
    if post
        && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE
        && let Err(Some(reply)) = read_message(&body)
    {
        return hold(json_response(StatusCode::BAD_REQUEST, &reply), Some(permit));
    }
    if !lacking.is_empty()
        && response.status() == StatusCode::OK
        && let Some(auth) = &shared.auth
    {
        let description = "the tool needs scopes this token does not carry";
        *response.status_mut() = StatusCode::FORBIDDEN;
        set_challenge(
            &mut response,
            &auth.challenge(Some(("insufficient_scope", description)), &lacking),
        );
    }
    hold(response, Some(permit))
}

/// The caller `headers` authenticate, or the response that refuses them: 401 with the
/// challenge for a missing or invalid token, 503 when it cannot be checked now, 403 for a
/// token without the scopes every request needs.
async fn authenticate(
    auth: &ResourceServer,
    headers: &hyper::HeaderMap,
) -> Result<Caller, Box<Response<BoxBody<Bytes, Infallible>>>> {
    let required = auth.required_scopes();
    let refuse = |status: StatusCode, error: Option<(&str, &str)>, scopes: &[String]| {
        let message = match error {
            Some((_, description)) => format!("Unauthorized: {description}"),
            None => "Unauthorized: this server needs an OAuth bearer token (see the WWW-Authenticate header)".to_owned(),
        };
        let reply = error_reply(Value::Null, ErrorData::invalid_request(message, None));
        let mut response = json_response(status, &reply);
        set_challenge(&mut response, &auth.challenge(error, scopes));
        Box::new(response)
    };
    let Some(header) = headers.get(header::AUTHORIZATION) else {
        return Err(refuse(StatusCode::UNAUTHORIZED, None, required));
    };
    let token = bearer_token(header.as_bytes(), auth.max_token_bytes()).map_err(|why| {
        refuse(
            StatusCode::UNAUTHORIZED,
            Some(("invalid_token", why)),
            required,
        )
    })?;
    let caller = match auth.authenticator.authenticate(token).await {
        Ok(caller) => caller,
        Err(AuthError::InvalidToken(why)) => {
            return Err(refuse(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", &why)),
                required,
            ));
        }
        Err(error @ AuthError::Unavailable(_)) => {
            tracing::warn!(%error, "a bearer token could not be checked");
            let reply = error_reply(
                Value::Null,
                ErrorData::internal_error(error.to_string(), None),
            );
            let mut response = json_response(StatusCode::SERVICE_UNAVAILABLE, &reply);
            retry_after(&mut response, Duration::from_secs(1));
            return Err(Box::new(response));
        }
    };
    let lacking: Vec<String> = required
        .iter()
        .filter(|scope| !caller.scopes.contains(*scope))
        .cloned()
        .collect();
    if !lacking.is_empty() {
        let description = "this server needs scopes the token does not carry";
        return Err(refuse(
            StatusCode::FORBIDDEN,
            Some(("insufficient_scope", description)),
            &lacking,
        ));
    }
    Ok(caller)
}

fn shutting_down(id: Value, after: Duration) -> Response<BoxBody<Bytes, Infallible>> {
    let error = ErrorData::internal_error(
        "the server is shutting down: this request was not completed (a call cut short may \
         have had part of its effect; retry with the same idempotency key to be safe)",
        None,
    );
    let mut response = json_response(StatusCode::SERVICE_UNAVAILABLE, &error_reply(id, error));
    retry_after(&mut response, after);
    close_after(&mut response);
    response
}

fn set_challenge(response: &mut Response<BoxBody<Bytes, Infallible>>, challenge: &str) {
    if let Ok(value) = HeaderValue::from_str(challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
}

fn retry_after(response: &mut Response<BoxBody<Bytes, Infallible>>, after: Duration) {
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(after.as_secs().max(1)),
    );
}

fn close_after(response: &mut Response<BoxBody<Bytes, Infallible>>) {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
}
