use toolwright::tool;

#[derive(serde::Deserialize)]
struct Seat {
    row: u8,
}

/// Reserve a seat.
#[tool(effect = "write")]
fn reserve(#[arg(schemars)] seat: Seat) -> u8 {
    seat.row
}

fn main() {}
