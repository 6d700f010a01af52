//! A crate that depends on toolwright under another name: the macros must reach the
//! runtime through the path the user gives, not through `::toolwright`.

use tw::{ToolSchema, tool};

/// A point on a map.
#[derive(serde::Deserialize, ToolSchema)]
#[tool_schema(crate = tw)]
pub struct Point {
    pub lat: f64,
    pub lon: f64,
}

/// Say where a point is.
#[tool(crate = tw, effect = "read_only")]
pub fn locate(point: Point) -> String {
    format!("{:.1},{:.1}", point.lat, point.lon)
}

#[cfg(test)]
mod tests {
    use tw::{Context, Tool};

    use super::Locate;

    #[test]
    fn the_renamed_path_is_used() {
        let spec = Locate.spec();
        assert_eq!(spec.name, "locate");
        assert_eq!(
            spec.input_schema["$defs"]["Point"]["required"],
            serde_json::json!(["lat", "lon"])
        );
        let ctx = Context::new();
        let call = Locate.call(&ctx, r#"{"point": {"lat": 1.0, "lon": 2.0}}"#.into());
        let output = futures_executor(call).expect("the call succeeds");
        assert_eq!(output.to_text(), "1.0,2.0");
    }

    /// The tool is synchronous, so its future is ready on the first poll.
    fn futures_executor<F: std::future::Future>(future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(output) => output,
            std::task::Poll::Pending => panic!("a synchronous tool's future is ready at once"),
        }
    }
}
