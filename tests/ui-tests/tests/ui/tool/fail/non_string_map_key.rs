use std::collections::HashMap;

use toolwright::tool;

/// Sum the values.
#[tool(effect = "read_only")]
fn total(values: HashMap<u32, f64>) -> f64 {
    values.values().sum()
}

fn main() {}
