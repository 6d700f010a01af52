//! Generated code is lint-clean: these tools compile under `#![deny(warnings)]` here, and
//! under `cargo clippy --all-targets -- -D warnings` (with clippy's pedantic group on
//! for this file) in `.ci/run`.

#![deny(warnings, clippy::all, clippy::pedantic)]

use toolwright::{Tool, ToolError, ToolSchema, tool};

/// How to sort.
#[derive(Debug, serde::Deserialize, ToolSchema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Newest first.
    Newest,
    /// Oldest first.
    Oldest,
}

/// A filter on labels.
#[derive(Debug, serde::Deserialize, ToolSchema)]
#[serde(tag = "kind")]
pub enum Filter {
    /// Has this label.
    Label { name: String },
    /// Any of these labels.
    AnyOf(Labels),
}

/// A set of labels.
#[derive(Debug, serde::Deserialize, ToolSchema)]
pub struct Labels {
    /// The labels.
    #[arg(min_items = 1)]
    pub names: Vec<String>,
}

/// Shared state of the tools below.
pub struct Inbox;

/// List messages.
///
/// # Arguments
/// * `order` - Sort order.
#[tool(effect = "read_only")]
#[must_use]
pub fn list_messages(
    order: Order,
    #[arg(minimum = 1, maximum = 100, default = 20)] limit: u32,
    filter: Option<Filter>,
    #[ctx] inbox: &Inbox,
) -> Vec<String> {
    let _ = (order, filter, inbox);
    vec![String::new(); limit as usize]
}

/// Archive a message.
///
/// # Errors
/// `not_found` when there is no such message.
#[tool(effect = "write", idempotent)]
pub async fn archive_message(
    /// Message id.
    #[arg(pattern = "^m-[0-9]+$")]
    id: String,
) -> Result<(), ToolError> {
    let known = std::future::ready(!id.is_empty()).await;
    if !known {
        return Err(ToolError::not_found("no such message"));
    }
    Ok(())
}

/// Forget everything.
#[tool(effect = "destructive")]
pub fn purge() {}

#[test]
fn lint_clean_tools_have_specs() {
    assert_eq!(ListMessages.spec().name, "list_messages");
    assert_eq!(ArchiveMessage.spec().name, "archive_message");
    assert_eq!(
        Purge.spec().input_schema["properties"],
        serde_json::json!({})
    );
}
