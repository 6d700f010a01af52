use toolwright::tool;

/// Read raw memory.
#[tool(effect = "read_only")]
unsafe fn peek(address: usize) -> u8 {
    let _ = address;
    0
}

fn main() {}
