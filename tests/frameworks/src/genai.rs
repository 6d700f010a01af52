//! genai: its real client (OpenAI adapter) against a local mock of OpenAI's API, the
//! conversation driven as a user's loop drives it.

use genai::adapter::AdapterKind;
use genai::chat::{ChatMessage, ChatRequest};
use genai::resolver::{AuthData, Endpoint};
use genai::{ModelIden, ServiceTarget};
use toolwright::Dialect;
use toolwright::frameworks::genai::{answer, dialect, tools};

use crate::{
    SCRIPT, assert_model_read, chat_script, context, openai_mock, registry, request_bodies,
    tool_messages,
};

/// genai's real client, aimed at the mock server as its OpenAI adapter.
fn client_for(server: &wiremock::MockServer) -> (genai::Client, ServiceTarget) {
    let client = genai::Client::builder()
        .build()
        .expect("a client without network");
    let target = ServiceTarget {
        endpoint: Endpoint::from_owned(format!("{}/v1/", server.uri())),
        auth: AuthData::from_single("test-key"),
        model: ModelIden::new(AdapterKind::OpenAI, "gpt-4o-mini"),
    };
    (client, target)
}

#[tokio::test]
async fn a_genai_conversation_runs_the_registry_s_tools() {
    let server = openai_mock("/v1/chat/completions", chat_script()).await;
    let (client, target) = client_for(&server);
    let registry = registry();
    let (ctx, deleted) = context();
    // The user's side: the dialect of the adapter genai uses, the tools in it.
    let dialect = dialect(AdapterKind::OpenAI);
    let mut request = ChatRequest::from_user("add, then clean up")
        .with_tools(tools(&registry, &ctx, dialect).expect("the tools lower"));

    let mut tickets = Vec::new();
    for _turn in 0..10 {
        let response = client
            .exec_chat(target.clone(), request.clone(), None)
            .await
            .expect("the mock answers");
        let calls: Vec<genai::chat::ToolCall> =
            response.tool_calls().into_iter().cloned().collect();
        if calls.is_empty() {
            assert_eq!(response.first_text(), Some("done"));
            break;
        }
        let answered = answer(&registry, &ctx, dialect, &calls).await;
        tickets.extend(
            answered
                .results
                .iter()
                .filter_map(|result| result.ticket.clone()),
        );
        request = request
            .append_message(ChatMessage::from(calls))
            .append_message(ChatMessage::from(answered.messages));
    }

    let bodies = request_bodies(&server).await;
    assert_eq!(bodies.len(), SCRIPT.len() + 1);
    assert_eq!(bodies[0]["tools"][0]["function"]["name"], "add");
    assert_model_read(&tool_messages(bodies.last().unwrap()));
    assert_eq!(deleted.count(), 0, "nothing ran without approval");
    assert_eq!(tickets.len(), 1);
}

#[test]
fn each_genai_adapter_gets_the_lowering_its_provider_accepts() {
    assert_eq!(
        dialect(AdapterKind::OpenAI),
        Dialect::OpenAiChat { strict: false }
    );
    assert_eq!(
        dialect(AdapterKind::Groq),
        Dialect::OpenAiChat { strict: false }
    );
    assert_eq!(
        dialect(AdapterKind::OpenAIResp),
        Dialect::OpenAiResponses { strict: false }
    );
    assert_eq!(
        dialect(AdapterKind::Anthropic),
        Dialect::Anthropic { strict: false }
    );
    assert_eq!(dialect(AdapterKind::Gemini), Dialect::GeminiJsonSchema);
}

#[tokio::test]
async fn a_call_genai_keeps_after_the_output_limit_is_answered_not_run() {
    let server = openai_mock(
        "/v1/chat/completions",
        vec![crate::completion_cut_by_length()],
    )
    .await;
    let (client, target) = client_for(&server);
    let registry = registry();
    let (ctx, _) = context();
    let dialect = dialect(AdapterKind::OpenAI);
    let request = ChatRequest::from_user("add twice")
        .with_tools(tools(&registry, &ctx, dialect).expect("the tools lower"));
    let response = client
        .exec_chat(target, request, None)
        .await
        .expect("the mock answers");
    let answered =
        toolwright::frameworks::genai::answer_response(&registry, &ctx, dialect, &response).await;
    assert_eq!(answered.results.len(), 2);
    assert_eq!(answered.results[0].for_model(), "5");
    let cut = answered.results[1].for_model();
    assert!(
        cut.contains("was cut off before its end") && cut.contains("length"),
        "{cut}"
    );
}

/// Chat Completions chunks as a server-sent stream.
fn chunks_as_sse(chunks: &[serde_json::Value]) -> String {
    let mut sse: String = chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .collect();
    sse.push_str("data: [DONE]\n\n");
    sse
}

fn chunk(delta: serde_json::Value, finish: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
    })
}

#[tokio::test]
async fn a_genai_stream_is_read_as_it_comes_and_a_cut_call_is_not_run() {
    use futures_util::StreamExt as _;
    use serde_json::json;
    use wiremock::matchers::method;
    use wiremock::{Mock, ResponseTemplate};
    let _ = rustls::crypto::ring::default_provider().install_default();
    let begin = [
        chunk(json!({"role": "assistant", "content": null}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "add", "arguments": ""}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\": 2, "}}]}),
            None,
        ),
    ];
    let mut whole = begin.to_vec();
    whole.push(chunk(
        json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"b\": 3}"}}]}),
        None,
    ));
    whole.push(chunk(json!({}), Some("tool_calls")));
    let mut cut = begin.to_vec();
    cut.push(chunk(
        json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"b\": 3}"}}]}),
        None,
    ));
    cut.push(chunk(json!({}), Some("length")));
    let server = wiremock::MockServer::start().await;
    for body in [&whole, &cut, &whole] {
        Mock::given(method("POST"))
            .respond_with(
                ResponseTemplate::new(200).set_body_raw(chunks_as_sse(body), "text/event-stream"),
            )
            .up_to_n_times(1)
            .mount(&server)
            .await;
    }
    let (client, target) = client_for(&server);
    let registry = registry();
    let (ctx, _) = context();
    let dialect = dialect(AdapterKind::OpenAI);
    let request = ChatRequest::from_user("add")
        .with_tools(tools(&registry, &ctx, dialect).expect("the tools lower"));
    let mut answers = Vec::new();
    // The third time genai captures the calls: its chunks then carry the arguments so
    // far, not the next piece, and are read once all the same.
    let capture = genai::chat::ChatOptions::default().with_capture_tool_calls(true);
    for options in [None, None, Some(&capture)] {
        let mut stream = client
            .exec_chat_stream(target.clone(), request.clone(), options)
            .await
            .expect("the mock streams")
            .stream;
        let mut turn = registry.streamed_turn(&ctx, dialect);
        while let Some(event) = stream.next().await {
            let event = event.expect("an event");
            toolwright::frameworks::genai::stream_event(&mut turn, &event);
        }
        answers.push(turn.finish(Vec::new()).await);
    }
    assert_eq!(answers[0][0].call_id, "call_1");
    assert_eq!(answers[0][0].for_model(), "5");
    let cut = answers[1][0].for_model();
    assert!(
        cut.contains("was cut off before its end") && cut.contains("length"),
        "{cut}"
    );
    assert_eq!(answers[2][0].for_model(), "5");
}
