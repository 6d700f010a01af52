use toolwright::{ToolError, tool};

struct Handle {
    fd: i32,
}

/// Open a file.
#[tool(effect = "read_only")]
fn open(path: String) -> Result<Handle, ToolError> {
    let _ = path;
    Ok(Handle { fd: 3 })
}

fn main() {}
