use toolwright::tool;

/// Build the yearly report.
#[tool(effect = "read_only", task = "yes")]
fn yearly_report(year: u16) {
    let _ = year;
}

/// Migrate the database.
#[tool(effect = "destructive", task = "background")]
fn migrate(version: u32) {
    let _ = version;
}

fn main() {}
