//! Descriptions are prompts, measured: the registry's search picks tools for MetaTool's
//! labelled requests (a public set nobody on this project wrote), the lint names the
//! vague descriptions, and rewriting two of them moves the accuracy. Run with
//! `cargo run --example pick_eval --features search`.

use serde_json::{Value, json};
use toolwright::eval::{Labelled, SearchPicker, evaluate};
use toolwright::{Effect, Registry, ToolSpec};

fn read(name: &str) -> Value {
    let path = format!(
        "{}/../tests/fixtures/heldout/metatool/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture")).expect("JSON")
}

fn main() {
    let tools = read("tools.json");
    let specs: Vec<ToolSpec> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            ToolSpec::new(
                tool["name"].as_str().unwrap(),
                tool["description"].as_str().unwrap(),
                json!({"type": "object", "properties": {}, "additionalProperties": false}),
                Effect::ReadOnly,
            )
        })
        .collect();
    // The rewrites were chosen on the development half (the two tools the lint flags that
    // the most development requests missed); the figures printed are the test half's.
    let cases: Vec<Labelled> = read("queries.json")
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["split"] == "test" && q["tools"].as_array().unwrap().len() == 1)
        .map(|q| {
            Labelled::new(
                q["query"].as_str().unwrap(),
                q["tools"][0].as_str().unwrap(),
            )
        })
        .collect();
    let rewritten = [
        (
            "HousePurchasingTool",
            "Answers questions about buying a house: home prices and listings, mortgage rates \
             and monthly payments, down payments, closing costs and the steps of a purchase. \
             Use it when the user is looking to buy a home or compares properties; returns the \
             figures and advice asked for.",
        ),
        (
            "SEOTool",
            "Analyses a website's search-engine optimisation: keyword rankings, backlinks, site \
             traffic, page speed and on-page issues, with suggestions to rank higher. Use it \
             when the user asks how a site performs in Google search or how to improve its SEO; \
             returns the analytics and recommendations.",
        ),
    ];
    let mut after_specs = specs.clone();
    for spec in &mut after_specs {
        if let Some((_, description)) = rewritten.iter().find(|(name, _)| *name == spec.name) {
            spec.description = (*description).to_owned();
        }
    }
    let lint = toolwright::lint::Lint::new();
    let (before_findings, after_findings) = (lint.check(&specs), lint.check(&after_specs));
    let before = evaluate(&build(&specs), &cases, &mut SearchPicker, 1);
    let after = evaluate(&build(&after_specs), &cases, &mut SearchPicker, 1);
    let recall = |report: &toolwright::eval::Report, tool: &str| {
        report
            .per_tool
            .iter()
            .find(|t| t.tool == tool)
            .map_or((0.0, 0), |t| (t.recall, t.labelled))
    };
    let findings = |all: &[toolwright::lint::Finding], tool: &str| {
        let rules: Vec<&str> = all
            .iter()
            .filter(|f| f.tool == tool)
            .map(|f| f.rule)
            .collect();
        if rules.is_empty() {
            "none".to_owned()
        } else {
            rules.join(", ")
        }
    };
    println!(
        "MetaTool, {} tools, {} test requests; the registry's search picks (BM25, top 1)\n",
        specs.len(),
        cases.len()
    );
    println!("| tool | requests | lint before | recall before | lint after | recall after |");
    println!("|---|---:|---|---:|---|---:|");
    for (tool, _) in &rewritten {
        let ((was, requests), (now, _)) = (recall(&before, tool), recall(&after, tool));
        println!(
            "| {tool} | {requests} | {} | {:.1}% | {} | {:.1}% |",
            findings(&before_findings, tool),
            was * 100.0,
            findings(&after_findings, tool),
            now * 100.0
        );
    }
    println!(
        "| all tools | {} | | {:.1}% | | {:.1}% |",
        cases.len(),
        before.accuracy * 100.0,
        after.accuracy * 100.0
    );
}

/// A tool that only has a spec: searching reads nothing else.
struct Listed(ToolSpec);

impl toolwright::Tool for Listed {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn prepare(
        &self,
        _: toolwright::Arguments<'_>,
    ) -> Result<toolwright::Prepared, toolwright::ToolError> {
        Err(toolwright::ToolError::failed("listed only"))
    }
    fn run<'a>(
        &'a self,
        _: &'a toolwright::Context,
        _: toolwright::Prepared,
    ) -> toolwright::ToolFuture<'a> {
        toolwright::ToolFuture::ready(Err(toolwright::ToolError::failed("listed only")))
    }
}

fn build(specs: &[ToolSpec]) -> Registry {
    let mut builder = Registry::builder();
    for spec in specs {
        builder = builder.with_arc(std::sync::Arc::new(Listed(spec.clone())));
    }
    builder.build().expect("valid names")
}
