//! One reading of a server's tool list: every page asked for as plain JSON (so one
//! malformed entry costs only itself, never the page), each entry read on its own, and
//! every count the server controls capped before it is kept: pages, cursors, entries.

use std::collections::HashSet;

use rmcp::model::{ClientRequest, CustomRequest, ServerResult};
use serde_json::{Value, json};

use super::import::{Finding, FindingKind, ImportLimits};
use super::link::{ConnectError, Link};
use crate::lint::screen;

/// The most pages one reading follows; a listing with more fails (a server whose cursors
/// never end).
pub const MAX_PAGES: usize = 100;

/// The longest cursor followed, in bytes.
pub const MAX_CURSOR_BYTES: usize = 4096;

/// The most findings one reading keeps about entries it could not read; past it, one
/// finding counts the rest.
const MAX_ENTRY_FINDINGS: usize = 100;

/// What one reading of the list gave: the entries that read as tools, and why the others
/// did not (their findings), and how many entries there were past the tool limit.
#[derive(Debug, Default)]
pub(super) struct Listing {
    pub(super) tools: Vec<rmcp::model::Tool>,
    pub(super) refused: Vec<Finding>,
}

/// Every page of the server's tool list, asked again once with new credentials when the
/// server refuses for want of authorization.
pub(super) async fn list(link: &Link, limits: &ImportLimits) -> Result<Listing, ConnectError> {
    let mut renewed = 0;
    loop {
        let (service, _) = link.service().await?;
        let seen = link.renewals();
        let error = match tokio::time::timeout(link.connect_timeout, read_pages(&service, limits))
            .await
            .map_err(|_| ConnectError::Timeout(link.connect_timeout))?
        {
            Ok(listing) => return Ok(listing),
            Err(Failed::Listing(reason)) => return Err(ConnectError::List(reason)),
            Err(Failed::Service(error)) => error,
        };
        let Some(challenge) = super::renewal::auth_challenge(&error) else {
            return Err(ConnectError::List(super::link::with_causes(&error)));
        };
        link.renew_at_most(&mut renewed, challenge, seen)
            .await
            .map_err(ConnectError::Auth)?;
    }
}

/// Why a reading failed: the server's answer broke a rule here, or the request failed.
enum Failed {
    Listing(String),
    Service(rmcp::service::ServiceError),
}

/// The pages, first to last, each read as it arrives and then dropped.
async fn read_pages(
    service: &super::link::Running,
    limits: &ImportLimits,
) -> Result<Listing, Failed> {
    let mut listing = Listing::default();
    let mut cursors: HashSet<String> = HashSet::new();
    let mut cursor: Option<String> = None;
    let mut entries = 0usize;
    let mut over_limit = 0usize;
    let mut unreadable = 0usize;
    for page in 1..=MAX_PAGES {
        let params = cursor.as_ref().map(|cursor| json!({ "cursor": cursor }));
        let result = service
            .send_request(ClientRequest::CustomRequest(CustomRequest::new(
                "tools/list",
                params,
            )))
            .await
            .map_err(Failed::Service)?;
        let page_value = match result {
            ServerResult::CustomResult(custom) => custom.0,
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        };
        let (items, next) = read_page(page_value, page)?;
        for entry in items {
            entries += 1;
            match read_entry(entry, entries) {
                Ok(_) if listing.tools.len() == limits.tools => over_limit += 1,
                Ok(tool) => listing.tools.push(tool),
                Err(finding) if listing.refused.len() < MAX_ENTRY_FINDINGS => {
                    listing.refused.push(finding);
                }
                Err(_) => unreadable += 1,
            }
        }
        let Some(next) = next else {
            if over_limit > 0 {
                listing.refused.push(Finding::about_server(
                    FindingKind::Refused,
                    format!(
                        "{over_limit} more tool(s) listed past the limit of {} tools from one server were not read",
                        limits.tools
                    ),
                ));
            }
            if unreadable > 0 {
                listing.refused.push(Finding::about_server(
                    FindingKind::Refused,
                    format!("{unreadable} more entries could not be read as tools"),
                ));
            }
            return Ok(listing);
        };
        if !cursors.insert(next.clone()) {
            return Err(Failed::Listing(format!(
                "the server's cursors go round in a loop: it sent the cursor \"{}\" a second time, on page {page}",
                screen::escape(&next)
            )));
        }
        cursor = Some(next);
    }
    Err(Failed::Listing(format!(
        "the server's list has more than {MAX_PAGES} pages (the cap on one listing); the last cursor was \"{}\"",
        screen::escape(cursor.as_deref().unwrap_or_default())
    )))
}

/// A page's entries and its next cursor, or why the page is not a tool list.
fn read_page(page: Value, number: usize) -> Result<(Vec<Value>, Option<String>), Failed> {
    let Value::Object(mut page) = page else {
        return Err(Failed::Listing(format!(
            "page {number} of the tool list is not a JSON object"
        )));
    };
    let items = match page.remove("tools") {
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(Failed::Listing(format!(
                "page {number} of the tool list has a `tools` that is not an array"
            )));
        }
        None => {
            return Err(Failed::Listing(format!(
                "page {number} of the tool list has no `tools`"
            )));
        }
    };
    let next = match page.remove("nextCursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(cursor)) if cursor.len() > MAX_CURSOR_BYTES => {
            return Err(Failed::Listing(format!(
                "page {number} of the tool list has a cursor of {} bytes, over the cap of {MAX_CURSOR_BYTES}",
                cursor.len()
            )));
        }
        Some(Value::String(cursor)) => Some(cursor),
        Some(_) => {
            return Err(Failed::Listing(format!(
                "page {number} of the tool list has a `nextCursor` that is not a string"
            )));
        }
    };
    Ok((items, next))
}

/// One entry as a tool, or a finding saying what is wrong with it (the entry's name, or
/// its place in the list when it has none).
pub(super) fn read_entry(entry: Value, position: usize) -> Result<rmcp::model::Tool, Finding> {
    let name = match entry.get("name") {
        Some(Value::String(name)) => name.clone(),
        _ => format!("(entry {position} of the list)"),
    };
    let refuse = |detail: String| Finding::new(&name, FindingKind::Refused, detail);
    let Value::Object(object) = &entry else {
        return Err(refuse("the entry is not a JSON object".to_owned()));
    };
    match object.get("name") {
        Some(Value::String(name)) if !name.is_empty() => {}
        Some(Value::String(_)) => return Err(refuse("its name is empty".to_owned())),
        Some(other) => {
            return Err(refuse(format!(
                "its `name` is {}, not a string",
                kind_of(other)
            )));
        }
        None => return Err(refuse("it has no `name`".to_owned())),
    }
    match object.get("inputSchema") {
        Some(Value::Object(_)) => {}
        Some(other) => {
            return Err(refuse(format!(
                "its `inputSchema` is {}, not an object schema",
                kind_of(other)
            )));
        }
        None => return Err(refuse("it has no `inputSchema`".to_owned())),
    }
    serde_path_to_error::deserialize::<_, rmcp::model::Tool>(entry).map_err(|error| {
        refuse(format!(
            "`{}` is not as MCP defines it: {}",
            error.path(),
            screen::escape(&error.inner().to_string())
        ))
    })
}

/// What kind of JSON value `value` is, for a reason.
fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(value) => format!("`{value}`"),
        Value::Number(number) => format!("the number {number}"),
        Value::String(_) => "a string".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(entry: Value) -> String {
        read_entry(entry, 3).unwrap_err().detail
    }

    #[test]
    fn each_malformed_entry_is_refused_with_what_is_wrong() {
        assert!(refused(json!({"name": "a", "inputSchema": true})).contains("`true`"));
        assert!(refused(json!({"name": "a"})).contains("no `inputSchema`"));
        let wrong = refused(json!({
            "name": "a",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": "yes"}
        }));
        assert!(wrong.contains("annotations.readOnlyHint"), "{wrong}");
        let unnamed = read_entry(json!({"inputSchema": {}}), 3).unwrap_err();
        assert_eq!(unnamed.tool, "(entry 3 of the list)");
        assert!(read_entry(json!([1]), 1).is_err());
        assert!(read_entry(json!({"name": "ok", "inputSchema": {"type": "object"}}), 1).is_ok());
    }

    #[test]
    fn a_page_is_read_or_refused_whole_only_when_it_is_not_a_list() {
        let (items, next) = read_page(json!({"tools": [1, 2], "nextCursor": "p2"}), 1)
            .ok()
            .unwrap();
        assert_eq!((items.len(), next.as_deref()), (2, Some("p2")));
        assert!(read_page(json!({"tools": {}}), 1).is_err());
        assert!(read_page(json!({"tools": [], "nextCursor": 7}), 1).is_err());
        let long = "c".repeat(MAX_CURSOR_BYTES + 1);
        assert!(read_page(json!({"tools": [], "nextCursor": long}), 1).is_err());
    }
}
