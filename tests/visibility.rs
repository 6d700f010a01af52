//! Per-caller tool sets: a registry with a visibility rule offers each caller only some
//! of its tools, in its definitions and in dispatch, where a tool not offered is unknown
//! and never suggested.

use serde_json::json;
use toolwright::Dialect;
use toolwright::ToolSettings;
use toolwright::policy::{AllowAll, Caller, caller_holds_scopes};
use toolwright::{Context, ErrorKind, Registry, ToolCall, tool};

/// Look up the weather in a city.
#[tool(effect = "read_only")]
fn weather(
    /// The city.
    city: String,
) -> String {
    format!("sunny in {city}")
}

/// Refund an order.
#[tool(effect = "write", scopes = ["payments:write"])]
fn refund_order(
    /// The order, like `A-1`.
    order: String,
) -> String {
    format!("refunded {order}")
}

fn names(registry: &Registry, ctx: &Context) -> Vec<String> {
    registry
        .definitions(ctx, Dialect::Mcp)
        .unwrap()
        .iter()
        .map(|definition| definition["name"].as_str().unwrap().to_owned())
        .collect()
}

fn dispatch(registry: &Registry, ctx: &Context, call: ToolCall) -> toolwright::ToolResult {
    futures_executor::block_on(registry.dispatch(ctx, call))
}

#[test]
fn a_caller_is_offered_only_the_tools_whose_scopes_it_holds() {
    let registry = Registry::builder()
        .with(Weather)
        .with(RefundOrder)
        .defaults(ToolSettings::new().policy(AllowAll))
        .with_visibility(caller_holds_scopes)
        .build()
        .unwrap();
    let visitor = Context::new().with(Caller::new("visitor", [] as [&str; 0]));
    let clerk = Context::new().with(Caller::new("clerk", ["payments:write"]));

    assert_eq!(names(&registry, &visitor), ["weather"]);
    assert_eq!(names(&registry, &clerk), ["weather", "refund_order"]);
    // The harness itself sees every tool.
    assert_eq!(registry.all_definitions(Dialect::Mcp).unwrap().len(), 2);

    // A tool not offered is unknown, as if it did not exist...
    let hidden = dispatch(
        &registry,
        &visitor,
        ToolCall::new("1", "refund_order", json!({"order": "A-1"})),
    );
    assert_eq!(hidden.error().unwrap().kind, ErrorKind::UnknownTool);
    // ...and a near miss does not name it, in the message or among the tools listed.
    let typo = dispatch(
        &registry,
        &visitor,
        ToolCall::new("2", "refund_ordr", json!({"order": "A-1"})),
    );
    assert_eq!(typo.error().unwrap().kind, ErrorKind::UnknownTool);
    assert!(
        !typo.for_model().contains("refund_order"),
        "{}",
        typo.for_model()
    );
    assert!(typo.for_model().contains("weather"), "{}", typo.for_model());

    // The caller holding the scope calls it, and gets suggestions among all it sees.
    let refunded = dispatch(
        &registry,
        &clerk,
        ToolCall::new("3", "refund_order", json!({"order": "A-1"})),
    );
    assert_eq!(refunded.for_model(), "refunded A-1");
    let typo = dispatch(
        &registry,
        &clerk,
        ToolCall::new("4", "refund_ordr", json!({})),
    );
    assert!(
        typo.for_model().contains("did you mean 'refund_order'"),
        "{}",
        typo.for_model()
    );
}

/// Which step of its task the agent is at.
struct Step(u32);

#[test]
fn visibility_can_follow_anything_the_context_holds() {
    // Weather only in the first two steps.
    let registry = Registry::builder()
        .with(Weather)
        .with(RefundOrder)
        .with_visibility(|ctx, spec| {
            spec.name != "weather" || ctx.get::<Step>().is_some_and(|step| step.0 < 2)
        })
        .build()
        .unwrap();
    assert_eq!(
        names(&registry, &Context::new().with(Step(1))),
        ["weather", "refund_order"]
    );
    assert_eq!(
        names(&registry, &Context::new().with(Step(2))),
        ["refund_order"]
    );
    let late = dispatch(
        &registry,
        &Context::new().with(Step(5)),
        ToolCall::new("1", "weather", json!({"city": "Oslo"})),
    );
    assert_eq!(late.error().unwrap().kind, ErrorKind::UnknownTool);
}
