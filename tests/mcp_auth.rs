//! OAuth on MCP's Streamable HTTP transport, against a real issuer: `scripts/test/oauth-issuer`
//! (a Python program on loopback that publishes its keys and mints tokens, run in the
//! virtualenv `scripts/test/python-env` makes). Every kind of bad token gets 401 with its
//! challenge; a valid one becomes the caller, whose scopes each tool's `scopes` checks;
//! the issuer rotates its key mid-test.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use toolwright::mcp::auth::{JwtValidator, ResourceServer};
use toolwright::mcp::{HttpServer, McpServer};
use toolwright::policy::Caller;
use toolwright::{Context, Registry, ToolError, tool};

use crate::support;

use crate::support::{MANIFEST_DIR as ROOT, Reply};

/// Who is calling, as the server sees it.
#[tool(effect = "read_only")]
fn whoami(#[ctx] caller: &Caller) -> String {
    format!(
        "{} holding [{}]",
        caller.id,
        caller.scopes.iter().cloned().collect::<Vec<_>>().join(" ")
    )
}

/// Refund an order.
#[tool(effect = "write", scopes = ["payments:write"])]
fn refund(
    /// The order, like `A-1`.
    order: String,
) -> Result<String, ToolError> {
    Ok(format!("refunded {order}"))
}

/// The issuer, running until dropped.
struct Issuer {
    child: Child,
    url: String,
}

impl Issuer {
    fn start() -> Self {
        let mut child = Command::new(support::python())
            .arg(Path::new(ROOT).join("scripts/test/oauth-issuer"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the issuer starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the issuer prints its URL");
        let url = line
            .strip_prefix("issuer ")
            .expect("`issuer URL`")
            .trim()
            .to_owned();
        Issuer { child, url }
    }

    fn post(&self, path: &str, body: &str, content_type: &str) -> Value {
        let mut response = ureq::post(&format!("{}{path}", self.url))
            .header("Content-Type", content_type)
            .send(body)
            .expect("the issuer answers");
        serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap()
    }

    /// A token with exactly `spec`'s claims (see scripts/test/oauth-issuer, `/mint`).
    fn mint(&self, spec: Value) -> String {
        self.post("/mint", &spec.to_string(), "application/json")["access_token"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// POSTs `body` as a 2026-07-28 client, with `token` as its bearer token.
fn post(url: &str, token: Option<&str>, body: &Value) -> Reply {
    let authorization = token.map(|token| format!("Bearer {token}"));
    let mut headers = vec![("MCP-Protocol-Version", "2026-07-28")];
    if let Some(authorization) = &authorization {
        headers.push(("Authorization", authorization));
    }
    support::post_to(url, &body.to_string(), &headers)
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": tool, "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "auth-test", "version": "1"},
            },
        },
    })
}

fn text(answer: &Reply) -> &str {
    answer.message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

/// The MCP server with OAuth, on a loopback port, in a runtime of its own. Returns the
/// `/mcp` URL.
fn serve(
    runtime: &tokio::runtime::Runtime,
    issuer: &str,
    challenge: bool,
    per_caller: bool,
) -> String {
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let mut registry = Registry::builder().with(Whoami).with(Refund);
    if per_caller {
        registry = registry.with_visibility(toolwright::policy::caller_holds_scopes);
    }
    let registry = registry.build().unwrap();
    // Requests without a token never reach a tool; this caller is shadowed by the token's.
    let context = Context::new().with(Caller::new("nobody", [] as [&str; 0]));
    let server = McpServer::new(registry, context).unwrap();
    let validator = JwtValidator::new(issuer, &resource, format!("{issuer}/jwks"))
        .with_key_refresh(Duration::from_secs(600), Duration::ZERO);
    let mut auth = ResourceServer::new(&resource, [issuer], validator);
    if !challenge {
        auth = auth.without_scope_challenge();
    }
    runtime.spawn(HttpServer::new(server).with_auth(auth).serve(listener));
    resource
}

#[test]
fn bearer_tokens_become_the_caller_and_bad_ones_get_their_challenge() {
    let issuer = Issuer::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = serve(&runtime, &issuer.url, true, false);
    let metadata_url = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");

    // The protected-resource metadata, where RFC 9728 puts it for a path-suffixed resource.
    let metadata: Value = serde_json::from_str(
        &ureq::get(&metadata_url)
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(metadata["resource"], url.as_str());
    assert_eq!(metadata["authorization_servers"], json!([issuer.url]));
    assert_eq!(metadata["scopes_supported"], json!(["payments:write"]));

    // No token: 401, pointing at the metadata.
    let answer = post(&url, None, &call(1, "whoami", json!({})));
    assert_eq!(answer.status, 401);
    let challenge = answer.challenge.expect("a WWW-Authenticate header");
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"{metadata_url}\"")
    );
    assert!(
        answer.message["error"]["message"]
            .as_str()
            .unwrap()
            .contains("bearer token")
    );

    // A token from the issuer's token endpoint (client credentials, for this resource).
    let form = format!(
        "grant_type=client_credentials&client_id=client-7&scope=reports:read&resource={url}"
    );
    let granted = issuer.post("/token", &form, "application/x-www-form-urlencoded");
    let token = granted["access_token"].as_str().unwrap();
    let answer = post(&url, Some(token), &call(2, "whoami", json!({})));
    assert_eq!(answer.status, 200, "{}", answer.message);
    assert_eq!(text(&answer), "client-7 holding [reports:read]");

    // A valid token without the tool's scope: the tool's denied result, with the 403
    // challenge naming the scope the tool needs.
    let answer = post(
        &url,
        Some(token),
        &call(3, "refund", json!({"order": "A-1"})),
    );
    assert_eq!(answer.status, 403);
    assert_eq!(answer.message["result"]["isError"], true);
    assert!(
        text(&answer).contains("payments:write"),
        "{}",
        answer.message
    );
    let challenge = answer.challenge.expect("a WWW-Authenticate header");
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(
        challenge.contains("scope=\"payments:write\""),
        "{challenge}"
    );
    assert!(
        challenge.contains(&format!("resource_metadata=\"{metadata_url}\"")),
        "{challenge}"
    );

    // Every client sees the same tools here: the list may be shared.
    let list = json!({
        "jsonrpc": "2.0", "id": 9, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "auth-test", "version": "1"},
        }},
    });
    let answer = post(&url, Some(token), &list);
    assert_eq!(
        answer.message["result"]["cacheScope"], "public",
        "{}",
        answer.message
    );
    assert_eq!(
        answer.message["result"]["tools"].as_array().unwrap().len(),
        2
    );

    // With the scope, the tool runs.
    let writer = issuer.mint(json!({"sub": "ops", "scope": "payments:write", "aud": url}));
    let answer = post(
        &url,
        Some(&writer),
        &call(4, "refund", json!({"order": "A-1"})),
    );
    assert_eq!(
        (answer.status, text(&answer)),
        (200, "refunded A-1"),
        "{}",
        answer.message
    );
    // Scopes as an `scp` array work too.
    let scp = issuer.mint(json!({"sub": "ops2", "scp": ["payments:write"], "aud": url}));
    let answer = post(
        &url,
        Some(&scp),
        &call(5, "refund", json!({"order": "A-2"})),
    );
    assert_eq!(answer.status, 200, "{}", answer.message);

    // Every kind of bad token: 401, invalid_token, and a description that says why.
    let good = json!({"sub": "mallory", "scope": "payments:write", "aud": url});
    let with = |change: Value| {
        let mut spec = good.clone();
        spec.as_object_mut()
            .unwrap()
            .extend(change.as_object().unwrap().clone());
        issuer.mint(spec)
    };
    let bad = [
        ("expired", with(json!({"exp_in": -120})), "expired"),
        (
            "not yet valid",
            with(json!({"nbf_in": 600})),
            "not valid yet",
        ),
        (
            "another audience",
            with(json!({"aud": "https://other.example/mcp"})),
            "another resource",
        ),
        (
            "another issuer",
            with(json!({"iss": "https://evil.example"})),
            "another issuer",
        ),
        ("unsigned", with(json!({"alg": "none"})), "not a signed JWT"),
        (
            "tampered",
            with(json!({"tamper": true})),
            "signature does not verify",
        ),
        (
            "unknown key",
            with(json!({"kid": "made-up"})),
            "does not publish",
        ),
        (
            "oversized",
            with(json!({"pad": 12000})),
            "larger than this server accepts",
        ),
        ("not a JWT", "hello".to_owned(), "not a signed JWT"),
        ("a forged shape", "a.b.c".to_owned(), "not a signed JWT"),
    ];
    for (what, token, why) in bad {
        let answer = post(
            &url,
            Some(&token),
            &call(6, "refund", json!({"order": "A-3"})),
        );
        assert_eq!(answer.status, 401, "{what}: {}", answer.message);
        let challenge = answer.challenge.unwrap_or_default();
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{what}: {challenge}"
        );
        assert!(
            challenge.contains(why),
            "{what}: expected {why:?} in {challenge}"
        );
        assert!(
            challenge.contains("resource_metadata="),
            "{what}: {challenge}"
        );
        assert!(
            !challenge.contains(&token),
            "{what}: the challenge repeats the token"
        );
        assert!(
            !answer.message.to_string().contains(&token),
            "{what}: the body repeats the token"
        );
    }
    // A token in another scheme, or malformed, is not a bearer token.
    for header in ["Basic dXNlcjpwYXNz", "Bearer", "Bearer a b"] {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .new_agent();
        let response = agent
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Authorization", header)
            .send(call(7, "whoami", json!({})).to_string())
            .unwrap();
        assert_eq!(response.status().as_u16(), 401, "{header}");
    }

    // The issuer rotates its key: tokens signed with the new one are accepted (the server
    // fetches the key set again for the kid it does not hold).
    issuer.post("/rotate", "", "application/json");
    let rotated = issuer.mint(json!({"sub": "after-rotation", "scope": "", "aud": url}));
    let answer = post(&url, Some(&rotated), &call(8, "whoami", json!({})));
    assert_eq!(
        (answer.status, text(&answer)),
        (200, "after-rotation holding []"),
        "{}",
        answer.message
    );
}

#[test]
fn without_the_scope_challenge_a_lacking_scope_is_the_denied_result_alone() {
    let issuer = Issuer::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = serve(&runtime, &issuer.url, false, false);
    let token = issuer.mint(json!({"sub": "reader", "scope": "reports:read", "aud": url}));
    let answer = post(
        &url,
        Some(&token),
        &call(1, "refund", json!({"order": "A-1"})),
    );
    assert_eq!(answer.status, 200);
    assert_eq!(answer.challenge, None);
    assert_eq!(answer.message["result"]["isError"], true);
    let error: Value = serde_json::from_str(text(&answer)).unwrap();
    assert_eq!(error["error"], "denied", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("payments:write"),
        "{error}"
    );
}

#[test]
fn each_client_lists_and_calls_only_the_tools_its_token_permits() {
    let issuer = Issuer::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = serve(&runtime, &issuer.url, true, true);
    let list = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "auth-test", "version": "1"},
        }},
    });
    let listed = |token: &str| -> Vec<String> {
        let answer = post(&url, Some(token), &list);
        assert_eq!(answer.status, 200, "{}", answer.message);
        answer.message["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let reader = issuer.mint(json!({"sub": "reader", "scope": "reports:read", "aud": url}));
    let writer = issuer.mint(json!({"sub": "writer", "scope": "payments:write", "aud": url}));
    assert_eq!(listed(&reader), ["whoami"]);
    assert_eq!(listed(&writer), ["whoami", "refund"]);
    // A list that depends on the caller may be cached by that caller's client only.
    let answer = post(&url, Some(&reader), &list);
    assert_eq!(
        answer.message["result"]["cacheScope"], "private",
        "{}",
        answer.message
    );
    assert_eq!(
        answer.message["result"]["ttlMs"], 3_600_000,
        "{}",
        answer.message
    );
    // To the reader, refund does not exist: the unknown-tool error, not a scope challenge.
    let answer = post(
        &url,
        Some(&reader),
        &call(2, "refund", json!({"order": "A-1"})),
    );
    assert_eq!(answer.status, 200, "{}", answer.message);
    assert_eq!(answer.challenge, None);
    assert_eq!(
        answer.message["error"]["code"], -32602,
        "{}",
        answer.message
    );
    let answer = post(
        &url,
        Some(&writer),
        &call(3, "refund", json!({"order": "A-1"})),
    );
    assert_eq!(text(&answer), "refunded A-1", "{}", answer.message);
}

/// `McpSource::bearer_token` against the OAuth-protected server: the token's subject is
/// the caller the server sees, its scopes open the scoped tool; without a token the
/// connection is refused with the server's challenge, and the token appears in no error.
#[cfg(feature = "mcp-client")]
#[test]
fn an_imported_servers_bearer_token_makes_its_caller() {
    use toolwright::mcp_client::McpSource;
    let issuer = Issuer::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = serve(&runtime, &issuer.url, true, false);
    let token = issuer.mint(json!({"sub": "importer", "scope": "payments:write", "aud": url}));
    let source = runtime
        .block_on(
            McpSource::http("payments", &url)
                .bearer_token(token.clone())
                .trust_annotations()
                .connect(),
        )
        .unwrap();
    assert!(!format!("{source:?}").contains(&token), "{source:?}");
    let registry = Registry::builder()
        .with_toolset(source)
        .defaults(toolwright::ToolSettings::new().policy(toolwright::policy::AllowAll))
        .build()
        .unwrap();
    let ctx = Context::new();
    let whoami = runtime
        .block_on(registry.dispatch(&ctx, toolwright::ToolCall::new("w", "whoami", json!({}))));
    assert_eq!(
        whoami.outcome.unwrap().to_text(),
        "importer holding [payments:write]"
    );
    let refund = runtime.block_on(registry.dispatch(
        &ctx,
        toolwright::ToolCall::new("r", "refund", json!({"order": "A-1"})),
    ));
    assert_eq!(refund.outcome.unwrap().to_text(), "refunded A-1");

    let refused = runtime
        .block_on(McpSource::http("payments", &url).connect())
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("the server asks for authorization")
            && refused.contains("give the source a bearer_token, client_credentials or sign_in"),
        "{refused}"
    );
    let wrong = runtime
        .block_on(
            McpSource::http("payments", &url)
                .bearer_token("not-a-jwt-secret-value")
                .connect(),
        )
        .unwrap_err()
        .to_string();
    assert!(!wrong.contains("not-a-jwt-secret-value"), "{wrong}");
}

/// The address a sign-in's authorization page sends the person back to: the issuer
/// signs them in at once and redirects, so the redirect's `Location` is that address.
#[cfg(feature = "mcp-client")]
fn sent_back_from(page: &str) -> Result<String, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .build()
        .into();
    let response = agent.get(page).call().map_err(|e| e.to_string())?;
    response
        .headers()
        .get("location")
        .and_then(|location| location.to_str().ok())
        .map(str::to_owned)
        .ok_or_else(|| {
            format!(
                "no redirect from the authorization page: {}",
                response.status()
            )
        })
}

/// `McpSource::sign_in` against the OAuth-protected server and a real issuer: the
/// server's 401 starts the sign-in (its metadata, a dynamic registration, PKCE S256, the
/// resource named), the person's token makes the caller, and the person is asked once
/// for many calls. A person who does not sign in gets an error that says so; the
/// client's secret is not shown by `Debug`.
#[cfg(feature = "mcp-client")]
#[test]
fn a_person_signs_in_to_an_imported_server() {
    use std::sync::{Arc, Mutex};
    use toolwright::mcp_client::{McpSource, SignIn};
    let issuer = Issuer::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = serve(&runtime, &issuer.url, true, false);
    let pages = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = pages.clone();
    let sign_in = SignIn::new("http://127.0.0.1:1/callback", move |page: String| {
        seen.lock().unwrap().push(page.clone());
        async move {
            tokio::task::spawn_blocking(move || sent_back_from(&page))
                .await
                .unwrap()
        }
    })
    .scopes(["payments:write"]);
    let source = runtime
        .block_on(
            McpSource::http("payments", &url)
                .sign_in(sign_in)
                .trust_annotations()
                .connect(),
        )
        .unwrap();
    let registry = Registry::builder()
        .with_toolset(source)
        .defaults(toolwright::ToolSettings::new().policy(toolwright::policy::AllowAll))
        .build()
        .unwrap();
    let ctx = Context::new();
    for id in ["w1", "w2", "w3"] {
        let whoami = runtime
            .block_on(registry.dispatch(&ctx, toolwright::ToolCall::new(id, "whoami", json!({}))));
        assert_eq!(
            whoami.outcome.unwrap().to_text(),
            "person holding [payments:write]"
        );
    }
    let pages = pages.lock().unwrap().clone();
    assert_eq!(pages.len(), 1, "signed in once for every call: {pages:?}");
    let page = &pages[0];
    assert!(
        page.starts_with(&format!("{}/authorize?", issuer.url)),
        "{page}"
    );
    assert!(page.contains("code_challenge_method=S256"), "{page}");
    let resource = format!("resource={}", url.replace(':', "%3A").replace('/', "%2F"));
    assert!(page.contains(&resource), "{page}");

    let declined = SignIn::new("http://127.0.0.1:1/callback", |_page: String| async {
        Err("the person closed the page".to_owned())
    })
    .registered_client("a-registered-client", Some("a-client-secret-value"));
    assert!(!format!("{declined:?}").contains("a-client-secret-value"));
    let refused = runtime
        .block_on(
            McpSource::http("payments", &url)
                .sign_in(declined)
                .connect(),
        )
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("no access token for the server: the person closed the page"),
        "{refused}"
    );
    assert!(!refused.contains("a-client-secret-value"), "{refused}");
}
