//! How alike two names are, for "did you mean ...?" (Jaro-Winkler, as `strsim` computes
//! it). Names are short and ASCII almost always: those are compared on the stack, the
//! rest through `strsim`.

/// The Jaro-Winkler similarity of `a` and `b`, from 0 (nothing alike) to 1 (equal).
pub(crate) fn jaro_winkler(a: &str, b: &str) -> f64 {
    const MAX: usize = 64;
    if !(a.is_ascii() && b.is_ascii() && a.len() <= MAX && b.len() <= MAX) {
        return strsim::jaro_winkler(a, b);
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let jaro = jaro(a, b, &mut [false; MAX], &mut [false; MAX]);
    if jaro <= 0.7 {
        return jaro;
    }
    let prefix = a.iter().zip(b).take(4).take_while(|(x, y)| x == y).count();
    jaro + 0.1 * prefix as f64 * (1.0 - jaro)
}

/// `candidates`, the closest to `name` first (case ignored; ties in name order).
pub(crate) fn closest_first<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Vec<&'a str> {
    let name = name.to_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .map(|candidate| (jaro_winkler(&name, &candidate.to_lowercase()), candidate))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().map(|(_, candidate)| candidate).collect()
}

fn jaro(a: &[u8], b: &[u8], a_matched: &mut [bool], b_matched: &mut [bool]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let range = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut matches = 0usize;
    for (i, x) in a.iter().enumerate() {
        let low = i.saturating_sub(range);
        let high = b.len().min(i + range + 1);
        for j in low..high {
            if !b_matched[j] && b[j] == *x {
                a_matched[i] = true;
                b_matched[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let mut transpositions = 0usize;
    let mut j = 0;
    for (i, x) in a.iter().enumerate() {
        if a_matched[i] {
            while !b_matched[j] {
                j += 1;
            }
            if b[j] != *x {
                transpositions += 1;
            }
            j += 1;
        }
    }
    let m = matches as f64;
    (m / a.len() as f64 + m / b.len() as f64 + (matches - transpositions / 2) as f64 / m) / 3.0
}

#[cfg(test)]
mod tests {
    use super::jaro_winkler;

    #[test]
    fn agrees_with_strsim() {
        let words = [
            "",
            "a",
            "ab",
            "ba",
            "amount",
            "ammount",
            "amoutn",
            "minute",
            "minutes",
            "hour",
            "read_file",
            "raed_file",
            "search_files",
            "serch_files",
            "convert_temperature",
            "convert_temp",
            "CRATE",
            "trace",
            "dixon",
            "dicksonx",
            "martha",
            "marhta",
            "jellyfish",
            "smellyfish",
            "ünïcode",
            "unicode",
        ];
        for a in words {
            for b in words {
                let (ours, theirs) = (jaro_winkler(a, b), strsim::jaro_winkler(a, b));
                assert!(
                    (ours - theirs).abs() < 1e-12,
                    "{a:?} {b:?}: {ours} vs {theirs}"
                );
            }
        }
    }
}
