// A read-only tool cannot even receive the means to write.
use toolwright::capability::Writes;
use toolwright::tool;

struct Workspace;

/// Read a file.
#[tool(effect = "read_only")]
fn read_file(path: String, #[ctx] workspace: &Writes<Workspace>) -> String {
    let _ = workspace;
    path
}

fn main() {}
