use toolwright::tool;

#[derive(serde::Deserialize)]
struct Point {
    x: f64,
    y: f64,
}

/// Distance of a point from the origin.
#[tool(effect = "read_only")]
fn norm(point: Point) -> f64 {
    point.x.hypot(point.y)
}

fn main() {}
