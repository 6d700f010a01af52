//! The coding agent's final answer (`submit_result`): a [`Report`] whose claim that the
//! tests pass is checked against the run's last `cargo test`.

use serde::{Deserialize, Serialize};
use toolwright::final_result::{FinalResult, RecordedCall, RunHistory};
use toolwright::{ToolOutput, ToolSchema};

/// The final result of a coding run, as the tool `submit_result`, checked by
/// [`tests_claim`].
pub fn final_report() -> FinalResult<Report> {
    FinalResult::new(
        "submit_result",
        "Submit the result of the task once the work is done: what changed, the files \
         changed, and whether the tests pass. This ends the run; nothing after it is read.",
    )
    .example(serde_json::json!({
        "summary": "`add` subtracted its arguments; it adds them now.",
        "files_changed": ["src/lib.rs"],
        "tests_passed": true
    }))
    .check(tests_claim)
}

/// The coding agent's final answer.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToolSchema)]
pub struct Report {
    /// What was wrong and what changed, in a few sentences.
    pub summary: String,
    /// The files changed, relative to the workspace.
    pub files_changed: Vec<String>,
    /// Whether the tests pass after the change (run them with `cargo test` first).
    pub tests_passed: bool,
}

/// The check of a [`Report`]'s claim: `tests_passed: true` needs a `cargo test` in this run
/// that exited with 0, and no file changed after it: a model cannot claim what it did not
/// see.
pub fn tests_claim(report: &Report, history: &RunHistory) -> Result<(), String> {
    if !report.tests_passed {
        return Ok(());
    }
    let calls = history.calls();
    let is_test = |call: &RecordedCall| {
        call.name == "run_command"
            && call.arguments["command"]
                .as_str()
                .is_some_and(|command| command.split_whitespace().take(2).eq(["cargo", "test"]))
    };
    let Some(at) = calls.iter().rposition(|call| is_test(call)) else {
        return Err(
            "tests_passed is true, but no `cargo test` ran in this run: run the tests \
                    with run_command first"
                .to_owned(),
        );
    };
    let exit_code = match &calls[at].outcome {
        Ok(ToolOutput::Json(output)) => output["exit_code"].as_i64(),
        _ => None,
    };
    if exit_code != Some(0) {
        let how = exit_code.map_or("did not finish".to_owned(), |code| {
            format!("exited with {code}")
        });
        return Err(format!(
            "tests_passed is true, but the last `cargo test` {how}: fix the failures and run \
             the tests again, or report tests_passed: false"
        ));
    }
    let changed_since = calls[at + 1..].iter().find(|call| {
        call.outcome.is_ok()
            && matches!(
                call.name.as_str(),
                "edit_file" | "write_file" | "apply_patch" | "undo_edit"
            )
    });
    if let Some(change) = changed_since {
        return Err(format!(
            "tests_passed is true, but {} changed files after the last `cargo test`: run the \
             tests again",
            change.name
        ));
    }
    Ok(())
}
