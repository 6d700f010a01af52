// `#[arg(mcp_header)]` follows MCP's rules for x-mcp-header: each mistake is reported.
use toolwright::tool;

/// Look up a customer.
#[tool(effect = "read_only")]
fn lookup(
    /// The region.
    #[arg(mcp_header = "Region Name")]
    region: String,
    /// The tenant.
    #[arg(mcp_header = "Tenant")]
    tenant: String,
    /// The tenant again.
    #[arg(mcp_header = "tenant")]
    tenant_id: String,
    /// A score.
    #[arg(mcp_header = "Score")]
    score: f64,
    /// Maybe a shard.
    #[arg(mcp_header = "Shard")]
    shard: Option<String>,
) -> String {
    format!("{region} {tenant} {tenant_id} {score} {shard:?}")
}

fn main() {}
