//! Tools that are methods of a service (`#[toolset]`): they share the service's state, a
//! service may be split over several blocks, and toolsets combine under prefixes, with
//! every name collision an error that says where both tools came from.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use toolwright::ToolSettings;
use toolwright::policy::AllowAll;
use toolwright::{Context, Registry, RegistryError, ToolCall, ToolError, tool, toolset};

/// A shop's stock: the state every tool of the toolset shares.
struct Shop {
    stock: Mutex<Vec<(String, u32)>>,
    sold: AtomicU32,
}

/// Who is at the till (a context value, as with free functions).
struct Clerk(&'static str);

#[toolset]
impl Shop {
    /// How many of an item are in stock.
    #[tool(effect = "read_only")]
    fn stock_of(
        &self,
        /// The item, like `apple`.
        item: String,
    ) -> u32 {
        self.count(&item)
    }

    /// Sell some of an item; fails when there are not enough.
    #[tool(effect = "write")]
    async fn sell(
        self: Arc<Self>,
        /// The item, like `apple`.
        item: String,
        /// How many.
        #[arg(minimum = 1)]
        count: u32,
        #[ctx] clerk: &Clerk,
    ) -> Result<String, ToolError> {
        let mut stock = self.stock.lock().unwrap();
        let Some(entry) = stock.iter_mut().find(|(name, _)| *name == item) else {
            return Err(ToolError::not_found(format!("no item named {item}")));
        };
        if entry.1 < count {
            return Err(ToolError::conflict(format!("only {} {item} left", entry.1)));
        }
        entry.1 -= count;
        self.sold.fetch_add(count, Ordering::Relaxed);
        Ok(format!("{} sold {count} {item}", clerk.0))
    }

    /// The shop's opening hours.
    #[tool(effect = "read_only", name = "opening_hours")]
    fn hours() -> String {
        "9 to 5".into()
    }

    /// Not a tool: a plain method the tools use, left as it is.
    fn count(&self, item: &str) -> u32 {
        let stock = self.stock.lock().unwrap();
        stock
            .iter()
            .find(|(name, _)| name == item)
            .map_or(0, |entry| entry.1)
    }
}

fn shop() -> Arc<Shop> {
    Arc::new(Shop {
        stock: Mutex::new(vec![("apple".into(), 5), ("pear".into(), 1)]),
        sold: AtomicU32::new(0),
    })
}

fn run(registry: &Registry, ctx: &Context, name: &str, args: serde_json::Value) -> String {
    let result = futures_executor::block_on(registry.dispatch(ctx, ToolCall::new("1", name, args)));
    result.for_model().to_owned()
}

#[test]
fn methods_of_a_toolset_share_the_service() {
    let shop = shop();
    let registry = Registry::builder()
        .with_toolset(shop.clone())
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = Context::new().with(Clerk("Ana"));
    registry.check_context(&ctx).unwrap();
    let names: Vec<&str> = registry.specs().map(|spec| spec.name.as_str()).collect();
    assert_eq!(names, ["stock_of", "sell", "opening_hours"]);

    assert_eq!(
        run(&registry, &ctx, "stock_of", json!({"item": "apple"})),
        "5"
    );
    assert_eq!(
        run(
            &registry,
            &ctx,
            "sell",
            json!({"item": "apple", "count": 2})
        ),
        "Ana sold 2 apple"
    );
    // The change is in the one shared service.
    assert_eq!(
        run(&registry, &ctx, "stock_of", json!({"item": "apple"})),
        "3"
    );
    assert_eq!(shop.sold.load(Ordering::Relaxed), 2);
    assert_eq!(run(&registry, &ctx, "opening_hours", json!({})), "9 to 5");

    // Everything #[tool] checks holds: constraints, and the tool's own errors as data.
    let refused = run(
        &registry,
        &ctx,
        "sell",
        json!({"item": "apple", "count": 0}),
    );
    assert!(refused.contains("count"), "{refused}");
    let short = run(&registry, &ctx, "sell", json!({"item": "pear", "count": 3}));
    assert!(short.contains("only 1 pear left"), "{short}");
    // A context value the call needs and lacks is named at start-up.
    let missing = registry.check_context(&Context::new()).unwrap_err();
    assert!(missing.to_string().contains("sell"), "{missing}");
}

#[test]
fn a_toolsets_contract_is_its_methods_signatures() {
    let registry = Registry::builder().with_toolset(shop()).build().unwrap();
    insta::assert_json_snapshot!("toolset_contract", registry.contract());
}

/// A service split over two blocks: the main one lists the other as a part.
struct Library {
    books: Vec<&'static str>,
}

#[toolset(parts = [admin_tools])]
impl Library {
    /// Find books whose title contains some text.
    #[tool(effect = "read_only")]
    fn find_book(
        &self,
        /// Text in the title.
        text: String,
    ) -> Vec<String> {
        self.books
            .iter()
            .filter(|title| title.contains(&text))
            .map(|title| (*title).to_owned())
            .collect()
    }
}

#[toolset(part = admin_tools)]
impl Library {
    /// Count the books.
    #[tool(effect = "read_only")]
    fn count_books(&self) -> usize {
        self.books.len()
    }
}

fn library() -> Arc<Library> {
    Arc::new(Library {
        books: vec!["Dune", "Emma"],
    })
}

#[test]
fn a_service_split_over_blocks_registers_as_one() {
    let registry = Registry::builder().with_toolset(library()).build().unwrap();
    let names: Vec<&str> = registry.specs().map(|spec| spec.name.as_str()).collect();
    assert_eq!(names, ["find_book", "count_books"]);
    let ctx = Context::new();
    assert_eq!(run(&registry, &ctx, "count_books", json!({})), "2");
    assert_eq!(
        run(&registry, &ctx, "find_book", json!({"text": "un"})),
        r#"["Dune"]"#
    );
}

#[test]
fn prefixes_keep_combined_toolsets_apart() {
    let registry = Registry::builder()
        .with_toolset_prefixed("north", shop())
        .with_toolset_prefixed("south", shop())
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let names: Vec<&str> = registry.specs().map(|spec| spec.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "north_stock_of",
            "north_sell",
            "north_opening_hours",
            "south_stock_of",
            "south_sell",
            "south_opening_hours",
        ]
    );
    // Each prefixed tool is its own service's.
    let ctx = Context::new().with(Clerk("Bo"));
    run(
        &registry,
        &ctx,
        "north_sell",
        json!({"item": "apple", "count": 5}),
    );
    assert_eq!(
        run(&registry, &ctx, "north_stock_of", json!({"item": "apple"})),
        "0"
    );
    assert_eq!(
        run(&registry, &ctx, "south_stock_of", json!({"item": "apple"})),
        "5"
    );
}

/// Opening hours, as a free function: its name collides with the toolset's.
#[tool(effect = "read_only")]
fn opening_hours() -> String {
    "always".into()
}

#[test]
fn a_name_collision_names_both_origins_and_adds_nothing() {
    let errors = Registry::builder()
        .with(OpeningHours)
        .with_toolset(shop())
        .build()
        .err()
        .unwrap();
    let [error] = &errors[..] else {
        panic!("{errors}")
    };
    let RegistryError::DuplicateName {
        name,
        first,
        second,
    } = error
    else {
        panic!("{error:?}")
    };
    assert_eq!(name, "opening_hours");
    assert!(first.ends_with("OpeningHours"), "{first}");
    assert!(
        second.contains("toolset") && second.contains("Shop"),
        "{second}"
    );
    let message = error.to_string();
    assert!(message.contains("with_toolset_prefixed"), "{message}");
    // Twice the same toolset under one prefix collides too, one error a tool.
    let errors = Registry::builder()
        .with_toolset_prefixed("a", shop())
        .with_toolset_prefixed("a", shop())
        .build()
        .err()
        .unwrap();
    assert!(errors.to_string().contains("'a_stock_of'"), "{errors}");
    assert!(errors.to_string().contains("prefixed 'a'"), "{errors}");
}

#[test]
fn a_prefix_that_makes_an_invalid_name_is_refused() {
    for prefix in ["has space", "9lives", &"x".repeat(60)] {
        let errors = Registry::builder()
            .with_toolset_prefixed(prefix, shop())
            .build()
            .err()
            .unwrap();
        let error = &errors[0];
        assert!(
            matches!(error, RegistryError::InvalidName { .. }),
            "{prefix}: {error:?}"
        );
        assert!(error.to_string().contains("shorter prefix"), "{error}");
    }
}
