use toolwright::tool;

/// Delete a file.
#[tool(effect = "destructve")]
fn delete_file(path: String) {
    let _ = path;
}

fn main() {}
