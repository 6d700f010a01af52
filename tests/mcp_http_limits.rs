//! The example MCP server's Streamable HTTP transport under attack and load, on loopback,
//! each part bounded in count and time. The figures (latencies, memory) are printed for
//! the record, never asserted: these machines are shared. What is asserted is that every
//! legitimate call is answered, that attackers' connections are closed, and that a
//! shutdown loses nothing.
//!
//! - Idle connections at twice the server's file-descriptor limit (`ulimit -n 1024`),
//!   reopened as fast as the server closes them, while a client keeps calling.
//! - Bodies over the 16 MiB limit, many at once; clients trickling a head or a body a
//!   byte at a time.
//! - 1,000 concurrent calls of an async tool, with the server's memory per call in flight.
//! - SIGTERM in the middle of load: every call either completes (and its effect is in the
//!   ledger) or is answered with the shutdown error.
//! - A client that reads its answers a byte at a time is cut off by the write timeout.
//! - Only the hosts the server answers to are answered (DNS-rebinding protection).

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{server_binary, stateless, stateless_with_meta};

/// The example server, started through `sh` so `ulimit -n` can bound its descriptors.
struct Server {
    child: Child,
    url: String,
    addr: SocketAddr,
    log: Mutex<Receiver<String>>,
    ledger: PathBuf,
    _dir: TempDir,
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Server {
    fn start(fd_limit: Option<u32>, args: &[&str]) -> Server {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolwright-http-limits-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let ledger = dir.join("payouts.log");
        let limit = fd_limit.map_or(String::new(), |n| format!("ulimit -n {n} && "));
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("{limit}exec \"$0\" \"$@\""))
            .arg(server_binary())
            .args(["--http", "127.0.0.1:0", "--ledger"])
            .arg(&ledger)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let (send, log) = channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if !line.starts_with("send_payout:") && send.send(line).is_err() {
                    return;
                }
            }
        });
        let line = loop {
            let line = log
                .recv_timeout(Duration::from_secs(120))
                .expect("the server says where it listens");
            if line.contains("Streamable HTTP on ") {
                break line;
            }
        };
        let url = line
            .split("Streamable HTTP on ")
            .nth(1)
            .unwrap()
            .trim()
            .to_owned();
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .parse()
            .unwrap();
        Server {
            child,
            url,
            addr,
            log: Mutex::new(log),
            ledger,
            _dir: TempDir(dir),
        }
    }

    /// The server's resident memory now and at its peak, in KiB.
    fn memory(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        (
            status_field(&status, "VmRSS:"),
            status_field(&status, "VmHWM:"),
        )
    }

    fn ledger_lines(&self) -> usize {
        std::fs::read_to_string(&self.ledger)
            .map(|text| text.lines().count())
            .unwrap_or(0)
    }
}

/// A field of `/proc/PID/status`, in KiB (0 when absent).
fn status_field(status: &str, name: &str) -> u64 {
    status
        .lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn rss_of(status: &str) -> u64 {
    status_field(status, "VmRSS:")
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A 2026-07-28 `tools/call`.
fn call_body(id: u64, tool: &str, arguments: Value, key: Option<&str>) -> String {
    let meta = match key {
        Some(key) => json!({"dev.toolwright/idempotency-key": key}),
        None => json!({}),
    };
    stateless_with_meta(
        id,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
        meta,
    )
}

fn convert(id: u64) -> String {
    call_body(
        id,
        "convert_temperature",
        json!({"value": 100, "from": "celsius", "to": "fahrenheit"}),
        None,
    )
}

/// POSTs `body` on a new connection: the status and the JSON-RPC message, or why none.
fn post(url: &str, body: &str, tool: &str) -> Result<(u16, Value), String> {
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .max_idle_connections(0)
        .build()
        .new_agent();
    let mut response = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", tool)
        .send(body)
        .map_err(|error| error.to_string())?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .read_to_string()
        .map_err(|error| error.to_string())?;
    Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

/// A legitimate call that must succeed: its latency.
fn legitimate_call(url: &str, id: u64) -> Duration {
    let started = Instant::now();
    let (status, message) = post(url, &convert(id), "convert_temperature")
        .unwrap_or_else(|error| panic!("legitimate call {id} got no answer: {error}"));
    assert_eq!(status, 200, "legitimate call {id}: {message}");
    assert_eq!(
        message["result"]["content"][0]["text"], "212.0",
        "{message}"
    );
    started.elapsed()
}

fn percentile(latencies: &mut [Duration], p: f64) -> Duration {
    latencies.sort();
    let at = ((latencies.len() as f64 - 1.0) * p).round() as usize;
    latencies[at]
}

/// An attacker's connection: a request line and a few headers, then nothing.
fn idle_connection(addr: SocketAddr) -> Option<TcpStream> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1)).ok()?;
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n")
        .ok()?;
    stream.set_nonblocking(true).ok()?;
    Some(stream)
}

/// Whether the server closed `stream` (it reads end of file, or a reset).
fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut buffer = [0; 512];
    match stream.read(&mut buffer) {
        Ok(0) => true,
        Ok(_) => true, // a 503 or timeout answer: it is closing
        Err(error) if error.kind() == ErrorKind::WouldBlock => false,
        Err(_) => true,
    }
}

#[test]
fn idle_connections_at_twice_the_descriptor_limit_do_not_lock_out_a_client() {
    // The server's descriptor limit: 1,024, or less if this process cannot hold twice
    // that many connections (with room for the client's own).
    let own_limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| {
            let line = limits
                .lines()
                .find(|line| line.starts_with("Max open files"))?;
            line.split_whitespace().nth(3)?.parse::<usize>().ok()
        })
        .unwrap_or(1024);
    let server_limit = 1024.min(own_limit.saturating_sub(256) / 2).max(64);
    let server = Server::start(Some(server_limit as u32), &["--header-timeout-ms", "5000"]);
    // Twice the server's descriptor limit, reopened as the server closes them.
    let attackers = 2 * server_limit;
    let stop = Arc::new(AtomicBool::new(false));
    let closed = Arc::new(AtomicUsize::new(0));
    let opened = Arc::new(AtomicUsize::new(0));
    let attack = {
        let (stop, closed, opened, addr) =
            (stop.clone(), closed.clone(), opened.clone(), server.addr);
        std::thread::spawn(move || {
            let mut held: Vec<Option<TcpStream>> = (0..attackers).map(|_| None).collect();
            while !stop.load(Ordering::Relaxed) {
                for slot in held.iter_mut() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let closed_now = slot.as_mut().is_some_and(closed_by_server);
                    if closed_now {
                        closed.fetch_add(1, Ordering::Relaxed);
                        *slot = None;
                    } else if slot.is_none() {
                        *slot = idle_connection(addr);
                        if slot.is_some() {
                            opened.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    // How many connections the server holds: its open descriptors, sampled.
    let sampling = Arc::new(AtomicBool::new(true));
    let held_most = {
        let (sampling, fds) = (sampling.clone(), format!("/proc/{}/fd", server.child.id()));
        std::thread::spawn(move || {
            let mut most = 0;
            while sampling.load(Ordering::Relaxed) {
                most = most.max(std::fs::read_dir(&fds).map_or(0, Iterator::count));
                std::thread::sleep(Duration::from_millis(20));
            }
            most
        })
    };
    // Let the attack fill the server before the client starts.
    let filled = Instant::now();
    while opened.load(Ordering::Relaxed) < attackers && filled.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut latencies: Vec<Duration> = (0..60)
        .map(|id| {
            let latency = legitimate_call(&server.url, id);
            std::thread::sleep(Duration::from_millis(50));
            latency
        })
        .collect();
    stop.store(true, Ordering::Relaxed);
    attack.join().unwrap();
    sampling.store(false, Ordering::Relaxed);
    let held_most = held_most.join().unwrap();
    let (rss, peak) = server.memory();
    let (p50, p99) = (
        percentile(&mut latencies, 0.5),
        percentile(&mut latencies, 0.99),
    );
    let (opened, closed) = (
        opened.load(Ordering::Relaxed),
        closed.load(Ordering::Relaxed),
    );
    eprintln!(
        "idle attack: {opened} attacker connections opened, {closed} closed by the server, \
         which held at most {held_most} descriptors (limit {server_limit}); 60 legitimate calls all \
         answered, p50 {p50:?}, p99 {p99:?}; server memory {rss} KiB (peak {peak} KiB)"
    );
    assert!(
        closed > 0,
        "the server closed none of the attacker's idle connections"
    );
    // Without the attack, for comparison.
    let mut quiet: Vec<Duration> = (0..60)
        .map(|id| legitimate_call(&server.url, 100 + id))
        .collect();
    eprintln!(
        "no attack: p50 {:?}, p99 {:?}",
        percentile(&mut quiet, 0.5),
        percentile(&mut quiet, 0.99)
    );
}

#[test]
fn large_bodies_and_trickling_clients_are_cut_off_while_calls_go_on() {
    let server = Server::start(
        None,
        &["--header-timeout-ms", "1500", "--body-timeout-ms", "1500"],
    );
    // Bodies over the 16 MiB message limit, eight at once.
    let floods: Vec<_> = (0..8)
        .map(|_| {
            let url = server.url.clone();
            std::thread::spawn(move || {
                let body = format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"x\",\"arguments\":{{\"a\":\"{}\"}}}}}}", "a".repeat(17 << 20));
                post(&url, &body, "x")
            })
        })
        .collect();
    // Clients trickling a head, or a body, a byte every 300 ms.
    let trickle = |head: &'static [u8], then: &'static [u8]| {
        let addr = server.addr;
        std::thread::spawn(move || -> Result<(Duration, String), String> {
            let started = Instant::now();
            let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
            stream.write_all(head).map_err(|e| e.to_string())?;
            stream
                .set_read_timeout(Some(Duration::from_millis(300)))
                .unwrap();
            let mut answer = Vec::new();
            for &byte in then.iter().cycle().take(200) {
                if stream.write_all(&[byte]).is_err() {
                    break;
                }
                let mut buffer = [0; 1024];
                match stream.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => answer.extend_from_slice(&buffer[..n]),
                    Err(error)
                        if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                    Err(_) => break,
                }
            }
            Ok((
                started.elapsed(),
                String::from_utf8_lossy(&answer).into_owned(),
            ))
        })
    };
    let heads: Vec<_> = (0..100)
        .map(|_| trickle(b"POST /mcp HTTP/1.1\r\n", b"X-Slow: aaaaaaaa\r\n"))
        .collect();
    let bodies: Vec<_> = (0..100)
        .map(|_| {
            trickle(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n",
                b" ",
            )
        })
        .collect();
    let mut latencies: Vec<Duration> = (0..40)
        .map(|id| {
            let latency = legitimate_call(&server.url, id);
            std::thread::sleep(Duration::from_millis(50));
            latency
        })
        .collect();
    for flood in floods {
        match flood.join().unwrap() {
            Ok((status, message)) => {
                assert_eq!(status, 413, "{message}");
                assert!(
                    message["error"]["message"]
                        .as_str()
                        .unwrap()
                        .contains("larger than"),
                    "{message}"
                );
            }
            // The server may close the connection while the rest of the body is still
            // being sent: refused either way.
            Err(error) => eprintln!("a large body was cut off: {error}"),
        }
    }
    // Each trickler is cut off: by the deadline, not after its 200 bytes (60 s).
    let mut slowest = Duration::ZERO;
    for head in heads {
        let (took, _) = head.join().unwrap().expect("the trickler connects");
        assert!(
            took < Duration::from_secs(50),
            "a trickled head held its connection for {took:?}"
        );
        slowest = slowest.max(took);
    }
    for body in bodies {
        let (took, answer) = body.join().unwrap().expect("the trickler connects");
        assert!(
            took < Duration::from_secs(50),
            "a trickled body held its connection for {took:?}"
        );
        assert!(
            answer.starts_with("HTTP/1.1 408"),
            "a trickled body got {answer:?}"
        );
        slowest = slowest.max(took);
    }
    eprintln!(
        "large bodies and tricklers: 40 legitimate calls answered, p50 {:?}, p99 {:?}; the slowest trickler was cut off after {slowest:?}",
        percentile(&mut latencies, 0.5),
        percentile(&mut latencies, 0.99)
    );
}

/// A raw HTTP/1.1 request for the MCP endpoint with `host` as its `Host`, as
/// `stateless` 2026-07-28 `method` with `params`.
fn raw_request(host: &str, id: u64, method: &str, params: Value) -> Vec<u8> {
    let body = stateless(id, method, params);
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The status of a `tools/list` sent with `Host: host` on a connection of its own.
fn status_for_host(addr: SocketAddr, host: &str) -> u16 {
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream
        .write_all(&raw_request(host, 1, "tools/list", json!({})))
        .unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).expect("an answer");
    String::from_utf8_lossy(&head[9..12]).parse().unwrap()
}

/// The length of one whole answer to `raw_request`'s `tools/list`, head and body.
fn answer_len(addr: SocketAddr) -> usize {
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream
        .write_all(&raw_request("127.0.0.1", 1, "tools/list", json!({})))
        .unwrap();
    let mut reader = BufReader::new(stream);
    let (mut head, mut body) = (0, 0);
    loop {
        let mut line = String::new();
        head += reader.read_line(&mut line).expect("a head");
        if let Some(length) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            body = length.trim().parse().unwrap();
        }
        if line == "\r\n" {
            return head + body;
        }
    }
}

#[test]
fn only_the_hosts_the_server_answers_to_are_answered() {
    // A public name given with --allowed-host, and one derived from --resource.
    let server = Server::start(
        None,
        &[
            "--allowed-host",
            "tools.example.com",
            "--allowed-host",
            "internal.example:9000",
            "--resource",
            "https://public.example.org/mcp",
        ],
    );
    for (host, status) in [
        ("127.0.0.1", 200),
        ("localhost:8765", 200),
        ("tools.example.com", 200),
        ("tools.example.com:443", 200),
        ("internal.example:9000", 200),
        ("public.example.org", 200),
        ("internal.example:9001", 403),
        ("evil.example", 403),
        ("tools.example.com.evil.example", 403),
    ] {
        assert_eq!(status_for_host(server.addr, host), status, "Host: {host}");
    }
    // By default only loopback names: a rebinding page's name is refused.
    let plain = Server::start(None, &[]);
    assert_eq!(status_for_host(plain.addr, "127.0.0.1:1"), 200);
    assert_eq!(status_for_host(plain.addr, "tools.example.com"), 403);
}

#[test]
fn a_client_that_reads_a_byte_at_a_time_is_cut_off() {
    let server = Server::start(None, &["--write-timeout-ms", "1500"]);
    // The answers to a few thousand pipelined requests are more than the sockets' buffers
    // hold, so the server's writes wait on the client, which reads a byte every 100 ms.
    let request = raw_request("127.0.0.1", 1, "tools/list", json!({}));
    let requests = 2_000;
    let mut stream = TcpStream::connect(server.addr).expect("the server accepts");
    let writer = {
        let mut stream = stream.try_clone().unwrap();
        std::thread::spawn(move || {
            for _ in 0..requests {
                if stream.write_all(&request).is_err() {
                    break;
                }
            }
        })
    };
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let started = Instant::now();
    let mut read = 0usize;
    let mut byte = [0u8; 1];
    while started.elapsed() < Duration::from_secs(5) {
        match stream.read(&mut byte) {
            Ok(1) => read += 1,
            _ => break,
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // Now the rest, as fast as it comes: it ends (closed by the server) long before the
    // thousands of answers are through.
    let mut buffer = vec![0u8; 1 << 16];
    let closed = loop {
        match stream.read(&mut buffer) {
            Ok(0) => break true,
            Ok(n) => read += n,
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                break false;
            }
            Err(_) => break true,
        }
    };
    let _ = stream.shutdown(std::net::Shutdown::Both);
    writer.join().unwrap();
    let answers = read / answer_len(server.addr);
    assert!(closed, "the slow reader's connection was not closed");
    assert!(
        answers < requests,
        "all {requests} answers arrived ({read} bytes): nothing was cut"
    );
    eprintln!(
        "a slow reader: cut off after {read} bytes (about {answers} of {requests} answers), {:?} after it stopped reading fast",
        started.elapsed()
    );
    // The server goes on serving others.
    legitimate_call(&server.url, 1);
}

/// `count` payouts at once (each 300 ms inside the tool), each on its own connection:
/// what each got.
fn payouts(
    server: &Server,
    count: usize,
    first_id: u64,
) -> Vec<std::thread::JoinHandle<Result<(u16, Value), String>>> {
    (0..count)
        .map(|n| {
            let url = server.url.clone();
            let id = first_id + n as u64;
            std::thread::spawn(move || {
                let body = call_body(
                    id,
                    "send_payout",
                    json!({"recipient": format!("acct-{id}"), "amount": 5}),
                    Some(&format!("payout-{id}")),
                );
                post(&url, &body, "send_payout")
            })
        })
        .collect()
}

#[test]
fn a_thousand_concurrent_calls_are_all_answered() {
    let server = Server::start(None, &[]);
    let (before, _) = server.memory();
    // Sample the memory while the calls are in flight.
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (sampling, status) = (
            sampling.clone(),
            format!("/proc/{}/status", server.child.id()),
        );
        std::thread::spawn(move || {
            let mut most = 0;
            while sampling.load(Ordering::Relaxed) {
                most = most.max(rss_of(
                    &std::fs::read_to_string(&status).unwrap_or_default(),
                ));
                std::thread::sleep(Duration::from_millis(5));
            }
            most
        })
    };
    let started = Instant::now();
    let calls = payouts(&server, 1000, 1);
    let mut paid = 0;
    for call in calls {
        let (status, message) = call.join().unwrap().expect("every call is answered");
        assert_eq!(status, 200, "{message}");
        assert_eq!(message["result"]["isError"], false, "{message}");
        paid += 1;
    }
    let took = started.elapsed();
    sampling.store(false, Ordering::Relaxed);
    let during = sampler.join().unwrap();
    let (_, peak) = server.memory();
    assert_eq!(server.ledger_lines(), paid, "each payout ran exactly once");
    eprintln!(
        "1,000 concurrent calls: all answered in {took:?}; server memory {before} KiB before, \
         at most {during} KiB sampled in flight, peak {peak} KiB: about {} KiB per call in flight",
        during.max(peak).saturating_sub(before) / 1000
    );
}

#[test]
fn a_shutdown_in_the_middle_of_load_loses_no_call() {
    let server = Server::start(None, &["--shutdown-grace-ms", "150"]);
    // A first wave that can finish within the grace period, a second that cannot (each
    // payout takes 300 ms: the first wave ends about 100 ms before the grace period does,
    // the second about 100 ms after, cut short while its tools run).
    let first = payouts(&server, 100, 1);
    std::thread::sleep(Duration::from_millis(200));
    let second = payouts(&server, 100, 1001);
    std::thread::sleep(Duration::from_millis(50));
    let pid = server.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let (mut completed, mut stopped, mut refused) = (0, 0, 0);
    for call in first.into_iter().chain(second) {
        match call.join().unwrap() {
            Ok((200, message)) if message["result"]["isError"] == false => completed += 1,
            Ok((503, message)) => {
                let text = message["error"]["message"].as_str().unwrap_or_default();
                assert!(text.contains("shutting down"), "{message}");
                assert!(
                    message["id"].is_number(),
                    "the shutdown error names its request: {message}"
                );
                stopped += 1;
            }
            // No answer: the connection was refused or reset when the listener closed,
            // before the server read the request. Such a call never ran (the ledger
            // check below proves no unanswered call paid).
            Err(error) => {
                eprintln!("a call was not served: {error}");
                refused += 1;
            }
            Ok(other) => panic!("a call got neither its result nor the shutdown error: {other:?}"),
        }
    }
    let exited = Instant::now();
    let mut child = server;
    loop {
        if let Some(status) = child.child.try_wait().unwrap() {
            assert!(
                status.success(),
                "the server exits cleanly after a shutdown: {status}"
            );
            break;
        }
        assert!(
            exited.elapsed() < Duration::from_secs(30),
            "the server did not stop after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
        .log
        .lock()
        .unwrap()
        .recv_timeout(Duration::from_secs(5))
        .ok();
    // Every completed payout is in the ledger. A call answered with the shutdown error
    // says its effect may have happened (cut between the tool's effect and its answer);
    // how many did is reported.
    let paid = child.ledger_lines();
    assert!(
        (completed..=completed + stopped).contains(&paid),
        "{paid} payouts in the ledger, {completed} completed, {stopped} stopped"
    );
    assert!(
        completed > 0,
        "the first wave completes within the grace period"
    );
    eprintln!(
        "shutdown under load: {completed} calls completed, {stopped} answered with the shutdown error ({} of them had paid), {refused} refused or reset before the server read them",
        paid - completed
    );
}
