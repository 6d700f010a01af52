//! The schema side of a tool: the [`ToolSchema`] trait, the [`SchemaGenerator`] that
//! collects named types into `$defs`; `build` holds the small helpers that write schema
//! JSON (crate-private).
//!
//! The canonical schema is plain JSON ([`serde_json::Value`]) in the 2020-12 dialect:
//! every later step (validation, the provider lowerings) reads that one document, and a
//! schema that came from somewhere else (a hand-written tool, the official test suite)
//! goes through the same code.

pub(crate) mod build;
mod foreign;
pub mod formats;
pub mod lower;
#[cfg(feature = "schemars1")]
mod schemars_interop;
mod std_impls;

pub(crate) use build::{into_object, nullable};

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

#[cfg(feature = "schemars1")]
pub use schemars_interop::from_schemars;
pub use std_impls::MapKey;

/// A type that can be a tool argument: it knows its own JSON Schema.
///
/// Implemented for the std types in `toolwright::reference::types` and derived for your own types
/// with `#[derive(ToolSchema)]` (which reads serde's attributes, so the schema matches how
/// the value deserializes).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it has no JSON Schema",
    label = "`{Self}` does not implement `ToolSchema`",
    note = "for a type of yours, derive it: `#[derive(serde::Deserialize, toolwright::ToolSchema)]`",
    note = "for another crate's type, turn on toolwright's feature for that crate if it has one (`chrono04`, `jiff02`, `uuid1`, `url2`, `rust_decimal1`, `semver1`, `indexmap2`, `smallvec1`, `arrayvec07`, `ordered-float5`), or give the argument a schema with `#[arg(schema_with = path)]` or `#[arg(schema_as = Type)]`, or wrap the type in a newtype of yours that derives it (see `toolwright::reference::types`)"
)]
pub trait ToolSchema {
    /// The schema of this type. Use `generator` for the schemas of inner types, so that
    /// named types land in `$defs` once and recursion terminates.
    fn tool_schema(generator: &mut SchemaGenerator) -> Value;

    /// A name for `$defs`. Types that return `Some` are referenced with `$ref` instead of
    /// being inlined; std types return `None`.
    fn schema_name() -> Option<Cow<'static, str>> {
        None
    }

    /// A globally unique id for a named type (its module path and name), so two types
    /// named alike in different modules get two `$defs` entries.
    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed(std::any::type_name::<Self>())
    }

    /// `true` when an absent value deserializes (as `None`): such an argument or field is
    /// not listed in `required`.
    const OPTIONAL: bool = false;

    /// Whether a deserialized value meets the constraints its schema carries that serde
    /// does not enforce (`#[arg(minimum = 1)]` on a field, at any depth). The fast path
    /// of a call checks this; when it fails, the schema validator reports the problems.
    fn meets_constraints(&self) -> bool {
        true
    }
}

/// Collects the schemas of named types into `$defs` while a root schema is built.
#[derive(Debug, Default)]
pub struct SchemaGenerator {
    defs: BTreeMap<String, Value>,
    /// schema id → the key it got in `defs`
    keys: HashMap<String, String>,
    buffered: bool,
}

impl SchemaGenerator {
    /// A generator with no definitions yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The schema to embed for `T`: a `$ref` for named types (defining them on first
    /// use), the inline schema otherwise.
    pub fn subschema_for<T: ToolSchema + ?Sized>(&mut self) -> Value {
        self.subschema_of(T::tool_schema, T::schema_name, T::schema_id)
    }

    /// [`SchemaGenerator::subschema_for`] of a type given by its `ToolSchema` functions
    /// (compiled once, not once per type).
    pub fn subschema_of(
        &mut self,
        tool_schema: fn(&mut SchemaGenerator) -> Value,
        schema_name: fn() -> Option<Cow<'static, str>>,
        schema_id: fn() -> Cow<'static, str>,
    ) -> Value {
        let Some(name) = schema_name() else {
            return tool_schema(self);
        };
        let id = schema_id();
        if let Some(key) = self.keys.get(id.as_ref()) {
            return reference(key);
        }
        let key = self.unique_key(&name);
        self.keys.insert(id.into_owned(), key.clone());
        // A placeholder first, so a recursive type finds its own key and stops.
        self.defs.insert(key.clone(), Value::Bool(true));
        let schema = tool_schema(self);
        self.defs.insert(key.clone(), schema);
        reference(&key)
    }

    fn unique_key(&self, name: &str) -> String {
        let taken = |key: &str| self.defs.contains_key(key);
        if !taken(name) {
            return name.to_owned();
        }
        (2..)
            .map(|n| format!("{name}{n}"))
            .find(|key| !taken(key))
            .expect("an unbounded range always yields a free key")
    }

    /// Notes that a type described here is read through serde's buffered content
    /// (internally tagged and untagged enums, flattened fields), where serde reads a
    /// struct from an array although the schema says object. A tool with such an
    /// argument checks its arguments against the schema on the fast path too, so the two
    /// still agree. `#[derive(ToolSchema)]` calls this; a hand-written impl of a type
    /// whose `Deserialize` is looser than its schema may call it as well.
    pub fn mark_buffered(&mut self) {
        self.buffered = true;
    }

    /// The `$defs` key for a definition imported from elsewhere (schemars) under `name`:
    /// `name` itself when it is free or holds the same schema, else `name2`, `name3`...
    /// The key is reserved until [`import_definition`](Self::import_definition).
    #[cfg(feature = "schemars1")]
    pub(crate) fn key_for_import(&mut self, name: &str, schema: &Value) -> String {
        if self
            .defs
            .get(name)
            .is_some_and(|existing| existing == schema)
        {
            return name.to_owned();
        }
        let key = self.unique_key(name);
        self.defs.insert(key.clone(), Value::Bool(true));
        key
    }

    /// Adds a definition made elsewhere under `key`.
    #[cfg(feature = "schemars1")]
    pub(crate) fn import_definition(&mut self, key: String, schema: Value) {
        self.defs.insert(key, schema);
    }

    /// Whether [`mark_buffered`](Self::mark_buffered) was called.
    pub fn reads_buffered(&self) -> bool {
        self.buffered
    }

    /// Attaches the collected `$defs` to `root` (an object schema) and returns it.
    pub fn into_root(self, mut root: Map<String, Value>) -> Value {
        if !self.defs.is_empty() {
            root.insert(
                "$defs".into(),
                Value::Object(self.defs.into_iter().collect()),
            );
        }
        Value::Object(root)
    }

    /// The whole schema of `T` as a standalone document: `T`'s own schema at the root,
    /// the named types it uses in `$defs` (`T` itself stays there only when it is
    /// recursive).
    pub fn root_schema_for<T: ToolSchema + ?Sized>() -> Value {
        let mut generator = Self::new();
        let mut schema = generator.subschema_for::<T>();
        if let Some(key) = generator.def_key(&schema) {
            let referenced = serde_json::to_string(&generator.defs)
                .map(|defs| defs.contains(&format!("\"#/$defs/{key}\"")))
                .unwrap_or(true);
            schema = if referenced {
                generator
                    .defs
                    .get(&key)
                    .cloned()
                    .unwrap_or(Value::Bool(true))
            } else {
                generator.defs.remove(&key).unwrap_or(Value::Bool(true))
            };
        }
        let root = into_object(schema);
        generator.into_root(root)
    }

    /// The `$defs` key a `{"$ref": "#/$defs/KEY"}` schema points to.
    fn def_key(&self, schema: &Value) -> Option<String> {
        let map = schema.as_object().filter(|map| map.len() == 1)?;
        let key = map.get("$ref")?.as_str()?.strip_prefix("#/$defs/")?;
        self.defs.contains_key(key).then(|| key.to_owned())
    }
}

fn reference(key: &str) -> Value {
    let mut map = Map::new();
    map.insert("$ref".into(), Value::String(format!("#/$defs/{key}")));
    Value::Object(map)
}

/// Builds the schema of an object from its properties, in the order they are added.
#[derive(Debug, Default)]
pub struct ObjectSchema {
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl ObjectSchema {
    /// An object with no properties yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a property; `required` lists it in `required`.
    pub fn property(&mut self, name: &str, schema: Value, required: bool) -> &mut Self {
        self.properties.insert(name.to_owned(), schema);
        if required {
            self.required.push(Value::String(name.to_owned()));
        }
        self
    }

    /// The object schema; `closed` adds `additionalProperties: false`.
    pub fn build(self, closed: bool) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("type".into(), "object".into());
        map.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            map.insert("required".into(), Value::Array(self.required));
        }
        if closed {
            map.insert("additionalProperties".into(), Value::Bool(false));
        }
        map
    }
}
