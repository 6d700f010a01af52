use toolwright::tool;

/// Delete a file.
#[tool(effect = "delete")]
fn delete_file(path: String) {
    let _ = path;
}

/// Read a file.
#[tool(effect = "readonly")]
fn read_file(path: String) {
    let _ = path;
}

/// Post a message to a channel.
#[tool(effect = "network")]
fn post_message(text: String) {
    let _ = text;
}

fn main() {}
