//! MCP logging (`logging/setLevel`, `notifications/message`): deprecated by SEP-2577 and
//! so marked in rmcp, kept by 2026-07-28 for requests that opt in with a log level in
//! `_meta`. Served while clients still use it; every use of the deprecated API is here.

#![allow(deprecated)]

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RequestContext, RoleServer, ServiceError};
use serde_json::Value;

use crate::feedback::Level;

/// The params of `logging/setLevel`.
pub(super) type SetLevel = rmcp::model::SetLevelRequestParams;

/// The level a 2026-07-28 request asked for in its `_meta`.
pub(super) fn requested(context: &RequestContext<RoleServer>) -> Option<Level> {
    context.meta.log_level().map(level)
}

/// The level a legacy session asked for.
pub(super) fn level_of(request: &SetLevel) -> Level {
    level(request.level)
}

fn level(level: LoggingLevel) -> Level {
    match level {
        LoggingLevel::Debug => Level::Debug,
        LoggingLevel::Info | LoggingLevel::Notice => Level::Info,
        LoggingLevel::Warning => Level::Warning,
        _ => Level::Error,
    }
}

/// Sends one log message.
pub(super) async fn send(
    peer: &Peer<RoleServer>,
    level: Level,
    message: String,
) -> Result<(), ServiceError> {
    let level = match level {
        Level::Debug => LoggingLevel::Debug,
        Level::Info => LoggingLevel::Info,
        Level::Warning => LoggingLevel::Warning,
        Level::Error => LoggingLevel::Error,
    };
    peer.notify_logging_message(LoggingMessageNotificationParam::new(
        level,
        Value::String(message),
    ))
    .await
}
