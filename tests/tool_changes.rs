//! Turning tools off and on while serving: a tool turned off is neither listed nor
//! callable, MCP clients hear of each change (`notifications/tools/list_changed` on a
//! 2025 session, on a `subscriptions/listen` stream on 2026-07-28), and the tools list's
//! cache hints say whether it may change.

use std::time::Duration;

use serde_json::json;
use toolwright::Dialect;
use toolwright::ToolSettings;
use toolwright::mcp::McpServer;
use toolwright::policy::AllowAll;
use toolwright::{Context, ErrorKind, Registry, RegistryError, ToolCall, tool};

use crate::support;
use crate::support::wire;

use wire::Wire;

/// Look up the weather in a city.
#[tool(effect = "read_only")]
fn weather(
    /// The city.
    city: String,
) -> String {
    format!("sunny in {city}")
}

/// Close the day's books.
#[tool(effect = "write")]
fn close_books() -> String {
    "closed".into()
}

fn registry() -> Registry {
    Registry::builder()
        .with(Weather)
        .with(CloseBooks)
        .defaults(ToolSettings::new().policy(AllowAll))
        .with_runtime_toggles()
        .build()
        .unwrap()
}

fn names(registry: &Registry) -> Vec<String> {
    registry
        .definitions(&Context::new(), Dialect::OpenAiResponses { strict: true })
        .unwrap()
        .iter()
        .map(|definition| {
            let name = &definition["name"];
            name.as_str()
                .or_else(|| definition["function"]["name"].as_str())
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn a_tool_turned_off_is_neither_offered_nor_called_nor_suggested() {
    let registry = registry();
    let heard = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = heard.clone();
    registry.on_tools_changed(move || {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    });

    assert_eq!(registry.set_enabled("close_books", false), Ok(true));
    assert_eq!(
        registry.set_enabled("close_books", false),
        Ok(false),
        "no change"
    );
    assert_eq!(heard.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(names(&registry), ["weather"]);
    assert!(!registry.is_enabled("close_books"));
    // The model is sent `definitions`; `all_definitions`, for snapshots and checks, keeps it.
    let all = registry
        .all_definitions(Dialect::OpenAiResponses { strict: true })
        .unwrap();
    assert_eq!(all.len(), 2);

    let ctx = Context::new();
    let call = |name: &str| {
        futures_executor::block_on(registry.dispatch(&ctx, ToolCall::new("1", name, json!({}))))
    };
    let off = call("close_books");
    assert_eq!(off.error().unwrap().kind, ErrorKind::UnknownTool);
    let typo = call("close_book");
    assert!(
        !typo.for_model().contains("close_books"),
        "{}",
        typo.for_model()
    );

    assert_eq!(registry.set_enabled("close_books", true), Ok(true));
    assert_eq!(call("close_books").for_model(), "closed");
    assert_eq!(names(&registry), ["weather", "close_books"]);
    assert_eq!(heard.load(std::sync::atomic::Ordering::SeqCst), 2);

    // A name the registry lacks is an error naming the closest.
    let Err(RegistryError::UnknownTool { closest, .. }) = registry.set_enabled("close_bookz", true)
    else {
        panic!("an unknown name is an error")
    };
    assert_eq!(closest.as_deref(), Some("close_books"));
}

#[test]
fn a_registry_that_promised_a_fixed_list_refuses_to_change_it() {
    let registry = Registry::builder().with(Weather).build().unwrap();
    let error = registry.set_enabled("weather", false).unwrap_err();
    assert!(
        matches!(error, RegistryError::TogglesOff { .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("with_runtime_toggles"),
        "{error}"
    );
    assert!(registry.is_enabled("weather"));
}

fn server(registry: Registry) -> McpServer {
    McpServer::new(registry, Context::new()).unwrap()
}

#[tokio::test]
async fn a_2025_session_hears_that_the_list_changed() {
    let server = server(registry());
    let registry = server.clone();
    let mut wire = Wire::serve(server);
    let initialized = wire.initialize(1).await;
    assert_eq!(
        initialized["result"]["capabilities"]["tools"]["listChanged"], true,
        "{initialized}"
    );
    wire.send(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#)
        .await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    assert_eq!(wire.list(list.clone()).await.0, ["weather", "close_books"]);

    registry
        .registry()
        .set_enabled("close_books", false)
        .unwrap();
    let notification = wire.next().await;
    assert_eq!(notification["method"], "notifications/tools/list_changed");
    assert_eq!(wire.list(list.clone()).await.0, ["weather"]);

    // No change, no notification.
    registry
        .registry()
        .set_enabled("close_books", false)
        .unwrap();
    assert!(wire.quiet_for(Duration::from_millis(200)).await);
    registry
        .registry()
        .set_enabled("close_books", true)
        .unwrap();
    assert_eq!(
        wire.next().await["method"],
        "notifications/tools/list_changed"
    );
    assert_eq!(wire.list(list).await.0, ["weather", "close_books"]);
}

#[tokio::test]
async fn a_2026_client_subscribes_and_is_told_not_to_cache() {
    let server = server(registry());
    let registry = server.clone();
    let mut wire = Wire::serve(server);
    let (names, listed) = wire
        .list(support::stateless(1, "tools/list", json!({})))
        .await;
    assert_eq!(names, ["weather", "close_books"]);
    // The list may change at any time: not to be kept, and the same for every client.
    assert_eq!(listed["ttlMs"], 0, "{listed}");
    assert_eq!(listed["cacheScope"], "public", "{listed}");

    wire.send(&support::stateless(
        2,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    ))
    .await;
    let acknowledged = wire.next().await;
    assert_eq!(
        acknowledged["method"], "notifications/subscriptions/acknowledged",
        "{acknowledged}"
    );
    assert_eq!(
        acknowledged["params"]["notifications"]["toolsListChanged"], true,
        "{acknowledged}"
    );

    registry.registry().set_enabled("weather", false).unwrap();
    let notification = wire.next().await;
    assert_eq!(notification["method"], "notifications/tools/list_changed");
    assert_eq!(
        notification["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 2,
        "{notification}"
    );
    let (names, _) = wire
        .list(support::stateless(3, "tools/list", json!({})))
        .await;
    assert_eq!(names, ["close_books"]);
}

#[tokio::test]
async fn a_fixed_registry_is_cacheable_for_an_hour_and_promises_no_changes() {
    let mut wire = Wire::serve(server(Registry::builder().with(Weather).build().unwrap()));
    let (_, listed) = wire
        .list(support::stateless(1, "tools/list", json!({})))
        .await;
    assert_eq!(listed["ttlMs"], 3_600_000, "{listed}");
    assert_eq!(listed["cacheScope"], "public", "{listed}");
    let initialized = wire.initialize(2).await;
    assert!(
        initialized["result"]["capabilities"]["tools"]
            .get("listChanged")
            .is_none_or(|changed| changed == false),
        "{initialized}"
    );
}
