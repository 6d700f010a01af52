use toolwright::ToolSchema;

#[derive(ToolSchema)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
