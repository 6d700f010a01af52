//! Every example tool's definition in every provider dialect, as reviewed snapshots; every
//! lowered schema checked against its dialect's rules; constructs a dialect cannot
//! express refused with the tool, the path and the target; and the strict round trip.

use crate::tools;

use std::collections::HashMap;

use insta::assert_json_snapshot;
use serde_json::{Map, Value, json};
use toolwright::provider::definition;
use toolwright::schema::Target;
use toolwright::validate::Validator;
use toolwright::{Context, Dialect, Registry, SchemaGenerator, Tool, ToolCall, ToolSchema, tool};

fn examples() -> toolwright::RegistryBuilder {
    tools::every_example_tool(toolwright::policy::AllowAll)
}

/// The types reference's claim: the example tools' integer arguments declare the range
/// they mean, so no input schema carries a type's own bound (`"maximum": 4294967295` is
/// 7 tokens on every request).
#[test]
fn no_example_argument_pays_for_its_types_bounds() {
    let registry = examples().build().unwrap();
    let type_bounds = [
        u32::MAX as i64,
        i32::MAX as i64,
        i32::MIN as i64,
        u16::MAX as i64,
    ];
    for spec in registry.specs() {
        let text = spec.input_schema.to_string();
        for bound in type_bounds {
            assert!(
                !text.contains(&format!(":{bound}")),
                "{}: an integer argument without a range of its own ({bound}): {text}",
                spec.name
            );
        }
    }
}

#[test]
fn every_example_tool_in_every_dialect() {
    let registry = examples().build().unwrap();
    for dialect in Dialect::ALL {
        let definitions = registry.all_definitions(dialect).unwrap_or_else(|errors| {
            panic!(
                "{dialect:?}: {}",
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
        insta::with_settings!({snapshot_suffix => dialect.slug()}, {
            assert_json_snapshot!(definitions);
        });
    }
}

/// The lowered schema inside a definition.
fn lowered_schema(definition: &Value, dialect: Dialect) -> Value {
    match dialect {
        Dialect::OpenAiChat { .. } => definition["function"]["parameters"].clone(),
        Dialect::OpenAiResponses { .. } => definition["parameters"].clone(),
        Dialect::Anthropic { .. } => definition["input_schema"].clone(),
        Dialect::GeminiParameters => definition
            .get("parameters")
            .cloned()
            .unwrap_or(json!({"type": "object"})),
        Dialect::GeminiJsonSchema => definition["parametersJsonSchema"].clone(),
        Dialect::Mcp => definition["inputSchema"].clone(),
        other => panic!("a dialect this test does not know: {other:?}"),
    }
}

#[test]
fn lowered_schemas_are_valid_json_schema_2020_12() {
    let registry = examples().build().unwrap();
    for dialect in Dialect::ALL
        .into_iter()
        .filter(|d| *d != Dialect::GeminiParameters)
    {
        for definition in registry.all_definitions(dialect).unwrap() {
            let schema = lowered_schema(&definition, dialect);
            if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
                panic!("{dialect:?}: {error}\n{schema:#}");
            }
            assert_eq!(
                schema["type"], "object",
                "{dialect:?}: the root is an object"
            );
        }
    }
}

/// The OpenAPI 3.0 `Schema` subset Gemini `parameters` takes.
fn check_openapi_subset(schema: &Value, path: &str) {
    const FIELDS: &[&str] = &[
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "properties",
        "required",
        "items",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "anyOf",
        "default",
        "example",
        "propertyOrdering",
    ];
    let map = schema
        .as_object()
        .unwrap_or_else(|| panic!("{path}: a schema must be an object: {schema}"));
    for (key, value) in map {
        assert!(
            FIELDS.contains(&key.as_str()),
            "{path}: `{key}` is not an OpenAPI Schema field"
        );
        match key.as_str() {
            "type" => assert!(
                value.is_string(),
                "{path}: `type` must be one string, not {value}"
            ),
            "enum" => assert!(
                value.as_array().unwrap().iter().all(Value::is_string),
                "{path}: string enums only"
            ),
            "properties" => value
                .as_object()
                .unwrap()
                .iter()
                .for_each(|(k, v)| check_openapi_subset(v, &format!("{path}/{k}"))),
            "items" => check_openapi_subset(value, &format!("{path}/items")),
            "anyOf" => value
                .as_array()
                .unwrap()
                .iter()
                .for_each(|v| check_openapi_subset(v, &format!("{path}/anyOf"))),
            _ => {}
        }
    }
}

#[test]
fn gemini_parameters_follow_the_openapi_subset() {
    for definition in examples()
        .build()
        .unwrap()
        .all_definitions(Dialect::GeminiParameters)
        .unwrap()
    {
        if let Some(parameters) = definition.get("parameters") {
            check_openapi_subset(parameters, &definition["name"].to_string());
        }
    }
}

#[test]
fn mcp_annotations_are_all_explicit() {
    for definition in examples()
        .build()
        .unwrap()
        .all_definitions(Dialect::Mcp)
        .unwrap()
    {
        let annotations = definition["annotations"].as_object().unwrap();
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(
                annotations[hint].is_boolean(),
                "{}: {hint}",
                definition["name"]
            );
        }
    }
}

#[test]
fn strict_optional_arguments_round_trip_as_null() {
    let registry = examples().build().unwrap();
    let strict = definition(
        registry.get("refund_payment").unwrap().spec(),
        Dialect::OpenAiChat { strict: true },
    )
    .unwrap();
    let schema = &strict["function"]["parameters"];
    // Every property is required; the optional ones accept null.
    assert_eq!(
        schema["required"],
        json!(["customer", "amount", "currency", "memo", "retries"])
    );
    // What a strict model sends when it leaves `memo` and `retries` out:
    let sent =
        json!({"customer": "C-100", "amount": 5, "currency": "EUR", "memo": null, "retries": null});
    assert!(
        Validator::for_arguments(schema).unwrap().is_valid(&sent),
        "valid for the lowered schema"
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let ctx = Context::new().with(toolwright::policy::Caller::new("tests", ["payments:write"]));
    let decoded = runtime.block_on(
        registry.dispatch(
            &ctx,
            ToolCall::new("c", "refund_payment", sent.clone())
                .written_for(Dialect::OpenAiChat { strict: true }),
        ),
    );
    assert!(!decoded.is_error(), "{}", decoded.for_model());
    // Without the decoder `retries: null` is not a u8.
    let raw = runtime.block_on(registry.dispatch(&ctx, ToolCall::new("c", "refund_payment", sent)));
    assert_eq!(raw.error().unwrap().problems[0].path, "$.retries");
}

/// Tag a file.
#[tool(effect = "write")]
fn tag_file(path: String, tags: HashMap<String, String>) -> String {
    format!("{path}: {}", tags.len())
}

/// A directory tree.
#[derive(serde::Deserialize, ToolSchema)]
struct Tree {
    name: String,
    children: Vec<Tree>,
}

/// Count the nodes of a tree.
#[tool(effect = "read_only")]
fn count_nodes(tree: Tree) -> usize {
    1 + tree.children.len()
}

/// An HTTP status a test can choose.
struct Status(u16);

impl<'de> serde::Deserialize<'de> for Status {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        u16::deserialize(deserializer).map(Status)
    }
}

impl ToolSchema for Status {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "integer", "enum": [200, 404, 500]})
    }
}

/// Answer with a status.
#[tool(effect = "read_only")]
fn respond(status: Status) -> u16 {
    status.0
}

/// A header as a mail client sends it.
#[derive(serde::Deserialize, ToolSchema)]
#[serde(rename_all = "kebab-case")]
struct Header {
    content_type: String,
}

/// Inspect a mail header.
#[tool(effect = "read_only")]
fn inspect_header(header: Header) -> String {
    header.content_type
}

fn refusals(tool: &dyn Tool, dialect: Dialect) -> Vec<String> {
    match definition(tool.spec(), dialect) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn what_a_target_cannot_express_is_refused_with_tool_path_and_target() {
    assert_json_snapshot!(json!({
        "recursion under Gemini parameters": refusals(&CountNodes, Dialect::GeminiParameters),
        "recursion under Anthropic strict": refusals(&CountNodes, Dialect::Anthropic { strict: true }),
        "integer enum under Gemini parameters": refusals(&Respond, Dialect::GeminiParameters),
        "kebab-case property under Gemini": refusals(&InspectHeader, Dialect::GeminiJsonSchema),
    }));
    assert!(refusals(&InspectHeader, Dialect::Mcp).is_empty());
    // What the others can express, they take; a map, every dialect (as entries where
    // objects must list their fields).
    for dialect in Dialect::ALL {
        assert!(refusals(&TagFile, dialect).is_empty(), "{dialect:?}");
    }
    for dialect in [
        Dialect::OpenAiChat { strict: false },
        Dialect::Anthropic { strict: false },
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ] {
        assert!(refusals(&CountNodes, dialect).is_empty(), "{dialect:?}");
    }
    assert!(
        refusals(&CountNodes, Dialect::OpenAiChat { strict: true }).is_empty(),
        "OpenAI strict takes recursion"
    );
    assert_eq!(Dialect::GeminiParameters.target(), Target::GeminiParameters);
}

#[test]
fn registry_check_catches_a_refusal_before_a_provider_would() {
    let registry = examples().with(CountNodes).build().unwrap();
    let errors = registry
        .check(Dialect::Anthropic { strict: true })
        .unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].tool, "count_nodes");
    assert!(registry.check(Dialect::Mcp).is_ok());
}

/// The strict dialects, where a map goes as an array of entries.
const ENTRY_DIALECTS: [Dialect; 4] = [
    Dialect::OpenAiChat { strict: true },
    Dialect::OpenAiResponses { strict: true },
    Dialect::Anthropic { strict: true },
    Dialect::GeminiParameters,
];

#[test]
fn a_map_goes_as_entries_where_objects_must_list_their_fields_and_comes_back_whole() {
    let lowered: Map<String, Value> = ENTRY_DIALECTS
        .iter()
        .map(|dialect| {
            let definition = definition(TagFile.spec(), *dialect).unwrap();
            (format!("{dialect:?}"), definition)
        })
        .collect();
    assert_json_snapshot!("map_as_entries", lowered);

    let registry = Registry::builder().with(TagFile).build().unwrap();
    let ctx = Context::new().with(toolwright::policy::Caller::new("tests", ["x"]));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let sent = json!({"path": "a.txt", "tags": [
        {"key": "owner", "value": "ana"},
        {"key": "team", "value": "ops"}
    ]});
    let call =
        ToolCall::new("c", "tag_file", sent).written_for(Dialect::OpenAiChat { strict: true });
    let tagged = runtime.block_on(registry.dispatch(&ctx, call));
    assert_eq!(tagged.for_model(), "a.txt: 2");
    // Through a provider's own response: parse_calls marks the calls.
    let response = json!({"content": [{"type": "tool_use", "id": "t1", "name": "tag_file",
        "input": {"path": "b.txt", "tags": [{"key": "k", "value": "v"}]}}]});
    let calls =
        toolwright::provider::parse_calls(Dialect::Anthropic { strict: true }, &response).unwrap();
    let tagged = runtime.block_on(registry.dispatch(&ctx, calls.into_iter().next().unwrap()));
    assert_eq!(tagged.for_model(), "b.txt: 1");

    // A key given twice: which value was meant is not known.
    let twice =
        json!({"path": "a.txt", "tags": [{"key": "k", "value": "1"}, {"key": "k", "value": "2"}]});
    let refused = runtime.block_on(registry.dispatch(
        &ctx,
        ToolCall::new("c", "tag_file", twice).written_for(Dialect::GeminiParameters),
    ));
    let error = refused.error().unwrap();
    assert_eq!(error.kind, toolwright::ErrorKind::InvalidArguments);
    assert_eq!(error.problems[0].path, "$.tags");
    assert!(
        error.problems[0].message.contains("'k' is given twice"),
        "{error:?}"
    );
    // From a dialect that takes maps, entries are not decoded: the object is expected.
    let plain = json!({"path": "a.txt", "tags": [{"key": "k", "value": "1"}]});
    let refused = runtime.block_on(registry.dispatch(&ctx, ToolCall::new("c", "tag_file", plain)));
    assert_eq!(refused.error().unwrap().problems[0].path, "$.tags");
}

#[test]
fn anthropic_strict_budgets_count_the_whole_tool_list() {
    let mut registry = Registry::builder();
    // 21 strict tools is one over the per-request budget of 20.
    for i in 0..21 {
        let mut spec = tools::ConvertTemperature.spec().clone();
        spec.name = format!("convert_{i}");
        registry = registry.with(Renamed { spec });
    }
    let registry = registry.build().unwrap();
    let errors = registry
        .check(Dialect::Anthropic { strict: true })
        .unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e.reason.starts_with("21 strict tools across the request")),
        "{errors:?}"
    );
}

/// A copy of a tool under another name.
struct Renamed {
    spec: toolwright::ToolSpec,
}

impl Tool for Renamed {
    fn spec(&self) -> &toolwright::ToolSpec {
        &self.spec
    }
    fn prepare(
        &self,
        args: toolwright::Arguments<'_>,
    ) -> Result<toolwright::Prepared, toolwright::ToolError> {
        tools::ConvertTemperature.prepare(args)
    }
    fn run<'a>(
        &'a self,
        ctx: &'a Context,
        args: toolwright::Prepared,
    ) -> toolwright::ToolFuture<'a> {
        tools::ConvertTemperature.run(ctx, args)
    }
}

/// A hand-written tool whose arguments are not an object: no provider can take it.
struct ListArguments(toolwright::ToolSpec);

impl Tool for ListArguments {
    fn spec(&self) -> &toolwright::ToolSpec {
        &self.0
    }
    fn prepare(
        &self,
        _: toolwright::Arguments<'_>,
    ) -> Result<toolwright::Prepared, toolwright::ToolError> {
        Ok(toolwright::Prepared::new(()))
    }
    fn run<'a>(&'a self, _: &'a Context, _: toolwright::Prepared) -> toolwright::ToolFuture<'a> {
        toolwright::ToolFuture::ready(Ok(toolwright::ToolOutput::Empty))
    }
}

#[test]
fn a_root_that_is_not_an_object_is_refused_in_every_dialect() {
    let spec = toolwright::ToolSpec::new(
        "sum",
        "Add numbers.",
        json!({"type": "array", "items": {"type": "number"}}),
        toolwright::Effect::ReadOnly,
    );
    let registry = Registry::builder()
        .with(ListArguments(spec))
        .build()
        .unwrap();
    for dialect in Dialect::ALL {
        let errors = registry.check(dialect).unwrap_err();
        assert!(
            errors.iter().any(|e| e.tool == "sum"
                && e.path.is_empty()
                && e.reason.contains("object schema")),
            "{dialect:?}: {errors:?}"
        );
    }
}

/// Look up a customer in a region.
#[tool(effect = "read_only")]
fn regional_lookup(
    /// The region, like `eu-west-1`.
    #[arg(mcp_header = "Region")]
    region: String,
    /// The customer.
    customer: String,
) -> String {
    format!("{customer}@{region}")
}

#[test]
fn an_mcp_header_is_for_mcp_only() {
    let mcp = definition(RegionalLookup.spec(), Dialect::Mcp).unwrap();
    assert_eq!(
        mcp["inputSchema"]["properties"]["region"],
        json!({"description": "The region, like `eu-west-1`.", "type": "string", "x-mcp-header": "Region"})
    );
    for dialect in Dialect::ALL.into_iter().filter(|d| *d != Dialect::Mcp) {
        let lowered = definition(RegionalLookup.spec(), dialect).unwrap();
        assert!(
            !lowered.to_string().contains("x-mcp-header"),
            "{dialect:?}: {lowered}"
        );
    }
    // The annotation constrains nothing: the call is read as any other.
    let registry = Registry::builder().with(RegionalLookup).build().unwrap();
    let call = ToolCall::new(
        "c",
        "regional_lookup",
        json!({"region": "eu", "customer": "C-1"}),
    );
    let result = futures_executor::block_on(registry.dispatch(&Context::new(), call));
    assert_eq!(result.for_model(), "C-1@eu");
}
