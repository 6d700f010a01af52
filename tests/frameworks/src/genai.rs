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

#[tokio::test]
async fn a_genai_conversation_runs_the_registry_s_tools() {
    let server = openai_mock("/v1/chat/completions", chat_script()).await;
    let client = genai::Client::builder()
        .build()
        .expect("a client without network");
    let target = ServiceTarget {
        endpoint: Endpoint::from_owned(format!("{}/v1/", server.uri())),
        auth: AuthData::from_single("test-key"),
        model: ModelIden::new(AdapterKind::OpenAI, "gpt-4o-mini"),
    };
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
    let client = genai::Client::builder().build().expect("a client");
    let target = ServiceTarget {
        endpoint: Endpoint::from_owned(format!("{}/v1/", server.uri())),
        auth: AuthData::from_single("test-key"),
        model: ModelIden::new(AdapterKind::OpenAI, "gpt-4o-mini"),
    };
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
