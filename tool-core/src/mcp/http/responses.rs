//! The plain HTTP responses both the router and the direct `tools/call` path send.

use std::convert::Infallible;

use http_body_util::{BodyExt as _, Full, combinators::BoxBody};
use hyper::body::Bytes;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::Value;

/// A response of `status` with `body` as it is.
pub(super) fn plain(status: StatusCode, body: Bytes) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = Response::new(Full::new(body).boxed());
    *response.status_mut() = status;
    response
}

/// A response of `status` whose body is JSON text.
pub(super) fn json_bytes(status: StatusCode, body: Bytes) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = plain(status, body);
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A response of `status` whose body is `value`.
pub(super) fn json_response(
    status: StatusCode,
    value: &Value,
) -> Response<BoxBody<Bytes, Infallible>> {
    json_bytes(status, Bytes::from(value.to_string()))
}
