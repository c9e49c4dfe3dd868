use super::*;
use crate::scenario::load_str;
use std::fmt::Write;
use std::path::Path;

/// A trace whose measured inputs follow B = 20,000 and ρ = 3.5 exactly, with the model's
/// output joining as logged tokens.
fn exact(n: usize) -> String {
    let mut text = String::from("name = \"f\"\nbase_tokens = 1\nbytes_per_token = 1\n");
    let (mut bytes, mut out) = (0.0, 0.0);
    for i in 0..n {
        let b = 1000.0 + 700.0 * (i % 5) as f64;
        let o = 50.0 + i as f64;
        let m = 20_000.0 + bytes / 3.5 + out;
        let _ = write!(
            text,
            "[[call]]\nlabel = \"c{i}\"\nbytes = {b}\noutput_tokens = {o}\n[call.measured]\ninput_tokens = 0\ncache_creation_input_tokens = 0\ncache_read_input_tokens = {m}\nconvention = \"anthropic\"\n"
        );
        bytes += b;
        out += o;
    }
    text
}

fn load(text: &str) -> Scenario {
    load_str(text, Path::new("f.toml")).unwrap()
}

#[test]
fn an_exact_trace_gives_back_its_b_and_rho() {
    let f = fit(&load(&exact(12))).unwrap();
    assert!((f.base_tokens - 20_000.0).abs() < 1e-6, "{f:?}");
    assert!((f.bytes_per_token - 3.5).abs() < 1e-9, "{f:?}");
    assert!((f.r_squared - 1.0).abs() < 1e-12);
    assert_eq!((f.calls_used, f.calls_left_out), (12, 0));
    assert!(f.poor.is_none() && f.refused.is_none());
    assert!(f.caution.is_none());
    // The per-call term is fitted (12 calls) and comes out 0: nothing but bytes grew.
    assert_eq!(f.terms.len(), 1);
    assert_eq!(f.terms[0].key, "tokens_per_call");
    assert!(f.terms[0].tokens.abs() < 1e-6, "{:?}", f.terms);
    // Nine calls fit as exactly, but so few points earn a caution (not a refusal).
    let f = fit(&load(&exact(9))).unwrap();
    assert!(f.poor.is_none());
    assert!(f.caution.unwrap().starts_with("fitted on only 9 calls"));
}

#[test]
fn a_short_trace_is_named_short_and_missing_fields_are_named() {
    assert_eq!(
        fit(&load(&exact(2))).unwrap_err(),
        FitError::ShortTrace { calls: 2 }
    );
    assert_eq!(
        fit(&load(&exact(2))).unwrap_err().to_string(),
        "the trace is short: it has 2 calls and a fit needs at least 3 calls with measured usage (fit a longer session)"
    );
    // Twelve calls whose usage lacks cache creation: they carry usage, not a total.
    let text = exact(12).replace("cache_creation_input_tokens = 0\n", "");
    assert_eq!(
        fit(&load(&text)).unwrap_err().to_string(),
        "0 of 12 calls carry a measured total input (12 lack cache_creation_input_tokens); a fit needs at least 3 (import the session with `simulate import`, or add [call.measured] tables)"
    );
}

/// Calls of `bytes` and `output_bytes` (the model's message, joining in place of its
/// output tokens), loading `tools[i]` definitions and `images[i]` images, measured as
/// B = 15,000, ρ = 2.5, 180 tokens a call, 1,400 a definition and 1,100 an image.
fn with_terms(n: usize, tools: &[u64], images: &[u64]) -> String {
    let mut text = String::from(
        "name = \"t\"\nbase_tokens = 1\nbytes_per_token = 1\n[terms]\ntokens_per_loaded_tool = 999\n",
    );
    let mut context = 15_000.0;
    for i in 0..n {
        let b = 300.0 + 410.0 * ((i * 7) % 11) as f64;
        let own = 120.0 + 35.0 * (i % 4) as f64;
        let k = tools.get(i).copied().unwrap_or(0);
        let img = images.get(i).copied().unwrap_or(0);
        let _ = write!(
            text,
            "[[call]]\nlabel = \"c{i}\"\nbytes = {b}\noutput_tokens = 2\noutput_bytes = {own}\nloaded_tools = {k}\nimages = {img}\n[call.measured]\ninput_tokens = {context}\ncache_creation_input_tokens = 0\ncache_read_input_tokens = 0\nconvention = \"anthropic\"\n"
        );
        context += (b + own) / 2.5 + 180.0 + 1_400.0 * k as f64 + 1_100.0 * img as f64;
    }
    text
}

#[test]
fn named_terms_are_fitted_with_their_values() {
    let text = with_terms(
        20,
        &[0, 3, 0, 0, 1, 0, 0, 0, 2],
        &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2],
    );
    let f = fit(&load(&text)).unwrap();
    assert!((f.base_tokens - 15_000.0).abs() < 1e-6, "{f:?}");
    assert!((f.bytes_per_token - 2.5).abs() < 1e-9, "{f:?}");
    let value = |key: &str| f.terms.iter().find(|t| t.key == key).map(|t| t.tokens);
    assert!((value("tokens_per_call").unwrap() - 180.0).abs() < 1e-6);
    assert!((value("tokens_per_loaded_tool").unwrap() - 1_400.0).abs() < 1e-6);
    assert!((value("tokens_per_image").unwrap() - 1_100.0).abs() < 1e-6);
    assert_eq!(
        f.terms.iter().map(|t| t.units).collect::<Vec<_>>(),
        [20.0, 3.0, 6.0]
    );
    assert!(f.terms_not_fitted.is_empty());
}

#[test]
fn a_term_that_cannot_be_sized_keeps_the_scenario_value() {
    // The only definitions load after the last call: nothing measured grows with them.
    let mut tools = vec![0; 19];
    tools.push(4);
    let f = fit(&load(&with_terms(20, &tools, &[]))).unwrap();
    assert_eq!(f.terms_not_fitted.len(), 1);
    assert_eq!(f.terms_not_fitted[0].key, "tokens_per_loaded_tool");
    assert_eq!(f.terms_not_fitted[0].tokens_used, 999.0);
    assert_eq!(
        f.terms_not_fitted[0].reason,
        "its count does not change across the measured calls"
    );
}

#[test]
fn an_implausible_rho_is_refused_not_only_poor() {
    // Measured input that shrinks as bytes join: a negative slope.
    let mut text = String::from("name = \"f\"\nbase_tokens = 1\nbytes_per_token = 1\n");
    for i in 0..6 {
        let m = 50_000 - 1_000 * i;
        let _ = write!(
            text,
            "[[call]]\nlabel = \"c{i}\"\nbytes = 4000\n[call.measured]\ninput_tokens = {m}\ncache_creation_input_tokens = 0\ncache_read_input_tokens = 0\nconvention = \"anthropic\"\n"
        );
    }
    let f = fit(&load(&text)).unwrap();
    let why = f.refused.unwrap();
    assert!(
        why.starts_with("ρ = -4 bytes per token is outside the physical 1 to 8"),
        "{why}"
    );
}

#[test]
fn the_miss_share_counts_prefix_tokens_written_again() {
    // Four requests 100 s apart (TTL 300): totals 10,000, 12,000, 14,000, 16,000; reads
    // 0 (first), 10,000 (a hit), 3,000 (read < half of 12,000: a miss), 11,200 (80 %: a
    // partial hit). A perfect cache reads 10,000 + 12,000 + 14,000 = 36,000; missed
    // 0 + 9,000 + 2,800 = 11,800.
    let mut text = String::from(
        "name = \"c\"\nbase_tokens = 1\nbytes_per_token = 1\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n",
    );
    for (i, (total, read)) in [
        (10_000, 0),
        (12_000, 10_000),
        (14_000, 3_000),
        (16_000, 11_200),
    ]
    .into_iter()
    .enumerate()
    {
        let _ = write!(
            text,
            "[[call]]\nlabel = \"c{i}\"\nbytes = 100\ngap_s = 100\n[call.measured]\ninput_tokens = 0\ncache_creation_input_tokens = {}\ncache_read_input_tokens = {read}\nconvention = \"anthropic\"\n",
            total - read
        );
    }
    let c = cache::fit(&load(&text)).unwrap();
    assert_eq!(c.requests_compared, 3);
    assert_eq!(c.prefix_tokens, 36_000.0);
    assert_eq!(c.missed_tokens, 11_800.0);
    assert!((c.miss_share - 11_800.0 / 36_000.0).abs() < 1e-15);
    assert_eq!(
        (c.missed_requests, c.read_nothing, c.partial_requests),
        (1, 0, 1)
    );
    assert_eq!((c.warm_first_tokens, c.late_reads), (None, 0));
}

/// A trace in the shape of the shared Claude Code logs: a 5-minute preset, a first request
/// that reads 12,000 tokens other sessions keep warm, a read of the whole previous input
/// after a pause of 308 s, and a cold request after 4,166 s that reads only the warm part.
fn paused(ttl_s: u32) -> String {
    let mut text = format!(
        "name = \"p\"\nbase_tokens = 20000\nbytes_per_token = 1\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = {ttl_s}\nmin_tokens = 1024\n"
    );
    // (gap, total, read): totals grow by 1,000 a request.
    let requests = [
        (0.0, 20_000, 12_000),
        (10.0, 21_000, 20_000),
        (307.5, 22_000, 21_000),
        (10.0, 23_000, 22_000),
        (4_166.0, 24_000, 12_000),
        (10.0, 25_000, 6_000),
        (10.0, 26_000, 25_000),
    ];
    for (i, (gap, total, read)) in requests.into_iter().enumerate() {
        let _ = write!(
            text,
            "[[call]]\nlabel = \"c{i}\"\nbytes = 1000\ngap_s = {gap}\n[call.measured]\ninput_tokens = 0\ncache_creation_input_tokens = {}\ncache_read_input_tokens = {read}\nconvention = \"anthropic\"\n",
            total - read
        );
    }
    text
}

#[test]
fn the_lifetime_is_the_longest_pause_a_read_outlived_and_cold_requests_give_the_warm_share() {
    let s = load(&paused(300));
    let c = cache::fit(&s).unwrap();
    assert_eq!(c.ttl.given_s, 300.0);
    assert_eq!(c.ttl_s, 307.5);
    let proof = c.ttl.proof.as_ref().unwrap();
    assert_eq!(
        (proof.call, proof.gap_s, proof.read_tokens),
        (3, 307.5, 21_000.0)
    );
    assert_eq!((c.ttl.cold_after_pause, c.ttl.missed_within), (1, 0));
    assert_eq!(c.ttl.shortest_cold_pause_s, Some(4_166.0));
    // Cold: the first (12,000) and the one after 4,166 s (12,000); the median is 12,000.
    let w = c.warm.as_ref().unwrap();
    assert_eq!(
        (w.tokens, w.cold_requests, w.least_tokens, w.most_tokens),
        (12_000.0, 2, 12_000.0, 12_000.0)
    );
    assert_eq!((c.late_reads, c.late_read_tokens), (1, 12_000.0));
    // Within the lifetime: requests 2, 3, 4, 6, 7. Prefixes 20,000 + 21,000 + 22,000 +
    // 24,000 + 25,000 = 112,000; missed 0 + 0 + 0 + 18,000 + 0.
    assert_eq!(c.requests_compared, 5);
    assert_eq!((c.prefix_tokens, c.missed_tokens), (112_000.0, 18_000.0));
    assert_eq!((c.missed_requests, c.read_nothing), (1, 0));
    // The main fit sets the share of the fitted B: exactly 20,000 − 1,000·… here B and ρ
    // are fitted from totals that grow 1,000 a request on 1,000 bytes: B = 20,000, ρ = 1.
    let f = fit(&s).unwrap();
    assert!((f.base_tokens - 20_000.0).abs() < 1e-6, "{f:?}");
    let c = f.cache.unwrap();
    assert!((c.warm_share - 0.6).abs() < 1e-12);
    assert_eq!(
        written::ttl_evidence(&c).unwrap(),
        "call 3 read 21,000 tokens from the cache after a pause of 308 s, past the scenario's 300 s; 1 request after a longer pause (4,166 s or more) read at most the warm prefix"
    );
    assert_eq!(
        written::warm_evidence(&c).unwrap(),
        "2 cold requests (the first, and 1 after a pause past the 308 s TTL) read 12,000 tokens from a cache already warm (median; 12,000 to 12,000), of B = 20,000"
    );
    // A scenario whose TTL already covers the pause keeps it: nothing to prove.
    let c = cache::fit(&load(&paused(3600))).unwrap();
    assert_eq!((c.ttl_s, c.ttl.proof.is_none()), (3600.0, true));
    assert_eq!(c.ttl.missed_within, 0);
    assert!(written::ttl_evidence(&c).is_none());
}

#[test]
fn the_cache_terms_are_written_even_where_b_and_rho_are_not() {
    let s = load(&paused(300));
    let f = fit(&s).unwrap();
    let (text, changes) = fitted_text(&paused(300), "p.toml", &f, "fitted (test)", false).unwrap();
    assert!(!changes.wrote_base);
    assert_eq!(
        changes.cache_keys,
        vec!["miss_share", "warm_share", "ttl_s"]
    );
    assert!(text.contains("base_tokens = 20000\n"), "{text}");
    assert!(!text.contains("base_tokens_source"), "{text}");
    assert!(text.contains("\nttl_s = 308\nttl_s_source = \"fitted (test: call 3 read 21,000 tokens from the cache after a pause of 308 s, past the scenario's 300 s; 1 request after a longer pause (4,166 s or more) read at most the warm prefix)\"\n"), "{text}");
    assert!(text.contains("\nwarm_share = 0.6\n"), "{text}");
    assert!(text.contains("\nmiss_share = 0.161\n"), "{text}");
    // The written scenario loads, with the fitted lifetime.
    assert_eq!(load(&text).cache.unwrap().ttl_s, 308.0);
}

#[test]
fn a_per_call_term_that_cannot_be_told_from_rho_is_left_out() {
    // Results of 1,000 and 1,200 bytes in turn, and the input grows by 300 tokens a call
    // plus a byte in 20: with the per-call term ρ is exactly 20, which no text has; without
    // it, least squares over the same 12 calls gives ρ = 3.0940 and B = 20,010.8.
    let mut text = String::from("name = \"t\"\nbase_tokens = 1\nbytes_per_token = 1\n");
    let mut m = 20_000.0;
    for i in 0..12 {
        let b = if i % 2 == 0 { 1000.0 } else { 1200.0 };
        let _ = write!(
            text,
            "[[call]]\nlabel = \"c{i}\"\nbytes = {b}\n[call.measured]\ninput_tokens = {m}\nconvention = \"openai\"\n"
        );
        m += 300.0 + b / 20.0;
    }
    let f = fit(&load(&text)).unwrap();
    assert!(f.refused.is_none(), "{f:?}");
    assert!(
        (f.bytes_per_token - 3.094_041_636_755_204).abs() < 1e-9,
        "{f:?}"
    );
    assert!(
        (f.base_tokens - 20_010.788_863_109_05).abs() < 1e-6,
        "{f:?}"
    );
    assert!(f.terms.is_empty());
    assert_eq!(
        f.terms_not_fitted[0].reason,
        "with it ρ came out 20 bytes per token, outside the physical 1 to 8: it cannot be told apart from ρ in this trace"
    );
}

#[test]
fn the_minimum_is_the_shortest_read_below_the_given_one() {
    // Gemini's documented 4,096; reads of 0, 2,050, 1,990 and 4,100 tokens: 1,990 at call
    // 3 proves the provider caches a prefix that short, and two reads were below 4,096.
    let scenario = |min: u32| {
        let mut text = format!(
            "name = \"m\"\nbase_tokens = 1\nbytes_per_token = 1\n[cache]\nread = 0.1\nwrite = 1\nttl_s = 300\nmin_tokens = {min}\n"
        );
        for (i, (total, read)) in [(1_800, 0), (2_600, 2_050), (3_100, 1_990), (4_600, 4_100)]
            .into_iter()
            .enumerate()
        {
            let _ = write!(
                text,
                "[[call]]\nid = \"r{i}\"\nlabel = \"c{i}\"\nbytes = 100\ngap_s = 3\n[call.measured]\ninput_tokens = {total}\ncache_read_input_tokens = {read}\nconvention = \"openai\"\n"
            );
        }
        load(&text)
    };
    let c = cache::fit(&scenario(4096)).unwrap();
    assert_eq!(
        (c.min.given_tokens, c.min_tokens, c.min.short_reads),
        (4096.0, 1990.0, 2)
    );
    let p = c.min.proof.as_ref().unwrap();
    assert_eq!(
        (p.call, p.id.as_str(), p.read_tokens, p.input_tokens),
        (3, "r2", 1990.0, 3100.0)
    );
    assert_eq!(
        written::min_evidence(&c).unwrap(),
        "call 3 read 1,990 of its 3,100 input tokens from the cache, below the scenario's minimum of 4,096; 2 requests read less than it"
    );
    // μ under the fitted minimum: request 2's prefix of 1,800 is below 1,990, not
    // compared; requests 3 and 4 compare 2,600 and 3,100, missing 2,600 − 1,990 = 610 and
    // nothing (4,100 read).
    assert_eq!(
        (c.requests_compared, c.prefix_tokens, c.missed_tokens),
        (2, 5_700.0, 610.0)
    );
    // A minimum no read falls below stands, with nothing to prove.
    let c = cache::fit(&scenario(1024)).unwrap();
    assert_eq!((c.min_tokens, c.min.short_reads), (1024.0, 0));
    assert!(c.min.proof.is_none() && written::min_evidence(&c).is_none());
    // The fitted minimum is written, rounded down, beside its source.
    let f = fit(&scenario(4096)).unwrap();
    let fitted = written::fitted(&f, "fitted (test)", false);
    assert_eq!(fitted.min_tokens.as_ref().map(|m| m.0), Some(1990.0));
}
