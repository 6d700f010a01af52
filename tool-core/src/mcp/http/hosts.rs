//! DNS-rebinding protection: a request is answered only when its `Host` names the server.
//!
//! A web page can make a browser send requests to any address under a name its author
//! controls; a server that answers only the names it is reached by cannot be reached
//! that way. Loopback names are always answered (a local client, a health check); a
//! public deployment adds the host of its resource URL (derived from
//! [`ResourceServer`](crate::mcp::auth::ResourceServer)) and any others with
//! [`HttpServer::with_allowed_hosts`](super::HttpServer::with_allowed_hosts). The rule is
//! rmcp's (`allowed_hosts`): a name without a port allows every port, `host:port` that
//! port only. Checked once for every request, before any path; rmcp's own check is off.

use hyper::HeaderMap;
use hyper::Uri;
use hyper::header;
use hyper::http::uri::Authority;

/// The hosts a server answers to.
#[derive(Debug, Clone)]
pub(super) struct AllowedHosts(Vec<(String, Option<u16>)>);

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

impl AllowedHosts {
    /// Loopback, the host of `resource` (a URL) and every one of `more` (`host` or
    /// `host:port`).
    pub(super) fn new(resource: Option<&str>, more: &[String]) -> Self {
        let resource = resource
            .and_then(|url| url.parse::<Uri>().ok())
            .and_then(|uri| uri.authority().cloned());
        let mut hosts: Vec<(String, Option<u16>)> = LOOPBACK
            .iter()
            .map(|host| ((*host).to_owned(), None))
            .collect();
        hosts.extend(resource.as_ref().map(normalized));
        hosts.extend(
            more.iter()
                .filter_map(|host| host.trim().parse::<Authority>().ok())
                .map(|authority| normalized(&authority)),
        );
        hosts.sort();
        hosts.dedup();
        AllowedHosts(hosts)
    }

    /// Whether the request's `Host` (or, without one, its URI's authority) is allowed.
    pub(super) fn allow(&self, uri: &Uri, headers: &HeaderMap) -> bool {
        let named = match headers.get(header::HOST) {
            Some(host) => host
                .to_str()
                .ok()
                .and_then(|host| host.parse::<Authority>().ok()),
            None => uri.authority().cloned(),
        };
        let Some(named) = named else { return false };
        let (host, port) = (named.host().trim_matches(['[', ']']), named.port_u16());
        self.0.iter().any(|(allowed, allowed_port)| {
            allowed.eq_ignore_ascii_case(host) && allowed_port.is_none_or(|p| Some(p) == port)
        })
    }

    /// The names allowed, for a log line.
    pub(super) fn names(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|(host, port)| match port {
                Some(port) => format!("{host}:{port}"),
                None => host.clone(),
            })
            .collect()
    }
}

/// `[::1]:80` → (`::1`, 80); names compared without case.
fn normalized(authority: &Authority) -> (String, Option<u16>) {
    let host = authority
        .host()
        .trim_matches(['[', ']'])
        .to_ascii_lowercase();
    (host, authority.port_u16())
}

#[cfg(test)]
mod tests {
    use super::AllowedHosts;
    use hyper::{HeaderMap, Uri};

    fn allowed(hosts: &AllowedHosts, host: &str) -> bool {
        let mut headers = HeaderMap::new();
        headers.insert("host", host.parse().unwrap());
        hosts.allow(&Uri::from_static("/mcp"), &headers)
    }

    #[test]
    fn loopback_is_always_allowed_and_nothing_else_by_default() {
        let hosts = AllowedHosts::new(None, &[]);
        for host in ["127.0.0.1:8080", "localhost", "LOCALHOST:1", "[::1]:9"] {
            assert!(allowed(&hosts, host), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8080",
            "127.0.0.2",
            "0.0.0.0:8765",
        ] {
            assert!(!allowed(&hosts, host), "{host}");
        }
        assert!(
            !hosts.allow(&Uri::from_static("/mcp"), &HeaderMap::new()),
            "no Host at all"
        );
    }

    #[test]
    fn the_resource_host_and_the_added_ones_are_allowed() {
        let hosts = AllowedHosts::new(
            Some("https://Tools.Example.com/mcp"),
            &["internal.example:9000".into(), "10.0.0.5".into()],
        );
        for host in [
            "tools.example.com",
            "tools.example.com:443",
            "internal.example:9000",
            "10.0.0.5:8765",
        ] {
            assert!(allowed(&hosts, host), "{host}");
        }
        for host in [
            "internal.example",
            "internal.example:9001",
            "example.com",
            "evil.tools.example.com",
        ] {
            assert!(!allowed(&hosts, host), "{host}");
        }
        let with_port = AllowedHosts::new(Some("https://tools.example.com:8443/mcp"), &[]);
        assert!(allowed(&with_port, "tools.example.com:8443"));
        assert!(!allowed(&with_port, "tools.example.com"));
    }
}
