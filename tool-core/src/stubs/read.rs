//! The tools' schemas read into the stubs' types: `$defs` named once, inline objects
//! named from their place, tagged variants from their tag, and a name claimed only once
//! per distinct schema.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::Loose;
use super::docs::{description_of, doc_of};
use super::model::{Api, Declared, Field, Function, Param, Shape, Ty, identifier};
use crate::spec::ToolSpec;

impl Api {
    pub(crate) fn new<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> Self {
        let mut api = Api::default();
        for spec in specs {
            let function = Reader::new(&mut api, spec).function();
            api.functions.push(function);
        }
        api
    }
}

/// One tool's schemas being read.
struct Reader<'a> {
    api: &'a mut Api,
    spec: &'a ToolSpec,
    /// The tool's name in PascalCase: the prefix of its inline types' names.
    prefix: String,
    /// The schema whose `$defs` a `$ref` points into.
    root: &'a Value,
    /// `$defs` already named: key → type name.
    defs: HashMap<String, String>,
}

impl<'a> Reader<'a> {
    fn new(api: &'a mut Api, spec: &'a ToolSpec) -> Self {
        Self {
            api,
            spec,
            prefix: pascal(&spec.name),
            root: &spec.input_schema,
            defs: HashMap::new(),
        }
    }

    fn function(mut self) -> Function {
        let spec = self.spec;
        let input = spec.input_schema.as_object();
        let required = required_of(input);
        let mut params = Vec::new();
        if let Some(properties) = input
            .and_then(|o| o.get("properties"))
            .and_then(Value::as_object)
        {
            for (name, schema) in properties {
                let hint = format!("{}{}", self.prefix, pascal(name));
                let ty = self.ty(schema, &hint, &format!("input.{name}"));
                let ident = identifier(name);
                params.push(Param {
                    wire: name.clone(),
                    ident,
                    ty,
                    required: required.contains(&name.as_str()),
                    doc: doc_of(schema),
                });
            }
        }
        let positional = params.iter().take_while(|param| param.required).count();
        self.root = spec.output_schema.as_ref().unwrap_or(&Value::Null);
        self.defs.clear();
        let (returns, returns_doc) = match &spec.output_schema {
            // Without an output schema a program gets the text the model would read.
            None => (Ty::Str, None),
            Some(schema) => {
                let hint = format!("{}Result", self.prefix);
                (self.ty(schema, &hint, "output"), description_of(schema))
            }
        };
        Function {
            name: spec.name.clone(),
            ident: identifier(&spec.name),
            description: spec.description.clone(),
            effect: spec.effect,
            params,
            positional,
            returns,
            returns_doc,
        }
    }

    fn loose(&mut self, path: &str, reason: impl Into<String>) {
        self.api.loose.push(Loose {
            tool: self.spec.name.clone(),
            path: path.to_owned(),
            reason: reason.into(),
        });
    }

    /// The type of `schema`; `hint` names it if it must be declared.
    fn ty(&mut self, schema: &Value, hint: &str, path: &str) -> Ty {
        let object = match schema {
            Value::Bool(true) => return self.json(),
            Value::Bool(false) => return Ty::Never,
            Value::Object(object) => object,
            _ => {
                self.loose(path, "the schema is not an object or a boolean");
                return self.json();
            }
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            return self.reference(reference, path);
        }
        if let Some(value) = object.get("const") {
            return self.literal(std::slice::from_ref(value), path);
        }
        if let Some(Value::Array(values)) = object.get("enum") {
            return self.literal(values, path);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(variants)) = object.get(key) {
                let names = variant_names(variants, hint);
                let types = variants
                    .iter()
                    .zip(names)
                    .enumerate()
                    .map(|(i, (variant, name))| self.ty(variant, &name, &format!("{path}|{i}")))
                    .collect();
                return union(types);
            }
        }
        if let Some(Value::Array(parts)) = object.get("allOf") {
            if parts.len() > 1 {
                self.loose(
                    path,
                    "allOf: the value meets every one of these schemas; typed as the first",
                );
            }
            return match parts.first() {
                Some(first) => self.ty(first, hint, path),
                None => self.json(),
            };
        }
        match object.get("type") {
            Some(Value::String(kind)) => self.of_kind(kind, object, hint, path),
            Some(Value::Array(kinds)) => {
                let types = kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|kind| self.of_kind(kind, object, hint, path))
                    .collect();
                union(types)
            }
            _ if object.contains_key("properties") => self.of_kind("object", object, hint, path),
            _ if object.contains_key("items") || object.contains_key("prefixItems") => {
                self.of_kind("array", object, hint, path)
            }
            _ => self.json(),
        }
    }

    fn json(&mut self) -> Ty {
        self.api.uses_json = true;
        Ty::Json
    }

    fn literal(&mut self, values: &[Value], path: &str) -> Ty {
        if values
            .iter()
            .all(|value| !value.is_array() && !value.is_object())
        {
            return Ty::Literal(values.to_vec());
        }
        self.loose(
            path,
            "an enumeration of arrays or objects: typed as any JSON value",
        );
        self.json()
    }

    fn of_kind(&mut self, kind: &str, object: &Map<String, Value>, hint: &str, path: &str) -> Ty {
        match kind {
            "string" => Ty::Str,
            "integer" => Ty::Int,
            "number" => Ty::Float,
            "boolean" => Ty::Bool,
            "null" => Ty::Null,
            "array" => self.array(object, hint, path),
            "object" => self.object(object, hint, path),
            other => {
                self.loose(path, format!("unknown type \"{other}\""));
                self.json()
            }
        }
    }

    fn array(&mut self, object: &Map<String, Value>, hint: &str, path: &str) -> Ty {
        if let Some(Value::Array(prefix)) = object.get("prefixItems") {
            let items: Vec<Ty> = prefix
                .iter()
                .enumerate()
                .map(|(i, item)| self.ty(item, &format!("{hint}{i}"), &format!("{path}[{i}]")))
                .collect();
            return match object.get("items") {
                None | Some(Value::Bool(false)) => Ty::Tuple(items),
                Some(rest) => {
                    self.loose(path, "a tuple followed by more items: typed as a list");
                    let rest = self.ty(rest, &format!("{hint}Item"), &format!("{path}[]"));
                    Ty::List(Box::new(union(items.into_iter().chain([rest]).collect())))
                }
            };
        }
        let item = match object.get("items") {
            Some(items) => self.ty(items, &format!("{hint}Item"), &format!("{path}[]")),
            None => self.json(),
        };
        Ty::List(Box::new(item))
    }

    fn object(&mut self, object: &Map<String, Value>, hint: &str, path: &str) -> Ty {
        let others = match object.get("additionalProperties") {
            None | Some(Value::Bool(true)) => None,
            Some(Value::Bool(false)) => Some(Ty::Never),
            Some(schema) => Some(self.ty(schema, &format!("{hint}Value"), &format!("{path}{{}}"))),
        };
        if object.contains_key("patternProperties") {
            self.loose(
                path,
                "keys matching patterns: their values are typed as any JSON value",
            );
        }
        let Some(properties) = object.get("properties").and_then(Value::as_object) else {
            return Ty::Map(Box::new(match others {
                Some(ty) => ty,
                None => self.json(),
            }));
        };
        let key = Value::Object(object.clone()).to_string();
        let name = match self.claim(hint, &key) {
            Ok(name) => name,
            Err(existing) => return Ty::Named(existing),
        };
        let required = required_of(Some(object));
        let fields = properties
            .iter()
            .map(|(field, schema)| {
                let ty = self.ty(
                    schema,
                    &format!("{name}{}", pascal(field)),
                    &format!("{path}.{field}"),
                );
                Field {
                    name: field.clone(),
                    ty,
                    required: required.contains(&field.as_str()),
                    doc: doc_of(schema),
                }
            })
            .collect();
        let others = others.filter(|ty| *ty != Ty::Never);
        self.api.types.push(Declared {
            name: name.clone(),
            doc: description_of(&Value::Object(object.clone())),
            shape: Shape::Object { fields, others },
        });
        Ty::Named(name)
    }

    /// `#/$defs/Name`: a named type, declared the first time (an object as one, anything
    /// else as an alias, so a recursive definition can refer to itself).
    fn reference(&mut self, reference: &str, path: &str) -> Ty {
        let key = reference
            .strip_prefix("#/$defs/")
            .or_else(|| reference.strip_prefix("#/definitions/"));
        let schema = key.and_then(|key| {
            ["$defs", "definitions"]
                .iter()
                .find_map(|defs| self.root.get(defs).and_then(|defs| defs.get(key)))
        });
        let (Some(key), Some(schema)) = (key, schema) else {
            self.loose(
                path,
                format!("a reference this schema does not define: {reference}"),
            );
            return self.json();
        };
        if let Some(name) = self.defs.get(key) {
            return Ty::Named(name.clone());
        }
        let schema = schema.clone();
        let is_object = schema.get("properties").is_some();
        let hint = pascal(key);
        let name = match self.claim(&hint, &schema.to_string()) {
            Ok(name) => name,
            Err(existing) => {
                self.defs.insert(key.to_owned(), existing.clone());
                return Ty::Named(existing);
            }
        };
        self.defs.insert(key.to_owned(), name.clone());
        if is_object {
            // Declared under the name just claimed: `object` finds it taken by this very
            // schema and declares it.
            self.api.taken.remove(&name);
            return self.object(
                schema.as_object().expect("has properties"),
                &name,
                &format!("{path}<{key}>"),
            );
        }
        let ty = self.ty(&schema, &name, &format!("{path}<{key}>"));
        self.api.types.push(Declared {
            name: name.clone(),
            doc: description_of(&schema),
            shape: Shape::Alias(ty),
        });
        Ty::Named(name)
    }

    /// Claims a type name for the schema `key`: `Ok` a fresh name (`hint`, or prefixed
    /// with the tool's name, or numbered, when another schema has it), `Err` the name an
    /// identical schema already has.
    fn claim(&mut self, hint: &str, key: &str) -> Result<String, String> {
        let hint = if hint.is_empty() { "Value" } else { hint };
        let candidates = [hint.to_owned(), format!("{}{hint}", self.prefix)];
        for candidate in candidates
            .iter()
            .cloned()
            .chain((2..).map(|n| format!("{hint}{n}")))
        {
            if RESERVED_TYPES.contains(&candidate.as_str()) {
                continue;
            }
            match self.api.taken.get(&candidate) {
                Some(existing) if existing == key => return Err(candidate),
                Some(_) => continue,
                None => {
                    self.api.taken.insert(candidate.clone(), key.to_owned());
                    return Ok(candidate);
                }
            }
        }
        unreachable!("the numbered names never run out")
    }
}

/// Names the stubs declare themselves.
const RESERVED_TYPES: &[&str] = &["JsonValue", "ToolError", "Problem", "ErrorKind"];

/// Names for the variants of a union: `hint` and the variant's tag (a property with a
/// `const` string), or its position.
fn variant_names(variants: &[Value], hint: &str) -> Vec<String> {
    variants
        .iter()
        .enumerate()
        .map(|(i, variant)| {
            let tag = variant
                .get("properties")
                .and_then(Value::as_object)
                .and_then(|properties| {
                    properties
                        .values()
                        .find_map(|property| property.get("const").and_then(Value::as_str))
                });
            match tag {
                Some(tag) => format!("{hint}{}", pascal(tag)),
                None => format!("{hint}{}", i + 1),
            }
        })
        .collect()
}

/// One union of `types`, nested unions flattened and repeats dropped.
fn union(types: Vec<Ty>) -> Ty {
    let mut flat: Vec<Ty> = Vec::new();
    for ty in types {
        let parts = match ty {
            Ty::Union(parts) => parts,
            other => vec![other],
        };
        for part in parts {
            if !flat.contains(&part) {
                flat.push(part);
            }
        }
    }
    if flat.len() == 1 {
        flat.pop().expect("one")
    } else {
        Ty::Union(flat)
    }
}

fn required_of(object: Option<&Map<String, Value>>) -> Vec<&str> {
    object
        .and_then(|o| o.get("required"))
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `search_files` → `SearchFiles`.
fn pascal(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            first.into_iter().chain(chars).collect::<String>()
        })
        .collect()
}
