//! Exact figures from the library: hand-computed examples of docs/model.md §1–§4.
#![allow(clippy::unwrap_used)]

use simulate::evaluate::{Evaluation, Study, evaluate};
use simulate::ledger::Assumptions;
use simulate::scenario::{Scenario, load_str};
use simulate::timeline::{self, CallFigures};
use std::path::Path;

fn scenario(toml: &str) -> Scenario {
    load_str(toml, Path::new("test.toml")).unwrap()
}

fn nominal(s: &Scenario) -> Evaluation {
    let study = Study::new(s).unwrap();
    evaluate(
        &study,
        study.nominal(Assumptions {
            base_tokens: s.base_tokens,
            bytes_per_token: s.bytes_per_token,
        }),
    )
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

/// Per-call (context, cached, written) of edit `e` (None: baseline) at the nominal point.
fn figures(s: &Scenario, e: Option<usize>) -> Vec<(f64, f64, f64)> {
    let study = Study::new(s).unwrap();
    let subject = e.map_or(&study.baseline, |i| &study.edited[i]);
    let at = Assumptions {
        base_tokens: s.base_tokens,
        bytes_per_token: s.bytes_per_token,
    };
    let clearings = subject.clearings(&study, at);
    let mut out = Vec::new();
    timeline::walk(
        &s.calls,
        &subject.run,
        &clearings,
        Some(subject.pricing(&study)),
        at,
        |_, _, f: &CallFigures<f64>| {
            out.push((f.context, f.cached, f.written));
        },
    );
    out
}

const SIX_CALLS: &str = r#"
name = "six"
base_tokens = 1000
bytes_per_token = 1.0
[[call]]
id = "a"
label = "a"
bytes = 100
segment = 1
[[call]]
id = "b"
label = "b"
bytes = 200
[[call]]
id = "c"
label = "c"
bytes = 300
segment = 2
[[call]]
id = "d"
label = "d"
bytes = 400
[[call]]
id = "e"
label = "e"
bytes = 500
segment = 3
[[call]]
id = "f"
label = "f"
bytes = 600
"#;

#[test]
fn worked_example_of_model_section_1() {
    let s = scenario(
        r#"
name = "worked"
base_tokens = 30000
bytes_per_token = 3.3
[[call]]
label = "x"
bytes = 45000
[[call]]
label = "y"
bytes = 2000
[[call]]
label = "z"
bytes = 5000
"#,
    );
    let e = nominal(&s);
    close(e.baseline.total_tokens, 90_000.0 + 92_000.0 / 3.3);
    assert_eq!(format!("{:.1}", e.baseline.total_tokens), "117878.8");
}

#[test]
fn each_edit_on_a_hand_computed_trace() {
    // B = 1000, ρ = 1: sizes are bytes. Baseline contexts 1000, 1100, 1300, 1600, 2000,
    // 2500: T = 9500, n = 6, average 1583.33….
    let s = scenario(&format!(
        "{SIX_CALLS}{}",
        r#"
[[edit]]
name = "trim a by 50"
trim = { call = "a", by_bytes = 50 }
[[edit]]
name = "trim b to 20"
trim = { call = "b", to_bytes = 20 }
[[edit]]
name = "trim c by 10 %"
trim = { call = "c", by_percent = 10 }
[[edit]]
name = "merge b d e"
merge = { calls = ["e", "b", "d"], overhead_bytes = 7 }
[[edit]]
name = "merge b d e at last"
merge = { calls = ["b", "d", "e"], at = "last" }
[[edit]]
name = "drop c"
drop = { call = "c" }
[[edit]]
name = "move a before f"
move = { call = "a", before = "f" }
[[edit]]
name = "move f after a"
move = { call = "f", after = "a" }
[[edit]]
name = "steps"
steps = [{ drop = { call = "a" } }, { merge = { calls = ["b", "c"] } }]
"#
    ));
    let e = nominal(&s);
    close(e.baseline.total_tokens, 9500.0);
    let saved: Vec<f64> = e.edits.iter().map(|x| x.saving.saved).collect();
    // trim a by 50: a is re-read by 5 later calls → 250.
    close(saved[0], 250.0);
    // trim b to 20: 180 fewer bytes, re-read by 4 calls → 720.
    close(saved[1], 720.0);
    // trim c by 10 %: 30 bytes × 3 calls → 90.
    close(saved[2], 90.0);
    // merge at b: a, [b+d+e+7 = 1107], c, f. Contexts 1000, 1100, 2207, 2507 → 6814.
    close(e.edits[3].outcome.total_tokens, 6814.0);
    close(saved[3], 9500.0 - 6814.0);
    // Equivalent calls use the baseline's 6 calls, not the edit's 4.
    close(
        e.edits[3].saving.equivalent_calls,
        (9500.0 - 6814.0) / (9500.0 / 6.0),
    );
    assert_eq!(e.edits[3].outcome.calls, 4);
    // merge at last (e's place): a, c, [1100], f. Contexts 1000, 1100, 1400, 2500 → 6000.
    close(e.edits[4].outcome.total_tokens, 6000.0);
    // drop c: a b d e f: 1000, 1100, 1300, 1700, 2200 → 7300.
    close(e.edits[5].outcome.total_tokens, 7300.0);
    // move a before f: b c d e a f: 1000, 1200, 1500, 1900, 2400, 2500 → 10500 (negative saving).
    close(e.edits[6].outcome.total_tokens, 10_500.0);
    close(saved[6], -1000.0);
    // move f after a: a f b c d e: 1000, 1100, 1700, 1900, 2200, 2600 → 10500.
    close(e.edits[7].outcome.total_tokens, 10_500.0);
    // steps: drop a, then merge b+c at b: [500] d e f: 1000, 1500, 1900, 2400 → 6800.
    close(e.edits[8].outcome.total_tokens, 6800.0);
}

#[test]
fn tsv_lines_with_the_same_number_are_one_call() {
    let calls =
        simulate::scenario::parse_tsv("1\ta\t100\n2\tb\t50\n2\tc\t150\n3\td\t10\n", "t.tsv")
            .unwrap();
    assert_eq!(calls.len(), 3);
    assert_eq!(
        (&*calls.at(1).id, calls.at(1).label, calls.at(1).bytes),
        ("2", "b+c", 200.0)
    );
}

const CACHE: &str = r#"
[cache]
read = 0.1
write = 1.25
ttl_s = 300
min_tokens = 0
"#;

#[test]
fn every_segments_keeping_one_segment_with_the_cache() {
    // Arithmetic (B = 1000, ρ = 1, placeholder 10):
    // call 1 a: ctx 1000.  call 2 b: ctx 1100.
    // call 3 c: segment 1 completed → fires; keep the latest tool-using segment (1): nothing
    //   to clear, so no clearing and the trigger stays armed. ctx 1300.
    // call 4 d: fires again; segment 2 now holds c, so it is the latest: clear a, b;
    //   freed 100 + 200 − 2·10 = 280; ctx 1600 − 280 = 1320. Count restarts.
    // call 5 e: segment 2 completed → fires; keep segment 2 (3 holds nothing before e):
    //   nothing older is standing, no clearing. ctx 1720.
    // call 6 f: fires; keep segment 3: clear c, d; freed 680; ctx 2220 − 680 = 1540.
    // T = 1000 + 1100 + 1300 + 1320 + 1720 + 1540 = 7980.
    // Cache: cached = previous context, except after a clearing: B + the blocks before the
    // first cleared one as they stand (call 4: 1000; call 6: 1000 + 10 + 10 = 1020).
    //   cached  0, 1000, 1100, 1000, 1320, 1020 = 5440
    //   written 1000, 100, 200, 320, 400, 520   = 2540
    //   cost = 0.1·5440 + 1.25·2540 = 3719; baseline: 0.1·7000 + 1.25·2500 = 3825.
    let s = scenario(&format!(
        "{SIX_CALLS}{CACHE}{}",
        r#"
[[edit]]
name = "segments"
clear = { every_segments = 1, keep_segments = 1, placeholder_bytes = 10 }
"#
    ));
    let e = nominal(&s);
    let o = &e.edits[0].outcome;
    let events: Vec<(usize, Vec<usize>, f64)> = o
        .clearings
        .events
        .iter()
        .map(|v| (v.before, v.cleared.clone(), v.freed_tokens))
        .collect();
    assert_eq!(events, vec![(3, vec![0, 1], 280.0), (5, vec![2, 3], 680.0)]);
    close(o.total_tokens, 7980.0);
    let f = figures(&s, Some(0));
    let cached: Vec<f64> = f.iter().map(|x| x.1).collect();
    let written: Vec<f64> = f.iter().map(|x| x.2).collect();
    assert_eq!(cached, vec![0.0, 1000.0, 1100.0, 1000.0, 1320.0, 1020.0]);
    assert_eq!(written, vec![1000.0, 100.0, 200.0, 320.0, 400.0, 520.0]);
    close(o.cost, 3719.0);
    close(e.baseline.cost, 3825.0);
}

fn events_of(toml_clear: &str, extra_calls: &str) -> Vec<(usize, Vec<usize>)> {
    let s = scenario(&format!(
        "{SIX_CALLS}{extra_calls}\n[[edit]]\nname = \"c\"\nclear = {toml_clear}\n"
    ));
    nominal(&s).edits[0]
        .outcome
        .clearings
        .events
        .iter()
        .map(|v| (v.before + 1, v.cleared.iter().map(|j| j + 1).collect()))
        .collect()
}

#[test]
fn above_tool_bytes_fires_on_volume() {
    // Uncleared bytes before call 4: 600 > 500 → clear 1–3. Before call 6: 400 + 500 = 900.
    assert_eq!(
        events_of("{ above_tool_bytes = 500 }", ""),
        vec![(4, vec![1, 2, 3]), (6, vec![4, 5])]
    );
}

#[test]
fn above_context_tokens_fires_on_the_context_of_the_call() {
    // Contexts 1000, 1100, 1300, 1600 > 1500 → clear 1–3 (600 − 27 = 573 freed): 1027;
    // call 5: 1427; call 6: 1927 > 1500 → clear 4, 5.
    assert_eq!(
        events_of("{ above_context_tokens = 1500 }", ""),
        vec![(4, vec![1, 2, 3]), (6, vec![4, 5])]
    );
}

#[test]
fn older_than_calls_clears_eagerly_and_keeps_the_latest_calls() {
    // Before call i, results of calls before i − 2 go: call 4 clears 1; call 5 clears 2; …
    assert_eq!(
        events_of("{ older_than_calls = 2 }", ""),
        vec![(4, vec![1]), (5, vec![2]), (6, vec![3])]
    );
}

#[test]
fn every_calls_moves_the_window_in_steps_and_stays_armed_when_all_is_kept() {
    // Before call 3, 2 calls have completed: standing a, b; keep 1 → clear a, count restarts.
    // Before call 5: clear b, c (keep d). Before call 7 there is none.
    assert_eq!(
        events_of("{ every_calls = 2, keep_results = 1 }", ""),
        vec![(3, vec![1]), (5, vec![2, 3])]
    );
    // Keeping 2: before call 3 both standing results are kept, so no clearing and no reset;
    // before call 4 it fires again and clears a; then 2 calls later (call 6) b and c.
    assert_eq!(
        events_of("{ every_calls = 2, keep_results = 2 }", ""),
        vec![(4, vec![1]), (6, vec![2, 3])]
    );
    // Alone it clears everything standing every K calls.
    assert_eq!(
        events_of("{ every_calls = 3 }", ""),
        vec![(4, vec![1, 2, 3])]
    );
}

#[test]
fn every_calls_with_the_cache_breaks_the_prefix_once_per_step() {
    // B = 1000, ρ = 1, placeholder 10, { every_calls = 2, keep_results = 1 }:
    // call 1 a: ctx 1000.  call 2 b: 1100.
    // call 3 c: clear a (freed 90): 1300 − 90 = 1210.  call 4 d: 1510.
    // call 5 e: clear b, c (freed 190 + 290 = 480): 1910 − 480 = 1430.  call 6 f: 1930.
    // T = 8180. Cache: after a clearing, cached = B + the blocks before the first cleared
    // one as they stand (call 3: 1000; call 5: 1000 + a's placeholder 10 = 1010).
    //   cached  0, 1000, 1000, 1210, 1010, 1430 = 5650
    //   written 1000, 100, 210, 300, 420, 500  = 2530
    //   cost = 0.1·5650 + 1.25·2530 = 3727.5; baseline 3825.
    let s = scenario(&format!(
        "{SIX_CALLS}{CACHE}{}",
        r#"
[[edit]]
name = "steps"
clear = { every_calls = 2, keep_results = 1, placeholder_bytes = 10 }
"#
    ));
    let e = nominal(&s);
    let o = &e.edits[0].outcome;
    let events: Vec<(usize, Vec<usize>, f64, Vec<&str>)> = o
        .clearings
        .events
        .iter()
        .map(|v| {
            (
                v.before,
                v.cleared.clone(),
                v.freed_tokens,
                v.triggers.clone(),
            )
        })
        .collect();
    assert_eq!(
        events,
        vec![
            (2, vec![0], 90.0, vec!["every_calls"]),
            (4, vec![1, 2], 480.0, vec!["every_calls"])
        ]
    );
    close(o.total_tokens, 8180.0);
    let f = figures(&s, Some(0));
    let cached: Vec<f64> = f.iter().map(|x| x.1).collect();
    let written: Vec<f64> = f.iter().map(|x| x.2).collect();
    assert_eq!(cached, vec![0.0, 1000.0, 1000.0, 1210.0, 1010.0, 1430.0]);
    assert_eq!(written, vec![1000.0, 100.0, 210.0, 300.0, 420.0, 500.0]);
    close(o.cost, 3727.5);
    close(e.baseline.cost, 3825.0);
}

#[test]
fn keep_results_keeps_the_most_recent_results() {
    // Call 4: 600 bytes standing > 500, keep b and c, clear a. Call 5: b, c, d = 900, keep
    // c and d, clear b. Call 6: c, d, e = 1200, keep d and e, clear c.
    assert_eq!(
        events_of("{ above_tool_bytes = 500, keep_results = 2 }", ""),
        vec![(4, vec![1]), (5, vec![2]), (6, vec![3])]
    );
}

#[test]
fn clear_at_least_tokens_refuses_small_clearings_and_stays_armed() {
    // Eager clearing of one result at a time frees 91, 191, … tokens; at least 250 refuses
    // the first two, so the clearing before call 5 takes results 1 and 2 (282 freed).
    assert_eq!(
        events_of("{ older_than_calls = 2, clear_at_least_tokens = 250 }", ""),
        vec![(5, vec![1, 2]), (6, vec![3])]
    );
}

#[test]
fn pinned_and_excluded_kinds_are_never_cleared() {
    let s = SIX_CALLS
        .replace("id = \"b\"", "id = \"b\"\npinned = true")
        .replace("id = \"c\"", "id = \"c\"\nkind = \"web_search\"");
    let s = scenario(&format!(
        "{s}\n[[edit]]\nname = \"c\"\nclear = {{ older_than_calls = 1 }}\n"
    ));
    let cleared: Vec<usize> = nominal(&s).edits[0]
        .outcome
        .clearings
        .events
        .iter()
        .flat_map(|v| v.cleared.clone())
        .collect();
    // Eager clearing of everything older than the previous call: a before call 3; b is
    // pinned and c is a web search, so nothing until d goes before call 6.
    assert_eq!(cleared, vec![0, 3]);
}

#[test]
fn a_policy_that_never_fires_has_no_events() {
    assert_eq!(events_of("{ above_tool_bytes = 1000000 }", ""), vec![]);
}

#[test]
fn ttl_expiry_and_min_tokens_zero_the_cached_prefix() {
    let s = SIX_CALLS.replace("id = \"e\"", "id = \"e\"\ngap_s = 301");
    let s = scenario(&format!(
        "{s}{}",
        CACHE.replace("min_tokens = 0", "min_tokens = 1050")
    ));
    let f = figures(&s, None);
    let cached: Vec<f64> = f.iter().map(|x| x.1).collect();
    // Call 2's prefix (1000) is under 1,050 tokens; call 5 comes after the TTL.
    assert_eq!(cached, vec![0.0, 0.0, 1100.0, 1300.0, 0.0, 2000.0]);
    // Call 1's whole request (1000) is under the minimum: nothing is written, it is billed
    // at the plain input price (docs/model.md §4).
    let written: Vec<f64> = f.iter().map(|x| x.2).collect();
    assert_eq!(written, vec![0.0, 1100.0, 200.0, 300.0, 2000.0, 500.0]);
    // Cost: 0.1 · (1100 + 1300 + 2000) + 1.25 · (1100 + 200 + 300 + 2000 + 500) + 1 · 1000.
    close(nominal(&s).baseline.cost, 440.0 + 5125.0 + 1000.0);
}

#[test]
fn requests_below_the_minimum_are_billed_as_plain_input() {
    // Every request under 10,000 tokens: nothing cached, nothing written, no write fee.
    let s = scenario(&format!(
        "{SIX_CALLS}{}",
        CACHE.replace("min_tokens = 0", "min_tokens = 10000")
    ));
    let f = figures(&s, None);
    assert!(f.iter().all(|x| x.1 == 0.0 && x.2 == 0.0), "{f:?}");
    let e = nominal(&s);
    // The cost equals the reread total: 1000 + 1100 + 1300 + 1600 + 2000 + 2500.
    close(e.baseline.total_tokens, 9500.0);
    close(e.baseline.cost, 9500.0);
}

#[test]
fn a_clearing_breaks_the_cached_prefix_at_the_first_changed_block() {
    // Eager clearing of call 1's result before call 4: blocks base, a are unchanged up to a;
    // the prefix stops before a: cached = B = 1000 and the rest (b, c as they stand, a's
    // placeholder) is written again.
    let s = scenario(&format!(
        "{SIX_CALLS}{CACHE}\n[[edit]]\nname = \"c\"\nclear = {{ older_than_calls = 2, placeholder_bytes = 0 }}\n"
    ));
    let f = figures(&s, Some(0));
    assert_eq!(f[3], (1500.0, 1000.0, 500.0));
    // Before call 5 result b goes: context 1500 + 400 − 200 = 1700; the prefix keeps base
    // and a's (empty) placeholder: 1000; written 700.
    assert_eq!(f[4], (1700.0, 1000.0, 700.0));
}

#[test]
fn retries_cost_a_read_of_the_context() {
    let with_retries = SIX_CALLS.replacen("[[call]]", "retry_rate = 0.5\n[[call]]", 1);
    let s = scenario(&format!("{with_retries}{CACHE}"));
    let e = nominal(&s);
    // 3825 + 0.5 · 0.1 · 9500.
    close(e.baseline.cost, 3825.0 + 475.0);
}

#[test]
fn after_gap_s_fires_before_a_call_after_a_long_pause() {
    // Only call 5 comes after a pause (400 s > 300): clear 1–4 there.
    let extra = "";
    let s = SIX_CALLS.replace("id = \"e\"", "id = \"e\"\ngap_s = 400");
    let s = scenario(&format!(
        "{s}{extra}\n[[edit]]\nname = \"idle\"\nclear = {{ after_gap_s = 300 }}\n"
    ));
    let e = nominal(&s);
    let events: Vec<(usize, Vec<usize>)> = e.edits[0]
        .outcome
        .clearings
        .events
        .iter()
        .map(|v| (v.before + 1, v.cleared.iter().map(|j| j + 1).collect()))
        .collect();
    assert_eq!(events, vec![(5, vec![1, 2, 3, 4])]);
    // Contexts 1000, 1100, 1300, 1600, then 2000 − (1000 − 4·9) = 1036, 1536: T = 7572.
    close(e.edits[0].outcome.total_tokens, 7572.0);
}

#[test]
fn idle_gap_clearing_at_the_ttl_adds_no_cache_write() {
    // With the cache, the pause before call 5 expires the prefix: the baseline writes call
    // 5's whole context anyway. Clearing there costs no extra write, only saves.
    let s = SIX_CALLS.replace("id = \"e\"", "id = \"e\"\ngap_s = 400");
    let s = scenario(&format!(
        "{s}{CACHE}\n[[edit]]\nname = \"idle\"\nclear = {{ after_gap_s = 300 }}\n"
    ));
    let base = figures(&s, None);
    let idle = figures(&s, Some(0));
    assert_eq!(base[4], (2000.0, 0.0, 2000.0));
    assert_eq!(idle[4], (1036.0, 0.0, 1036.0));
    // Call 6 reads call 5's prefix from the cache and writes only call 5's result.
    assert_eq!(idle[5], (1536.0, 1036.0, 500.0));
    let e = nominal(&s);
    // Written tokens fall at every call from 5 on; nothing else changes: the cost saving
    // is 1.25 · (2000 − 1036) + 0.1 · (2000 − 1036).
    close(
        e.baseline.cost - e.edits[0].outcome.cost,
        1.25 * 964.0 + 0.1 * 964.0,
    );
}

#[test]
fn tools_and_exclude_tools_limit_what_is_cleared() {
    let with_tools = SIX_CALLS
        .replace("id = \"a\"", "id = \"a\"\ntool = \"Bash\"")
        .replace("id = \"b\"", "id = \"b\"\ntool = \"Read\"")
        .replace("id = \"c\"", "id = \"c\"\ntool = \"Bash\"");
    let cleared = |policy: &str| -> Vec<usize> {
        let s = scenario(&format!(
            "{with_tools}\n[[edit]]\nname = \"c\"\nclear = {policy}\n"
        ));
        nominal(&s).edits[0]
            .outcome
            .clearings
            .events
            .iter()
            .flat_map(|v| v.cleared.iter().map(|j| j + 1))
            .collect()
    };
    // Eager clearing before call 6 of everything older than call 5.
    assert_eq!(
        cleared("{ older_than_calls = 1, tools = [\"Bash\"] }"),
        vec![1, 3]
    );
    assert_eq!(
        cleared("{ older_than_calls = 1, exclude_tools = [\"Bash\"] }"),
        vec![2, 4]
    );
}

#[test]
fn an_explicit_setting_overridden_by_pinning_is_a_warning() {
    let s = SIX_CALLS.replace("id = \"c\"", "id = \"c\"\nkind = \"web_search\"");
    let s = scenario(&format!(
        "{s}\n[[edit]]\nname = \"all\"\nclear = {{ older_than_calls = 1, exclude_kinds = [] }}\n"
    ));
    let study = Study::new(&s).unwrap();
    assert_eq!(study.warnings.len(), 1, "{:?}", study.warnings);
    assert!(
        study.warnings[0].contains("exclude_kinds allows kind `web_search`, but all 1 call of that kind is pinned (web_search calls are pinned by default)"),
        "{}",
        study.warnings[0]
    );
}

const MEASURED: &str = r#"
name = "measured"
base_tokens = 1000
bytes_per_token = 1.0
[[call]]
id = "a"
label = "Bash: ls"
tool = "Bash"
bytes = 100
output_tokens = 10
[call.measured]
input_tokens = 5
cache_creation_input_tokens = 995
cache_creation_1h_input_tokens = 0
cache_read_input_tokens = 0
output_tokens = 10
model = "claude-sonnet-4-5-20250929"
convention = "anthropic"
[[call]]
id = "b"
label = "Read: a.rs"
tool = "Read"
bytes = 200
output_tokens = 20
[call.measured]
input_tokens = 10
cache_creation_input_tokens = 115
cache_creation_1h_input_tokens = 0
cache_read_input_tokens = 1000
output_tokens = 20
model = "claude-sonnet-4-5-20250929"
convention = "anthropic"
[[call]]
id = "c"
label = "Bash: cargo test"
tool = "Bash"
bytes = 0
output_tokens = 5
[call.measured]
input_tokens = 3
cache_creation_input_tokens = 230
cache_creation_1h_input_tokens = 30
cache_read_input_tokens = 1100
output_tokens = 5
model = "claude-sonnet-4-5-20250929"
convention = "anthropic"
[[call]]
id = "d"
label = "no usage"
bytes = 50
"#;

#[test]
fn measured_beside_simulated_on_a_hand_computed_trace() {
    use simulate::report::MeasuredReport;
    let s = scenario(MEASURED);
    let study = Study::new(&s).unwrap();
    let e = nominal(&s);
    let m = MeasuredReport::new(&study, &e).unwrap();
    assert_eq!(m.denominator, "measured on 3 of 4 calls");
    // Measured totals 1000 + 1125 + 1333; simulated contexts 1000, 1110, 1330.
    close(m.measured_input_tokens, 3458.0);
    close(m.simulated_input_tokens, 3440.0);
    close(m.difference_pct, -1800.0 / 3458.0);
    close(m.cache_hit_rate.unwrap(), 2100.0 / 3458.0);
    // Sonnet 4.5: reads 0.1×, 5-minute writes 1.25×, 1-hour writes 2×:
    // 5 + 1.25·995, 10 + 1.25·115 + 0.1·1000, 3 + 1.25·200 + 2·30 + 0.1·1100.
    close(m.measured_cost.unwrap(), 1248.75 + 253.75 + 423.0);
    // $3 / $15 per million: (1925.5·3 + 35·15) / 1e6.
    close(
        m.measured_dollars.unwrap(),
        (1925.5 * 3.0 + 35.0 * 15.0) / 1e6,
    );
    // Call c differs most: (1330 − 1333) / 1333; then b, (1110 − 1125) / 1125.
    assert_eq!(m.largest_differences[0].call, 2);
    assert_eq!(m.largest_differences[1].call, 3);
    assert_eq!(m.largest_differences.len(), 3);
}

#[test]
fn reads_the_cache_model_cannot_have_are_named_beside_the_cost() {
    use simulate::report::MeasuredReport;
    // The first request reads 500 tokens (a cache warm before the trace); the third comes
    // after 600 s, past the 300 s TTL, and still reads 1,100.
    let text = MEASURED
        .replace(
            "input_tokens = 5\ncache_creation_input_tokens = 995\ncache_creation_1h_input_tokens = 0\ncache_read_input_tokens = 0",
            "input_tokens = 5\ncache_creation_input_tokens = 495\ncache_creation_1h_input_tokens = 0\ncache_read_input_tokens = 500",
        )
        .replace("id = \"c\"\n", "id = \"c\"\ngap_s = 600\n")
        + "[cache]\npreset = \"claude-sonnet-4-5\"\n";
    let s = scenario(&text);
    let study = Study::new(&s).unwrap();
    let m = MeasuredReport::new(&study, &nominal(&s)).unwrap();
    let (measured, simulated) = (m.measured_cost.unwrap(), m.simulated_cost);
    close(
        m.cost_difference_pct.unwrap(),
        100.0 * (simulated - measured) / measured,
    );
    assert_eq!(
        m.cost_differs_because.len(),
        2,
        "{:?}",
        m.cost_differs_because
    );
    assert!(m.cost_differs_because[0].contains("first request already read 500 tokens"));
    assert!(
        m.cost_differs_because[1].contains(
            "1 request read 1,100 tokens from the cache after a pause longer than the simulated TTL (300 s)"
        ),
        "{}",
        m.cost_differs_because[1]
    );
    assert!(m.cost_differs_because[1].contains("preset = \"claude-sonnet-4-5-1h\""));
    // Without those reads there is nothing to name.
    let plain = scenario(MEASURED);
    let m = MeasuredReport::new(&Study::new(&plain).unwrap(), &nominal(&plain)).unwrap();
    assert!(m.cost_differs_because.is_empty());
}

#[test]
fn by_tool_shares_add_up_to_the_reread_total() {
    use simulate::report::by_tool;
    let s = scenario(MEASURED);
    let study = Study::new(&s).unwrap();
    let e = nominal(&s);
    let rows = by_tool(&study, e.at());
    let total: f64 = rows.iter().map(|r| r.reread_tokens).sum();
    close(total, e.baseline.total_tokens);
    let find = |g: &str| rows.iter().find(|r| r.group == g).unwrap();
    // Bash: a (100, re-read by 3 calls) and c (0): 300. Read: b (200 × 2) = 400.
    close(find("Bash").reread_tokens, 300.0);
    close(find("Read").reread_tokens, 400.0);
    assert_eq!(find("Bash").calls, 2);
    // Output: 10·3 + 20·2 + 5·1 = 75; base: 4 calls × 1000.
    close(find("model output").reread_tokens, 75.0);
    close(find("base (system prompt, tools)").reread_tokens, 4000.0);
    assert_eq!(rows[0].group, "base (system prompt, tools)");
}

/// A tool named as a kind's row is (`kind: tool`) adds to that row call by call, in call
/// order, with the calls of that kind that name no tool: the same sums, bit for bit, as
/// adding each call to the row named so; the base row counts every call.
#[test]
fn a_tool_named_as_a_kind_row_sums_call_by_call_into_that_row() {
    use simulate::report::by_tool;
    let mut text = String::from("name = \"k\"\nbase_tokens = 30000\nbytes_per_token = 3.3\n");
    let sizes = [12303.0, 63945.0, 3716.0, 999.0, 777.0, 5.0];
    for (i, b) in sizes.iter().enumerate() {
        text.push_str(&format!("[[call]]\nid = \"c{i}\"\nbytes = {b}\n"));
        if i % 2 == 0 {
            text.push_str("tool = \"kind: tool\"\n");
        }
    }
    let s = scenario(&text);
    let study = Study::new(&s).unwrap();
    let e = nominal(&s);
    let rows = by_tool(&study, e.at());
    let row = rows.iter().find(|r| r.group == "kind: tool").unwrap();
    let n = sizes.len();
    let (mut result, mut reread) = (0.0f64, 0.0f64);
    for (j, b) in sizes.iter().enumerate() {
        let r = b / 3.3;
        result += r;
        reread += r * (n - 1 - j) as f64;
    }
    assert_eq!(row.calls, n);
    assert_eq!(row.result_tokens.to_bits(), result.to_bits());
    assert_eq!(row.reread_tokens.to_bits(), reread.to_bits());
    assert_eq!(rows.iter().filter(|r| r.group == "kind: tool").count(), 1);
    let base = rows.iter().find(|r| r.group.starts_with("base")).unwrap();
    assert_eq!(base.calls, n);
}

/// A figure that is not finite never reaches a sink: the sweep stops with an error naming
/// the run and the point, and the nominal evaluation's guard does the same. (Inputs are
/// range-checked, so only a hand-built point can get here; that is the bug it guards.)
#[test]
fn a_non_finite_total_stops_the_sweep_before_any_sink_sees_it() {
    use simulate::finite::NonFinite;
    use simulate::sweep::{self, Grid, Point, PointSink, SweepOptions, Totals};
    struct Count(usize);
    impl PointSink for Count {
        fn point(
            &mut self,
            _: Option<usize>,
            _: &Point,
            _: bool,
            _: &[Totals],
        ) -> std::io::Result<()> {
            self.0 += 1;
            Ok(())
        }
    }
    let s = scenario(
        "name = \"f\"\nbase_tokens = 30000\nbytes_per_token = 3.3\n[[call]]\nid = \"a\"\nbytes = 1e15\n[[call]]\nid = \"b\"\nbytes = 1e15\n[[edit]]\nname = \"trim a\"\ntrim = { call = \"a\", by_percent = 50 }\n",
    );
    let study = Study::new(&s).unwrap();
    let nominal = study.nominal(Assumptions {
        base_tokens: s.base_tokens,
        bytes_per_token: s.bytes_per_token,
    });
    // ρ = 1e-300 turns 1e15 bytes into an infinite number of tokens.
    let grid = Grid {
        base_tokens: vec![30_000.0],
        bytes_per_token: vec![3.3, 1e-300],
        cache_read: vec![None],
        retry_rate: vec![0.0],
        refetch: vec![0.0],
        default_axes: false,
    };
    for closed_form in [true, false] {
        let mut sink = Count(0);
        let options = SweepOptions {
            closed_form,
            progress: false,
        };
        let e = sweep::run(&study, &grid, &nominal, options, &mut sink).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        let bad = e
            .get_ref()
            .and_then(|e| e.downcast_ref::<NonFinite>())
            .unwrap();
        assert_eq!(bad.run, "baseline");
        assert_eq!(bad.figure, "reread total");
        assert!(
            bad.point
                .starts_with("sweep point 1 (B = 30000, ρ = 1e-300"),
            "{}",
            bad.point
        );
        assert_eq!(sink.0, 1, "only the finite point was handed on");
    }
    let broken = evaluate(
        &study,
        Point {
            bytes_per_token: 1e-300,
            ..nominal
        },
    );
    let bad = simulate::evaluate::check_finite(&study, &broken).unwrap_err();
    assert_eq!((bad.run.as_str(), bad.figure), ("baseline", "reread total"));
    assert_eq!(simulate::Error::from(bad).exit_code(), 1);
    assert!(simulate::evaluate::check_finite(&study, &evaluate(&study, nominal)).is_ok());
}

#[test]
fn trim_by_percent_scales_the_whole_result_bytes_and_measured_tokens() {
    // a: 100 bytes and 50 measured tokens; b: measured tokens only. B = 1000, ρ = 1.
    let s = scenario(
        r#"
name = "t"
base_tokens = 1000
bytes_per_token = 1.0
[[call]]
id = "a"
bytes = 100
tokens = 50
[[call]]
id = "b"
tokens = 400
[[call]]
id = "c"
bytes = 10
[[edit]]
name = "half of a"
trim = { call = "a", by_percent = 50 }
[[edit]]
name = "half of b"
trim = { call = "b", by_percent = 50 }
"#,
    );
    let e = nominal(&s);
    // a (150 in all, re-read twice) loses 75: 150; b (400, re-read once) loses 200.
    close(e.edits[0].saving.saved, 150.0);
    close(e.edits[1].saving.saved, 200.0);
}

/// `n` calls of `bytes` each at B = `base`, ρ = 1, with `extra` TOML after the header.
fn uniform(n: usize, bytes: u64, base: u64, extra: &str) -> String {
    let mut s = format!("name = \"u\"\nbase_tokens = {base}\nbytes_per_token = 1.0\n{extra}\n");
    for i in 0..n {
        s.push_str(&format!(
            "[[call]]\nid = \"c{}\"\nlabel = \"c{}\"\nbytes = {bytes}\n",
            i + 1,
            i + 1
        ));
    }
    s
}

/// MODEL.md §9: five calls of 1,000 bytes, B = 1,000, ρ = 1, compaction above 3,500 with a
/// summary of 200: the calls read 1,000, 2,000, 3,000; the compaction reads 4,000; call 4
/// reads 1,200 and call 5 2,200. T = 13,400 against 15,000.
#[test]
fn a_compaction_reads_the_context_then_leaves_the_base_and_the_summary() {
    let s = scenario(&format!(
        "{}[[edit]]\nname = \"compact\"\ncompact = {{ above_context_tokens = 3500, summary_tokens = 200 }}\n",
        uniform(5, 1_000, 1_000, "")
    ));
    let n = nominal(&s);
    close(n.baseline.total_tokens, 15_000.0);
    close(n.edits[0].outcome.total_tokens, 13_400.0);
    // Equivalent calls keep the baseline's n: 1,600 / (15,000 / 5).
    close(n.edits[0].saving.equivalent_calls, 1_600.0 / 3_000.0);
    let contexts: Vec<f64> = figures(&s, Some(0)).iter().map(|f| f.0).collect();
    assert_eq!(contexts, [1_000.0, 2_000.0, 3_000.0, 1_200.0, 2_200.0]);
}

/// Five calls of 1,000 bytes, B = 2,000, ρ = 1, under a prompt cache (read 0.1, write 1.25),
/// with one edit: compaction above 3,500 tokens with a 200-token summary.
fn cached_compaction() -> Scenario {
    scenario(&format!(
        "{}[[edit]]\nname = \"compact\"\ncompact = {{ above_context_tokens = 3500, summary_tokens = 200 }}\n",
        uniform(
            5,
            1_000,
            2_000,
            "[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024"
        )
    ))
}

/// The same shape under a prompt cache (read 0.1, write 1.25), B = 2,000, compaction above
/// 3,500 with a 200-token summary. Calls: 2,000 (written: 2,500), 3,000 (200 + 1,250);
/// compaction 1 reads 4,000 (300 + 1,250); call 3 reads 2,200, the base cached (200 + 250);
/// call 4 reads 3,200 (220 + 1,250); compaction 2 reads 4,200 (320 + 1,250); call 5 reads
/// 2,200 (200 + 250). T = 20,800, cost 9,440, against 20,000 and 8,900.
#[test]
fn a_compaction_request_goes_through_the_cache_and_the_call_after_it_rewrites_all_but_the_base() {
    let s = cached_compaction();
    let n = nominal(&s);
    close(n.baseline.total_tokens, 20_000.0);
    close(n.baseline.cost, 8_900.0);
    close(n.edits[0].outcome.total_tokens, 20_800.0);
    close(n.edits[0].outcome.cost, 9_440.0);
    let events = &n.edits[0].outcome.clearings.events;
    assert_eq!(
        events
            .iter()
            .map(|e| (e.before, e.cleared.clone()))
            .collect::<Vec<_>>(),
        [(2, vec![0, 1]), (4, vec![2, 3])]
    );
}

/// `ledger.csv` of the cached compaction above: a row for each compaction's own request
/// (label `compaction request`, no id, no bytes) just before the call it precedes, so the
/// rows add up to the run's total (20,800) and its cost (9,440).
#[test]
fn ledger_csv_has_a_row_for_each_compaction_request_and_adds_up_to_the_total() {
    let s = cached_compaction();
    let study = Study::new(&s).unwrap();
    let n = nominal(&s);
    let mut out = Vec::new();
    simulate::output::ledger_csv::write_ledger(&mut out, &study, &n).unwrap();
    let text = String::from_utf8(out).unwrap();
    let compact: Vec<&str> = text.lines().filter(|l| l.starts_with("compact,")).collect();
    assert_eq!(
        compact,
        [
            "compact,1,c1,c1,1000.0,2000.0,2000.0,,0.0,2000.0,0.0,2500.0,0.0,",
            "compact,2,c2,c2,1000.0,3000.0,5000.0,,2000.0,1000.0,0.0,1450.0,0.0,",
            "compact,3,,compaction request,,4000.0,9000.0,,3000.0,1000.0,0.0,1550.0,200.0,",
            "compact,3,c3,c3,1000.0,2200.0,11200.0,c1 c2,2000.0,200.0,0.0,450.0,0.0,",
            "compact,4,c4,c4,1000.0,3200.0,14400.0,,2200.0,1000.0,0.0,1470.0,0.0,",
            "compact,5,,compaction request,,4200.0,18600.0,,3200.0,1000.0,0.0,1570.0,200.0,",
            "compact,5,c5,c5,1000.0,2200.0,20800.0,c3 c4,2000.0,200.0,0.0,450.0,0.0,",
        ]
    );
    // The cost column: the fourth of the six the cache adds (without prices the summary's
    // 200 output tokens are listed, not priced).
    let cost: f64 = compact
        .iter()
        .map(|l| l.rsplit(',').nth(2).unwrap().parse::<f64>().unwrap())
        .sum();
    close(cost, 9_440.0);
}

/// MODEL.md §9, as corrected: six tool calls of 2,000 bytes, B = 1,000, ρ = 1, the API's
/// context editing triggered at 6,000 input tokens keeping 1 tool use (placeholder 9
/// bytes). The API edits each request on its own from the full history: the calls read
/// 1,000, 3,000, 5,000, then 3,018 (1–2 cleared), 3,027 (1–3), 3,036 (1–4). T = 18,081
/// against 36,000 (a clearing that persists, §3, gave 20,072).
#[test]
fn the_apis_context_editing_edits_each_request_from_the_full_history() {
    let s = scenario(&format!(
        "{}[[edit]]\nname = \"context editing\"\nclear = {{ api = \"clear_tool_uses_20250919\", trigger_input_tokens = 6000, keep_tool_uses = 1 }}\n",
        uniform(6, 2_000, 1_000, "")
    ));
    let n = nominal(&s);
    close(n.baseline.total_tokens, 36_000.0);
    close(n.edits[0].outcome.total_tokens, 18_081.0);
    let contexts: Vec<f64> = figures(&s, Some(0)).iter().map(|f| f.0).collect();
    assert_eq!(
        contexts,
        [1_000.0, 3_000.0, 5_000.0, 3_018.0, 3_027.0, 3_036.0]
    );
    // An event where a request clears results the one before did not: 1–2, then 3, 4.
    let events: Vec<(usize, Vec<usize>, f64)> = n.edits[0]
        .outcome
        .clearings
        .events
        .iter()
        .map(|e| (e.before, e.cleared.clone(), e.freed_tokens))
        .collect();
    assert_eq!(
        events,
        [
            (3, vec![0, 1], 3_982.0),
            (4, vec![2], 5_973.0),
            (5, vec![3], 7_964.0)
        ]
    );
}

/// The same under a prompt cache (read 0.1, write 1.25, no minimum): a request's cached
/// prefix is the previous request's as far as their edited forms agree. Request 4 clears
/// results 1–2 where request 3 cleared none: the prefix is the base (1,000; written 2,018).
/// Request 5 clears 1–3, request 4 1–2: they agree up to result 3, 1,018 tokens (written
/// 2,009); request 6 likewise reads 1,027. Cost 1,250 + 2,600 + 2,800 + 2,622.5 + 2,613.05
/// + 2,613.95 = 14,499.5.
#[test]
fn the_apis_context_editing_breaks_the_cache_where_the_edited_requests_differ() {
    let s = scenario(&format!(
        "{}[[edit]]\nname = \"context editing\"\nclear = {{ api = \"clear_tool_uses_20250919\", trigger_input_tokens = 6000, keep_tool_uses = 1 }}\n",
        uniform(
            6,
            2_000,
            1_000,
            "[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 0"
        )
    ));
    let f = figures(&s, Some(0));
    let cached: Vec<f64> = f.iter().map(|f| f.1).collect();
    let written: Vec<f64> = f.iter().map(|f| f.2).collect();
    assert_eq!(cached, [0.0, 1_000.0, 3_000.0, 1_000.0, 1_018.0, 1_027.0]);
    assert_eq!(
        written,
        [1_000.0, 2_000.0, 2_000.0, 2_018.0, 2_009.0, 2_009.0]
    );
    close(nominal(&s).edits[0].outcome.cost, 14_499.5);
}

/// The API clears tool results only (kind `tool`): never a user prompt, a preload or a
/// server-side search result (docs/model.md §9). Calls: a prompt, a preload, two tool
/// results of 2,000 bytes each, B = 1,000, trigger 6,000, keep 0: request 5 (7,000
/// unedited) clears both tool results, not the prompt or the preload: 7,000 − 3,982.
#[test]
fn the_apis_context_editing_never_clears_a_prompt_or_a_preload() {
    let mut text = String::from("name = \"kinds\"\nbase_tokens = 1000\nbytes_per_token = 1.0\n");
    for (id, kind) in [
        ("ask", "prompt"),
        ("spec", "preload"),
        ("t1", "tool"),
        ("t2", "tool"),
        ("t3", "tool"),
    ] {
        text.push_str(&format!(
            "[[call]]\nid = \"{id}\"\nkind = \"{kind}\"\nbytes = 2000\n"
        ));
    }
    text.push_str("[[edit]]\nname = \"api\"\nclear = { api = \"clear_tool_uses_20250919\", trigger_input_tokens = 6000, keep_tool_uses = 0 }\n");
    let s = scenario(&text);
    let contexts: Vec<f64> = figures(&s, Some(0)).iter().map(|f| f.0).collect();
    assert_eq!(
        contexts,
        [
            1_000.0,
            3_000.0,
            5_000.0,
            7_000.0 - 1_991.0,
            9_000.0 - 3_982.0
        ]
    );
}

/// With `clear_tool_inputs`, a cleared call's tool-use inputs (part of its `output_bytes`)
/// are cleared with its result: three calls of 1,000 result bytes and 400 bytes of
/// message, 300 of them tool input; B = 1,000, trigger 3,000, keep 1. Call 3 reads 3,800
/// unedited; with inputs cleared, call 1's 1,300 cleared bytes leave 9 + 100: 2,509.
#[test]
fn clearing_tool_inputs_takes_them_from_the_models_message() {
    let mut text = String::from("name = \"inputs\"\nbase_tokens = 1000\nbytes_per_token = 1.0\n");
    for i in 0..3 {
        text.push_str(&format!(
            "[[call]]\nid = \"c{i}\"\nlabel = \"c{i}\"\nbytes = 1000\noutput_bytes = 400\ntool_input_bytes = 300\n"
        ));
    }
    for (name, inputs) in [("results", "false"), ("and inputs", "true")] {
        text.push_str(&format!(
            "[[edit]]\nname = \"{name}\"\nclear = {{ api = \"clear_tool_uses_20250919\", trigger_input_tokens = 3000, keep_tool_uses = 1, clear_tool_inputs = {inputs} }}\n"
        ));
    }
    let s = scenario(&text);
    let base: Vec<f64> = figures(&s, None).iter().map(|f| f.0).collect();
    assert_eq!(base, [1_000.0, 2_400.0, 3_800.0]);
    let results: Vec<f64> = figures(&s, Some(0)).iter().map(|f| f.0).collect();
    assert_eq!(results, [1_000.0, 2_400.0, 2_809.0]);
    let inputs: Vec<f64> = figures(&s, Some(1)).iter().map(|f| f.0).collect();
    assert_eq!(inputs, [1_000.0, 2_400.0, 2_509.0]);
}

/// A warm share whose part of B is below min_tokens is not cached at the first call; the
/// sweep's closed form must not read it either (B = 4,000, warm 0.1: 400 < 1,024).
#[test]
fn regression_a_warm_share_below_the_minimum_is_not_read_by_the_closed_form() {
    use simulate::sweep::{Model, totals};
    let s = scenario(&uniform(
        4,
        1_000,
        4_000,
        "[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\nwarm_share = 0.1",
    ));
    let study = Study::new(&s).unwrap();
    let at = Assumptions {
        base_tokens: 4_000.0,
        bytes_per_token: 1.0,
    };
    let point = study.nominal(at);
    let model = Model::new(&study, &study.baseline, &point);
    let closed = totals(&study, &study.baseline, &model, &point, true);
    let replayed = totals(&study, &study.baseline, &model, &point, false);
    // Call 1 writes all 4,000 (5,000); then 400 + 1,250, 500 + 1,250, 600 + 1,250.
    close(replayed.cost, 5_000.0 + 1_650.0 + 1_750.0 + 1_850.0);
    close(closed.cost, replayed.cost);
}
