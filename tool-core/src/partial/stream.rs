//! A streamed model turn ([`StreamedTurn`]): the provider's events, in its own shape,
//! assembled into the turn's calls, each read as it is written ([`PartialCall`]), and
//! what the stream said of its end. A call the stream did not finish is answered, never
//! run; a read-only call whose arguments are complete may start before the turn ends.

use serde_json::Value;

use super::paths::PathWriter;
use super::{PartialCall, Verdict};
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::effect::Effect;
use crate::registry::Registry;

/// One model turn streamed by a provider: feed it each event ([`StreamedTurn::event`]),
/// ask it which calls may start early ([`StreamedTurn::take_ready`]) or whether one is
/// already hopeless, and, once the stream ends, [`StreamedTurn::finish`] answers every
/// call of the turn in the order the model wrote them.
///
/// The events, one JSON value each (the `data:` of a server-sent event; for Chat
/// Completions a chunk):
///
/// - Anthropic Messages: `content_block_start` with a `tool_use` block,
///   `content_block_delta` with `input_json_delta` (`partial_json`),
///   `content_block_stop`, `message_delta` (`delta.stop_reason`); `error`.
/// - OpenAI Responses: `response.output_item.added` (a `function_call` item),
///   `response.function_call_arguments.delta` (`item_id`, `delta`),
///   `response.function_call_arguments.done`, `response.output_item.done`,
///   `response.completed`, `response.incomplete` (`incomplete_details.reason`),
///   `response.failed`.
/// - OpenAI Chat Completions: chunks whose `choices[0].delta.tool_calls[]` carry an
///   `index`, the `id` and `function.name` on the first, and `function.arguments`
///   fragments; `choices[0].finish_reason` at the end.
///
/// A stop for the output limit (`max_tokens`, `max_output_tokens`, `length`) cuts the
/// call the model was writing; a stream that ends with no stop at all (a dropped
/// connection) cuts every call it did not close. Either way the call is answered: the
/// model reads that it was cut and must write it again.
pub struct StreamedTurn<'r> {
    registry: &'r Registry,
    ctx: &'r Context,
    dialect: Dialect,
    calls: Vec<Streamed<'r>>,
    /// How the stream ended: `None` while it runs (or if it was dropped), then
    /// `Some(None)` for a finished turn or `Some(Some(reason))` for a cut one.
    ended: Option<Option<String>>,
    /// Whether the last thing the model began writing is a call (not text after it).
    writing_a_call: bool,
    /// Whether read-only calls may start before the turn ends.
    early: bool,
    /// For Gemini's arguments streamed at paths: the text of the call being written.
    paths: Option<PathWriter>,
}

/// One call of the turn.
struct Streamed<'r> {
    /// How the provider's events name it: Anthropic's content block `index`, the
    /// Responses item's `id`, Chat's tool call `index`.
    key: String,
    call: PartialCall<'r>,
    /// The provider said it is done (`content_block_stop`, `...arguments.done`).
    closed: bool,
    /// Started early ([`StreamedTurn::take_ready`]).
    started: bool,
}

impl Registry {
    /// A turn the provider streams in `dialect`, for the caller and conversation in
    /// `ctx`.
    pub fn streamed_turn<'r>(&'r self, ctx: &'r Context, dialect: Dialect) -> StreamedTurn<'r> {
        StreamedTurn {
            registry: self,
            ctx,
            dialect,
            calls: Vec::new(),
            ended: None,
            writing_a_call: false,
            early: false,
            paths: None,
        }
    }
}

impl<'r> StreamedTurn<'r> {
    /// Lets [`StreamedTurn::take_ready`] hand out read-only calls as soon as their
    /// arguments are complete and valid so far, before the turn ends: their results are
    /// ready sooner. Never a call of any other effect (a write could not be taken back if
    /// the turn is then cut), nor a `dynamic` tool's.
    #[must_use]
    pub fn start_reads_early(mut self) -> Self {
        self.early = true;
        self
    }

    /// Reads one event of the stream. Events that say nothing of tool calls (text,
    /// thinking, usage, pings) are passed over.
    pub fn event(&mut self, event: &Value) {
        match self.dialect {
            Dialect::Anthropic { .. } => self.anthropic(event),
            Dialect::OpenAiResponses { .. } => self.responses(event),
            Dialect::OpenAiChat { .. } => self.chat(event),
            Dialect::GeminiParameters | Dialect::GeminiJsonSchema => self.gemini(event),
            // MCP has no streamed input.
            Dialect::Mcp => {}
        }
    }

    /// Arguments of a call from a source that is not a provider's own events (a
    /// framework's stream): `text` is either the call's arguments so far or the next
    /// piece of them (a text the call's own text so far begins is the whole so far). The
    /// call is the one begun with `id`; a piece with no `name` that names no call begun
    /// (frameworks make up ids for the pieces after the first: genai's `call_0`) belongs
    /// to the call begun last; a piece with a `name` and a new `id` begins a call.
    pub fn call_text(&mut self, id: &str, name: &str, text: &str) {
        let known = self.calls.iter().any(|streamed| streamed.key == id);
        let key = if known {
            id.to_owned()
        } else if name.is_empty() {
            match self.calls.last() {
                Some(last) => last.key.clone(),
                None => return,
            }
        } else {
            self.begin(id.to_owned(), id, name);
            id.to_owned()
        };
        let Some(streamed) = self.find(&key) else {
            return;
        };
        let so_far = streamed.call.text();
        let piece = match text.strip_prefix(so_far) {
            Some(rest) if !so_far.is_empty() => rest.to_owned(),
            _ => text.to_owned(),
        };
        streamed.call.push(&piece);
    }

    /// The end of a stream read through [`StreamedTurn::call_text`]: `cut` names the stop
    /// that cut the turn short (its output limit), `None` a finished turn; the calls
    /// are closed.
    pub fn ended(&mut self, cut: Option<&str>) {
        let keys: Vec<String> = self.calls.iter().map(|s| s.key.clone()).collect();
        for key in keys {
            self.close(&key);
        }
        self.end(cut.map(str::to_owned));
    }

    /// The calls so far, in the order the model began them.
    pub fn calls(&self) -> impl Iterator<Item = &PartialCall<'r>> {
        self.calls.iter().map(|streamed| &streamed.call)
    }

    /// Whether some call can no longer be valid: the harness may stop the stream now
    /// (and [`finish`](StreamedTurn::finish) answers every call).
    pub fn any_hopeless(&self) -> bool {
        self.calls
            .iter()
            .any(|streamed| matches!(streamed.call.verdict(), Verdict::Hopeless { .. }))
    }

    /// With [`StreamedTurn::start_reads_early`]: the read-only calls whose arguments
    /// are complete and valid so far, not handed out before. Dispatch them now, and give
    /// their results to [`finish`](StreamedTurn::finish).
    pub fn take_ready(&mut self) -> Vec<ToolCall> {
        if !self.early {
            return Vec::new();
        }
        let registry = self.registry;
        self.calls
            .iter_mut()
            .filter(|streamed| {
                !streamed.started
                    && streamed.call.verdict() == &Verdict::Complete
                    && registry
                        .get(streamed.call.name())
                        .is_some_and(|tool| tool.spec().effect == Effect::ReadOnly)
            })
            .filter_map(|streamed| {
                streamed.started = true;
                streamed.call.to_call()
            })
            .collect()
    }

    /// The stream has ended: every call of the turn answered, in the order the model
    /// wrote them. The results of the calls started early are `started` (matched by
    /// call id); the other complete calls run as one batch
    /// ([`Registry::dispatch_batch`]); a call that was cut, or could not be valid, is
    /// answered without running.
    pub async fn finish(self, started: Vec<ToolResult>) -> Vec<ToolResult> {
        let (registry, ctx) = (self.registry, self.ctx);
        let cut = self.cut_calls();
        let mut answers: Vec<Option<ToolResult>> = Vec::with_capacity(self.calls.len());
        let mut to_run: Vec<(usize, ToolCall)> = Vec::new();
        let mut started = started;
        for (index, streamed) in self.calls.into_iter().enumerate() {
            if streamed.started {
                let at = started
                    .iter()
                    .position(|result| result.call_id == streamed.call.id());
                answers.push(at.map(|at| started.swap_remove(at)));
                if answers[index].is_none() {
                    // Its result was not given back: answer that it is unknown.
                    let call = streamed.call.to_call().unwrap_or_else(|| {
                        ToolCall::new(streamed.call.id(), streamed.call.name(), "{}")
                    });
                    let error = crate::error::ToolError::new(
                        crate::error::ErrorKind::OutcomeUnknown,
                        "the call was started before the turn ended and its result was not kept",
                    );
                    answers[index] = Some(registry.answer_unrun(&call, error));
                }
                continue;
            }
            if let Some(reason) = &cut[index] {
                let written = streamed.call.text().len();
                let call = ToolCall::new(streamed.call.id(), streamed.call.name(), "");
                let error = crate::call::cut_off(streamed.call.name(), reason, written);
                answers.push(Some(registry.answer_unrun(&call, error)));
                continue;
            }
            match streamed.call.finish() {
                Ok(call) => {
                    answers.push(None);
                    to_run.push((index, call));
                }
                Err(answered) => answers.push(Some(*answered)),
            }
        }
        let (indices, calls): (Vec<usize>, Vec<ToolCall>) = to_run.into_iter().unzip();
        let results = registry.dispatch_batch(ctx, calls).await;
        for (index, result) in indices.into_iter().zip(results) {
            answers[index] = Some(result);
        }
        answers.into_iter().flatten().collect()
    }

    /// For each call, why it counts as cut, if it does.
    fn cut_calls(&self) -> Vec<Option<String>> {
        let last = self.calls.len().checked_sub(1);
        self.calls
            .iter()
            .enumerate()
            .map(|(index, streamed)| match &self.ended {
                // Cut by a stop: the call the model was writing when it stopped.
                Some(Some(reason)) if Some(index) == last && self.writing_a_call => {
                    Some(format!("the provider stopped it: {reason}"))
                }
                Some(_) => None,
                // No stop at all: the stream was dropped. A call the provider never
                // closed (for Chat, which closes none: the last one) is cut.
                None => {
                    let closed = match self.dialect {
                        Dialect::OpenAiChat { .. } => Some(index) != last,
                        _ => streamed.closed,
                    };
                    (!closed).then(|| "the stream ended before the call did".to_owned())
                }
            })
            .collect()
    }

    /// The call the provider names `key`, begun now if it is new.
    fn begin(&mut self, key: String, id: &str, name: &str) {
        if self.calls.iter().any(|streamed| streamed.key == key) {
            return;
        }
        let call = self
            .registry
            .partial_call_in(self.ctx, self.dialect, id, name);
        self.calls.push(Streamed {
            key,
            call,
            closed: false,
            started: false,
        });
        self.writing_a_call = true;
    }

    fn find(&mut self, key: &str) -> Option<&mut Streamed<'r>> {
        self.calls.iter_mut().find(|streamed| streamed.key == key)
    }

    fn push(&mut self, key: &str, piece: &str) {
        if let Some(streamed) = self.find(key) {
            streamed.call.push(piece);
        }
    }

    fn close(&mut self, key: &str) {
        if let Some(streamed) = self.find(key) {
            // A tool without arguments may stream none.
            if streamed.call.text().trim().is_empty() {
                streamed.call.push("{}");
            }
            streamed.closed = true;
        }
    }

    fn end(&mut self, cut: Option<String>) {
        self.ended = Some(cut);
    }

    fn anthropic(&mut self, event: &Value) {
        let key = || event["index"].to_string();
        match event["type"].as_str().unwrap_or_default() {
            "content_block_start" => {
                let block = &event["content_block"];
                if block["type"] == "tool_use" {
                    let (id, name) = (str_of(&block["id"]), str_of(&block["name"]));
                    self.begin(key(), id, name);
                } else {
                    self.writing_a_call = false;
                }
            }
            "content_block_delta" if event["delta"]["type"] == "input_json_delta" => {
                self.push(&key(), str_of(&event["delta"]["partial_json"]));
            }
            "content_block_stop" => self.close(&key()),
            "message_delta" => match event["delta"]["stop_reason"].as_str() {
                Some(reason @ ("max_tokens" | "model_context_window_exceeded")) => {
                    self.end(Some(reason.to_owned()))
                }
                Some(_) => self.end(None),
                None => {}
            },
            // An error ends the stream as a dropped connection does.
            "error" => self.ended = None,
            _ => {}
        }
    }

    fn responses(&mut self, event: &Value) {
        match event["type"].as_str().unwrap_or_default() {
            "response.output_item.added" => {
                let item = &event["item"];
                if item["type"] == "function_call" {
                    let key = str_of(&item["id"]).to_owned();
                    let (id, name) = (str_of(&item["call_id"]), str_of(&item["name"]));
                    self.begin(key, id, name);
                    let already = str_of(&item["arguments"]).to_owned();
                    if !already.is_empty() {
                        self.push(str_of(&item["id"]), &already);
                    }
                } else {
                    self.writing_a_call = false;
                }
            }
            "response.function_call_arguments.delta" => {
                self.push(str_of(&event["item_id"]), str_of(&event["delta"]));
            }
            "response.function_call_arguments.done" => self.close(str_of(&event["item_id"])),
            "response.output_item.done"
                if event["item"]["type"] == "function_call"
                    && event["item"]["status"] != "incomplete" =>
            {
                self.close(str_of(&event["item"]["id"]));
            }
            "response.completed" => self.end(None),
            "response.incomplete" => {
                let details = event.pointer("/response/incomplete_details");
                let reason = crate::provider::responses_incomplete_reason(details);
                self.end(Some(reason.to_owned()));
            }
            "response.failed" | "error" => self.ended = None,
            _ => {}
        }
    }

    fn chat(&mut self, chunk: &Value) {
        let Some(choice) = chunk.pointer("/choices/0") else {
            return;
        };
        if let Some(deltas) = choice
            .pointer("/delta/tool_calls")
            .and_then(Value::as_array)
        {
            for delta in deltas {
                let key = delta["index"].to_string();
                if let Some(id) = delta["id"].as_str() {
                    let name = str_of(&delta["function"]["name"]);
                    self.begin(key.clone(), id, name);
                }
                if let Some(piece) = delta["function"]["arguments"].as_str() {
                    self.push(&key, piece);
                }
            }
        } else if choice
            .pointer("/delta/content")
            .and_then(Value::as_str)
            .is_some_and(|text| !text.is_empty())
        {
            self.writing_a_call = false;
        }
        match choice["finish_reason"].as_str() {
            Some(reason @ ("length" | "content_filter")) => self.end(Some(reason.to_owned())),
            Some(_) => {
                let keys: Vec<String> = self.calls.iter().map(|s| s.key.clone()).collect();
                for key in keys {
                    self.close(&key);
                }
                self.end(None);
            }
            None => {}
        }
    }
}

impl StreamedTurn<'_> {
    fn gemini(&mut self, chunk: &Value) {
        let Some(candidate) = chunk.pointer("/candidates/0") else {
            return;
        };
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            match part.get("functionCall") {
                Some(call) => self.gemini_call(call),
                None if part["text"].as_str().is_some_and(|text| !text.is_empty()) => {
                    self.writing_a_call = false;
                }
                None => {}
            }
        }
        match candidate["finishReason"].as_str() {
            Some(reason @ "MAX_TOKENS") => self.end(Some(reason.to_owned())),
            Some(_) => {
                // A call whose closing part never came (seen in recordings) ends with
                // the turn.
                if let Some(last) = self.calls.last().map(|s| s.key.clone())
                    && let Some(mut writer) = self.paths.take()
                {
                    let text = writer.close();
                    self.push(&last, &text);
                    self.close(&last);
                }
                self.end(None);
            }
            None => {}
        }
    }

    /// One `functionCall` part: a whole call, the start of a streamed one (`name`,
    /// `willContinue`), or more of it (`partialArgs`); a part without `willContinue`
    /// ends it.
    fn gemini_call(&mut self, call: &Value) {
        let continues = call["willContinue"] == Value::Bool(true);
        if let Some(name) = call["name"].as_str() {
            let key = self.calls.len().to_string();
            let id = call["id"].as_str().map_or_else(
                || format!("{}{key}", crate::provider::SYNTHESIZED_ID_PREFIX),
                str::to_owned,
            );
            self.begin(key.clone(), &id, name);
            if let Some(args) = call.get("args") {
                self.paths = None;
                self.push(&key, &args.to_string());
            } else {
                let (writer, text) = PathWriter::new();
                self.paths = Some(writer);
                self.push(&key, &text);
            }
        }
        let Some(key) = self.calls.last().map(|streamed| streamed.key.clone()) else {
            return;
        };
        if let Some(writer) = self.paths.as_mut() {
            let mut text = String::new();
            for arg in call["partialArgs"].as_array().into_iter().flatten() {
                text.push_str(&writer.piece(arg));
            }
            if !continues {
                text.push_str(&writer.close());
                self.paths = None;
            }
            self.push(&key, &text);
        }
        if !continues {
            self.close(&key);
        }
    }
}

fn str_of(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}
