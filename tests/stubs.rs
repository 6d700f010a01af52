//! The API a program is written against: every example tool's Python and TypeScript
//! stubs as reviewed snapshots; every schema in every snapshot of the repository typed
//! without `Any`, `unknown` or a loose type; the stubs checked by the languages' own
//! type checkers (pyright, tsc).

use crate::tools;

use std::path::Path;

use serde_json::Value;
use toolwright::stubs::Stubs;
use toolwright::{Effect, Registry, ToolSpec};

fn examples() -> Registry {
    tools::every_example_tool(toolwright::policy::AllowAll)
        .build()
        .unwrap()
}

#[test]
fn every_example_tool_as_python_and_typescript() {
    let registry = examples();
    let stubs = Stubs::new(registry.specs());
    assert_eq!(stubs.loose(), &[]);
    insta::assert_snapshot!("python", stubs.python());
    insta::assert_snapshot!("typescript", stubs.typescript());
}

/// Every JSON Schema in a snapshot: a whole derived schema, or a tool's arguments or
/// result in any dialect.
fn schemas_in(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Object(object) => {
            for (key, inner) in object {
                let is_schema = matches!(
                    key.as_str(),
                    "input_schema"
                        | "output_schema"
                        | "inputSchema"
                        | "outputSchema"
                        | "parameters"
                        | "parametersJsonSchema"
                        | "schema"
                ) && inner.is_object();
                if is_schema {
                    out.push(inner.clone());
                } else {
                    schemas_in(inner, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| schemas_in(item, out)),
        _ => {}
    }
}

#[test]
fn every_schema_in_the_snapshots_has_a_faithful_type() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "snap") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // A snapshot is a header between `---` lines, then its body.
        let Some(body) = text.splitn(3, "---\n").nth(2) else {
            continue;
        };
        let Ok(value) = serde_json::from_str::<Value>(body) else {
            continue;
        };
        let mut schemas = Vec::new();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if file.starts_with("suite__derive_schemas__") {
            schemas.push(value);
        } else {
            schemas_in(&value, &mut schemas);
        }
        for (i, schema) in schemas.into_iter().enumerate() {
            // Each schema both as the arguments (when it is an object) and as the result.
            let mut spec = ToolSpec::new(
                format!("tool_{i}"),
                "A tool.",
                serde_json::json!({"type": "object"}),
                Effect::ReadOnly,
            )
            .with_output_schema(schema.clone());
            if schema.get("properties").is_some() {
                spec.input_schema = schema;
            }
            let stubs = Stubs::new([&spec]);
            assert_eq!(stubs.loose(), &[], "{file}: schema {i}");
            for (language, text) in [
                ("python", code_of(&stubs.python(), "\"\"\"", "\"\"\"", "#")),
                (
                    "typescript",
                    code_of(&stubs.typescript(), "/**", "*/", "//"),
                ),
            ] {
                for untyped in ["Any", "unknown", "object"] {
                    let found = text
                        .split(|c: char| !c.is_alphanumeric() && c != '_')
                        .any(|word| word == untyped);
                    assert!(
                        !found,
                        "{file}: schema {i}: `{untyped}` in {language}:\n{text}"
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(
        checked > 100,
        "only {checked} schemas found in {}",
        dir.display()
    );
}

/// The code of a stub file: its doc blocks (`open` to `close`) and `line` comments left
/// out, so a description that says "any" or "object" is not taken for a type.
fn code_of(text: &str, open: &str, close: &str, line: &str) -> String {
    let mut code = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        code.push_str(&rest[..start]);
        let after = &rest[start + open.len()..];
        rest = after
            .find(close)
            .map_or("", |end| &after[end + close.len()..]);
    }
    code.push_str(rest);
    code.lines()
        .filter(|l| !l.trim_start().starts_with(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The example tools' stubs, and a program written against each, pass the languages' own
/// checkers in strict mode: pyright (Python 3.12) and tsc.
#[test]
fn the_stubs_pass_pyright_and_tsc_in_strict_mode() {
    let Some(node) = crate::support::node_clients() else {
        return;
    };
    let bin = node.parent().unwrap();
    let dir = std::env::temp_dir().join(format!("toolwright-stubs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stubs = Stubs::new(examples().specs());
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write("tools.py", &stubs.python());
    write("tools.d.ts", &stubs.typescript());
    write(
        "pyrightconfig.json",
        r#"{"typeCheckingMode": "strict", "pythonVersion": "3.12"}"#,
    );
    write(
        "program.py",
        r#"import asyncio

from tools import ToolError, lookup_customer, search_files, search_notes


async def main() -> float:
    customer, notes = await asyncio.gather(lookup_customer("C-100"), search_notes("deploy", max_results=5))
    found = await search_files(query="fn main", path="src")
    try:
        await search_notes(query="")
    except ToolError as error:
        print(str(error).split(":")[0])
    return customer["refundable"] + len(notes) + len(found["hits"])
"#,
    );
    write(
        "program.ts",
        r#"import { lookup_customer, search_files, search_notes, ToolError } from "./tools";

export async function main(): Promise<number> {
  const [customer, notes] = await Promise.all([
    lookup_customer({ id: "C-100" }),
    search_notes({ query: "deploy", max_results: 5 }),
  ]);
  const found = await search_files({ query: "fn main", path: "src" });
  try {
    await search_notes({ query: "" });
  } catch (error) {
    if (error instanceof ToolError) console.log(error.kind, error.problems.map((p) => p.path));
  }
  return customer.refundable + notes.length + found.hits.length;
}
"#,
    );
    // A program that misuses the stubs is caught: the checkers do check.
    write(
        "wrong.py",
        "from tools import lookup_customer\n\nasync def f() -> str:\n    return (await lookup_customer(7))[\"nme\"]\n",
    );
    let run = |program: &str, args: &[&str]| {
        let output = std::process::Command::new(&node)
            .arg(bin.join(program))
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (ok, out) = run("pyright", &["tools.py", "program.py"]);
    assert!(ok, "pyright:\n{out}");
    let (ok, out) = run("pyright", &["wrong.py"]);
    assert!(
        !ok && out.contains("\"nme\" is not a defined key") && out.contains("parameter \"id\""),
        "pyright on a wrong program:\n{out}"
    );
    let tsc = [
        "--noEmit",
        "--strict",
        "--target",
        "es2022",
        "--module",
        "preserve",
        "--lib",
        "es2022,dom",
    ];
    let (ok, out) = run("tsc", &[&tsc[..], &["tools.d.ts", "program.ts"]].concat());
    assert!(ok, "tsc:\n{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
