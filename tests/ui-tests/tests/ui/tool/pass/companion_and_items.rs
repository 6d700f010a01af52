use toolwright::{Registry, Tool, ToolSchema, tool};

#[derive(serde::Serialize, ToolSchema)]
struct Event {
    title: String,
}

/// The next event in the calendar.
#[tool(effect = "read_only", companion = NextEvent)]
fn event() -> Event {
    Event {
        title: "standup".into(),
    }
}

/// Invite people by email.
#[tool(effect = "external")]
fn invite(
    /// Addresses to invite.
    #[arg(max_items = 3, items(format = "email", max_length = 254))]
    emails: Vec<String>,
    /// Seats per person.
    #[arg(items(minimum = 1, maximum = 4))]
    seats: Option<Vec<u8>>,
) {
    let _ = (emails, seats);
}

fn main() {
    let registry = Registry::builder().with(NextEvent).with(Invite).build().unwrap();
    assert_eq!(NextEvent.spec().name, "event");
    assert_eq!(registry.len(), 2);
}
