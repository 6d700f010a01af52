//! Which tool does a request pick? Labelled requests (the request, the tool that should
//! answer it, optionally the arguments) run through a picker, and a [`Report`]: accuracy,
//! per-tool recall, the pairs confused, and pass^k over repeated runs when the picker is
//! not deterministic.
//!
//! The picker is anything that turns a request into a tool call: the registry's own
//! search ([`SearchPicker`], feature `search`: a stand-in model that needs no network), a
//! [`Scripted`] one (recorded or written model outputs), or a closure that asks a real
//! model. Calls are compared the way the public function-calling benchmarks compare
//! them: the tool's name, then the arguments after the schema's defaults are filled in,
//! numbers by value, arrays unordered where the schema says they are sets
//! (`uniqueItems`).

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::registry::Registry;

/// A request, and the tool that should answer it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Labelled {
    /// What the user asked.
    pub request: String,
    /// The tool that should be called.
    pub tool: String,
    /// The arguments it should be called with, when they are labelled too: only the
    /// arguments named here are compared, and others the picker adds must equal their
    /// defaults.
    pub arguments: Option<Map<String, Value>>,
}

impl Labelled {
    /// A request and its tool.
    pub fn new(request: impl Into<String>, tool: impl Into<String>) -> Self {
        Self {
            request: request.into(),
            tool: tool.into(),
            arguments: None,
        }
    }

    /// The arguments the tool should get.
    ///
    /// # Panics
    ///
    /// If `arguments` is not a JSON object.
    pub fn with_arguments(mut self, arguments: Value) -> Self {
        match arguments {
            Value::Object(map) => self.arguments = Some(map),
            other => panic!("labelled arguments must be a JSON object, not {other}"),
        }
        self
    }
}

/// What a picker chose for a request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Picked {
    /// The tool's name.
    pub tool: String,
    /// The arguments, when the picker gives them.
    pub arguments: Option<Value>,
}

impl Picked {
    /// A tool, without arguments.
    pub fn tool(tool: impl Into<String>) -> Self {
        Self {
            tool: tool.into(),
            arguments: None,
        }
    }

    /// A tool call with its arguments.
    pub fn call(tool: impl Into<String>, arguments: Value) -> Self {
        Self {
            tool: tool.into(),
            arguments: Some(arguments),
        }
    }
}

/// Turns a request into a tool call, or none.
pub trait Picker {
    /// The pick for `request`, among `registry`'s tools.
    fn pick(&mut self, request: &str, registry: &Registry) -> Option<Picked>;
}

impl<F: FnMut(&str, &Registry) -> Option<Picked>> Picker for F {
    fn pick(&mut self, request: &str, registry: &Registry) -> Option<Picked> {
        self(request, registry)
    }
}

/// The registry's search as the picker: the best hit (feature `search`).
#[cfg(feature = "search")]
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchPicker;

#[cfg(feature = "search")]
impl Picker for SearchPicker {
    fn pick(&mut self, request: &str, registry: &Registry) -> Option<Picked> {
        registry
            .search(request, 1)
            .first()
            .map(|hit| Picked::tool(hit.name))
    }
}

/// Recorded or written model outputs: each request's pick, looked up.
#[derive(Debug, Clone, Default)]
pub struct Scripted(BTreeMap<String, Picked>);

impl Scripted {
    /// No outputs yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `request` is answered with `picked`.
    pub fn answer(mut self, request: impl Into<String>, picked: Picked) -> Self {
        self.0.insert(request.into(), picked);
        self
    }
}

impl Picker for Scripted {
    fn pick(&mut self, request: &str, _: &Registry) -> Option<Picked> {
        self.0.get(request).cloned()
    }
}

/// How often one tool was picked for requests labelled with another.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Confusion {
    /// The tool the requests were labelled with.
    pub expected: String,
    /// What was picked instead (`None`: nothing).
    pub picked: Option<String>,
    /// How many times, over every run.
    pub count: usize,
}

/// One tool's recall: of the requests labelled with it, how many picked it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolRecall {
    /// The tool.
    pub tool: String,
    /// Requests labelled with it, times the runs.
    pub labelled: usize,
    /// The share of those that picked it (with the right arguments, where labelled).
    pub recall: f64,
}

/// What [`evaluate`] measured.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// Labelled requests.
    pub cases: usize,
    /// Runs over them.
    pub runs: usize,
    /// Share of picks right (the tool, and the arguments where labelled), over every run.
    pub accuracy: f64,
    /// Share of picks with the right tool, whatever the arguments.
    pub tool_accuracy: f64,
    /// Share of requests right in every one of the runs (pass^k, k = `runs`).
    pub pass_k: f64,
    /// Each labelled tool's recall, the worst first.
    pub per_tool: Vec<ToolRecall>,
    /// The wrong picks, the most frequent first.
    pub confusions: Vec<Confusion>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} requests x {} run(s): accuracy {:.1}% (right tool {:.1}%), pass^{} {:.1}%",
            self.cases,
            self.runs,
            self.accuracy * 100.0,
            self.tool_accuracy * 100.0,
            self.runs,
            self.pass_k * 100.0
        )?;
        for confusion in self.confusions.iter().take(10) {
            writeln!(
                f,
                "  {} -> {} ({}x)",
                confusion.expected,
                confusion.picked.as_deref().unwrap_or("(nothing)"),
                confusion.count
            )?;
        }
        Ok(())
    }
}

/// Runs every labelled request through `picker` `runs` times (at least once) and
/// reports how often the right tool was picked.
pub fn evaluate(
    registry: &Registry,
    cases: &[Labelled],
    picker: &mut dyn Picker,
    runs: usize,
) -> Report {
    let runs = runs.max(1);
    let (mut right, mut right_tool) = (0usize, 0usize);
    let mut always = vec![true; cases.len()];
    let mut per_tool: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut confusions: BTreeMap<(&str, Option<String>), usize> = BTreeMap::new();
    for _ in 0..runs {
        for (index, case) in cases.iter().enumerate() {
            let picked = picker.pick(&case.request, registry);
            let tool_ok = picked.as_ref().is_some_and(|p| p.tool == case.tool);
            let ok = tool_ok
                && match (
                    &case.arguments,
                    picked.as_ref().and_then(|p| p.arguments.as_ref()),
                ) {
                    (None, _) => true,
                    (Some(_), None) => false,
                    (Some(expected), Some(actual)) => {
                        let schema = registry
                            .get(&case.tool)
                            .map_or(&Value::Null, |tool| &tool.spec().input_schema);
                        arguments_match(expected, actual, schema)
                    }
                };
            right += usize::from(ok);
            right_tool += usize::from(tool_ok);
            always[index] &= ok;
            let entry = per_tool.entry(&case.tool).or_default();
            entry.0 += 1;
            entry.1 += usize::from(ok);
            if !tool_ok {
                *confusions
                    .entry((&case.tool, picked.map(|p| p.tool)))
                    .or_default() += 1;
            }
        }
    }
    let total = (cases.len() * runs).max(1) as f64;
    let mut per_tool: Vec<ToolRecall> = per_tool
        .into_iter()
        .map(|(tool, (labelled, ok))| ToolRecall {
            tool: tool.to_owned(),
            labelled,
            recall: ok as f64 / labelled as f64,
        })
        .collect();
    per_tool.sort_by(|a, b| a.recall.total_cmp(&b.recall).then(a.tool.cmp(&b.tool)));
    let mut confusions: Vec<Confusion> = confusions
        .into_iter()
        .map(|((expected, picked), count)| Confusion {
            expected: expected.to_owned(),
            picked,
            count,
        })
        .collect();
    confusions.sort_by(|a, b| b.count.cmp(&a.count).then(a.expected.cmp(&b.expected)));
    Report {
        cases: cases.len(),
        runs,
        accuracy: right as f64 / total,
        tool_accuracy: right_tool as f64 / total,
        pass_k: always.iter().filter(|ok| **ok).count() as f64 / cases.len().max(1) as f64,
        per_tool,
        confusions,
    }
}

/// Whether `actual` (a call's arguments) matches the labelled `expected` under
/// `schema`: every labelled argument equal, the defaults filled in first; any other
/// argument the call gives equal to its default.
pub fn arguments_match(expected: &Map<String, Value>, actual: &Value, schema: &Value) -> bool {
    let Some(actual) = actual.as_object() else {
        return false;
    };
    let properties = schema["properties"].as_object();
    let default_of = |name: &str| {
        properties
            .and_then(|p| p.get(name))
            .and_then(|p| p.get("default"))
    };
    let schema_of = |name: &str| properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
    let labelled_ok =
        expected.iter().all(
            |(name, want)| match actual.get(name).or_else(|| default_of(name)) {
                Some(got) => values_match(want, got, schema_of(name)),
                None => false,
            },
        );
    let extra_ok = actual
        .iter()
        .filter(|(name, _)| !expected.contains_key(*name))
        .all(|(name, got)| {
            default_of(name).is_some_and(|default| values_match(default, got, schema_of(name)))
        });
    labelled_ok && extra_ok
}

/// Two values equal for a call: numbers by value, objects key by key, arrays in order
/// unless the schema makes them sets.
fn values_match(want: &Value, got: &Value, schema: &Value) -> bool {
    match (want, got) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            let items = &schema["items"];
            if a.len() != b.len() {
                return false;
            }
            if schema["uniqueItems"] == Value::Bool(true) {
                let mut used = vec![false; b.len()];
                a.iter().all(|x| {
                    b.iter().enumerate().any(|(i, y)| {
                        let free = !used[i] && values_match(x, y, items);
                        if free {
                            used[i] = true;
                        }
                        free
                    })
                })
            } else {
                a.iter().zip(b).all(|(x, y)| values_match(x, y, items))
            }
        }
        (Value::Object(a), Value::Object(_)) => arguments_match(a, got, schema),
        _ => want == got,
    }
}
