//! A coding agent: the workspace tools, a model, and the loop between them.
//!
//! `cargo run --example agent --features agent` runs a scripted conversation (recorded Chat Completions
//! responses, `examples/agent/script.json`) against a scratch workspace, so it works
//! without a network. Point it at a real model with environment variables:
//!
//! ```sh
//! TOOLWRIGHT_BASE_URL=http://localhost:1234/v1 TOOLWRIGHT_MODEL=qwen3-8b cargo run --example agent --features agent
//! TOOLWRIGHT_API=anthropic TOOLWRIGHT_BASE_URL=https://api.anthropic.com \
//!   TOOLWRIGHT_API_KEY=... TOOLWRIGHT_MODEL=claude-sonnet-4-5 cargo run --example agent --features agent
//! ```

#[path = "../tools/mod.rs"]
mod tools;

mod chat;
mod setup;

use chat::{Api, HttpModel, Model, ScriptedModel};
use setup::{agent_registry, coding_context, scratch_workspace, script};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), String> {
    let base_url = std::env::var("TOOLWRIGHT_BASE_URL").ok();
    let api = match std::env::var("TOOLWRIGHT_API").as_deref() {
        Ok("anthropic") => Api::Anthropic,
        _ => Api::OpenAiChat,
    };
    let model_name = std::env::var("TOOLWRIGHT_MODEL").unwrap_or_else(|_| "scripted".to_owned());
    let (model, workspace): (Box<dyn Model>, std::path::PathBuf) = match base_url {
        Some(base_url) => {
            let model = HttpModel {
                base_url,
                api_key: std::env::var("TOOLWRIGHT_API_KEY").ok(),
                api,
            };
            (
                Box::new(model),
                std::env::current_dir().map_err(|e| e.to_string())?,
            )
        }
        None => {
            let dir = std::env::temp_dir().join(format!("toolwright-agent-{}", std::process::id()));
            scratch_workspace(&dir).map_err(|e| e.to_string())?;
            println!(
                "(no TOOLWRIGHT_BASE_URL: replaying a recorded conversation in {})\n",
                dir.display()
            );
            (Box::new(ScriptedModel::new(script())), dir)
        }
    };
    let registry = agent_registry().build().map_err(|e| e.to_string())?;
    // The tools offered depend on the model's family: GPT models edit with apply_patch.
    let ctx = coding_context(&workspace)
        .map_err(|e| e.to_string())?
        .with(toolwright::Model::new(&model_name));
    registry.check_context(&ctx).map_err(|e| e.to_string())?;
    let task =
        "The tests of this crate fail. Find the bug in src/lib.rs, fix it, and run the tests.";
    let transcript = chat::run(&registry, &ctx, &*model, api, &model_name, task, 12).await?;
    for message in &transcript.messages {
        println!("{}", serde_json::to_string(message).unwrap_or_default());
    }
    if let Some(answer) = &transcript.answer {
        println!("\nanswer: {answer}");
    }
    match &transcript.result {
        Some(result) => println!(
            "\nresult: {}",
            serde_json::to_string_pretty(result).unwrap_or_default()
        ),
        None => println!("\n(no result within the step limit)"),
    }
    Ok(())
}
