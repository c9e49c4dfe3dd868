//! Hand-computed figures of the what-if edits of docs/model.md §9 that change prices,
//! cache terms and the base's parts: `cache`, `model`, `base = { drop | defer }`.
#![allow(clippy::unwrap_used)]

mod support;
use simulate::evaluate::{Evaluation, Study, evaluate};
use simulate::ledger::Assumptions;
use simulate::scenario::{Scenario, load_str};
use simulate::timeline::CallFigures;
use std::path::Path;
use support::rows;

fn scenario(toml: &str) -> Scenario {
    load_str(toml, Path::new("test.toml")).unwrap()
}

fn at(s: &Scenario) -> Assumptions {
    Assumptions {
        base_tokens: s.base_tokens,
        bytes_per_token: s.bytes_per_token,
    }
}

fn nominal(s: &Scenario) -> Evaluation {
    let study = Study::new(s).unwrap();
    evaluate(&study, study.nominal(at(s)))
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

/// Per-request (label, context, cached, written) of edit `e` (None: the baseline).
fn requests(s: &Scenario, e: Option<usize>) -> Vec<(String, f64, f64, f64)> {
    let study = Study::new(s).unwrap();
    let subject = e.map_or(&study.baseline, |i| &study.edited[i]);
    let clearings = subject.clearings(&study, at(s));
    let mut out = Vec::new();
    subject.walk(
        &study,
        &clearings,
        at(s),
        |_, slot, f: &CallFigures<f64>| {
            out.push((
                subject.run.label(&s.calls, slot).to_string(),
                f.context,
                f.cached,
                f.written,
            ));
        },
    );
    out
}

const THREE_KB: &str = r#"
name = "three"
base_tokens = 1000
bytes_per_token = 1.0
[[call]]
id = "a"
bytes = 1000
[[call]]
id = "b"
bytes = 1000
[[call]]
id = "c"
bytes = 1000
"#;

#[test]
fn a_tokens_factor_divides_bytes_per_token_and_leaves_the_base() {
    // docs/model.md §9: three calls of 1,000 bytes, ρ = 1, B = 1,000, f = 1.3: the calls
    // read 1,000, 1,000 + 1,300 and 1,000 + 2,600: T = 6,900 against 6,000.
    let s = scenario(&format!(
        "{THREE_KB}[[edit]]\nname = \"newer tokenizer\"\nmodel = {{ to = \"claude-sonnet-4-5\", tokens_factor = 1.3 }}\n"
    ));
    let e = nominal(&s);
    close(e.baseline.total_tokens, 6_000.0);
    close(e.edits[0].outcome.total_tokens, 6_900.0);
    close(e.edits[0].saving.saved, -900.0);
    let contexts: Vec<f64> = requests(&s, Some(0)).iter().map(|r| r.1).collect();
    for (got, want) in contexts.iter().zip([1_000.0, 2_300.0, 3_600.0]) {
        close(*got, want);
    }
}

const DEFER: &str = r#"
name = "github"
base_tokens = 30000
bytes_per_token = 1.0
[[base.part]]
name = "mcp:github"
tokens = 20000
source = "/context, 2026-11-30"
tools = ["mcp__github__*"]
[[call]]
id = "r1"
tool = "Read"
bytes = 100
[[call]]
id = "gh"
tool = "mcp__github__x"
bytes = 100
[[call]]
id = "r2"
tool = "Read"
bytes = 100
[[edit]]
name = "defer GitHub tools"
base = { defer = "mcp:github", stub_tokens = 0 }
[[edit]]
name = "drop GitHub tools"
base = { drop = "mcp:github" }
"#;

#[test]
fn a_deferred_part_joins_after_a_tool_search_before_its_first_use() {
    // docs/model.md §9: B = 30,000 of which the part is 20,000, stub 0; calls Read,
    // mcp__github__x, Read of 100 bytes: 10,000, then the search 10,100, then 30,100 and
    // 30,200: T = 80,400 against 90,300.
    let s = scenario(DEFER);
    let e = nominal(&s);
    close(e.baseline.total_tokens, 90_300.0);
    close(e.edits[0].outcome.total_tokens, 80_400.0);
    let got: Vec<(String, f64)> = requests(&s, Some(0))
        .into_iter()
        .map(|r| (r.0, r.1))
        .collect();
    let label = |id: &str| {
        s.calls
            .iter()
            .find(|c| c.id == id)
            .unwrap()
            .label
            .to_string()
    };
    assert_eq!(
        got,
        vec![
            (label("r1"), 10_000.0),
            ("tool search: loads mcp:github".to_string(), 10_100.0),
            (label("gh"), 30_100.0),
            (label("r2"), 30_200.0),
        ]
    );
    // The search is a request: four of them; equivalent calls keep the baseline's three.
    assert_eq!(e.edits[0].outcome.calls, 4);
    close(
        e.edits[0].saving.equivalent_calls,
        9_900.0 / (90_300.0 / 3.0),
    );
    // Dropped, the part leaves every request: n × 20,000 = 60,000 saved.
    close(e.edits[1].outcome.total_tokens, 30_300.0);
    let study = Study::new(&s).unwrap();
    let uses = &study.edited[1].whatif.parts[0];
    assert_eq!(uses.call_ids, vec!["gh"]);
    assert_eq!(uses.tools_used, vec!["mcp__github__x"]);
}

#[test]
fn a_deferred_parts_search_runs_before_a_call_that_uses_its_tool_second() {
    // The same example, the middle request running `Read` first and the GitHub tool
    // beside it: the part is used there, so its search runs before it (80,400). Asked of
    // the first tool only, the part would never load: 10,000 + 10,100 + 10,200 = 30,300.
    let s = scenario(&DEFER.replace(
        "tool = \"mcp__github__x\"",
        "tool = \"Read\"\nother_tools = [\"Bash\", \"mcp__github__x\", \"mcp__github__y\"]",
    ));
    let e = nominal(&s);
    close(e.baseline.total_tokens, 90_300.0);
    close(e.edits[0].outcome.total_tokens, 80_400.0);
    let labels: Vec<(String, f64)> = requests(&s, Some(0))
        .into_iter()
        .map(|r| (r.0, r.1))
        .collect();
    assert_eq!(
        labels[1],
        ("tool search: loads mcp:github".to_string(), 10_100.0)
    );
    assert_eq!(labels[2].1, 30_100.0);
    let study = Study::new(&s).unwrap();
    let deferred = &study.edited[0].whatif.parts[0];
    assert_eq!(deferred.search_before, Some(1));
    assert_eq!(deferred.call_ids, vec!["gh"]);
    assert_eq!(
        deferred.tools_used,
        vec!["mcp__github__x", "mcp__github__y"]
    );
    // Dropped, the call that needs it is named all the same.
    assert_eq!(study.edited[1].whatif.parts[0].call_ids, vec!["gh"]);
}

/// B = 10,000, ρ = 1, three calls of 1,000 bytes, the second after a 10-minute pause, under
/// a 5-minute cache (read 0.1, write 1.25, min 1,024) at $3/M input.
const PAUSE: &str = r#"
name = "pause"
base_tokens = 10000
bytes_per_token = 1.0
[cache]
read = 0.1
write = 1.25
ttl_s = 300
min_tokens = 1024
[price]
input = 3.0
output = 15.0
source = "list price, for the test"
[[call]]
id = "a"
bytes = 1000
[[call]]
id = "b"
bytes = 1000
gap_s = 600
[[call]]
id = "c"
bytes = 1000
"#;

#[test]
fn a_one_hour_cache_keeps_the_prefix_over_a_ten_minute_pause() {
    let s = scenario(&format!(
        "{PAUSE}[[edit]]\nname = \"1-hour cache\"\ncache = {{ ttl_s = 3600, write = 2.0 }}\n[[edit]]\nname = \"subagents only\"\ncache = {{ ttl_s = 3600, write = 2.0, traces = [\"subagent\"] }}\n"
    ));
    // The calls read 10,000, 11,000 and 12,000 tokens under either cache: T = 33,000.
    // 5 minutes: call 1 writes 10,000 (12,500); the pause expires the prefix, call 2
    // writes 11,000 (13,750); call 3 reads 11,000 and writes 1,000 (1,100 + 1,250).
    // 1 hour: call 1 writes 10,000 at 2.0 (20,000); call 2 reads 10,000 and writes 1,000
    // (1,000 + 2,000); call 3 reads 11,000 and writes 1,000 (1,100 + 2,000).
    let e = nominal(&s);
    close(e.baseline.total_tokens, 33_000.0);
    close(e.baseline.cost, 12_500.0 + 13_750.0 + 2_350.0);
    close(e.edits[0].outcome.total_tokens, 33_000.0);
    close(e.edits[0].outcome.cost, 20_000.0 + 3_000.0 + 3_100.0);
    close(e.edits[0].cost_saving.saved, 28_600.0 - 26_100.0);
    // $3/M input: 28,600 → $0.0858, 26,100 → $0.0783.
    close(e.baseline.dollars.unwrap(), 0.0858);
    close(e.edits[0].outcome.dollars.unwrap(), 0.0783);
    let per_call: Vec<(f64, f64)> = requests(&s, Some(0)).iter().map(|r| (r.2, r.3)).collect();
    assert_eq!(
        per_call,
        vec![(0.0, 10_000.0), (10_000.0, 1_000.0), (11_000.0, 1_000.0)]
    );
    // A scenario without [import] is a main trace: the subagent-only edit leaves it be.
    close(e.edits[1].outcome.cost, 28_600.0);
    let study = Study::new(&s).unwrap();
    assert!(study.edited[1].whatif.trace_unchanged.is_some());
}

/// The 1-hour cache as `simulate suggest` proposes it: only where the session's cache lives
/// less than an hour, only at Anthropic.
const HOUR_ONLY_LONGER: &str = "[[edit]]\nname = \"1-hour cache\"\ncache = { ttl_s = 3600, write = 2.0, only_longer = true, providers = [\"anthropic\"] }\n[[edit]]\nname = \"1-hour cache, everywhere\"\ncache = { ttl_s = 3600, write = 2.0 }\n";

#[test]
fn an_only_longer_anthropic_hour_cache_changes_only_the_sessions_it_would_help() {
    // The pause trace at 300 s: as above, 28,600 → 26,100, a saving of 2,500, with either
    // edit.
    let s = scenario(&format!("{PAUSE}{HOUR_ONLY_LONGER}"));
    let e = nominal(&s);
    close(e.baseline.cost, 28_600.0);
    close(e.edits[0].outcome.cost, 26_100.0);
    close(e.edits[0].cost_saving.saved, 2_500.0);
    close(e.edits[1].cost_saving.saved, 2_500.0);
    assert!(Study::new(&s).unwrap().edit_notes[0].is_empty());

    // A fitted lifetime of an hour, its writes at the 5-minute price: call 1 writes 10,000
    // (12,500), call 2 reads 10,000 over the pause and writes 1,000 (1,000 + 1,250), call 3
    // reads 11,000 and writes 1,000 (1,100 + 1,250): 17,100. The edit leaves it (saving 0,
    // said); the same terms everywhere would price its writes at 2 (26,100: −9,000).
    let s = scenario(&format!(
        "{}{HOUR_ONLY_LONGER}",
        PAUSE.replace("ttl_s = 300", "ttl_s = 3600")
    ));
    let e = nominal(&s);
    close(e.baseline.cost, 17_100.0);
    close(e.edits[0].outcome.cost, 17_100.0);
    close(e.edits[0].cost_saving.saved, 0.0);
    close(e.edits[1].cost_saving.saved, -9_000.0);
    let study = Study::new(&s).unwrap();
    assert_eq!(
        study.edit_notes[0],
        vec![
            "cache: the cache already lives 3,600 s, at least the edit's ttl_s = 3,600 (only_longer): the step changes nothing"
        ]
    );
    assert!(study.edited[0].whatif.is_none());
    // Longer still (7,200 s): never shortened; the same terms everywhere would shorten it.
    let s = scenario(&format!(
        "{}{HOUR_ONLY_LONGER}",
        PAUSE.replace("ttl_s = 300", "ttl_s = 7200")
    ));
    close(nominal(&s).edits[0].cost_saving.saved, 0.0);

    // At OpenAI (no write premium): 10,000, then 11,000 written again after the pause, then
    // 1,100 + 1,000: 23,100. The edit leaves it (said); everywhere, writes at 2 and an
    // hour's lifetime: 20,000 + 3,000 + 3,100 = 26,100 (−3,000).
    let openai = PAUSE.replace("write = 1.25", "write = 1.0").replace(
        "[price]",
        "[import]\nformat = \"codex\"\nfile = \"rollout.jsonl\"\nconvention = \"openai\"\n[price]",
    );
    let s = scenario(&format!("{openai}{HOUR_ONLY_LONGER}"));
    let e = nominal(&s);
    close(e.baseline.cost, 23_100.0);
    close(e.edits[0].cost_saving.saved, 0.0);
    close(e.edits[1].cost_saving.saved, -3_000.0);
    assert_eq!(
        Study::new(&s).unwrap().edit_notes[0],
        vec![
            "cache: these calls ran on OpenAI's API (convention openai), which providers = [\"anthropic\"] leaves out: the step changes nothing"
        ]
    );
}

#[test]
fn only_longer_and_providers_are_checked_where_they_are_written() {
    let with = |edit: &str| format!("{PAUSE}[[edit]]\nname = \"e\"\n{edit}\n");
    let e = error(&with("cache = { write = 2.0, only_longer = true }"));
    assert!(
        e.contains("cache.only_longer") && e.contains("add ttl_s"),
        "{e}"
    );
    let e = error(&with("cache = { ttl_s = 3600, only_longer = \"yes\" }"));
    assert!(
        e.contains("only_longer") && e.contains("true or false"),
        "{e}"
    );
    let e = error(&with(
        "cache = { ttl_s = 3600, providers = [\"Anthropic\"] }",
    ));
    assert!(
        e.contains("cache.providers")
            && e.contains("\"Anthropic\" is not a provider: give anthropic or openai"),
        "{e}"
    );
    let e = error(&with("cache = { ttl_s = 3600, providers = [] }"));
    assert!(e.contains("providers = [] changes no run"), "{e}");
    let e = error(&with(
        "cache = { ttl_s = 3600, providers = [\"openai\", \"openai\"] }",
    ));
    assert!(e.contains("names openai twice"), "{e}");
    let e = error(&with(
        "cache = { retention = \"24h\", providers = [\"openai\"] }",
    ));
    assert!(e.contains("give it without providers"), "{e}");
    // Written by hand, a scenario names no provider: it takes the edit.
    let s = scenario(&with(
        "cache = { ttl_s = 3600, write = 2.0, providers = [\"openai\"] }",
    ));
    close(nominal(&s).edits[0].cost_saving.saved, 2_500.0);
}

#[test]
fn a_model_edit_prices_with_the_targets_terms_and_minimum() {
    // Sonnet 4.5 (min 1,024, $3/M) to Haiku 4.5 (min 4,096, $1/M): B = 3,000, calls of
    // 1,000 bytes read 3,000, 4,000 and 5,000. Sonnet: write 3,000 (3,750), read 3,000 and
    // write 1,000 (1,550), read 4,000 and write 1,000 (1,650): 6,950. Haiku: the first two
    // requests are under its minimum and billed as plain input (3,000 + 4,000); the third
    // finds nothing cached (the previous request was too short) and writes 5,000 (6,250):
    // 13,250 of Haiku's input tokens, a third of the price: 4,416.67 of Sonnet's.
    let text = PAUSE
        .replace("base_tokens = 10000", "base_tokens = 3000")
        .replace("gap_s = 600\n", "")
        .replace(
            "read = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024",
            "preset = \"claude-sonnet-4-5\"",
        )
        .replace(
            "input = 3.0\noutput = 15.0\nsource = \"list price, for the test\"",
            "model = \"claude-sonnet-4-5\"",
        );
    let s = scenario(&format!(
        "{text}[[edit]]\nname = \"haiku\"\nmodel = {{ to = \"claude-haiku-4-5\" }}\n"
    ));
    let e = nominal(&s);
    close(e.baseline.cost, 6_950.0);
    close(e.edits[0].outcome.cost, 13_250.0 / 3.0);
    close(e.edits[0].cost_saving.saved, 6_950.0 - 13_250.0 / 3.0);
    close(e.baseline.dollars.unwrap(), 6_950.0 * 3.0 / 1e6);
    close(e.edits[0].outcome.dollars.unwrap(), 13_250.0 * 1.0 / 1e6);
    let study = Study::new(&s).unwrap();
    let report = simulate::report::WhatIfReport::of(&study, &study.edited[0]).unwrap();
    assert_eq!(report.priced_as.as_deref(), Some("claude-haiku-4-5"));
    assert!(
        report
            .lines
            .iter()
            .any(|l| l.contains("not the model's behaviour")),
        "{:?}",
        report.lines
    );
    assert_eq!(report.cache.as_ref().map(|c| c.min_tokens), Some(4096.0));
}

#[test]
fn a_subagent_only_cache_edit_changes_the_subagent_session_and_names_the_other() {
    // Two sessions with the pause trace above, one main and one subagent. The 1-hour cache
    // for subagents saves 28,600 − 26,100 = 2,500 in the subagent session and nothing in
    // the main one, which is named; dropping the 4,000-token GitHub part saves 3 × 4,000
    // tokens in each, and in cost (B = 6,000: 7,500 + 8,750 + 700 + 1,250 = 18,200)
    // 10,400 each; its one GitHub call in each session is named.
    let out = tempfile::tempdir().unwrap();
    let output = assert_cmd::Command::cargo_bin("simulate")
        .unwrap()
        .args([
            "history",
            "tests/fixtures/whatif/history",
            "--edits",
            "tests/fixtures/whatif/edits.toml",
            "--name",
            "h",
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(
        table.contains("1-hour cache for subagents: leaves 1 of 2 sessions unchanged, whose trace kind its traces leave out: session-main"),
        "{table}"
    );
    assert!(
        table.contains("drops mcp:github: 2 calls in 2 of 2 sessions use mcp:github's tools; they would need another way: session-main (1), session-subagent (1)"),
        "{table}"
    );
    let dir = out.path().join("h");
    let summary = rows(&dir.join("summary.csv"));
    let cost = |edit: &str| -> f64 {
        summary.iter().find(|r| r["edit"] == edit).unwrap()["cost_saved"]
            .parse()
            .unwrap()
    };
    assert_eq!(cost("1-hour cache for subagents"), 2_500.0);
    assert_eq!(cost("drop the GitHub MCP server"), 2.0 * 10_400.0);
    let whatif = rows(&dir.join("whatif.csv"));
    let cell = |session: &str, edit: &str, column: &str| {
        whatif
            .iter()
            .find(|r| r["session"] == session && r["edit"] == edit)
            .unwrap()[column]
            .clone()
    };
    assert_eq!(
        cell(
            "session-main",
            "1-hour cache for subagents",
            "trace_unchanged"
        ),
        "true"
    );
    assert_eq!(
        cell(
            "session-subagent",
            "1-hour cache for subagents",
            "trace_unchanged"
        ),
        "false"
    );
    assert_eq!(
        cell(
            "session-subagent",
            "1-hour cache for subagents",
            "cache_ttl_s"
        ),
        "3600.0"
    );
    assert_eq!(
        cell("session-main", "drop the GitHub MCP server", "call_ids"),
        "b"
    );
    // The JSON names the sessions too.
    let json = assert_cmd::Command::cargo_bin("simulate")
        .unwrap()
        .args([
            "history",
            "tests/fixtures/whatif/history",
            "--edits",
            "tests/fixtures/whatif/edits.toml",
            "--no-write",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let cache = report["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "1-hour cache for subagents")
        .unwrap();
    assert_eq!(cache["what_if"]["trace_unchanged"][0], "session-main");
    // Neither counts as a rule that selected nothing.
    assert_eq!(cache["sessions_selected_nothing"], 0);
}

/// The error loading `toml`, as text.
fn error(toml: &str) -> String {
    load_str(toml, Path::new("test.toml"))
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_what_if_keys_are_errors_that_say_what_would_be_valid() {
    let with = |edit: &str| format!("{THREE_KB}[[edit]]\nname = \"e\"\n{edit}\n");
    let e = error(&with("cache = { traces = [\"main\"] }"));
    assert!(e.contains("the cache edit changes no term"), "{e}");
    let e = error(&with("cache = { traces = [\"mains\"], ttl_s = 3600 }"));
    assert!(e.contains("\"mains\" is not a trace kind"), "{e}");
    let e = error(&with("cache = { preset = \"claude-sonet-4-5-1h\" }"));
    assert!(e.contains("did you mean \"claude-sonnet-4-5-1h\"?"), "{e}");
    let e = error(&with("cache = { read = 0.5, write = 0.2 }"));
    assert!(e.contains("write = 0.2 is below read = 0.5"), "{e}");
    let e = error(&with("model = { to = \"claude-sonet-4-6\" }"));
    assert!(e.contains("did you mean \"claude-sonnet-4-6\"?"), "{e}");
    // A short name gets the models that contain it, shortest first.
    let e = error(&with("model = { to = \"haiku\" }"));
    assert!(
        e.contains(
            "names with \"haiku\" in them: claude-3-haiku, claude-3-5-haiku, claude-haiku-4-5, …"
        ),
        "{e}"
    );
    let e = error(&with(
        "model = { to = \"claude-sonnet-4-6\", tokens_factor = 30 }",
    ));
    assert!(e.contains("30 is outside 0.1 to 10"), "{e}");
    // As small a factor is as far from any tokenizer, and would make ρ ÷ factor infinite.
    let e = error(&with(
        "model = { to = \"claude-sonnet-4-6\", tokens_factor = 1e-300 }",
    ));
    assert!(e.contains("1e-300 is outside 0.1 to 10"), "{e}");
    let e = error(&with("model = { tokens_factor = 1.3 }"));
    assert!(e.contains("missing key `to`"), "{e}");
    let e = error(&with("base = { defer = \"mcp:github\" }"));
    assert!(e.contains("missing key `stub_tokens`"), "{e}");
    let e = error(&with("base = { drop = \"mcp:github\", stub_tokens = 3 }"));
    assert!(e.contains("a dropped part leaves nothing"), "{e}");
    let e = error(&with("base = { drop = \"mcp:github\", by_tokens = 3 }"));
    assert!(e.contains("not both; put both in steps"), "{e}");
    let e = error(&with(
        "cache = { ttl_s = 3600 }\nmodel = { to = \"claude-sonnet-4-6\" }",
    ));
    assert!(e.contains("the edit has 2 actions (cache, model)"), "{e}");
}

#[test]
fn base_parts_are_sized_by_tokens_definitions_or_a_published_figure() {
    let part = |table: &str| {
        format!(
            "{}[[base.part]]\nname = \"p\"\n{table}\n",
            THREE_KB.replace("base_tokens = 1000", "base_tokens = 30000")
        )
    };
    let s = scenario(&part("published = \"github\""));
    let p = &s.base_parts[0];
    assert_eq!(p.tokens, 26_000.0);
    assert!(
        p.source.starts_with("estimated: Anthropic Engineering"),
        "{}",
        p.source
    );
    assert!(p.serves("mcp__github__create_issue") && !p.serves("Read"));
    let s = scenario(&part(
        "definitions = 10\ntools = [\"mcp__x__*\"]\n[terms]\ntokens_per_loaded_tool = 1400\ntokens_per_loaded_tool_source = \"fitted (for the test)\"",
    ));
    assert_eq!(s.base_parts[0].tokens, 14_000.0);
    assert!(
        s.base_parts[0].source.contains(
            "10 definitions × 1,400 tokens per loaded definition (fitted (for the test))"
        ),
        "{}",
        s.base_parts[0].source
    );
    let e = error(&part("definitions = 10\ntools = []"));
    assert!(
        e.contains("[terms] tokens_per_loaded_tool, which this scenario does not give"),
        "{e}"
    );
    let e = error(&part("tokens = 40000\ntools = []"));
    assert!(
        e.contains("the base parts add up to 40,000 tokens, more than base_tokens = 30,000"),
        "{e}"
    );
    let e = error(&part("tokens = 400"));
    assert!(e.contains("missing key `tools`"), "{e}");
    let e = error(&part("published = \"gitlab\""));
    assert!(e.contains("no published figure for \"gitlab\""), "{e}");
    let e = error(&part("tokens = 400\npublished = \"github\""));
    assert!(e.contains("give exactly one size"), "{e}");
}

#[test]
fn a_step_that_finds_nothing_to_change_is_noted_not_an_error() {
    // No [cache] to change, no part of that name, a deferred part no call uses.
    let s = scenario(&format!(
        "{}[[base.part]]\nname = \"mcp:slack\"\ntokens = 500\ntools = [\"mcp__slack__*\"]\n[[edit]]\nname = \"1h\"\ncache = {{ ttl_s = 3600, write = 2.0 }}\n[[edit]]\nname = \"typo\"\nbase = {{ drop = \"mcp:gihub\" }}\n[[edit]]\nname = \"defer slack\"\nbase = {{ defer = \"mcp:slack\", stub_tokens = 100 }}\n",
        THREE_KB
    ));
    let study = Study::new(&s).unwrap();
    assert_eq!(
        study.edit_notes[0],
        vec![
            "cache: the scenario has no [cache] (its cost is flat), so there are no cache terms to change: the step changes nothing"
        ]
    );
    assert_eq!(
        study.edit_notes[1],
        vec![
            "base: no [[base.part]] named \"mcp:gihub\" in this scenario (its parts: mcp:slack): the step changes nothing"
        ]
    );
    let e = nominal(&s);
    close(e.edits[0].saving.saved, 0.0);
    close(e.edits[1].saving.saved, 0.0);
    // Never used, the deferred part never loads: 3 × (500 − 100) saved, no tool search.
    close(e.edits[2].saving.saved, 1_200.0);
    assert!(study.edited[2].whatif.searches.is_empty());
    assert_eq!(e.edits[2].outcome.calls, 3);
}

#[test]
fn the_shipped_example_says_what_each_what_if_changes_in_every_output() {
    let out = tempfile::tempdir().unwrap();
    let output = assert_cmd::Command::cargo_bin("simulate")
        .unwrap()
        .args(["scenarios/whatif.toml", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(
        table.contains("Haiku 4.5 (priced as claude-haiku-4-5)"),
        "{table}"
    );
    assert!(table.contains("not the model's behaviour"), "{table}");
    assert!(
        table.contains("2 calls use mcp:github's tools (mcp__github__create_pull_request, mcp__github__add_issue_comment): open-pr, comment; they would need another way"),
        "{table}"
    );
    let dir = out.path().join("whatif");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("What the what-if edits change"));
    assert!(
        html.contains("not the model&#39;s behaviour")
            || html.contains("not the model's behaviour")
    );
    let whatif = rows(&dir.join("whatif.csv"));
    let defer = whatif
        .iter()
        .find(|r| r["edit"] == "defer the GitHub MCP server")
        .unwrap();
    assert_eq!(defer["tool_searches"], "1");
    assert_eq!(defer["call_ids"], "open-pr comment");
    // ledger.csv: the tool search has a row of its own, before the call it precedes.
    let ledger = std::fs::read_to_string(dir.join("ledger.csv")).unwrap();
    assert!(
        ledger.contains("defer the GitHub MCP server,13,open-pr,tool search: loads mcp:github,"),
        "{ledger}"
    );
    let json = assert_cmd::Command::cargo_bin("simulate")
        .unwrap()
        .args(["scenarios/whatif.toml", "--no-write", "--format", "json"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let haiku = report["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "Haiku 4.5")
        .unwrap();
    assert_eq!(haiku["what_if"]["priced_as"], "claude-haiku-4-5");
    assert_eq!(haiku["what_if"]["cache"]["min_tokens"], 4096.0);
    // Edits without a what-if step carry no what_if key at all: other runs' JSON is as it was.
    let json = assert_cmd::Command::cargo_bin("simulate")
        .unwrap()
        .args(["scenarios/merge.toml", "--no-write", "--format", "json"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&json.stdout).contains("what_if"));
}

/// docs/model.md §9's worked example of `cache = { avoid = [...] }`.
const AVOID: &str = r#"
name = "avoid"
base_tokens = 1000
bytes_per_token = 1.0
[cache]
read = 0.1
write = 1.25
ttl_s = 300
min_tokens = 0
miss_share = 0.5
[[call]]
id = "a"
bytes = 1000
[[call]]
id = "b"
bytes = 1000
[[call]]
id = "c"
bytes = 1000
gap_s = 400
[[call]]
id = "d"
bytes = 1000
[[edit]]
name = "no ttl breaks"
cache = { avoid = ["ttl"] }
[[edit]]
name = "no ttl, cold or in-lifetime breaks"
cache = { avoid = ["ttl", "cold", "unexplained"] }
"#;

#[test]
fn avoiding_break_classes_prices_the_run_as_if_they_had_not_happened() {
    let s = scenario(AVOID);
    // Contexts 1,000, 2,000, 3,000, 4,000. μ = 0.5 prices a token the cache would read at
    // 0.5·0.1 + 0.5·1.25 = 0.675. Baseline: call a writes 1,000 (1,250); b reads 1,000 and
    // writes 1,000 (675 + 1,250); the 400 s pause expires the prefix, c writes 3,000
    // (3,750); d reads 3,000 and writes 1,000 (2,025 + 1,250): 10,200.
    let e = nominal(&s);
    close(e.baseline.cost, 1_250.0 + 1_925.0 + 3_750.0 + 3_275.0);
    // avoid ttl: c reads 2,000 and writes 1,000 (1,350 + 1,250): 9,050.
    close(
        e.edits[0].outcome.cost,
        1_250.0 + 1_925.0 + 2_600.0 + 3_275.0,
    );
    // avoid ttl, cold and unexplained: μ = 0 and the first request reads all of B: a
    // reads 1,000 (100), b 100 + 1,250, c 200 + 1,250, d 300 + 1,250: 4,450.
    close(e.edits[1].outcome.cost, 100.0 + 1_350.0 + 1_450.0 + 1_550.0);
    // The reread total is untouched: avoid changes the cache, never the calls.
    close(e.edits[1].outcome.total_tokens, e.baseline.total_tokens);
}

#[test]
fn avoid_names_break_classes_only_and_not_model() {
    for (avoid, says) in [
        ("[\"model\"]", "move the calls with a `model` edit instead"),
        (
            "[\"late\"]",
            "use one of ttl, compaction, edit, tools, resume, cold, provider, unexplained",
        ),
        ("[\"ttl\", \"ttl\"]", "\"ttl\" is named twice"),
        ("[]", "avoid names no class"),
    ] {
        let text = AVOID.replace(
            "cache = { avoid = [\"ttl\"] }",
            &format!("cache = {{ avoid = {avoid} }}"),
        );
        let e = load_str(&text, Path::new("test.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(says), "{avoid}: {e}");
    }
}
