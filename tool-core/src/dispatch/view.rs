//! The result of a call, and what the model reads of it: the output within its budget
//! (the full output saved as an artifact when cut), or the error as compact JSON.

use super::Notes;
use crate::call::ToolResult;
use crate::output::{ModelView, OutputBudget, fit_json, fit_text, fits};
use crate::registry::Registry;
use crate::tool::{ToolOutcome, ToolOutput};

impl Registry {
    /// The result of call `call_id` to `name`, made by the hosted `program` if any. (Not
    /// the `ToolCall` itself: moving it here would copy all of it, arguments included,
    /// for three fields.)
    #[inline]
    pub(crate) fn finish(
        &self,
        (call_id, name, program): (String, String, Option<String>),
        outcome: ToolOutcome,
        notes: Notes<'_>,
    ) -> ToolResult {
        let budget = match notes.entry {
            Some(entry) => entry.settings.budget,
            None => self.settings.defaults.budget.unwrap_or_default(),
        };
        let view = crate::telemetry::in_phase!(
            notes.span,
            "fit_output",
            self.model_view(&name, &call_id, &outcome, budget)
        );
        let span = &notes.span;
        if !span.is_disabled() {
            if let Err(error) = &outcome {
                // OpenTelemetry's rule for a failed operation: status Error, with a short
                // description that carries no argument values (the category alone).
                span.record("error.type", error.kind.as_str());
                span.record("otel.status_code", "ERROR");
                span.record("otel.status_description", error.kind.as_str());
            }
            if let Some(truncated) = view.as_ref().and_then(|view| view.truncated.as_ref()) {
                span.record("toolwright.output.truncated", true);
                span.record("toolwright.output.cut", truncated.cut.as_str());
                let shown = view.as_ref().map_or(0, |view| view.text.len());
                // Signed: tracing-opentelemetry records unsigned integers as text.
                let shown = i64::try_from(shown).unwrap_or(i64::MAX);
                span.record("toolwright.output.shown_bytes", shown);
            }
            let telemetry = &self.settings.telemetry;
            if telemetry.record_results {
                let text = match &view {
                    Some(view) => view.text.as_str(),
                    None => crate::call::own_text(&outcome),
                };
                span.record("gen_ai.tool.call.result", telemetry.recorded(text));
            }
        }
        #[cfg(feature = "otel")]
        if let Some(started) = notes.started {
            crate::otel::record_call(
                &name,
                started,
                &outcome,
                notes.duplicate,
                view.as_ref().is_some_and(|view| view.truncated.is_some()),
            );
        }
        ToolResult {
            call_id,
            name,
            outcome,
            view,
            repairs: notes.repairs,
            effect: notes.effect,
            duplicate: notes.duplicate,
            ticket: notes.ticket,
            source: notes.entry.and_then(|entry| entry.source.clone()),
            program,
        }
    }

    /// The model's view, or `None` when it is the output's own text (no copy made).
    #[inline]
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
