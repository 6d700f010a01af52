//! swiftide: the agent's own loop, a scripted chat-completion model.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use swiftide_agents::{Agent, StopReason};
use swiftide_core::ToolFeedback;
use swiftide_core::chat_completion::errors::LanguageModelError;
use swiftide_core::chat_completion::{
    ChatCompletion, ChatCompletionRequest, ChatCompletionResponse, ChatMessage, ToolCall,
    ToolOutput,
};
use toolwright::frameworks::swiftide::{AgentBuilderExt as _, SwiftideTools};

use crate::{SCRIPT, assert_model_read, context, registry};

/// A model that answers from a script and keeps every request it was sent.
#[derive(Clone, Default)]
struct Scripted {
    answers: Arc<Mutex<VecDeque<ChatCompletionResponse>>>,
    requests: Arc<Mutex<Vec<ChatCompletionRequest>>>,
}

#[async_trait]
impl ChatCompletion for Scripted {
    async fn complete(
        &self,
        request: &ChatCompletionRequest,
    ) -> Result<ChatCompletionResponse, LanguageModelError> {
        self.requests.lock().unwrap().push(request.clone());
        self.answers
            .lock()
            .unwrap()
            .pop_front()
            .ok_or_else(|| LanguageModelError::permanent("the script is over"))
    }
}

fn call((id, name, arguments): (&str, &str, &str)) -> ChatCompletionResponse {
    let call = ToolCall::builder()
        .id(id)
        .name(name)
        .args(arguments)
        .build()
        .unwrap();
    ChatCompletionResponse::builder()
        .tool_calls(vec![call])
        .build()
        .unwrap()
}

/// The tool outputs the model read, in order, as text.
fn outputs(request: &ChatCompletionRequest) -> Vec<String> {
    request
        .messages()
        .iter()
        .filter_map(|message| match message {
            ChatMessage::ToolOutput(_, ToolOutput::Text(text) | ToolOutput::Fail(text)) => {
                Some(text.clone())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_swiftide_agent_runs_the_registry_s_tools_and_asks_before_deleting() {
    let registry = registry();
    let (ctx, deleted) = context();
    let model = Scripted::default();
    {
        let mut answers = model.answers.lock().unwrap();
        answers.extend(SCRIPT.iter().map(|step| call(*step)));
        answers.push_back(
            ChatCompletionResponse::builder()
                .message("done")
                .build()
                .unwrap(),
        );
    }
    // The user's side: one call on the builder.
    let tools = SwiftideTools::new(registry).with_context(ctx);
    let mut agent = Agent::builder()
        .llm(&model)
        .toolwright(&tools)
        .build()
        .expect("the agent builds");

    agent
        .query("add, then clean up")
        .await
        .expect("the run stops for approval");
    let Some(StopReason::FeedbackRequired { tool_call, payload }) = agent.stop_reason().cloned()
    else {
        panic!("the agent waits for a person: {:?}", agent.stop_reason());
    };
    assert_eq!(tool_call.name(), "delete_file");
    let ticket = payload.expect("the ticket is the payload");
    assert_eq!(ticket["tool"], "delete_file");
    assert_eq!(deleted.count(), 0, "nothing ran without approval");

    // The person approves; the agent goes on and the call runs once.
    agent
        .context()
        .feedback_received(&tool_call, &ToolFeedback::approved())
        .await
        .unwrap();
    agent.run().await.expect("the run completes");
    assert_eq!(deleted.count(), 1);

    let requests = model.requests.lock().unwrap();
    let offered: Vec<&str> = {
        let mut names: Vec<&str> = requests[0]
            .tools_spec()
            .iter()
            .map(|spec| spec.name.as_str())
            .collect();
        names.sort_unstable();
        names
    };
    assert_eq!(offered, ["add", "delete_file", "stop"]);
    let mut read = outputs(requests.last().unwrap());
    assert_eq!(read.pop().as_deref(), Some("deleted notes.txt"));
    read.push("awaiting_approval (answered through swiftide's feedback)".to_owned());
    assert_model_read(&read);
}

#[tokio::test]
async fn a_refusal_in_swiftide_declines_the_call_and_the_model_reads_why() {
    let (ctx, deleted) = context();
    let model = Scripted::default();
    {
        let mut answers = model.answers.lock().unwrap();
        answers.push_back(call(SCRIPT[4]));
        answers.push_back(
            ChatCompletionResponse::builder()
                .message("understood")
                .build()
                .unwrap(),
        );
    }
    let tools = SwiftideTools::new(registry()).with_context(ctx);
    let mut agent = Agent::builder()
        .llm(&model)
        .toolwright(&tools)
        .build()
        .unwrap();
    agent.query("clean up").await.unwrap();
    let Some(StopReason::FeedbackRequired { tool_call, .. }) = agent.stop_reason().cloned() else {
        panic!("the agent waits for a person: {:?}", agent.stop_reason());
    };
    let refusal = ToolFeedback::refused().with_payload(serde_json::json!("keep my notes"));
    agent
        .context()
        .feedback_received(&tool_call, &refusal)
        .await
        .unwrap();
    agent.run().await.unwrap();

    assert_eq!(deleted.count(), 0, "a refused call never runs");
    let requests = model.requests.lock().unwrap();
    let read = outputs(requests.last().unwrap());
    assert_eq!(read.len(), 1);
    assert!(read[0].contains("keep my notes"), "{}", read[0]);
}
