use toolwright::tool;

/// Invite people by email.
#[tool(effect = "external")]
fn invite(
    /// Addresses to invite.
    #[arg(max_items = 3, format = "email")]
    emails: Vec<String>,
    /// Team codes.
    #[arg(min_items = 1, pattern = "^[A-Z]{3}$")]
    teams: Vec<String>,
    /// Seats to hold.
    #[arg(minimum = 1, max_length = 2)]
    seats: u32,
) {
    let _ = (emails, teams, seats);
}

fn main() {}
