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

/// Apply a patch to the workspace's files.
#[tool(effect = "write")]
fn apply_patch(
    /// The patch.
    patch: String,
) -> String {
    format!("applied {} bytes", patch.len())
}

/// Replace text in a file.
#[tool(effect = "write")]
fn edit_file(
    /// The file.
    path: String,
) -> String {
    format!("edited {path}")
}

fn per_family() -> Registry {
    use toolwright::{ModelFamily, Models};
    let gpt = Models::family(ModelFamily::Gpt);
    Registry::builder()
        .with(Weather)
        .with(ApplyPatch)
        .with(EditFile)
        .defaults(ToolSettings::new().policy(AllowAll))
        .offer_only_to(gpt.clone(), ["apply_patch"])
        .offer_only_to(!gpt, ["edit_file"])
        .build()
        .unwrap()
}

fn for_model(name: &str) -> Context {
    Context::new().with(toolwright::Model::new(name))
}

#[test]
fn each_model_family_is_offered_its_own_tool_set_from_one_registry() {
    let registry = per_family();
    let gpt = for_model("gpt-5.1");
    let claude = for_model("claude-sonnet-4-5");
    assert_eq!(names(&registry, &gpt), ["weather", "apply_patch"]);
    assert_eq!(names(&registry, &claude), ["weather", "edit_file"]);
    // No model said: only the opposite of a rule matches.
    assert_eq!(names(&registry, &Context::new()), ["weather", "edit_file"]);
    // In every dialect.
    for dialect in [
        Dialect::OpenAiChat { strict: true },
        Dialect::Anthropic { strict: false },
        Dialect::GeminiJsonSchema,
    ] {
        assert_eq!(registry.definitions(&gpt, dialect).unwrap().len(), 2);
    }

    // A call to a tool the family was not offered is unknown, and not suggested.
    let refused = dispatch(
        &registry,
        &claude,
        ToolCall::new("1", "apply_patch", json!({"patch": "*** Begin Patch"})),
    );
    let error = refused.error().unwrap();
    assert_eq!(error.kind, ErrorKind::UnknownTool);
    assert!(!error.to_string().contains("apply_patch'?"), "{error}");
    assert!(
        !error
            .hint
            .as_deref()
            .unwrap_or_default()
            .contains("apply_patch"),
        "{error:?}"
    );
    let refused = dispatch(
        &registry,
        &gpt,
        ToolCall::new("2", "edit_file", json!({"path": "a.rs"})),
    );
    assert_eq!(refused.error().unwrap().kind, ErrorKind::UnknownTool);
    // The offered ones run.
    let ran = dispatch(
        &registry,
        &gpt,
        ToolCall::new("3", "apply_patch", json!({"patch": "p"})),
    );
    assert_eq!(ran.for_model(), "applied 1 bytes");
    let ran = dispatch(
        &registry,
        &claude,
        ToolCall::new("4", "edit_file", json!({"path": "a.rs"})),
    );
    assert_eq!(ran.for_model(), "edited a.rs");
}

#[test]
fn the_definitions_are_kept_per_dialect_and_tool_set() {
    let registry = per_family();
    let dialect = Dialect::OpenAiResponses { strict: true };
    let first = registry
        .definitions_shared(&for_model("gpt-5.1"), dialect)
        .unwrap();
    let again = registry
        .definitions_shared(&for_model("o3"), dialect)
        .unwrap();
    // Two GPT models are offered the same set: one list, shared.
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    let claude = registry
        .definitions_shared(&for_model("claude-opus-4-1"), dialect)
        .unwrap();
    assert!(!std::sync::Arc::ptr_eq(&first, &claude));
    assert_ne!(first, claude);
    // Each is what `definitions` renders for it.
    assert_eq!(
        *claude,
        registry
            .definitions(&for_model("claude-opus-4-1"), dialect)
            .unwrap()
    );
    let other_dialect = registry
        .definitions_shared(&for_model("gpt-5.1"), Dialect::Anthropic { strict: false })
        .unwrap();
    assert_ne!(first, other_dialect);
}

#[test]
fn a_model_rule_naming_no_tool_fails_the_build() {
    use toolwright::{ModelFamily, Models};
    let errors = Registry::builder()
        .with(ApplyPatch)
        .offer_only_to(Models::family(ModelFamily::Gpt), ["apply_pach"])
        .build()
        .err()
        .expect("an unknown name is an error");
    let message = errors.to_string();
    assert!(
        message.contains("apply_pach") && message.contains("apply_patch"),
        "{message}"
    );
}

#[test]
fn a_tool_named_by_two_rules_is_offered_to_the_models_of_either() {
    use toolwright::{ModelFamily, Models};
    let registry = Registry::builder()
        .with(ApplyPatch)
        .offer_only_to(Models::family(ModelFamily::Gpt), ["apply_patch"])
        .offer_only_to(Models::named("qwen3-coder*"), ["apply_patch"])
        .build()
        .unwrap();
    assert_eq!(names(&registry, &for_model("gpt-4.1")), ["apply_patch"]);
    assert_eq!(
        names(&registry, &for_model("qwen3-coder-30b")),
        ["apply_patch"]
    );
    assert!(names(&registry, &for_model("claude-haiku-4-5")).is_empty());
}
