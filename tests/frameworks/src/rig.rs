//! rig: the agent's own loop, rig's scripted completion model.

use rig_agent::AgentBuilder;
use rig_core::message::{Message, ToolResultContent, UserContent};
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use rig_core::tool::ToolContext;
use toolwright::approval::ApprovalDecision;
use toolwright::frameworks::rig::{AgentBuilderExt as _, RigTools};

use crate::{SCRIPT, assert_model_read, context, registry};

/// The tool results in a request's history, as (text, is_error), in order.
fn tool_results(history: &[Message]) -> Vec<(String, bool)> {
    let mut results = Vec::new();
    for message in history {
        if let Message::User { content } = message {
            for part in content {
                if let UserContent::ToolResult(result) = part {
                    let text: Vec<String> = result
                        .content
                        .iter()
                        .map(|content| match content {
                            ToolResultContent::Text(text) => text.text.clone(),
                            other => format!("{other:?}"),
                        })
                        .collect();
                    results.push((text.concat(), result.is_error));
                }
            }
        }
    }
    results
}

#[tokio::test]
async fn a_rig_agent_runs_the_registry_s_tools() {
    let registry = registry();
    let (ctx, deleted) = context();
    let mut turns: Vec<MockTurn> = SCRIPT
        .iter()
        .map(|(id, name, arguments)| {
            MockTurn::tool_call(*id, *name, serde_json::from_str(arguments).unwrap())
        })
        .collect();
    turns.push(MockTurn::text("done"));
    let model = MockCompletionModel::from_turns(turns);
    // The user's side: one call on the builder.
    let tools = RigTools::new(registry.clone());
    let agent = AgentBuilder::new(model.clone()).toolwright(&tools).build();

    // The run's context reaches the tools through rig's tool context.
    let run_context = ToolContext::new().with_scope(ctx.clone());
    let response = agent
        .prompt("add, then clean up")
        .max_turns(10)
        .tool_context(run_context)
        .await
        .expect("the run completes: every call was answered");
    assert_eq!(response.output(), "done");

    let requests = model.requests();
    let offered: Vec<String> = requests[0]
        .tools
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(offered, ["add", "delete_file"]);
    let read = tool_results(&requests.last().unwrap().chat_history);
    let (texts, errors): (Vec<String>, Vec<bool>) = read.into_iter().unzip();
    assert_model_read(&texts);
    assert_eq!(errors, [false, true, false, true, true]);

    // Nothing ran without approval; the ticket waits for the host.
    assert_eq!(deleted.count(), 0);
    let tickets = tools.approvals().take();
    assert_eq!(tickets.len(), 1);
    assert_eq!(tickets[0].tool, "delete_file");
    let approved = registry
        .resume(
            &ctx,
            &tickets[0],
            ApprovalDecision::Approve {
                digest: tickets[0].digest.clone(),
            },
        )
        .await;
    assert_eq!(approved.for_model(), "deleted notes.txt");
    assert_eq!(deleted.count(), 1);
}

#[tokio::test]
async fn an_error_reaches_rig_with_its_kind_and_retryability() {
    let registry = registry();
    let (ctx, _) = context();
    let tools = RigTools::new(registry).with_context(ctx);
    let add = tools
        .tools()
        .unwrap()
        .into_iter()
        .find(|tool| tool.name().as_str() == "add")
        .unwrap();
    let error = add
        .execute(serde_json::json!({"a": "two"}))
        .await
        .expect_err("invalid arguments fail");
    assert_eq!(error.code(), Some("invalid_arguments"));
    assert!(
        error.message().contains("missing required field 'b'"),
        "{}",
        error.message()
    );
    // rig has no reader for the kind or the retryable flag: its wire form shows them.
    let wire = serde_json::to_value(&error).unwrap();
    assert_eq!(wire["kind"], "invalid_args", "{wire}");
    assert_eq!(wire["retryable"], true);
}

#[tokio::test]
async fn a_denied_call_is_a_refusal_in_rig() {
    use toolwright::ToolSettings;
    use toolwright::policy::Decision;
    let registry = std::sync::Arc::new(
        toolwright::Registry::builder()
            .with(crate::Add)
            .defaults(
                ToolSettings::new().policy(|_: &toolwright::policy::PolicyRequest<'_>| {
                    Decision::deny("adding is switched off today")
                }),
            )
            .build()
            .unwrap(),
    );
    let tools = RigTools::new(registry);
    let add = tools.tools().unwrap().remove(0);
    let error = add
        .execute(serde_json::json!({"a": 1, "b": 2}))
        .await
        .expect_err("the policy denies");
    let wire = serde_json::to_value(&error).unwrap();
    assert_eq!(wire["kind"], "permission_denied", "{wire}");
    assert_eq!(wire["refusal"], true);
    assert_eq!(wire["retryable"], false);
    assert!(
        error.message().contains("switched off today"),
        "{}",
        error.message()
    );
}

/// A streamed conversation: a valid call in two fragments, then a call whose second
/// fragment puts a string where an integer goes, then text.
fn streamed_turns() -> MockCompletionModel {
    use rig_core::test_utils::MockStreamEvent as Event;
    let call = |id: &str, fragments: [&str; 2]| {
        vec![
            Event::tool_call_name_delta(id, "add"),
            Event::tool_call_arguments_delta(id, fragments[0]),
            Event::tool_call_arguments_delta(id, fragments[1]),
            Event::tool_call_end(id),
            Event::final_response_with_total_tokens(3),
        ]
    };
    MockCompletionModel::from_stream_turns([
        call("t1", [r#"{"a": 2,"#, r#" "b": 3}"#]),
        call("t2", [r#"{"a": 2, "b": "th"#, r#"ree"}"#]),
        vec![
            Event::text("done"),
            Event::final_response_with_total_tokens(1),
        ],
    ])
}

/// Streams a run of `model` with `tools`: the argument fragments that reached the
/// stream, and the run's error if it stopped.
async fn stream(model: &MockCompletionModel, tools: &RigTools) -> (Vec<String>, Option<String>) {
    use futures_util::StreamExt as _;
    use rig_agent::agent::MultiTurnStreamItem;
    use rig_core::streaming::{Item, StreamEvent};
    let agent = AgentBuilder::new(model.clone()).toolwright(tools).build();
    let mut stream = agent.prompt("add, twice").max_turns(5).stream();
    let mut fragments = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(MultiTurnStreamItem::StreamAssistantItem(Item::Event(StreamEvent::Arguments {
                json,
                ..
            }))) if !json.is_empty() => fragments.push(json.to_string()),
            Ok(_) => {}
            Err(error) => return (fragments, Some(error.to_string())),
        }
    }
    (fragments, None)
}

#[tokio::test]
async fn a_streamed_call_is_stopped_at_the_fragment_that_makes_it_hopeless() {
    let (ctx, _) = context();
    let tools = RigTools::new(registry())
        .with_context(ctx)
        .stop_hopeless_calls();
    let model = streamed_turns();
    let (fragments, error) = stream(&model, &tools).await;
    // The valid call ran; the hopeless fragment never reached the stream.
    assert_eq!(fragments, [r#"{"a": 2,"#, r#" "b": 3}"#]);
    let requests = model.requests();
    assert_eq!(
        requests.len(),
        2,
        "the run stopped before a third model call"
    );
    assert_eq!(
        tool_results(&requests[1].chat_history),
        [("5".to_owned(), false)]
    );
    let error = error.expect("the run stops at the hopeless fragment");
    assert!(error.contains("cannot be valid"), "{error}");
    assert!(error.contains("$.b"), "{error}");
    assert!(error.contains("expected an integer"), "{error}");
}

#[tokio::test]
async fn without_the_option_a_streamed_call_is_checked_once_complete() {
    let (ctx, _) = context();
    let tools = RigTools::new(registry()).with_context(ctx);
    let model = streamed_turns();
    let (fragments, error) = stream(&model, &tools).await;
    assert_eq!(error, None);
    assert_eq!(fragments.len(), 4);
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let read = tool_results(&requests[2].chat_history);
    assert_eq!(read[0], ("5".to_owned(), false));
    assert!(read[1].1, "{read:?}");
    assert!(read[1].0.contains("$.b"), "{read:?}");
}

#[tokio::test]
async fn a_streamed_call_to_an_unknown_tool_is_answered_not_stopped() {
    use rig_core::test_utils::MockStreamEvent as Event;
    let model = MockCompletionModel::from_stream_turns([
        vec![
            Event::tool_call_name_delta("t1", "ad"),
            Event::tool_call_arguments_delta("t1", r#"{"a": 1, "b": 1}"#),
            Event::tool_call_end("t1"),
            Event::final_response_with_total_tokens(3),
        ],
        vec![
            Event::text("done"),
            Event::final_response_with_total_tokens(1),
        ],
    ]);
    let tools = RigTools::new(registry()).stop_hopeless_calls();
    let (_, error) = stream(&model, &tools).await;
    assert_eq!(error, None);
    let read = tool_results(&model.requests()[1].chat_history);
    assert!(read[0].0.contains("add"), "{read:?}");
}

#[tokio::test]
async fn a_call_cut_by_the_output_limit_is_answered_not_run() {
    use rig_core::test_utils::MockStreamEvent as Event;
    let cut = |id: &str, arguments: &str| {
        vec![
            Event::tool_call_name_delta(id, "delete_file"),
            Event::tool_call_arguments_delta(id, arguments),
            Event::FinalResponse(rig_core::operation::Finish {
                usage: Default::default(),
                reason: Some(rig_core::completion::FinishReason::Length),
                response_id: None,
                model: None,
                error: None,
            }),
        ]
    };
    let model = MockCompletionModel::from_stream_turns([
        // Whole JSON, but the turn stopped for its output limit while the call was the
        // last thing written: the path may be the start of a longer one.
        cut("t1", r#"{"path": "notes"}"#),
        vec![
            Event::text("done"),
            Event::final_response_with_total_tokens(1),
        ],
    ]);
    let registry = std::sync::Arc::new(
        toolwright::Registry::builder()
            .with(crate::DeleteFile)
            .defaults(toolwright::ToolSettings::new().policy(toolwright::policy::AllowAll))
            .build()
            .unwrap(),
    );
    let (ctx, deleted) = context();
    let tools = RigTools::new(registry).with_context(ctx);
    let (_, error) = stream(&model, &tools).await;
    assert_eq!(error, None);
    let read = tool_results(&model.requests()[1].chat_history);
    assert_eq!(read.len(), 1);
    assert!(read[0].0.contains("was cut off before its end"), "{read:?}");
    assert!(read[0].0.contains("length"), "{read:?}");
    assert_eq!(deleted.count(), 0, "the cut call did not run");
}
