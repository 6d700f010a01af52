//! The API a program is written against, from the tools' contracts: one function per
//! tool, typed from its input and output schemas, documented from its description and
//! argument docs, with its effect and the one error it raises. `model.rs` holds the
//! types both languages share, `read.rs` reads the schemas into them (`docs.rs` their
//! doc text), `python.rs` and `typescript.rs` write them out.
//!
//! Every type toolwright emits has a faithful stub type: no `Any`, no `unknown`. A JSON
//! value of any shape (`serde_json::Value`) is `JsonValue`, a recursive union of the six
//! JSON kinds. Where a schema says more than a type can (`allOf`, a pattern, a range), the
//! stub takes the nearest sound type and says the rest in a comment
//! ([`Stubs::loose`]).

mod docs;
mod model;
mod python;
mod read;
mod typescript;

use crate::effect::Effect;
use crate::spec::ToolSpec;

use model::Declared;
pub(crate) use model::{Api, Function};
#[cfg(feature = "code")]
pub(crate) use python::literal as python_literal;

/// A language stubs are written in: each file is its header, `JsonValue` when some type
/// is any JSON value, how a failed call shows, the named types, then the functions.
trait Language {
    /// The declaration of `JsonValue`.
    const JSON_VALUE: &'static str;
    fn error_types() -> String;
    fn declaration(out: &mut String, declared: &Declared);
    fn function(out: &mut String, function: &Function);

    /// The file, but its header.
    fn body(api: &Api) -> String {
        let mut out = String::new();
        if api.uses_json {
            out.push_str(Self::JSON_VALUE);
            out.push_str("\n\n");
        }
        out.push_str(&Self::error_types());
        for declared in &api.types {
            out.push('\n');
            Self::declaration(&mut out, declared);
        }
        for function in &api.functions {
            out.push('\n');
            Self::function(&mut out, function);
        }
        out
    }
}

/// The stubs of a set of tools: Python ([`Stubs::python`]) and TypeScript declarations
/// ([`Stubs::typescript`]), both from one reading of the schemas.
///
/// ```
/// # use toolwright::{tool, Registry};
/// # use toolwright::stubs::Stubs;
/// /// Look up a customer by id.
/// #[tool(effect = "read_only")]
/// fn get_customer(/** The customer's id. */ id: String) -> Vec<String> { vec![id] }
///
/// let registry = Registry::builder().with(GetCustomer).build().unwrap();
/// let stubs = Stubs::new(registry.specs());
/// assert!(stubs.python().contains("async def get_customer(id: str) -> list[str]:"));
/// assert!(stubs.typescript().contains("get_customer(args: { id: string }): Promise<string[]>"));
/// assert!(stubs.loose().is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct Stubs {
    api: Api,
}

/// A place where a schema says more than the stub's type can, and the stub uses the
/// nearest sound type with a comment.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Loose {
    /// The tool.
    pub tool: String,
    /// Where in its schemas: `input.max_results`, `output[]`.
    pub path: String,
    /// What the type leaves out.
    pub reason: String,
}

impl Stubs {
    /// The stubs of `specs`, in their order.
    pub fn new<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> Self {
        Self {
            api: Api::new(specs),
        }
    }

    /// A Python module: `TypedDict`s for objects, `Literal` for enumerations, an `async
    /// def` per tool with keyword arguments (the leading required ones positional too),
    /// and the `ToolError` every call may raise.
    pub fn python(&self) -> String {
        python::render(&self.api)
    }

    /// TypeScript declarations (`.d.ts`): an interface per object, unions, and an
    /// `async` function per tool taking one arguments object, with JSDoc.
    pub fn typescript(&self) -> String {
        typescript::render(&self.api)
    }

    /// Every place a stub uses a nearer type than the schema's, with the reason.
    pub fn loose(&self) -> &[Loose] {
        &self.api.loose
    }

    /// The function a program calls as `ident`.
    #[cfg_attr(not(feature = "code"), allow(dead_code))]
    pub(crate) fn function(&self, ident: &str) -> Option<&Function> {
        self.api
            .functions
            .iter()
            .find(|function| function.ident == ident)
    }

    /// The functions, one per tool.
    #[cfg(feature = "code")]
    pub(crate) fn functions(&self) -> impl Iterator<Item = &Function> {
        self.api.functions.iter()
    }

    /// The name a program calls the tool `name` by.
    #[cfg(feature = "code")]
    pub(crate) fn python_ident(&self, name: &str) -> Option<&str> {
        self.api
            .functions
            .iter()
            .find(|function| function.name == name)
            .map(|function| function.ident.as_str())
    }
}

/// What a call of a tool of `effect` does, in words for the stubs.
fn effect_words(effect: Effect) -> &'static str {
    match effect {
        Effect::ReadOnly => "changes nothing",
        Effect::Write => "makes a reversible, local change",
        Effect::Destructive => "makes a change that cannot be undone",
        Effect::External => "acts on the outside world; the same call in one run happens once",
        Effect::Dynamic => "depends on the arguments",
    }
}
