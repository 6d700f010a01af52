//! A run that ends with data: a terminal tool (`submit_result`) whose arguments are the
//! run's typed final answer ([`FinalResult`]), validated like any call, checked against
//! what the run did ([`RunHistory`]), and read by the host
//! ([`Registry::final_result`]), not by the model.
//!
//! A call of it runs after every other call of its batch (its check sees them); an
//! accepted one answers the model "accepted" and the host stops the loop; a refused one
//! (arguments that do not fit, every problem listed, or a claim the run's calls
//! contradict) goes back to the model like any failed call. To make the model end,
//! [`Registry::force_final_result`] is the provider's `tool_choice` naming it (the last
//! turn of a step budget); where a provider cannot force a tool (MCP), send
//! [`Registry::final_result_reminder`] when the model answers in text instead.

use std::any::type_name;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use crate::history::{RecordedCall, RunHistory};

use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::effect::Effect;
use crate::error::{ErrorKind, ToolError};
use crate::provider::ToolChoice;
use crate::registry::extension::{Building, BuiltIn, Extension};
use crate::registry::{Registry, RegistryBuilder, RegistryError, ToolSettings};
use crate::schema::{SchemaGenerator, ToolSchema};
use crate::spec::ToolSpec;
use crate::tool::{Arguments, Prepared, Tool, ToolFuture, ToolOutput};
use crate::validate::{Options, Validator};

/// What the model reads when its final answer is accepted.
const ACCEPTED: &str = "Accepted: this is the run's final result, and the run is over.";

/// The typed final answer of a run, offered to the model as a tool of its own
/// (`submit_result`): its arguments are `T`'s fields, its description says when to call
/// it. Add it with [`RegistryBuilder::with_final_result`].
///
/// ```
/// # use serde::Deserialize;
/// # use toolwright::{tool, Context, Registry, ToolCall, ToolSchema};
/// # use toolwright::final_result::{FinalResult, RunHistory};
/// /// What the run did.
/// #[derive(Deserialize, ToolSchema)]
/// struct Report {
///     /// One paragraph on what changed and why.
///     summary: String,
///     /// Whether the tests pass now.
///     tests_passed: bool,
/// }
///
/// /// Run the tests.
/// #[tool(effect = "read_only")]
/// fn run_tests() -> String { "3 passed, 1 failed".into() }
///
/// let registry = Registry::builder()
///     .with(RunTests)
///     .with_final_result(
///         FinalResult::<Report>::new("submit_result", "Submit the result of the task. This ends the run.")
///             .check(|report, history| {
///                 let last = history.last(|call| call.name == "run_tests");
///                 let passed = last.as_ref().and_then(|call| call.outcome.as_ref().ok())
///                     .is_some_and(|output| !output.to_text().contains("failed"));
///                 if report.tests_passed && !passed {
///                     return Err("tests_passed is true, but the last run_tests did not pass: fix the failures and run the tests again".into());
///                 }
///                 Ok(())
///             }),
///     )
///     .build()
///     .unwrap();
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let ctx = Context::new().with(RunHistory::new());
/// let results = registry.dispatch_batch(&ctx, vec![
///     ToolCall::new("1", "run_tests", "{}"),
///     ToolCall::new("2", "submit_result", r#"{"summary": "Fixed add.", "tests_passed": true}"#),
/// ]).await;
/// // The claim is refused: the model reads why, and the run goes on.
/// assert!(results[1].for_model().contains("did not pass"));
/// assert!(registry.final_result::<Report>(&results).is_none());
///
/// let results = registry.dispatch(&ctx, ToolCall::new("3", "submit_result",
///     r#"{"summary": "add is fixed; one test still fails.", "tests_passed": false}"#)).await;
/// let report: Report = registry.final_result(std::slice::from_ref(&results)).unwrap();
/// assert!(!report.tests_passed);
/// # });
/// ```
pub struct FinalResult<T> {
    name: String,
    description: String,
    examples: Vec<Value>,
    check: Option<Check<T>>,
}

/// A claim check: the final value and the run's calls so far; `Err` says what is wrong.
type Check<T> = Arc<dyn Fn(&T, &RunHistory) -> Result<(), String> + Send + Sync>;

impl<T: ToolSchema + DeserializeOwned + 'static> FinalResult<T> {
    /// The final result `T`, as the tool `name` (a valid tool name: `submit_result`)
    /// described by `description`: say what the result is for and that calling it ends
    /// the run.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            examples: Vec::new(),
            check: None,
        }
    }

    /// A whole answer that shows the model how to fill it in, as `#[tool(example = ...)]`
    /// does for a tool; one the schema refuses is an error `build` reports.
    #[must_use]
    pub fn example(mut self, example: Value) -> Self {
        self.examples.push(example);
        self
    }

    /// Checks the answer's claims against what the run did before it is accepted: given
    /// the value and the run's [`RunHistory`] (which the host puts in the context), an
    /// `Err` is a message the model reads (say what is wrong and what to do), and the run
    /// goes on. A `FinalResult` with a check refuses every answer of a run whose context
    /// keeps no history: there would be nothing to check the claims against.
    #[must_use]
    pub fn check(
        mut self,
        check: impl Fn(&T, &RunHistory) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.check = Some(Arc::new(check));
        self
    }
}

impl RegistryBuilder {
    /// Offers the model `final_result`'s terminal tool: a run ends when the model calls
    /// it with a valid answer the check accepts, and the host reads the answer with
    /// [`Registry::final_result`]. A second call replaces the first.
    pub fn with_final_result<T: ToolSchema + DeserializeOwned + 'static>(
        mut self,
        final_result: FinalResult<T>,
    ) -> Self {
        let read_and_check = move |value: &Value, history: Option<&RunHistory>| {
            let answer: T = serde_json::from_value(value.clone()).map_err(Refused::Invalid)?;
            match (&final_result.check, history) {
                (None, _) => Ok(()),
                (Some(check), Some(history)) => check(&answer, history).map_err(Refused::Claim),
                (Some(_), None) => Err(Refused::NoHistory),
            }
        };
        // Its check reads the run's calls.
        self = self.with_run_history();
        *self.extension_mut::<Terminal>() = Terminal {
            given: Some(Given {
                name: final_result.name,
                description: final_result.description,
                schema: closed(SchemaGenerator::root_schema_for::<T>()),
                examples: final_result.examples,
                type_name: type_name::<T>(),
                read_and_check: Arc::new(read_and_check),
            }),
            name: None,
        };
        self
    }
}

impl Registry {
    /// The run's final answer among `results` (a batch's, or a single call's): the
    /// first accepted call of the terminal tool ([`RegistryBuilder::with_final_result`]),
    /// read as `T` (the final result's type, or a `serde_json::Value`). `None` when no
    /// call of the batch ended the run.
    pub fn final_result<T: DeserializeOwned>(&self, results: &[ToolResult]) -> Option<T> {
        let name = self.extension::<Terminal>()?.name.as_deref()?;
        results
            .iter()
            .filter(|result| result.name == name)
            .find_map(|result| match &result.outcome {
                Ok(ToolOutput::Observation { data, .. }) => {
                    serde_json::from_value(data.clone()).ok()
                }
                _ => None,
            })
    }

    /// The request field that makes the model call the terminal tool on its next turn,
    /// in `dialect`'s shape (`tool_choice` for OpenAI and Anthropic, `toolConfig` for
    /// Gemini; one call, not several): send it on the last turn a run can afford.
    /// `None` without a final result, or where the provider cannot force a tool (MCP:
    /// send [`Registry::final_result_reminder`] when the model answers in text).
    pub fn force_final_result(&self, dialect: Dialect) -> Option<Value> {
        let name = self.extension::<Terminal>()?.name.clone()?;
        let choice = crate::provider::tool_choice(dialect, &ToolChoice::Tool(name), false);
        (!choice.is_null()).then_some(choice)
    }

    /// What to tell a model that answered in text when the run must end with its final
    /// result: where the provider cannot force the call, or the model ignored a
    /// forcing. `None` without a final result.
    pub fn final_result_reminder(&self) -> Option<String> {
        let name = self.extension::<Terminal>()?.name.as_deref()?;
        Some(format!(
            "The run ends only when you call {name} with its result; a text answer is not \
             read. Call {name} now (or, if work remains, the tools to finish it first)."
        ))
    }
}

/// `schema` with `additionalProperties: false` where it is an object schema that does not
/// say: a misspelt field of the answer is then a problem the model reads, not a value
/// silently dropped.
fn closed(mut schema: Value) -> Value {
    if let Some(object) = schema.as_object_mut()
        && object.get("type").and_then(Value::as_str) == Some("object")
        && !object.contains_key("additionalProperties")
    {
        object.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    schema
}

/// Why an answer is not accepted.
enum Refused {
    /// It does not deserialize as the final result's type.
    Invalid(serde_json::Error),
    /// The check refused a claim.
    Claim(String),
    /// There is a check, and the context keeps no history to check against.
    NoHistory,
}

type ReadAndCheck = Arc<dyn Fn(&Value, Option<&RunHistory>) -> Result<(), Refused> + Send + Sync>;

/// What `with_final_result` was given, type erased.
struct Given {
    name: String,
    description: String,
    schema: Value,
    examples: Vec<Value>,
    type_name: &'static str,
    read_and_check: ReadAndCheck,
}

/// The final result as a registry extension: it adds the terminal tool and runs it.
#[derive(Default)]
pub(crate) struct Terminal {
    given: Option<Given>,
    /// The terminal tool's name, once built.
    name: Option<String>,
}

impl Extension for Terminal {
    fn origin(&self) -> &'static str {
        "RegistryBuilder::with_final_result"
    }

    fn build(&mut self, building: &mut Building<'_>) -> Option<BuiltIn> {
        let given = self.given.as_ref()?;
        if !crate::spec::is_valid_tool_name(&given.name) {
            building.errors.push(RegistryError::InvalidName {
                name: given.name.clone(),
                reason: "a final result's name must be 1 to 64 letters, digits, '_' or '-' \
                         (FinalResult::new's first argument)",
            });
            return None;
        }
        let mut spec = ToolSpec::new(
            given.name.clone(),
            given.description.clone(),
            given.schema.clone(),
            Effect::ReadOnly,
        );
        spec.examples = given.examples.clone();
        let validator = Validator::compile(&given.schema, Options::SPECIFICATION)
            .map_err(|error| format!("{}: {error}", given.type_name));
        let tool = TerminalTool { spec, validator };
        for (index, example) in given.examples.iter().enumerate() {
            let fits = tool
                .prepare(Arguments::Value(example))
                .map(|_| ())
                .and_then(|()| {
                    (given.read_and_check)(example, Some(&RunHistory::new())).or_else(|refused| {
                        match refused {
                            Refused::Invalid(error) => {
                                Err(ToolError::invalid_arguments(error.to_string(), Vec::new()))
                            }
                            // Whether its claims hold depends on a run; only its shape is checked.
                            Refused::Claim(_) | Refused::NoHistory => Ok(()),
                        }
                    })
                });
            if let Err(error) = fits {
                let mut problems = error.message;
                for problem in &error.problems {
                    problems.push_str(&format!("; {}: {}", problem.path, problem.message));
                }
                building.errors.push(RegistryError::InvalidExample {
                    tool: given.name.clone(),
                    example: index + 1,
                    problems,
                });
            }
        }
        self.name = Some(given.name.clone());
        Some(BuiltIn {
            tool: Arc::new(tool),
            settings: ToolSettings::new(),
        })
    }

    fn run<'a>(
        &'a self,
        _: &'a Registry,
        ctx: &'a Context,
        _: &'a ToolCall,
        args: Prepared,
    ) -> ToolFuture<'a> {
        let outcome = (|| {
            let given = self.given.as_ref().ok_or_else(|| {
                ToolError::internal("the final result was not configured").with_retryable(false)
            })?;
            let value: Value = args.downcast()?;
            match (given.read_and_check)(&value, ctx.get::<RunHistory>()) {
                Ok(()) => Ok(ToolOutput::Observation {
                    data: value,
                    for_model: ACCEPTED.to_owned(),
                }),
                Err(Refused::Invalid(error)) => Err(ToolError::invalid_arguments(
                    format!("the result does not fit '{}': {error}", given.name),
                    Vec::new(),
                )),
                Err(Refused::Claim(message)) => Err(ToolError::new(
                    ErrorKind::InvalidArguments,
                    format!("the result was not accepted: {message}"),
                )
                .with_hint(format!(
                    "the run goes on: do what the message says, then call {} again",
                    given.name
                ))),
                Err(Refused::NoHistory) => Err(ToolError::internal(format!(
                    "the result of '{}' cannot be checked: the host keeps no RunHistory in \
                     the context (Context::with(RunHistory::new()))",
                    given.name
                ))
                .with_retryable(false)),
            }
        })();
        ToolFuture::ready(outcome)
    }

    fn ends_run(&self) -> bool {
        true
    }
}

/// The terminal tool: its contract, and its arguments read against its schema.
struct TerminalTool {
    spec: ToolSpec,
    /// The schema's validator, or why it would not compile.
    validator: Result<Validator, String>,
}

impl Tool for TerminalTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(&self, args: Arguments<'_>) -> Result<Prepared, ToolError> {
        let validator = self.validator.as_ref().map_err(|error| {
            ToolError::internal(format!(
                "the final result's schema does not compile: {error}"
            ))
            .with_retryable(false)
        })?;
        validator
            .read_arguments(&self.spec, args)
            .map(Prepared::new)
    }

    fn run<'a>(&'a self, _: &'a Context, _: Prepared) -> ToolFuture<'a> {
        ToolFuture::ready(Err(ToolError::internal(format!(
            "{} runs only through the registry it belongs to",
            self.spec.name
        ))
        .with_retryable(false)))
    }
}
