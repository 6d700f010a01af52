//! The kit of a `#[tool]` companion: its spec, reading its arguments, its context values,
//! its output, and the stub generated when the macro rejected the function.

use std::sync::OnceLock;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::arguments::strict::Strict;
use crate::context::Context;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::schema::{ObjectSchema, SchemaGenerator, ToolSchema, into_object};
use crate::spec::{Idempotence, ToolSpec};
use crate::tool::{Arguments, IntoToolOutput, Prepared, ToolOutput};
use crate::validate::Validator;

/// The arguments object of a tool, built one parameter at a time.
#[derive(Debug, Default)]
pub struct Params {
    generator: SchemaGenerator,
    object: ObjectSchema,
}

impl Params {
    /// No parameters yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A parameter whose type is given by its `ToolSchema` items, each named through the
    /// trait in the generated code (`<T as ToolSchema>::tool_schema`): a type without
    /// `ToolSchema` is then reported as that alone, at the parameter's type, with no
    /// note about a bound of this function. Not generic, so compiled once.
    pub fn arg_of(
        &mut self,
        name: &str,
        description: Option<&str>,
        keywords: &[(&str, Value)],
        of: SchemaOf,
    ) -> &mut Self {
        let schema = self
            .generator
            .subschema_of(of.tool_schema, of.schema_name, of.schema_id);
        let schema = property_schema_from(schema, description, keywords, None);
        self.object.property(name, schema, !of.optional);
        self
    }

    /// A parameter of type `T` with a default: never required, and the schema carries
    /// the `default` value.
    pub fn arg_with_default<T: ToolSchema + Serialize>(
        &mut self,
        name: &str,
        description: Option<&str>,
        keywords: &[(&str, Value)],
        default: fn() -> T,
    ) -> &mut Self {
        let schema = property_schema::<T>(
            &mut self.generator,
            description,
            keywords,
            Some(to_json(&default())),
        );
        self.object.property(name, schema, false);
        self
    }

    /// A parameter whose schema comes from `#[arg(schema_with = f)]` or
    /// `#[arg(schema_as = U)]` instead of its type; `default` as for `arg_with_default`.
    pub fn arg_from(
        &mut self,
        name: &str,
        description: Option<&str>,
        keywords: &[(&str, Value)],
        schema: impl FnOnce(&mut SchemaGenerator) -> Value,
        required: bool,
        default: Option<Value>,
    ) -> &mut Self {
        let schema = schema(&mut self.generator);
        let schema = property_schema_from(schema, description, keywords, default);
        self.object.property(name, schema, required);
        self
    }

    /// The arguments' schema: a closed object (`additionalProperties: false`), with the
    /// named types it uses in `$defs`; and whether some argument reads buffered.
    pub fn into_schema(self) -> (Value, bool) {
        let buffered = self.generator.reads_buffered();
        (self.generator.into_root(self.object.build(true)), buffered)
    }
}

/// A type's `ToolSchema` items, for [`Params::arg_of`].
pub struct SchemaOf {
    /// `<T as ToolSchema>::OPTIONAL`.
    pub optional: bool,
    /// `<T as ToolSchema>::tool_schema`.
    pub tool_schema: fn(&mut SchemaGenerator) -> Value,
    /// `<T as ToolSchema>::schema_name`.
    pub schema_name: fn() -> Option<std::borrow::Cow<'static, str>>,
    /// `<T as ToolSchema>::schema_id`.
    pub schema_id: fn() -> std::borrow::Cow<'static, str>,
}

/// The schema of one property: description first (it is what a reader looks for), then
/// the type's own schema, then constraints, then the default.
pub fn property_schema<T: ToolSchema + ?Sized>(
    generator: &mut SchemaGenerator,
    description: Option<&str>,
    keywords: &[(&str, Value)],
    default: Option<Value>,
) -> Value {
    property_schema_from(
        generator.subschema_for::<T>(),
        description,
        keywords,
        default,
    )
}

/// [`property_schema`] for a schema already made (`#[arg(schema_with/schema_as)]`).
pub fn property_schema_from(
    schema: Value,
    description: Option<&str>,
    keywords: &[(&str, Value)],
    default: Option<Value>,
) -> Value {
    let mut map = Map::new();
    if let Some(description) = description {
        map.insert("description".into(), description.into());
    }
    // The property's own words beat those of its (inlined) type.
    map.extend(
        into_object(schema)
            .into_iter()
            .filter(|(key, _)| description.is_none() || key != "description"),
    );
    for (key, value) in keywords {
        if *key == "items" {
            constrain_items(&mut map, value);
            continue;
        }
        let value = tighter_bound(key, map.get(*key), value);
        map.insert((*key).to_owned(), value);
    }
    if let Some(default) = default {
        map.insert("default".into(), default);
    }
    Value::Object(map)
}

/// `#[arg(items(...))]`: its keywords join the list's own `items` schema (of the list,
/// or of the list branch of a nullable `anyOf`), tighter bounds winning as for the list
/// itself. A `$ref` item keeps its reference, with the keywords beside it.
fn constrain_items(list: &mut Map<String, Value>, keywords: &Value) {
    let Some(keywords) = keywords.as_object() else {
        return;
    };
    let items = match list.get_mut("items") {
        Some(items) => Some(items),
        None => list
            .get_mut("anyOf")
            .and_then(Value::as_array_mut)
            .and_then(|branches| {
                branches
                    .iter_mut()
                    .find_map(|branch| branch.get_mut("items"))
            }),
    };
    let Some(items) = items else { return };
    if let Value::Bool(true) = items {
        *items = Value::Object(Map::new());
    }
    let Some(items) = items.as_object_mut() else {
        return;
    };
    for (key, value) in keywords {
        let value = tighter_bound(key, items.get(key), value);
        items.insert(key.clone(), value);
    }
}

/// A declared bound meets the type's own (`#[arg(maximum = 1000)]` on a `u8`): the
/// tighter one wins, so the schema never admits a value the deserializer rejects.
fn tighter_bound(key: &str, existing: Option<&Value>, declared: &Value) -> Value {
    let keep_existing = match (existing.and_then(Value::as_f64), declared.as_f64()) {
        (Some(existing), Some(declared)) if key == "minimum" => existing > declared,
        (Some(existing), Some(declared)) if key == "maximum" => existing < declared,
        _ => false,
    };
    match existing {
        Some(existing) if keep_existing => existing.clone(),
        _ => declared.clone(),
    }
}

/// A value as JSON; a value that cannot be represented becomes `null` (only a `default`
/// or `example` expression goes through here, and those are checked to be `Serialize`).
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// What `#[tool]` knows of a tool's contract at compile time, each part named: the
/// generated code writes it as a `static` (data, not code) and hands it to
/// [`tool_spec`] with the two schemas, which are built at run time.
pub struct SpecParts {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub effect: Effect,
    /// `#[tool(idempotent = ...)]`, when given.
    pub idempotent: Option<bool>,
    /// `#[tool(open_world)]`.
    pub open_world: bool,
    pub scopes: &'static [&'static str],
    /// `#[tool(callers = ...)]`.
    pub callers: crate::spec::Callers,
    /// `#[tool(hosted_code)]`.
    pub hosted_code: bool,
    /// `#[tool(stream_input)]`.
    pub stream_input: bool,
    /// `#[tool(task = ...)]`.
    pub task: crate::spec::TaskSupport,
    /// `#[tool(example = ...)]`, each JSON already (`#[tool]` parsed it).
    pub examples: &'static [&'static str],
}

/// The spec of a generated tool: its parts, the arguments' schema (and whether serde
/// reads some argument buffered), and the result's schema when it has one.
pub fn tool_spec(
    parts: &'static SpecParts,
    (input_schema, reads_buffered): (Value, bool),
    output_schema: Option<Value>,
) -> ToolSpec {
    let mut spec = ToolSpec::new(parts.name, parts.description, input_schema, parts.effect)
        .with_open_world(parts.open_world)
        .with_scopes(parts.scopes.iter().copied())
        .with_callers(parts.callers)
        .with_hosted_code(parts.hosted_code)
        .with_stream_input(parts.stream_input)
        .with_task(parts.task);
    spec.idempotence = match parts.idempotent {
        None => Idempotence::Undeclared,
        Some(true) => Idempotence::Idempotent,
        Some(false) => Idempotence::NotIdempotent,
    };
    spec.title = parts.title.map(str::to_owned);
    spec.output_schema = output_schema;
    spec.reads_buffered = reads_buffered;
    spec.examples = parts
        .examples
        .iter()
        .filter_map(|example| serde_json::from_str(example).ok())
        .collect();
    spec
}

/// Reads a call's arguments into the generated arguments struct `A`.
///
/// Fast path: serde straight into `A`, then `check` (the declared constraints, on the
/// typed values). Slow path, only when that fails: the arguments as a JSON value against
/// the tool's schema, reporting every problem.
///
/// This is the one generic step per tool (the two deserializers); everything else is
/// `admit` and `refuse`, compiled once for all tools.
pub fn prepare<A: DeserializeOwned + Send + 'static>(
    spec: &ToolSpec,
    validator: &'static OnceLock<Validator>,
    args: Arguments<'_>,
    check: fn(&A) -> bool,
) -> Result<Prepared, ToolError> {
    // A tool reading buffered arguments checks them against the schema too: its JSON
    // text is parsed once, into a value both serde and the validator read.
    let buffered = buffered_value(spec, args);
    let args = buffered.as_ref().map_or(args, Arguments::Value);
    // Matches, not combinators: each closure would be one more function in every
    // user's crate for every tool.
    let fast = match args {
        Arguments::Json(json) => {
            let mut deserializer = serde_json::Deserializer::from_str(json);
            match A::deserialize(Strict(&mut deserializer)) {
                Ok(parsed) => match deserializer.end() {
                    Ok(()) => Ok(parsed),
                    Err(error) => Err(error),
                },
                Err(error) => Err(error),
            }
        }
        Arguments::Value(value) => A::deserialize(Strict(value)),
    };
    match fast {
        Ok(parsed) if check(&parsed) && admit(spec, validator, args) => Ok(Prepared::new(parsed)),
        Ok(_) => Err(refuse(spec, validator, args, None)),
        Err(error) => Err(refuse(spec, validator, args, Some((refusal::<A>, error)))),
    }
}

/// The type's own words for why it refused `value` (read again through the same
/// `Strict` code; [`refuse`] keeps the messages for this read).
fn refusal<A: DeserializeOwned>(value: &Value) -> Option<String> {
    match A::deserialize(Strict(value)) {
        Ok(_) => None,
        Err(error) => Some(error.to_string()),
    }
}

/// A generated tool's spec, built on first use: one copy of the once-cell code for every
/// tool (a `fn` pointer, not a closure type per tool).
#[inline]
pub fn spec_once(cell: &'static OnceLock<ToolSpec>, build: fn() -> ToolSpec) -> &'static ToolSpec {
    cell.get_or_init(build)
}

/// The validator of a generated tool, compiled on first use.
fn validator_of(spec: &ToolSpec, validator: &'static OnceLock<Validator>) -> &'static Validator {
    validator.get_or_init(|| {
        // A generated schema always compiles (the tests compile every example's); should
        // one not, accepting everything still leaves serde's checks in force.
        Validator::for_arguments(&spec.input_schema).unwrap_or_else(|_| Validator::accept_all())
    })
}

/// Whether arguments serde accepted may run. For a tool that reads an argument through
/// serde's buffered content, they must also meet the schema (serde reads a struct from
/// an array there); every other tool's fast path is exact and skips this.
#[inline]
fn admit(spec: &ToolSpec, validator: &'static OnceLock<Validator>, args: Arguments<'_>) -> bool {
    match args {
        Arguments::Value(value) if spec.reads_buffered => {
            validator_of(spec, validator).is_valid(value)
        }
        // Text arguments of a buffered tool became a value in `prepare`; text that is
        // not JSON never reached here.
        _ => true,
    }
}

/// The JSON text of a buffered tool's arguments as a value (see [`admit`]), with whole
/// floats where the schema wants integers read as integers; `None` for every other tool
/// (`Strict` reads `5.0` into an integer itself) and for text that is not JSON (the fast
/// path then refuses it).
///
/// serde's buffered content (internally tagged and untagged enums, flattened fields)
/// bypasses `Strict`, so there the value is made to say what the schema accepts.
#[inline]
fn buffered_value(spec: &ToolSpec, args: Arguments<'_>) -> Option<Value> {
    if !spec.reads_buffered {
        return None;
    }
    let mut value = match args {
        Arguments::Json(json) => serde_json::from_str(json).ok()?,
        Arguments::Value(value) if crate::arguments::has_float(value) => value.clone(),
        Arguments::Value(_) => return None,
    };
    crate::arguments::whole_floats_as_integers(&mut value, &spec.input_schema);
    Some(value)
}

/// The type's own words for a value it refused ([`refusal`] of the tool's arguments).
type Explain = fn(&Value) -> Option<String>;

/// The error for refused arguments. When serde itself refused and the schema finds
/// nothing wrong, the model reads the type's own message (`refusal`), or else serde's
/// (a name sent twice, which a JSON value cannot even hold).
fn refuse(
    spec: &ToolSpec,
    validator: &'static OnceLock<Validator>,
    args: Arguments<'_>,
    serde_refused: Option<(Explain, serde_json::Error)>,
) -> ToolError {
    let explain = |value: &Value| {
        let (refusal, error) = serde_refused.as_ref()?;
        let message = crate::arguments::strict::explaining(value, *refusal);
        Some(message.unwrap_or_else(|| error.to_string()))
    };
    crate::arguments::invalid_arguments(spec, validator_of(spec, validator), args, &explain)
}

/// The context value a `#[ctx]` parameter borrows.
pub fn context<'a, T: 'static>(ctx: &'a Context, tool: &str) -> Result<&'a T, ToolError> {
    ctx.get::<T>().ok_or_else(|| {
        ToolError::internal(format!(
            "tool '{tool}' needs a context value of type `{}`, and none was supplied",
            std::any::type_name::<T>()
        ))
        .with_hint("this is a harness misconfiguration, not a problem with the call; do not retry")
        .with_retryable(false)
    })
}

/// What a tool returned, as output.
pub fn output<T: IntoToolOutput>(value: T) -> Result<ToolOutput, ToolError> {
    value.into_tool_output()
}

/// The spec of a companion generated for a function `#[tool]` rejected: the build
/// fails anyway, this only keeps other code compiling so the user reads the real error.
pub fn stub_spec() -> &'static ToolSpec {
    static SPEC: std::sync::OnceLock<ToolSpec> = std::sync::OnceLock::new();
    SPEC.get_or_init(|| {
        ToolSpec::new(
            "invalid_tool",
            "",
            serde_json::json!({"type": "object"}),
            Effect::RISKIEST,
        )
    })
}

/// The error of such a stub.
pub fn stub_error() -> ToolError {
    ToolError::internal("this tool failed to compile")
}

/// The run of such a stub.
pub fn stub_call<'a>() -> crate::tool::ToolFuture<'a> {
    crate::tool::ToolFuture::ready(Err(stub_error()))
}
