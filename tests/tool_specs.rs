//! The full spec of every example tool, as an insta snapshot: a change to any tool's
//! contract (a renamed argument, a new constraint, an edited doc comment) shows up in
//! review as a diff of `tests/snapshots/tool_specs__*.snap`.

use crate::tools;

use insta::assert_json_snapshot;
use serde_json::json;
use tools::{ConvertTemperature, Notes, PaymentsDesk, SaveNote, SearchNotes};
use toolwright::{Context, Effect, ErrorKind, Tool, ToolOutput};

#[test]
fn refund_payment_spec() {
    assert_json_snapshot!(PaymentsDesk::shared().tool("refund_payment").spec());
}

#[test]
fn lookup_customer_spec() {
    assert_json_snapshot!(PaymentsDesk::shared().tool("lookup_customer").spec());
}

#[test]
fn save_note_spec() {
    assert_json_snapshot!(SaveNote.spec());
}

#[test]
fn search_notes_spec() {
    assert_json_snapshot!(SearchNotes.spec());
}

#[test]
fn convert_temperature_spec() {
    assert_json_snapshot!(ConvertTemperature.spec());
}

#[test]
fn the_spec_follows_the_signature_and_the_docs() {
    let refund = PaymentsDesk::shared().tool("refund_payment");
    let spec = refund.spec();
    let schema = &spec.input_schema;
    let names: Vec<_> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        names,
        ["customer", "amount", "currency", "memo", "retries"],
        "signature order"
    );
    assert_eq!(
        schema["required"],
        json!(["customer", "amount", "currency"])
    );
    assert_eq!(schema["additionalProperties"], json!(false));
    // precedence: `///` on the parameter, then `# Arguments`
    assert_eq!(
        schema["properties"]["currency"]["description"],
        "Currency of the refund."
    );
    assert_eq!(
        schema["properties"]["customer"]["description"],
        "Customer id, like `C-100`."
    );
    assert_eq!(schema["properties"]["retries"]["default"], json!(3));
    assert!(
        !spec.description.contains("Arguments"),
        "{}",
        spec.description
    );
    assert!(
        !spec.description.contains("not_found"),
        "# Errors is never sent"
    );
    assert_eq!(spec.effect, Effect::External);
    assert!(spec.annotations().destructive_hint && spec.annotations().open_world_hint);
    assert!(spec.annotations().idempotent_hint);
    // `#[ctx]` parameters never appear in the schema.
    assert!(
        SearchNotes.spec().input_schema["properties"]
            .get("notes")
            .is_none()
    );
}

fn run(
    tool: &dyn Tool,
    ctx: &Context,
    arguments: &str,
) -> Result<ToolOutput, toolwright::ToolError> {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(tool.call(ctx, arguments.into()))
}

#[test]
fn calls_deserialize_inject_context_and_convert_results() {
    let ctx = Context::new().with(Notes::default());
    let saved = run(
        &SaveNote,
        &ctx,
        r#"{"note": {"title": "t", "body": "find me"}}"#,
    )
    .unwrap();
    assert_eq!(saved, ToolOutput::Text("Saved note 't'.".into()));
    let found = run(
        &SearchNotes,
        &ctx,
        r#"{"query": "FIND", "max_results": null}"#,
    )
    .unwrap();
    assert_eq!(
        found,
        ToolOutput::Json(json!([{"title": "t", "body": "find me", "tags": []}]))
    );
    let value = serde_json::json!({"value": 0, "from": "kelvin", "to": "celsius"});
    let converted = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(ConvertTemperature.call(&ctx, (&value).into()))
        .unwrap();
    assert_eq!(converted, ToolOutput::Json(json!(-273.15)));
}

#[test]
fn errors_come_back_as_data() {
    let ctx = Context::new();
    let refund = PaymentsDesk::shared().tool("refund_payment");
    // `Err(ToolError)` keeps the category the tool chose.
    let error = run(
        &*refund,
        &ctx,
        r#"{"customer": "C-0", "amount": 1, "currency": "EUR"}"#,
    )
    .unwrap_err();
    assert_eq!(error.kind, ErrorKind::NotFound);
    assert_eq!(error.hint.as_deref(), Some("look the customer up first"));
    // `Err(String)` (any `Display`) becomes `failed`.
    let error = run(
        &ConvertTemperature,
        &ctx,
        r#"{"value": -500, "from": "celsius", "to": "kelvin"}"#,
    )
    .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Failed);
    assert_eq!(error.message, "-500 is below absolute zero");
    // Arguments that do not deserialize are `invalid_arguments`, never a panic.
    let error = run(&*refund, &ctx, r#"{"customer": 7}"#).unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidArguments);
    let error = run(&*refund, &ctx, "not json").unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidArguments);
    // A missing context value is the harness's fault, said plainly.
    let error = run(&SaveNote, &ctx, r#"{"note": {"title": "t", "body": "b"}}"#).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Internal);
    assert!(error.message.contains("Notes"), "{}", error.message);
    assert_eq!(
        SaveNote.context_types()[0].name,
        std::any::type_name::<Notes>()
    );
}

/// A type the user cannot derive `ToolSchema` on (as if from another crate): it reads a
/// `"HH:MM"` string.
#[derive(Debug, PartialEq)]
struct ClockTime(u8, u8);

impl<'de> serde::Deserialize<'de> for ClockTime {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let parse = |part: Option<&str>| part.and_then(|p| p.parse::<u8>().ok());
        let mut parts = text.split(':');
        match (parse(parts.next()), parse(parts.next()), parts.next()) {
            (Some(hour), Some(minute), None) if hour < 24 && minute < 60 => {
                Ok(ClockTime(hour, minute))
            }
            _ => Err(serde::de::Error::custom("expected HH:MM")),
        }
    }
}

fn clock_time_schema(_: &mut toolwright::SchemaGenerator) -> serde_json::Value {
    json!({"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"})
}

/// A shape the clock time borrows with `schema_as`.
#[derive(serde::Deserialize, toolwright::ToolSchema)]
#[serde(transparent)]
struct ClockText(#[arg(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")] String);

/// Opening hours of a shop.
#[derive(serde::Deserialize, toolwright::ToolSchema)]
#[allow(dead_code)]
struct Hours {
    #[arg(schema_with = clock_time_schema)]
    opens: ClockTime,
    /// Closing time, if it closes.
    #[arg(schema_as = "Option<ClockText>")]
    closes: Option<ClockTime>,
}

/// Set when the shop opens.
#[toolwright::tool(effect = "write")]
fn set_hours(
    /// When it opens on weekdays.
    #[arg(schema_with = clock_time_schema)]
    weekdays: ClockTime,
    #[arg(schema_as = ClockText)] saturday: ClockTime,
    #[arg(schema_with = clock_time_schema)] sunday: Option<ClockTime>,
    holidays: Option<Hours>,
) -> String {
    let _ = holidays;
    format!("{weekdays:?} {saturday:?} {sunday:?}")
}

/// `#[arg(schema_with)]` and `#[arg(schema_as)]` give a schema to a type without one, on
/// parameters and on derived fields; the value is still read by the type's own
/// `Deserialize`, and an absent `Option` stays optional.
#[test]
fn schema_with_and_schema_as_give_a_foreign_type_its_schema() {
    let schema = &SetHours.spec().input_schema;
    let pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$";
    assert_eq!(schema["properties"]["weekdays"]["pattern"], pattern);
    assert_eq!(
        schema["properties"]["weekdays"]["description"],
        "When it opens on weekdays."
    );
    assert_eq!(schema["properties"]["saturday"]["pattern"], pattern);
    assert_eq!(schema["properties"]["sunday"]["pattern"], pattern);
    assert_eq!(schema["required"], json!(["weekdays", "saturday"]));
    let hours = &schema["$defs"]["Hours"];
    assert_eq!(hours["properties"]["opens"]["pattern"], pattern);
    assert_eq!(hours["required"], json!(["opens"]));
    assert_eq!(
        hours["properties"]["closes"]["description"],
        "Closing time, if it closes."
    );

    let ctx = Context::new();
    let run = |arguments: serde_json::Value| {
        futures_executor::block_on(SetHours.call(&ctx, (&arguments).into()))
    };
    let output = run(json!({"weekdays": "08:30", "saturday": "10:00"})).expect("valid times run");
    assert_eq!(
        output,
        ToolOutput::Text("ClockTime(8, 30) ClockTime(10, 0) None".into())
    );
    let error =
        run(json!({"weekdays": "8h30", "saturday": "10:00", "holidays": {"opens": "25:00"}}))
            .expect_err("times outside the pattern are refused");
    assert_eq!(error.kind, ErrorKind::InvalidArguments);
    let paths: Vec<&str> = error.problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        ["$.weekdays", "$.holidays.opens"],
        "{:?}",
        error.problems
    );
}

#[doc = include_str!("fixtures/docs/archive_logs.md")]
#[toolwright::tool(effect = "write")]
fn archive_logs(service: String, older_than_days: u32) -> String {
    format!("{service} {older_than_days}")
}

/// `#[doc = include_str!("file")]` on a tool is read like a doc comment: the file's text
/// is the description and its `# Arguments` section the arguments' descriptions.
#[test]
fn a_tool_documented_from_a_file() {
    let spec = ArchiveLogs.spec();
    assert_eq!(
        spec.description,
        "Archive the logs of a service older than a number of days.\n\nThe archive is compressed and kept for a year."
    );
    let properties = &spec.input_schema["properties"];
    assert_eq!(
        properties["service"]["description"],
        "The service whose logs to archive, like `billing`."
    );
    assert_eq!(
        properties["older_than_days"]["description"],
        "Archive only logs older than this many days."
    );
}

macro_rules! documented_tool {
    ($doc:literal, $name:ident) => {
        #[doc = $doc]
        #[toolwright::tool(effect = "read_only")]
        fn $name() -> String {
            stringify!($name).to_owned()
        }
    };
}

documented_tool!("Say which tool this is.", which_tool);

/// A doc literal handed in by `macro_rules!` is read as any doc comment.
#[test]
fn a_tool_documented_by_a_declarative_macro() {
    assert_eq!(WhichTool.spec().description, "Say which tool this is.");
}

fn any_text(_: &mut toolwright::SchemaGenerator) -> serde_json::Value {
    json!({"type": "string"})
}

/// Set an alarm.
#[toolwright::tool(effect = "write")]
fn set_alarm(
    /// When it rings.
    #[arg(schema_with = any_text)]
    at: ClockTime,
) -> String {
    format!("{at:?}")
}

/// A type whose own `Deserialize` refuses what its schema admits: the model reads the
/// type's own message, not a generic one.
#[test]
fn a_types_own_error_message_reaches_the_model() {
    let ctx = Context::new();
    let arguments = json!({"at": "8h30"});
    let error = futures_executor::block_on(SetAlarm.call(&ctx, (&arguments).into()))
        .expect_err("8h30 is not HH:MM");
    assert_eq!(error.kind, ErrorKind::InvalidArguments);
    assert_eq!(error.problems.len(), 1);
    assert!(
        error.problems[0].message.contains("expected HH:MM"),
        "{:?}",
        error.problems
    );
}

/// Rename a file.
#[toolwright::tool(effect = "write")]
fn rename_file(
    /// The file to rename.
    #[serde(alias = "source")]
    from: String,
    /// Its new name.
    to: String,
) -> String {
    format!("{from} -> {to}")
}

/// A serde alias is read but not shown: the schema names `from` only, a call that says
/// `source` runs, and when the slow path runs for another problem it names the alias as
/// unexpected, so the model moves to the shown name.
#[test]
fn an_alias_is_read_but_not_shown() {
    let schema = &RenameFile.spec().input_schema;
    assert_eq!(schema["required"], json!(["from", "to"]));
    assert!(schema["properties"].get("source").is_none());
    let ctx = Context::new();
    let run = |arguments: serde_json::Value| {
        futures_executor::block_on(RenameFile.call(&ctx, (&arguments).into()))
    };
    let output = run(json!({"source": "a.txt", "to": "b.txt"})).expect("the alias is read");
    assert_eq!(output, ToolOutput::Text("a.txt -> b.txt".into()));
    let error = run(json!({"source": "a.txt", "to": 5})).expect_err("`to` is not a string");
    let messages: Vec<&str> = error.problems.iter().map(|p| p.message.as_str()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("unexpected field 'source'")),
        "{messages:?}"
    );
}

/// The generated arguments reader (written out, not derived) reads as serde's derive with
/// `deny_unknown_fields` does: a name sent twice, an unknown name and a missing argument
/// are refused; an alias is a name; an absent `Option` is `None`.
#[test]
fn the_arguments_reader_refuses_what_serde_would() {
    let ctx = Context::new();
    let text = |json: &str| futures_executor::block_on(RenameFile.call(&ctx, json.into()));
    let twice = text(r#"{"from": "a", "to": "b", "to": "c"}"#).expect_err("a name twice");
    assert!(
        twice
            .problems
            .iter()
            .any(|p| p.message.contains("duplicate field `to`")),
        "{:?}",
        twice.problems
    );
    let twice =
        text(r#"{"from": "a", "source": "b", "to": "c"}"#).expect_err("a name and its alias");
    assert!(
        twice
            .problems
            .iter()
            .any(|p| p.message.contains("duplicate field `from`")
                || p.message.contains("unexpected field 'source'")),
        "{:?}",
        twice.problems
    );
    assert!(text(r#"{"from": "a"}"#).is_err(), "`to` is required");
    assert!(
        text(r#"{"from": "a", "to": "b", "extra": 1}"#).is_err(),
        "no unknown names"
    );
    assert!(text(r#"["a", "b"]"#).is_err(), "an object, not an array");
    assert_eq!(
        text(r#"{"to": "b", "from": "a"}"#).expect("any order"),
        ToolOutput::Text("a -> b".into())
    );
}

/// Retry a job.
#[toolwright::tool(effect = "write")]
fn retry_job(
    /// The job.
    job: String,
    /// How many times.
    #[arg(minimum = 1, maximum = 9, default = 3)]
    times: u32,
    /// A note for the log.
    note: Option<String>,
) -> String {
    format!("{job} x{times} {note:?}")
}

/// An argument not sent takes its `#[arg(default)]` or, for an `Option`, `None`; one
/// sent is read as sent, and checked against its bounds either way.
#[test]
fn absent_arguments_take_their_defaults() {
    let ctx = Context::new();
    let call = |json: &str| futures_executor::block_on(RetryJob.call(&ctx, json.into()));
    assert_eq!(
        call(r#"{"job": "backup"}"#).unwrap(),
        ToolOutput::Text("backup x3 None".into())
    );
    assert_eq!(
        call(r#"{"job": "backup", "times": 5, "note": "late"}"#).unwrap(),
        ToolOutput::Text("backup x5 Some(\"late\")".into())
    );
    assert!(
        call(r#"{"job": "backup", "times": 10}"#).is_err(),
        "above the maximum"
    );
    assert!(call(r#"{"times": 2}"#).is_err(), "`job` is required");
}
