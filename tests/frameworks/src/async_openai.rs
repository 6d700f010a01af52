//! async-openai: its real HTTP client against a local mock of OpenAI's API, the
//! conversation driven as a user's loop drives it.

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{ChatCompletionRequestMessage, CreateChatCompletionRequestArgs};
use async_openai::types::responses::{CreateResponseArgs, InputItem, InputParam, Item, OutputItem};
use serde_json::json;
use toolwright::frameworks::async_openai::{
    answer_chat, answer_responses, chat_tools, responses_tools,
};

use crate::{
    SCRIPT, assert_model_read, chat_script, context, openai_mock, registry, request_bodies,
    tool_messages,
};

fn client(server: &wiremock::MockServer) -> Client<OpenAIConfig> {
    Client::with_config(
        OpenAIConfig::new()
            .with_api_key("test-key")
            .with_api_base(format!("{}/v1", server.uri())),
    )
}

#[tokio::test]
async fn chat_completions_through_async_openai() {
    let server = openai_mock("/v1/chat/completions", chat_script()).await;
    let client = client(&server);
    let registry = registry();
    let (ctx, deleted) = context();
    let tools = chat_tools(&registry, &ctx, true).expect("the tools lower for strict mode");

    let mut messages: Vec<ChatCompletionRequestMessage> = vec![
        serde_json::from_value(json!({"role": "user", "content": "add, then clean up"})).unwrap(),
    ];
    let mut tickets = Vec::new();
    for _turn in 0..10 {
        let request = CreateChatCompletionRequestArgs::default()
            .model("gpt-4o-mini")
            .messages(messages.clone())
            .tools(tools.clone())
            .build()
            .unwrap();
        let response = client
            .chat()
            .create(request)
            .await
            .expect("the mock answers");
        let message = response.choices[0].message.clone();
        if message.tool_calls.is_none() {
            assert_eq!(message.content.as_deref(), Some("done"));
            break;
        }
        messages.push(
            serde_json::from_value(json!({"role": "assistant", "tool_calls": message.tool_calls}))
                .unwrap(),
        );
        // The user's side: one call answers the whole message.
        let answered = answer_chat(&registry, &ctx, &message, true).await;
        tickets.extend(
            answered
                .results
                .iter()
                .filter_map(|result| result.ticket.clone()),
        );
        messages.extend(answered.messages);
    }

    let bodies = request_bodies(&server).await;
    assert_eq!(bodies.len(), SCRIPT.len() + 1);
    // Strict definitions, as toolwright lowers them.
    let sent = &bodies[0]["tools"];
    assert_eq!(sent[0]["function"]["name"], "add");
    assert_eq!(sent[0]["function"]["strict"], true);
    assert_eq!(
        sent[0]["function"]["parameters"]["additionalProperties"],
        false
    );
    assert_model_read(&tool_messages(bodies.last().unwrap()));
    assert_eq!(deleted.count(), 0, "nothing ran without approval");
    assert_eq!(tickets.len(), 1);
    assert_eq!(tickets[0].tool, "delete_file");
}

/// A Responses API response: one `function_call` item, or a text message.
fn response(call: Option<(&str, &str, &str)>) -> serde_json::Value {
    let output = match call {
        Some((id, name, arguments)) => json!([{
            "type": "function_call", "id": format!("fc_{id}"), "call_id": id,
            "name": name, "arguments": arguments, "status": "completed",
        }]),
        None => json!([{
            "type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "done", "annotations": []}],
        }]),
    };
    json!({
        "id": "resp_1", "object": "response", "created_at": 1_700_000_000,
        "status": "completed", "model": "gpt-4o-mini", "output": output,
        "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
    })
}

#[tokio::test]
async fn responses_through_async_openai() {
    let mut bodies: Vec<serde_json::Value> =
        SCRIPT.iter().map(|call| response(Some(*call))).collect();
    bodies.push(response(None));
    let server = openai_mock("/v1/responses", bodies).await;
    let client = client(&server);
    let registry = registry();
    let (ctx, deleted) = context();
    let tools = responses_tools(&registry, &ctx, true).expect("the tools lower");

    let mut input: Vec<InputItem> = vec![
        serde_json::from_value(json!({"role": "user", "content": "add, then clean up"})).unwrap(),
    ];
    for _turn in 0..10 {
        let request = CreateResponseArgs::default()
            .model("gpt-4o-mini")
            .input(InputParam::Items(input.clone()))
            .tools(tools.clone())
            .build()
            .unwrap();
        let response = client
            .responses()
            .create(request)
            .await
            .expect("the mock answers");
        let calls: Vec<InputItem> = response
            .output
            .iter()
            .filter_map(|item| match item {
                OutputItem::FunctionCall(call) => {
                    Some(InputItem::Item(Item::FunctionCall(call.clone())))
                }
                _ => None,
            })
            .collect();
        if calls.is_empty() {
            break;
        }
        input.extend(calls);
        input.extend(
            answer_responses(&registry, &ctx, &response.output, true)
                .await
                .messages,
        );
    }

    let bodies = request_bodies(&server).await;
    assert_eq!(bodies.len(), SCRIPT.len() + 1);
    assert_eq!(bodies[0]["tools"][1]["name"], "delete_file");
    assert_eq!(bodies[0]["tools"][1]["strict"], true);
    let outputs: Vec<String> = bodies.last().unwrap()["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "function_call_output")
        .map(|item| item["output"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_model_read(&outputs);
    assert_eq!(deleted.count(), 0, "nothing ran without approval");
}

#[tokio::test]
async fn a_choice_stopped_by_the_output_limit_has_its_last_call_answered_not_run() {
    let server = openai_mock(
        "/v1/chat/completions",
        vec![crate::completion_cut_by_length()],
    )
    .await;
    let registry = registry();
    let (ctx, _) = context();
    let request = CreateChatCompletionRequestArgs::default()
        .model("gpt-4o-mini")
        .messages(vec![
            serde_json::from_value(json!({"role": "user", "content": "add twice"})).unwrap(),
        ])
        .build()
        .unwrap();
    let response = client(&server)
        .chat()
        .create(request)
        .await
        .expect("the mock answers");
    let calls = toolwright::frameworks::async_openai::choice_calls(&response.choices[0], false);
    assert!(calls[0].cut.is_none());
    assert!(
        calls[1]
            .cut
            .as_deref()
            .is_some_and(|why| why.contains("length"))
    );
    let results = registry.dispatch_batch(&ctx, calls).await;
    assert_eq!(results[0].for_model(), "5");
    assert!(
        results[1]
            .for_model()
            .contains("was cut off before its end")
    );
}
