//! Annotate a few functions with `#[tool]`, print what a model is shown, and dispatch a
//! batch of calls the way an agent runtime would, including calls the model got wrong.
//!
//! Run it with `cargo run --example quickstart`.

// Two of the example tool sets (the coding tools need more crates than this example).
#[allow(dead_code)]
#[path = "tools/basics.rs"]
mod basics;
#[allow(dead_code)]
#[path = "tools/payments.rs"]
mod payments;

use basics::{ConvertTemperature, Notes, SaveNote, SearchNotes};
use payments::PaymentsDesk;
use serde_json::json;
use toolwright::approval::ApprovalDecision;
use toolwright::policy::Caller;
use toolwright::{CallArguments, Context, Registry, ToolCall};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::builder()
        .with_toolset(PaymentsDesk::shared())
        .with(SaveNote)
        .with(SearchNotes)
        .with(ConvertTemperature)
        .build()
        .unwrap();
    // The context the `#[ctx]` parameters receive: here, the notes store. Checking it at
    // start-up turns a missing value into an error now, not a failed call later.
    let ctx = Context::new()
        .with(Notes::default())
        .with(Caller::new("quickstart", ["payments:write"]));
    registry
        .check_context(&ctx)
        .expect("every #[ctx] value is supplied");

    println!("== What the model is shown ==\n");
    for spec in registry.specs() {
        println!(
            "{} ({}): {}",
            spec.name,
            spec.effect,
            spec.description.lines().next().unwrap_or_default()
        );
        println!(
            "{}\n",
            serde_json::to_string_pretty(&spec.input_schema).expect("a schema is JSON")
        );
    }

    println!("== A batch of calls, as a model would send them ==\n");
    let calls = vec![
        ToolCall::new(
            "call_1",
            "convert_temperature",
            r#"{"value": 100, "from": "celsius", "to": "fahrenheit"}"#,
        ),
        ToolCall::new(
            "call_2",
            "save_note",
            json!({"note": {"title": "Deploy", "body": "Run `make ship`.", "tags": ["ops"]}}),
        ),
        ToolCall::new("call_3", "search_notes", r#"{"query": "ship"}"#),
        // An external effect: the default policy asks a person first.
        ToolCall::new(
            "call_4",
            "refund_payment",
            r#"{"customer": "C-100", "amount": 2500, "currency": "EUR"}"#,
        ),
        // An error the tool chose: `failed`, with its message.
        ToolCall::new(
            "call_5",
            "convert_temperature",
            r#"{"value": -500, "from": "celsius", "to": "kelvin"}"#,
        ),
        // The model got these wrong: a misspelt field and a lower-case currency, and a
        // tool that does not exist.
        ToolCall::new(
            "call_6",
            "refund_payment",
            json!({"customer": "C-100", "ammount": 2500, "currency": "usd"}),
        ),
        ToolCall::new("call_7", "search_note", r#"{"query": "ship"}"#),
    ];
    let results = registry.dispatch_batch(&ctx, calls.clone()).await;
    for (call, result) in calls.iter().zip(&results) {
        let arguments = match &call.arguments {
            CallArguments::Json(text) => text.clone(),
            CallArguments::Value(value) => value.to_string(),
        };
        println!("-> {} {} {arguments}", call.id, call.name);
        println!("<- {} {}\n", result.call_id, result.for_model());
    }

    // The refund acts on the outside world, so the default policy paused it for a person.
    // The ticket is plain JSON: a real harness stores it and resumes when someone decides.
    println!("== A person approves the paused refund ==\n");
    let ticket = results
        .iter()
        .find_map(|r| r.ticket.clone())
        .expect("the refund waits for approval");
    println!(
        "ticket: {}",
        serde_json::to_string(&ticket).expect("a ticket is JSON")
    );
    let decision = ApprovalDecision::Approve {
        digest: ticket.digest.clone(),
    };
    let approved = registry.resume(&ctx, &ticket, decision).await;
    println!("<- {} {}", approved.call_id, approved.for_model());
}
