//! The agent loop, small enough to read in one sitting: send the tool definitions and
//! the conversation to a model, dispatch the tool calls it answers with through the
//! registry, append the results (ids matched), repeat until it submits its final result
//! (or, for a registry without one, answers in text) or the step limit is hit. One loop
//! for OpenAI-compatible Chat Completions and for Anthropic Messages: the provider module
//! does the shapes.

use serde_json::{Value, json};
use toolwright::provider::{parse_calls, render_results};
use toolwright::{Context, Dialect, Registry};

/// Which API the model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// OpenAI Chat Completions (also LM Studio, Ollama, vLLM and other compatible servers).
    OpenAiChat,
    /// Anthropic Messages.
    Anthropic,
}

impl Api {
    fn dialect(self) -> Dialect {
        match self {
            Api::OpenAiChat => Dialect::OpenAiChat { strict: false },
            Api::Anthropic => Dialect::Anthropic { strict: false },
        }
    }
}

/// A model: takes a request body, returns the response body.
pub trait Model {
    /// One round trip.
    fn complete(&self, request: &Value) -> Result<Value, String>;
}

/// A model behind an HTTP endpoint.
pub struct HttpModel {
    /// `https://api.openai.com/v1`, `http://localhost:1234/v1`, `https://api.anthropic.com`.
    pub base_url: String,
    /// The API key, if the endpoint wants one.
    pub api_key: Option<String>,
    /// Which API it speaks.
    pub api: Api,
}

impl Model for HttpModel {
    fn complete(&self, request: &Value) -> Result<Value, String> {
        let base = self.base_url.trim_end_matches('/');
        let (url, mut call) = match self.api {
            Api::OpenAiChat => {
                let url = format!("{base}/chat/completions");
                let mut call = ureq::post(&url);
                if let Some(key) = &self.api_key {
                    call = call.header("Authorization", &format!("Bearer {key}"));
                }
                (url, call)
            }
            Api::Anthropic => {
                let url = format!("{base}/v1/messages");
                let mut call = ureq::post(&url).header("anthropic-version", "2023-06-01");
                if let Some(key) = &self.api_key {
                    call = call.header("x-api-key", key);
                }
                (url, call)
            }
        };
        call = call.header("content-type", "application/json");
        let mut response = call
            .send_json(request)
            .map_err(|e| format!("POST {url}: {e}"))?;
        response
            .body_mut()
            .read_json::<Value>()
            .map_err(|e| format!("reading the answer of {url}: {e}"))
    }
}

/// A model that replays recorded responses, in order, and keeps the requests it was sent.
pub struct ScriptedModel {
    responses: Vec<Value>,
    next: std::cell::Cell<usize>,
    /// Every request, in order.
    pub requests: std::cell::RefCell<Vec<Value>>,
}

impl ScriptedModel {
    /// Replays `responses`.
    pub fn new(responses: Vec<Value>) -> Self {
        Self {
            responses,
            next: std::cell::Cell::new(0),
            requests: std::cell::RefCell::new(Vec::new()),
        }
    }
}

impl Model for ScriptedModel {
    fn complete(&self, request: &Value) -> Result<Value, String> {
        self.requests.borrow_mut().push(request.clone());
        let index = self.next.get();
        self.next.set(index + 1);
        self.responses
            .get(index)
            .cloned()
            .ok_or_else(|| "the script has no more responses".to_owned())
    }
}

/// How a run ended.
#[derive(Debug)]
pub struct Transcript {
    /// Every message, in order: the task, the model's turns, the tool results.
    pub messages: Vec<Value>,
    /// The model's text on its last turn, if it wrote any.
    pub answer: Option<String>,
    /// The run's final result, when the registry has one
    /// ([`RegistryBuilder::with_final_result`](toolwright::RegistryBuilder::with_final_result))
    /// and the model submitted it within the step limit.
    pub result: Option<Value>,
}

/// Runs the loop on `task`, at most `max_steps` model turns. A registry with a final
/// result ends the run when the model submits it; a text answer then is not the end: the
/// model is reminded and, on its next turn and on the last one the budget allows, made to
/// call it (`tool_choice`). Without one, the run ends at the first text answer.
pub async fn run(
    registry: &Registry,
    ctx: &Context,
    model: &dyn Model,
    api: Api,
    model_name: &str,
    task: &str,
    max_steps: usize,
) -> Result<Transcript, String> {
    let dialect = api.dialect();
    let tools = registry
        .definitions_shared(ctx, dialect)
        .map_err(|errors| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })?;
    let mut messages = vec![json!({"role": "user", "content": task})];
    let mut force = false;
    for step in 0..max_steps {
        let mut request = match api {
            Api::OpenAiChat => json!({"model": model_name, "messages": messages, "tools": *tools}),
            Api::Anthropic => {
                json!({"model": model_name, "max_tokens": 4096, "messages": messages, "tools": *tools})
            }
        };
        if (force || step + 1 == max_steps)
            && let Some(choice) = registry.force_final_result(dialect)
        {
            request["tool_choice"] = choice;
        }
        let response = model.complete(&request)?;
        let (turn, text) = match api {
            Api::OpenAiChat => {
                let message = response
                    .pointer("/choices/0/message")
                    .cloned()
                    .ok_or("no choices[0].message in the answer")?;
                let text = message
                    .get("content")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                (message, text)
            }
            Api::Anthropic => {
                let content = response
                    .get("content")
                    .cloned()
                    .ok_or("no content in the answer")?;
                let text: String = content
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|block| block.get("text").and_then(Value::as_str))
                    .collect();
                (
                    json!({"role": "assistant", "content": content}),
                    Some(text).filter(|t| !t.is_empty()),
                )
            }
        };
        let calls = parse_calls(dialect, &response).map_err(|e| e.to_string())?;
        messages.push(turn);
        if calls.is_empty() {
            // With a final result, a text answer is not the end: ask again.
            if let Some(reminder) = registry.final_result_reminder() {
                messages.push(json!({"role": "user", "content": reminder}));
                force = true;
                continue;
            }
            return Ok(Transcript {
                messages,
                answer: text,
                result: None,
            });
        }
        force = false;
        let results = registry.dispatch_batch(ctx, calls).await;
        messages.extend(render_results(dialect, &results));
        if let Some(result) = registry.final_result::<Value>(&results) {
            return Ok(Transcript {
                messages,
                answer: text,
                result: Some(result),
            });
        }
    }
    Ok(Transcript {
        messages,
        answer: None,
        result: None,
    })
}
