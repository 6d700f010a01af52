//! RFC 3986 by hand: the `uri` format (`absolute-URI` with an optional fragment) and the
//! IP addresses of its hosts, which are the `ipv4` and `ipv6` formats too (the same
//! grammar a pattern would express, at a fraction of a regex engine's cost).

/// RFC 3986 `absolute-URI` with an optional fragment: scheme, then `//authority` and a
/// path, or a path alone; every character from its class or percent-encoded. The host of
/// an IP literal (`[...]`) must be IPv6 or IPvFuture.
pub(super) fn is_uri(text: &str) -> bool {
    matches_grammar(text) && parses_as_url(text)
}

/// [`is_uri`] without the url crate's own check.
fn matches_grammar(text: &str) -> bool {
    let (rest, fragment) = text.split_once('#').unwrap_or((text, ""));
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let Some((scheme, hierarchy)) = rest.split_once(':') else {
        return false;
    };
    let mut scheme_bytes = scheme.bytes();
    let scheme_ok = scheme_bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && scheme_bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    let hierarchy_ok = match hierarchy.strip_prefix("//") {
        Some(authority_and_path) => {
            let (authority, path) = match authority_and_path.find('/') {
                Some(at) => authority_and_path.split_at(at),
                None => (authority_and_path, ""),
            };
            is_authority(authority) && path.split('/').all(|segment| uri_chars(segment, b":@"))
        }
        None => {
            let path = hierarchy.strip_prefix('/').unwrap_or(hierarchy);
            path.is_empty()
                || (!path.starts_with('/')
                    && path.split('/').all(|segment| uri_chars(segment, b":@")))
        }
    };
    scheme_ok && hierarchy_ok && uri_chars(query, b":@/?") && uri_chars(fragment, b":@/?")
}

/// `[userinfo@]host[:port]`, the host a name or a bracketed IP literal.
fn is_authority(authority: &str) -> bool {
    let (userinfo, host_port) = authority.split_once('@').unwrap_or(("", authority));
    if !uri_chars(userinfo, b":") {
        return false;
    }
    let (host_ok, port) = match host_port.strip_prefix('[') {
        Some(literal) => match literal.split_once(']') {
            Some((ip, port)) => (is_ipv6(ip) || is_ip_future(ip), port),
            None => return false,
        },
        None => {
            let (host, port) = match host_port.find(':') {
                Some(at) => host_port.split_at(at),
                None => (host_port, ""),
            };
            (uri_chars(host, b""), port)
        }
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()));
    host_ok && port_ok
}

/// `v1.fe80::a+en1`: RFC 3986's IPvFuture.
fn is_ip_future(ip: &str) -> bool {
    let Some((version, address)) = ip
        .strip_prefix(['v', 'V'])
        .and_then(|rest| rest.split_once('.'))
    else {
        return false;
    };
    !version.is_empty()
        && version.bytes().all(|b| b.is_ascii_hexdigit())
        && !address.is_empty()
        && address
            .bytes()
            .all(|b| is_unreserved_or_sub_delim(b) || b == b':')
}

/// Whether every character of `part` is unreserved, a sub-delimiter, one of `extra`, or
/// part of a percent-encoding (`%` and two hexadecimal digits).
fn uri_chars(part: &str, extra: &[u8]) -> bool {
    let bytes = part.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b == b'%' {
            let hex = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_hexdigit);
            if !(hex(at + 1) && hex(at + 2)) {
                return false;
            }
            at += 3;
        } else if is_unreserved_or_sub_delim(b) || extra.contains(&b) {
            at += 1;
        } else {
            return false;
        }
    }
    true
}

fn is_unreserved_or_sub_delim(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
        )
}

/// With the `url` feature, a `uri` must also be one the url crate (WHATWG URL) parses:
/// `url::Url` arguments are read by it, and the schema never admits what it refuses.
#[cfg(feature = "url2")]
fn parses_as_url(text: &str) -> bool {
    url::Url::parse(text).is_ok()
}

#[cfg(not(feature = "url2"))]
fn parses_as_url(_: &str) -> bool {
    true
}

pub(super) fn is_ipv4(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|part| {
            !part.is_empty()
                && part.len() <= 3
                && part.bytes().all(|b| b.is_ascii_digit())
                && (part.len() == 1 || !part.starts_with('0'))
                && part.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

pub(super) fn is_ipv6(text: &str) -> bool {
    // The standard library's parser follows RFC 4291 (one `::`, 1-4 hex digits per
    // group, a trailing dotted IPv4); the IPv4 part must also pass the strict check
    // above (no leading zeros).
    if !text.is_ascii() || text.parse::<std::net::Ipv6Addr>().is_err() {
        return false;
    }
    match text.rsplit_once(':') {
        Some((_, last)) if last.contains('.') => is_ipv4(last),
        _ => true,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{is_authority, is_ipv6, is_uri, matches_grammar};

    /// Strings over `alphabet`, some starting with one of `prefixes`, from a fixed seed.
    pub(crate) fn strings(alphabet: &[u8], prefixes: &[&str], count: usize) -> Vec<String> {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        (0..count)
            .map(|_| {
                let mut text = String::from(prefixes[next(prefixes.len())]);
                for _ in 0..next(12) {
                    text.push(char::from(alphabet[next(alphabet.len())]));
                }
                text
            })
            .collect()
    }

    /// The hand-written grammar says what the RFC 3986 pattern it replaced said, on
    /// 50,000 strings made of the characters that matter.
    #[test]
    fn the_grammar_agrees_with_the_pattern_it_replaced() {
        let pattern = regex_lite::Regex::new(concat!(
            r"^[A-Za-z][A-Za-z0-9+\-.]*:",
            r"(?://(?:(?:[A-Za-z0-9\-._~!$&'()*+,;=:]|%[0-9A-Fa-f]{2})*@)?",
            r"(?:\[(?P<ip>[^\]/]*)\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?",
            r"(?:/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*)*",
            r"|/?(?:(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+(?:/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*)*)?)",
            r"(?:\?(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?",
            r"(?:#(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?$",
        ))
        .unwrap();
        let future =
            regex_lite::Regex::new(r"^[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$").unwrap();
        let old = |text: &str| {
            pattern.captures(text).is_some_and(|captures| {
                captures
                    .name("ip")
                    .is_none_or(|ip| is_ipv6(ip.as_str()) || future.is_match(ip.as_str()))
            })
        };
        let prefixes = [
            "",
            "a:",
            "http://",
            "h:/",
            "x://u@",
            "s://[",
            "s://[::1]",
            "s://[v1.a",
        ];
        let alphabet = b"aZ09:/?#[]@%.-_~!$'()*+,;=vVfF \"";
        let mut valid = 0;
        for text in strings(alphabet, &prefixes, 50_000) {
            assert_eq!(matches_grammar(&text), old(&text), "{text:?}");
            valid += usize::from(old(&text));
        }
        // The sample reaches both answers often enough to compare them.
        assert!(valid > 2_000, "{valid}");
    }

    #[test]
    fn uris_follow_rfc_3986() {
        for valid in [
            "https://example.com/orders/7?x=1#top",
            "http://user:pw@[2001:db8::1]:8080/a//b",
            "urn:isbn:0451450523",
            "mailto:ada@example.com",
            "file:///etc/hosts",
            "a:/b/c",
            "a:b//c",
            "ex:%41bc?q=%20/?#f?/",
        ] {
            assert!(is_uri(valid), "{valid}");
        }
        for invalid in [
            "//example.com/path",
            "example.com",
            "1http://x",
            "http://[::1]x/",
            "http://[::1/",
            "http://[zz]/",
            "http://a@b@c/",
            "http://host:80a/",
            "http://ex ample.com/",
            "http://example.com/%zz",
            "a://b/c#d#e",
            "a://b:1:2/",
        ] {
            assert!(!is_uri(invalid), "{invalid}");
        }
        // IPvFuture hosts are RFC 3986's (the url crate, with the `url` feature, refuses
        // them as a whole URI).
        assert!(is_authority("[v1.fe80::a+en1]:80"));
        assert!(!is_authority("[v1.]") && !is_authority("[vz.a]"));
    }
}
