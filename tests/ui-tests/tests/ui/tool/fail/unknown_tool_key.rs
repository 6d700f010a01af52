use toolwright::tool;

/// Delete a file.
#[tool(effect = "destructive", idempotnt)]
fn delete_file(path: String) {
    let _ = path;
}

fn main() {}
