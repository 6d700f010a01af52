//! Approval inside the protocol (2026-07-28, SEP-2322): a call that needs a person's
//! approval answers with an input-required result asking the client to elicit a yes or
//! no for the exact call, its signed ticket as the request state; the client's retry
//! carries the answer and the state back, and the call runs (or is declined) once.
//! Clients of older revisions, or without elicitation, get the `awaiting_approval`
//! result as before.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitationSchema, ErrorData,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::approval::{ApprovalDecision, ApprovalTicket};

/// The key of the elicitation in the input requests and responses.
const APPROVAL_INPUT: &str = "approval";

/// Whether the client can be asked within the protocol: 2026-07-28 or later, and it
/// declared elicitation.
pub(super) fn can_ask(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
        && context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.elicitation.is_some())
}

/// The input-required answer for a call awaiting approval: an elicitation that shows the
/// tool, the arguments and the reason, and the ticket as the request state.
pub(super) fn ask(ticket: &ApprovalTicket) -> Result<InputRequiredResult, ErrorData> {
    let state = serde_json::to_vec(ticket)
        .map(|json| URL_SAFE_NO_PAD.encode(json))
        .map_err(|error| {
            ErrorData::internal_error(format!("encoding the ticket: {error}"), None)
        })?;
    Ok(InputRequiredResult::new(Some(asking(ticket)?), Some(state)))
}

/// The elicitation asking a person to approve the call `ticket` is for, as the input
/// requests of an input-required result or of a task waiting for approval.
pub(super) fn asking(ticket: &ApprovalTicket) -> Result<InputRequests, ErrorData> {
    let arguments = serde_json::to_string_pretty(&ticket.arguments).unwrap_or_default();
    let message = format!(
        "Approve this call?\n\nTool: {}\nArguments:\n{arguments}\n\nWhy it needs your approval: {}",
        ticket.tool, ticket.reason
    );
    // Built from rmcp's types, not read from JSON: reading would link the deserializer of
    // every input request and elicitation schema into each server.
    let schema = ElicitationSchema::builder()
        .required_bool_with("approve", |approve| {
            approve
                .title("Approve")
                .description(format!("Run {} with these arguments", ticket.tool))
        })
        .build()
        .map_err(|error| {
            ErrorData::internal_error(format!("building the approval request: {error}"), None)
        })?;
    let request = InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema,
        },
    ));
    Ok([(APPROVAL_INPUT.to_owned(), request)].into_iter().collect())
}

/// A retry's ticket and the person's decision, `None` for the decision when the retry
/// carries no answer (the client is asked again). The ticket is only decoded here; its
/// signature, expiry and caller are checked by the registry before anything runs.
///
/// The retry must repeat the call the ticket is for, unless the tool called is a
/// built-in that resumes tickets of its own (`run_code`: its ticket is for the call its
/// paused program made, and the retry repeats the program).
pub(super) fn answer(
    request: &CallToolRequestParams,
    state: &str,
    resumes_own_tickets: bool,
) -> Result<(ApprovalTicket, Option<ApprovalDecision>), ErrorData> {
    let tampered = || {
        ErrorData::invalid_params(
            "requestState is not one this server issued, or was changed: call the tool again without it",
            None,
        )
    };
    let json = URL_SAFE_NO_PAD.decode(state).map_err(|_| tampered())?;
    let ticket: ApprovalTicket = serde_json::from_slice(&json).map_err(|_| tampered())?;
    let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
    if !resumes_own_tickets && (request.name != ticket.tool || arguments != ticket.arguments) {
        return Err(ErrorData::invalid_params(
            format!(
                "this retry calls {} with other arguments than the call awaiting approval ({}): retry the same call, or call anew without requestState",
                request.name, ticket.tool
            ),
            None,
        ));
    }
    let decision = match &request.input_responses {
        Some(responses) => decision(responses, &ticket.digest)?,
        None => None,
    };
    Ok((ticket, decision))
}

/// The person's decision on the ticket with `digest`, from the client's answers to
/// [`asking`]; `None` when they hold no answer to it.
pub(super) fn decision(
    responses: &InputResponses,
    digest: &str,
) -> Result<Option<ApprovalDecision>, ErrorData> {
    let Some(response) = responses.get(APPROVAL_INPUT) else {
        return Ok(None);
    };
    let digest = digest.to_owned();
    let action = response.get("action").and_then(Value::as_str);
    let approved = response
        .get("content")
        .and_then(|content| content.get("approve"))
        .and_then(Value::as_bool);
    let decision = match (action, approved) {
        (Some("accept"), Some(true)) => ApprovalDecision::Approve { digest },
        (Some("accept"), _) => ApprovalDecision::Decline {
            digest,
            reason: "the user did not approve the call".to_owned(),
        },
        (Some("decline"), _) => ApprovalDecision::Decline {
            digest,
            reason: "the user declined the call".to_owned(),
        },
        (Some("cancel"), _) => ApprovalDecision::Decline {
            digest,
            reason: "the user dismissed the approval without deciding".to_owned(),
        },
        _ => {
            return Err(ErrorData::invalid_params(
                format!(
                    "inputResponses[\"{APPROVAL_INPUT}\"] must be an elicitation result: {{\"action\": \"accept\" | \"decline\" | \"cancel\", \"content\": {{\"approve\": true | false}}}}"
                ),
                None,
            ));
        }
    };
    Ok(Some(decision))
}
