use toolwright::tool;

/// Run a shell command.
#[tool(effect = "dynamic")]
fn run_command(command: String) -> String {
    command
}

fn main() {}
