use toolwright::{ToolSchema, tool};

#[derive(serde::Serialize, ToolSchema)]
struct Event {
    title: String,
}

/// The next event in the calendar.
#[tool(effect = "read_only")]
fn event() -> Event {
    Event {
        title: "standup".into(),
    }
}

fn main() {}
