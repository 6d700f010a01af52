//! Who may call a tool, and what each way of saying so sends providers: `callers` is
//! toolwright's own (`run_code`) and leaves every provider definition as it was;
//! `hosted_code` offers a tool to the provider's code execution (Anthropic's, OpenAI's),
//! which costs Anthropic's `strict` and the lint says so; a call that hosted code made
//! is gated as such and its result names the program, as OpenAI needs to resume it; and
//! per-tool settings give callers to a tool whose attribute you cannot write.

use crate::support::block_on;

use serde_json::{Value, json};
use toolwright::code::CodeMode;
use toolwright::policy::AllowAll;
use toolwright::provider::{parse_calls, render_results};
use toolwright::{
    Callers, Context, Dialect, ErrorKind, Registry, Tool, ToolCall, ToolResult, ToolSettings, Via,
    tool,
};

/// Move money between two accounts.
#[tool(effect = "external", callers = "any")]
fn transfer(
    /// Account to take the money from.
    source: String,
    /// Account to put it in.
    target: String,
    /// Amount, in cents.
    #[arg(minimum = 1)]
    cents: u64,
) -> String {
    format!("moved {cents} from {source} to {target}")
}

/// The price of a share today, in cents.
#[tool(effect = "read_only", callers = "code")]
fn share_price(
    /// The ticker, like `ACME`.
    ticker: String,
) -> u64 {
    if ticker == "ACME" { 1234 } else { 100 }
}

/// A share's price converted into another currency, in cents.
#[tool(effect = "read_only", callers = "code", hosted_code)]
fn converted_price(
    /// The ticker, like `ACME`.
    ticker: String,
    /// ISO currency code, like `USD`.
    currency: String,
) -> u64 {
    let price = if ticker == "ACME" { 1234 } else { 100 };
    if currency == "USD" {
        price * 11 / 10
    } else {
        price
    }
}

/// Archive a ledger so it takes no more entries.
#[tool(effect = "destructive")]
fn archive_ledger(
    /// The ledger's name.
    ledger: String,
) -> String {
    format!("archived {ledger}")
}

/// Write a note into a ledger.
#[tool(effect = "write")]
fn write_note(
    /// The ledger's name.
    ledger: String,
    /// The note.
    text: String,
) -> String {
    format!("{ledger}: {text}")
}

const ALL: [Dialect; 7] = [
    Dialect::OpenAiChat { strict: true },
    Dialect::OpenAiResponses { strict: true },
    Dialect::OpenAiResponses { strict: false },
    Dialect::Anthropic { strict: true },
    Dialect::Anthropic { strict: false },
    Dialect::GeminiParameters,
    Dialect::Mcp,
];

fn find(tools: &[Value], name: &str) -> Option<Value> {
    tools
        .iter()
        .find(|t| t["name"] == name || t["function"]["name"] == name)
        .cloned()
}

fn listed(registry: &Registry, dialect: Dialect) -> Vec<Value> {
    registry.definitions(&Context::new(), dialect).unwrap()
}

fn run(registry: &Registry, program: &str) -> ToolResult {
    let call = ToolCall::new("r", "run_code", json!({ "code": program }));
    block_on(registry.dispatch(&Context::new(), call))
}

fn hosted(name: &str, arguments: Value) -> ToolCall {
    ToolCall::new("toolu_9", name, arguments).made_by_program("srvtoolu_1")
}

#[test]
fn callers_alone_changes_no_provider_definition_and_hosted_code_is_refused() {
    let registry = Registry::builder()
        .with(Transfer)
        .with(SharePrice)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    for dialect in ALL {
        let tools = listed(&registry, dialect);
        // Exactly the definition of the tool with no callers declared.
        let plain = Transfer.spec().clone().with_callers(Callers::Undeclared);
        let expected = toolwright::provider::definition(&plain, dialect).unwrap();
        assert_eq!(find(&tools, "transfer").unwrap(), expected, "{dialect:?}");
        assert!(
            find(&tools, "share_price").is_none(),
            "{dialect:?}: only programs call it, and it does not declare hosted_code"
        );
    }
    let anthropic = listed(&registry, Dialect::Anthropic { strict: true });
    assert_eq!(find(&anthropic, "transfer").unwrap()["strict"], true);
    assert!(
        registry
            .lint()
            .iter()
            .all(|finding| finding.rule != "schema-strict-dropped")
    );

    // The provider's code is not a caller these tools were offered to.
    for (name, arguments, hint) in [
        (
            "transfer",
            json!({"source": "a", "target": "b", "cents": 5}),
            "call this tool outside it",
        ),
        ("share_price", json!({"ticker": "ACME"}), "run_code"),
    ] {
        let result = block_on(registry.dispatch(&Context::new(), hosted(name, arguments)));
        let error = result.error().unwrap();
        assert_eq!(error.kind, ErrorKind::Denied, "{name}");
        assert!(
            error
                .message
                .contains("is not offered to the provider's code execution"),
            "{name}: {}",
            error.message
        );
        assert!(error.hint.as_deref().unwrap().contains(hint), "{name}");
    }
}

#[test]
fn hosted_code_offers_a_tool_to_the_providers_code_and_the_lint_says_strict_is_gone() {
    let registry = Registry::builder()
        .with(Transfer)
        .with(ConvertedPrice)
        .configure("transfer", ToolSettings::new().hosted_code(true))
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let anthropic = listed(&registry, Dialect::Anthropic { strict: true });
    let transfer = find(&anthropic, "transfer").unwrap();
    assert_eq!(
        transfer["allowed_callers"],
        json!(["direct", "code_execution_20260120"])
    );
    assert!(transfer.get("strict").is_none(), "{transfer}");
    let converted = find(&anthropic, "converted_price").unwrap();
    assert_eq!(
        converted["allowed_callers"],
        json!(["code_execution_20260120"])
    );
    let responses = listed(&registry, Dialect::OpenAiResponses { strict: true });
    assert_eq!(
        find(&responses, "transfer").unwrap()["allowed_callers"],
        json!(["direct", "programmatic"])
    );
    let converted = find(&responses, "converted_price").unwrap();
    assert_eq!(converted["allowed_callers"], json!(["programmatic"]));
    assert_eq!(
        converted["output_schema"],
        json!({"type": "integer", "minimum": 0})
    );
    for dialect in [
        Dialect::OpenAiChat { strict: true },
        Dialect::GeminiParameters,
        Dialect::Mcp,
    ] {
        let tools = listed(&registry, dialect);
        assert!(find(&tools, "converted_price").is_none(), "{dialect:?}");
        let transfer = find(&tools, "transfer").unwrap();
        assert!(transfer.get("allowed_callers").is_none(), "{dialect:?}");
    }
    let mut dropped: Vec<String> = registry
        .lint()
        .into_iter()
        .filter(|finding| finding.rule == "schema-strict-dropped")
        .map(|finding| finding.tool)
        .collect();
    dropped.sort();
    assert_eq!(dropped, ["converted_price", "transfer"]);

    // Claude's code execution calls them: read as made by that program, they run.
    let response = json!({"content": [
        {"type": "tool_use", "id": "toolu_1", "name": "converted_price",
         "input": {"ticker": "ACME", "currency": "USD"},
         "caller": {"type": "code_execution_20260120", "tool_id": "srvtoolu_7"}},
        {"type": "tool_use", "id": "toolu_2", "name": "converted_price",
         "input": {"ticker": "ACME", "currency": "USD"}, "caller": {"type": "direct"}},
    ]});
    let calls = parse_calls(Dialect::Anthropic { strict: true }, &response).unwrap();
    assert_eq!(calls[0].via, Via::HostedCode);
    assert_eq!(calls[0].program.as_deref(), Some("srvtoolu_7"));
    assert_eq!(
        (calls[1].via, calls[1].program.as_deref()),
        (Via::Model, None)
    );
    let results = block_on(registry.dispatch_batch(&Context::new(), calls));
    assert_eq!(results[0].for_model(), "1357");
    assert_eq!(results[1].error().unwrap().kind, ErrorKind::Denied);
}

/// OpenAI resumes a program only with outputs that name it: the `caller` of each
/// `function_call` comes back on its `function_call_output`.
#[test]
fn an_openai_program_gets_its_outputs_back_with_its_caller() {
    let registry = Registry::builder()
        .with(ConvertedPrice)
        .with(Transfer)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    // The shape of a Responses output with programmatic tool calling: the program's
    // calls carry `caller: {type: "program", caller_id}`; a direct call says `direct`.
    let response = json!({"output": [
        {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "converted_price",
         "arguments": "{\"ticker\":\"ACME\",\"currency\":\"EUR\"}",
         "caller": {"type": "program", "caller_id": "call_prog_1"}, "status": "completed"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_b", "name": "transfer",
         "arguments": "{\"source\":\"a\",\"target\":\"b\",\"cents\":3}",
         "caller": {"type": "direct"}, "status": "completed"},
    ]});
    let dialect = Dialect::OpenAiResponses { strict: true };
    let calls = parse_calls(dialect, &response).unwrap();
    assert_eq!(calls[0].via, Via::HostedCode);
    assert_eq!(calls[0].program.as_deref(), Some("call_prog_1"));
    let results = block_on(registry.dispatch_batch(&Context::new(), calls));
    assert_eq!(results[0].program.as_deref(), Some("call_prog_1"));
    assert_eq!(
        render_results(dialect, &results),
        [
            json!({"type": "function_call_output", "call_id": "call_a", "output": "1234",
                   "caller": {"type": "program", "caller_id": "call_prog_1"}}),
            json!({"type": "function_call_output", "call_id": "call_b",
                   "output": "moved 3 from a to b"}),
        ]
    );
}

#[test]
fn settings_give_callers_to_a_tool_whose_attribute_says_nothing() {
    let registry = Registry::builder()
        .with(Transfer)
        .with(ArchiveLedger)
        .with(WriteNote)
        .with_code_mode(CodeMode::new())
        // One tool's settings replace what it declares, either way.
        .configure("archive_ledger", ToolSettings::new().callers(Callers::Any))
        .configure("transfer", ToolSettings::new().callers(Callers::Direct))
        // A default applies only where a tool declares nothing.
        .defaults(ToolSettings::new().policy(AllowAll).callers(Callers::Code))
        .build()
        .unwrap();
    let spec = |name: &str| registry.get(name).unwrap().spec().clone();
    assert_eq!(spec("archive_ledger").callers, Callers::Any);
    assert_eq!(spec("transfer").callers, Callers::Direct);
    assert_eq!(spec("write_note").callers, Callers::Code);
    assert_eq!(
        spec("run_code").callers,
        Callers::Direct,
        "built-ins keep theirs"
    );

    // The stubs `run_code` shows are the ones the settings say.
    let listed = listed(&registry, Dialect::Mcp);
    let run_code = find(&listed, "run_code").unwrap();
    let shown = run_code["description"].as_str().unwrap();
    assert!(
        shown.contains("archive_ledger(") && shown.contains("write_note("),
        "{shown}"
    );
    assert!(!shown.contains("transfer("), "{shown}");
    assert!(find(&listed, "write_note").is_none(), "programs only");
    assert!(find(&listed, "archive_ledger").is_some());

    let result = run(
        &registry,
        "a = await archive_ledger(ledger='2025')\nb = await write_note(ledger='2026', text='opened')\n[a, b]",
    );
    assert_eq!(
        result.outcome.unwrap().to_text(),
        r#"["archived 2025","2026: opened"]"#
    );
    let result = run(&registry, "await transfer(source='a', target='b', cents=1)");
    let error = result.error().unwrap();
    assert!(error.message.contains("NameError"), "{}", error.message);

    // The model's own call to a tool offered only to programs is refused.
    let direct = ToolCall::new("c", "write_note", json!({"ledger": "x", "text": "y"}));
    let result = block_on(registry.dispatch(&Context::new(), direct));
    assert_eq!(result.error().unwrap().kind, ErrorKind::Denied);
}
