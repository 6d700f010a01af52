//! What the agent example and its test share: the coding registry, its context, the
//! scratch workspace and the recorded conversation.

#![allow(dead_code)] // the example and the tests each use a part of this

use std::path::Path;

use toolwright::capability::Writes;
use toolwright::final_result::RunHistory;
use toolwright::policy::{Decision, EffectPolicy, Policy as _, PolicyRequest};
use toolwright::{Arguments, Context, ModelFamily, Models, Registry, ToolSettings};

use crate::tools::coding::{
    ApplyPatch, EditFile, Environment, ListDir, ReadEnv, ReadFile, RunCommand, SearchFiles,
    UndoEdit, Workspace, WriteFile, final_report,
};

/// The coding agent's tools. Every call goes through the default policy (reads and
/// writes run, anything destructive or unknown waits for a person), except that this
/// agent lets `cargo check` and `cargo test` run without asking ([`allow_cargo`]).
///
/// Files are changed the way each model family was trained to: GPT models get
/// `apply_patch` (OpenAI's V4A patches), the others `edit_file` and `write_file`. The
/// model a request is for is the [`toolwright::Model`] in its context; a context with none
/// (an MCP client) gets the others' set.
pub fn coding_registry() -> toolwright::RegistryBuilder {
    let gpt = Models::family(ModelFamily::Gpt);
    Registry::builder()
        .with(ListDir)
        .with(ReadFile)
        .with(SearchFiles)
        .with(EditFile)
        .with(ApplyPatch)
        .with(UndoEdit)
        .with(WriteFile)
        .with(RunCommand)
        .with(ReadEnv)
        .configure("run_command", ToolSettings::new().policy(allow_cargo))
        .offer_only_to(gpt.clone(), ["apply_patch"])
        .offer_only_to(!gpt, ["edit_file", "write_file"])
}

/// The coding registry of the agent's own loop: the run ends with a
/// [`Report`](crate::tools::coding::Report) (`submit_result`), whose `tests_passed` must
/// agree with the last `cargo test` the run made. (An MCP server of the same tools has
/// no loop to end: it serves [`coding_registry`].)
pub fn agent_registry() -> toolwright::RegistryBuilder {
    coding_registry().with_final_result(final_report())
}

/// This agent's choice for `run_command`: `cargo check` and `cargo test` run build
/// scripts and tests, arbitrary code, so toolwright classifies them `external` and the
/// default policy would ask a person each time. This agent allows them, because
/// `run_command` runs them inside the workspace's OS sandbox (writes confined to the
/// workspace; the network is not confined). Every other command follows the effect table.
pub fn allow_cargo(request: &PolicyRequest<'_>) -> Decision {
    let arguments: Option<serde_json::Value> = match request.arguments {
        Arguments::Json(json) => serde_json::from_str(json).ok(),
        Arguments::Value(value) => Some(value.clone()),
    };
    let command = arguments
        .as_ref()
        .and_then(|arguments| arguments["command"].as_str())
        .unwrap_or_default();
    let words: Vec<&str> = command.split_whitespace().take(2).collect();
    if matches!(words.as_slice(), ["cargo", "check" | "test"]) {
        return Decision::Allow;
    }
    EffectPolicy.decide(request).unwrap_or_else(Decision::deny)
}

/// The context the tools need, for a workspace at `root`, with the run's history (what
/// the final answer is checked against).
pub fn coding_context(root: &Path) -> std::io::Result<Context> {
    Ok(Context::new()
        .with(RunHistory::new())
        .with(Workspace::new(root)?)
        .with(Writes(Workspace::new(root)?))
        .with(Environment::from_process()))
}

/// A scratch crate with a bug for the scripted run: `add` subtracts.
pub fn scratch_workspace(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace]\n",
    )?;
    std::fs::write(
        dir.join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n}\n",
    )
}

/// The recorded responses of the scripted run.
pub fn script() -> Vec<serde_json::Value> {
    serde_json::from_str(include_str!("script.json")).expect("the script is JSON")
}
