//! Annotate a few functions with `#[tool]`, print what a model is shown, and call them
//! the way an agent runtime would, including a call the model got wrong.
//!
//! Run it with `cargo run --example quickstart`.

mod tools;

use serde_json::json;
use tools::{ConvertTemperature, Notes, RefundPayment, SaveNote, SearchNotes};
use toolwright::{Arguments, Context, Tool, ToolOutput};

fn main() {
    let tools: [&dyn Tool; 4] = [&RefundPayment, &SaveNote, &SearchNotes, &ConvertTemperature];
    // The context the `#[ctx]` parameters receive: here, the notes store.
    let ctx = Context::new().with(Notes::default());

    println!("== What the model is shown ==\n");
    for tool in tools {
        let spec = tool.spec();
        println!("{} ({})", spec.name, spec.effect);
        println!(
            "{}\n",
            serde_json::to_string_pretty(&spec.input_schema).expect("a schema is JSON")
        );
    }

    println!("== Calls, as a model would send them ==\n");
    // The model got these arguments wrong: a misspelt field and a lower-case currency.
    let bad_arguments = json!({"customer": "C-100", "ammount": 2500, "currency": "usd"});
    let calls: [(&dyn Tool, Arguments<'_>); 6] = [
        (
            &ConvertTemperature,
            r#"{"value": 100, "from": "celsius", "to": "fahrenheit"}"#.into(),
        ),
        (
            &SaveNote,
            r#"{"note": {"title": "Deploy", "body": "Run `make ship`.", "tags": ["ops"]}}"#.into(),
        ),
        (&SearchNotes, r#"{"query": "ship"}"#.into()),
        (
            &RefundPayment,
            r#"{"customer": "C-100", "amount": 2500, "currency": "EUR"}"#.into(),
        ),
        // A business-rule error the tool chose: `not_found`, with a hint.
        (
            &RefundPayment,
            r#"{"customer": "C-0", "amount": 100, "currency": "USD"}"#.into(),
        ),
        (&RefundPayment, Arguments::Value(&bad_arguments)),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime starts");
    for (tool, arguments) in calls {
        let name = &tool.spec().name;
        println!(
            "-> {name} {}",
            match arguments {
                Arguments::Json(json) => json.to_owned(),
                Arguments::Value(value) => value.to_string(),
            }
        );
        let result = runtime.block_on(tool.call(&ctx, arguments));
        match result {
            Ok(ToolOutput::Text(text)) => println!("<- {text}\n"),
            Ok(ToolOutput::Json(value)) => println!("<- {value}\n"),
            Ok(ToolOutput::Empty) => println!("<- (no output)\n"),
            Ok(ToolOutput::Observation { for_model, .. }) => println!("<- {for_model}\n"),
            Err(error) => println!("<- {}\n", error.to_model_json()),
        }
    }
}
