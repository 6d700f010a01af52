//! The result of a call, and what the model reads of it: the output within its budget
//! (the full output saved as an artifact when cut), or the error as compact JSON.

use super::{Notes, ToolResult};
use crate::output::{ModelView, OutputBudget, fit_json, fit_text, fits};
use crate::registry::Registry;
use crate::tool::{ToolOutcome, ToolOutput};

impl Registry {
    /// The result of call `call_id` to `name`. (Not the `ToolCall` itself: moving it
    /// here would copy all of it, arguments included, for two strings.)
    pub(super) fn finish(
        &self,
        call_id: String,
        name: String,
        outcome: ToolOutcome,
        notes: Notes,
    ) -> ToolResult {
        let own = self
            .tool_settings(&name)
            .and_then(|settings| settings.budget);
        let budget = own.unwrap_or(self.settings.budget);
        let view = self.model_view(&name, &call_id, &outcome, budget);
        ToolResult {
            call_id,
            name,
            outcome,
            view,
            repairs: notes.repairs,
            effect: notes.effect,
            duplicate: notes.duplicate,
            ticket: notes.ticket,
        }
    }

    /// The model's view, or `None` when it is the output's own text (no copy made).
    pub(super) fn model_view(
        &self,
        name: &str,
        call_id: &str,
        outcome: &ToolOutcome,
        budget: OutputBudget,
    ) -> Option<ModelView> {
        let store = &self.settings.artifacts;
        let save = |content: &str| store.save(name, call_id, content);
        match outcome {
            Ok(
                ToolOutput::Text(text)
                | ToolOutput::Observation {
                    for_model: text, ..
                },
            ) => (!fits(text, budget)).then(|| fit_text(text.clone(), budget, save)),
            Ok(ToolOutput::Json(value)) => Some(fit_json(value, budget, save)),
            Ok(ToolOutput::Content(blocks)) => {
                Some(fit_text(crate::content::text_of(blocks), budget, save))
            }
            Ok(ToolOutput::Empty) => None,
            Err(error) => {
                let text = error.to_model_text();
                if fits(&text, budget) {
                    Some(ModelView {
                        text,
                        truncated: None,
                    })
                } else {
                    Some(fit_json(&error.to_model_json(), budget, save))
                }
            }
        }
    }
}
