//! The worked examples of MODEL.md §4 and §9 (and docs/model.md §9's cache example), exact,
//! through the binary as a user runs it: the JSON report's totals and `ledger.csv`'s
//! request-by-request contexts, so they hold whatever the engine's internals become.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// The report and the ledger rows (each a map from column to text) of a scenario.
fn run(toml: &str) -> (Value, Vec<HashMap<String, String>>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("example.toml");
    std::fs::write(&path, toml).unwrap();
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_simulate"))
        .arg(&path)
        .args(["--format", "json", "--no-charts", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let name = json["scenario"].as_str().unwrap().to_string();
    (json, ledger(&out.join(name).join("ledger.csv")))
}

fn ledger(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

/// Column `col` of the ledger rows of `edit`, as numbers.
fn column(rows: &[HashMap<String, String>], edit: &str, col: &str) -> Vec<f64> {
    rows.iter()
        .filter(|r| r["edit"] == edit)
        .map(|r| r[col].parse().unwrap())
        .collect()
}

fn edit<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// `n` calls `c1…` of `bytes` each at B = `base`, ρ = 1, with `extra` TOML after the header
/// and `edits` at the end.
fn uniform(n: usize, bytes: u64, base: u64, extra: &str, edits: &str) -> String {
    let mut s =
        format!("name = \"example\"\nbase_tokens = {base}\nbytes_per_token = 1.0\n{extra}\n");
    for i in 1..=n {
        s.push_str(&format!("[[call]]\nid = \"c{i}\"\nbytes = {bytes}\n"));
    }
    s + edits
}

/// MODEL §9: five calls of 1,000 bytes, B = 1,000, ρ = 1, `compact = {
/// above_context_tokens = 3500, summary_tokens = 200 }`: the calls read 1,000, 2,000,
/// 3,000; before call 4 (4,000 > 3,500) the compaction reads 4,000; call 4 reads 1,200,
/// call 5 2,200. T = 13,400 against 15,000.
#[test]
fn model_9_compaction_reads_13_400_against_15_000() {
    let (json, rows) = run(&uniform(
        5,
        1_000,
        1_000,
        "",
        "[[edit]]\nname = \"compact\"\ncompact = { above_context_tokens = 3500, summary_tokens = 200 }\n",
    ));
    close(num(&json["baseline"]["total_tokens"]), 15_000.0);
    let e = edit(&json, "compact");
    close(num(&e["total_tokens"]), 13_400.0);
    close(num(&e["saved_tokens"]), 1_600.0);
    assert_eq!(e["calls"], 6);
    assert_eq!(
        column(&rows, "compact", "context_tokens"),
        [1_000.0, 2_000.0, 3_000.0, 4_000.0, 1_200.0, 2_200.0]
    );
    let events = e["events"].as_array().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["before_call"], 4);
    assert_eq!(events[0]["cleared"], serde_json::json!(["c1", "c2", "c3"]));
    // The summary replaces the three results: 3,000 − 200.
    close(num(&events[0]["freed_tokens"]), 2_800.0);
}

/// MODEL §9 (corrected, stateless): six tool calls of 2,000 bytes, B = 1,000, ρ = 1,
/// `clear = { api = "clear_tool_uses_20250919", trigger_input_tokens = 6000,
/// keep_tool_uses = 1 }`: the calls read 1,000, 3,000, 5,000, then 3,018 (1–2 cleared),
/// 3,027 (1–3 cleared), 3,036 (1–4 cleared). T = 18,081 against 36,000.
#[test]
fn model_9_context_editing_reads_18_081_against_36_000() {
    let (json, rows) = run(&uniform(
        6,
        2_000,
        1_000,
        "",
        "[[edit]]\nname = \"context editing\"\nclear = { api = \"clear_tool_uses_20250919\", trigger_input_tokens = 6000, keep_tool_uses = 1 }\n",
    ));
    close(num(&json["baseline"]["total_tokens"]), 36_000.0);
    let e = edit(&json, "context editing");
    close(num(&e["total_tokens"]), 18_081.0);
    assert_eq!(
        column(&rows, "context editing", "context_tokens"),
        [1_000.0, 3_000.0, 5_000.0, 3_018.0, 3_027.0, 3_036.0]
    );
}

/// MODEL §9: `model = { to = <same model>, tokens_factor = 1.3 }` on three calls of 1,000
/// bytes (ρ = 1, B = 1,000): T = 1,000 + 2,300 + 3,600 = 6,900 against 6,000, a saving of
/// −900.
#[test]
fn model_9_tokens_factor_reads_6_900_against_6_000() {
    let (json, rows) = run(&uniform(
        3,
        1_000,
        1_000,
        "[price]\nmodel = \"claude-sonnet-4-5\"",
        "[[edit]]\nname = \"tokenizer\"\nmodel = { to = \"claude-sonnet-4-5\", tokens_factor = 1.3 }\n",
    ));
    close(num(&json["baseline"]["total_tokens"]), 6_000.0);
    let e = edit(&json, "tokenizer");
    close(num(&e["total_tokens"]), 6_900.0);
    close(num(&e["saved_tokens"]), -900.0);
    let contexts = column(&rows, "tokenizer", "context_tokens");
    assert_eq!(contexts.len(), 3);
    for (a, b) in contexts.iter().zip([1_000.0, 2_300.0, 3_600.0]) {
        close(*a, b);
    }
}

/// MODEL §9, base parts: ρ = 1, B = 30,000 of which the part is 20,000, stub 0; calls
/// `Read`, `mcp__github__x`, `Read` of 100 bytes. Deferred: 10,000, then the tool search
/// 10,100, then 30,100 and 30,200: T = 80,400 against 90,300. Dropped (docs/model.md §9):
/// 30,300.
#[test]
fn model_9_deferred_part_reads_80_400_against_90_300() {
    let toml = r#"
name = "defer"
base_tokens = 30000
bytes_per_token = 1.0

[[base.part]]
name = "mcp:github"
tokens = 20000
source = "MODEL.md §9 example"
tools = ["mcp__github__*"]

[[call]]
id = "read-1"
tool = "Read"
bytes = 100

[[call]]
id = "gh"
tool = "mcp__github__x"
bytes = 100

[[call]]
id = "read-2"
tool = "Read"
bytes = 100

[[edit]]
name = "defer"
base = { defer = "mcp:github", stub_tokens = 0 }

[[edit]]
name = "drop"
base = { drop = "mcp:github" }
"#;
    let (json, rows) = run(toml);
    close(num(&json["baseline"]["total_tokens"]), 90_300.0);
    let e = edit(&json, "defer");
    close(num(&e["total_tokens"]), 80_400.0);
    assert_eq!(e["calls"], 4);
    assert_eq!(
        column(&rows, "defer", "context_tokens"),
        [10_000.0, 10_100.0, 30_100.0, 30_200.0]
    );
    let labels: Vec<&str> = rows
        .iter()
        .filter(|r| r["edit"] == "defer")
        .map(|r| r["label"].as_str())
        .collect();
    assert_eq!(labels[1], "tool search: loads mcp:github");
    close(num(&edit(&json, "drop")["total_tokens"]), 30_300.0);
}

/// Three calls under a prompt cache (read 0.1, write 1.25, TTL 300 s, min 1,024), B = 2,000,
/// ρ = 1, output priced at $15 ÷ $3 = 5 input tokens (MODEL §4):
/// - call 1 reads 2,000, all written: 2,500, plus 100 output tokens × 5: 3,000;
/// - call 2 comes after a 400 s pause (past the TTL): 3,100 written: 3,875, plus 50 × 5:
///   4,125;
/// - call 3 reads 3,100 from the cache and writes 1,050: 310 + 1,312.5 = 1,622.5.
///
/// Cost 8,747.5 input-token equivalents; dollars 8,747.5 × $3 / 1e6 = $0.0262425. The same
/// with the output ratio given by hand (`[cache] output = 4`, no [price]): 7,997.5 + 600;
/// with neither, output is not priced: 7,997.5.
#[test]
fn model_4_cost_prices_output_at_the_output_over_input_ratio() {
    let calls = r#"
[[call]]
id = "a"
bytes = 1000
output_tokens = 100

[[call]]
id = "b"
bytes = 1000
gap_s = 400
output_tokens = 50

[[call]]
id = "c"
bytes = 500
"#;
    let cache = "[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n";
    let head = "name = \"output\"\nbase_tokens = 2000\nbytes_per_token = 1.0\n";
    let price = "[price]\ninput = 3.0\noutput = 15.0\nsource = \"MODEL §4 example\"\n";
    let (json, rows) = run(&format!("{head}{cache}{price}{calls}"));
    let b = &json["baseline"];
    close(num(&b["total_tokens"]), 2_000.0 + 3_100.0 + 4_150.0);
    close(num(&b["cost"]), 8_747.5);
    close(num(&b["dollars"]), 0.026_242_5);
    assert_eq!(
        column(&rows, "baseline", "cost"),
        [3_000.0, 4_125.0, 1_622.5]
    );
    assert_eq!(
        column(&rows, "baseline", "cached_tokens"),
        [0.0, 0.0, 3_100.0]
    );

    let (json, _) = run(&format!("{head}{cache}output = 4.0\n{calls}"));
    close(num(&json["baseline"]["cost"]), 8_597.5);
    assert!(json["baseline"]["dollars"].is_null());

    let (json, _) = run(&format!("{head}{cache}{calls}"));
    close(num(&json["baseline"]["cost"]), 7_997.5);
    assert!(
        json["cost_model"]
            .as_str()
            .unwrap()
            .contains("output tokens not priced"),
        "{}",
        json["cost_model"]
    );
}

/// MODEL §4, each call at its own model: B = 5,000, ρ = 1, four calls of 1,000 bytes, the
/// first and last at claude-sonnet-4-5 ($3 in, $15 out; cache read 0.1×, write 1.25×, min
/// 1,024), the middle two at claude-opus-4-5 ($5, $25; 0.1×, 1.25×, min 4,096), prices as
/// src/cache/litellm.json has them; [price] is Sonnet's (named), [cache] Sonnet's terms
/// given by hand. A request at
/// another model than the previous one finds nothing cached (MODEL §12's `model` break).
/// - call 1 (Sonnet) writes 5,000: 6,250 + 100 output × 5 = 6,750;
/// - call 2 (Opus) writes 6,100: 7,625 + 100 × 5 = 8,125 Opus input tokens, × 5/3 =
///   13,541.67 Sonnet ones;
/// - call 3 (Opus) reads 6,100 and writes 1,100: (610 + 1,375) × 5/3 = 3,308.33;
/// - call 4 (Sonnet) writes 8,200: 10,250.
///
/// Cost 33,850; dollars 33,850 × $3 / 1e6 = $0.10155.
#[test]
fn model_4_each_call_at_its_own_model() {
    let (json, rows) = run(TWO_MODELS);
    let b = &json["baseline"];
    close(
        num(&b["total_tokens"]),
        5_000.0 + 6_100.0 + 7_200.0 + 8_200.0,
    );
    close(num(&b["cost"]), 33_850.0);
    close(num(&b["dollars"]), 0.101_55);
    let cost = column(&rows, "baseline", "cost");
    for (a, b) in cost
        .iter()
        .zip([6_750.0, 40_625.0 / 3.0, 9_925.0 / 3.0, 10_250.0])
    {
        close(*a, b);
    }
}

/// The same with [price] given by hand too (Sonnet's $3 and $15): MODEL §4 prices each call
/// at its own model all the same ("its prices, cache terms (read, write, minimum) and output
/// ratio are that model's, not the trace's first"); the binary prices every call at the
/// scenario's terms when neither [price] nor [cache] names a model (cost 13,080).
#[test]
fn model_4_each_call_at_its_own_model_with_prices_given_by_hand() {
    let toml = TWO_MODELS.replace(
        "model = \"claude-sonnet-4-5\"\n\n[[call]]",
        "input = 3.0\noutput = 15.0\nsource = \"claude-sonnet-4-5 list price\"\n\n[[call]]",
    );
    assert_ne!(toml, TWO_MODELS);
    let (json, _) = run(&toml);
    close(num(&json["baseline"]["cost"]), 33_850.0);
    close(num(&json["baseline"]["dollars"]), 0.101_55);
}

/// The scenario of `model_4_each_call_at_its_own_model` (also run through the oracle,
/// tests/oracle.rs).
const TWO_MODELS: &str = include_str!("fixtures/oracle/two_models.toml");

/// docs/model.md §9's cache example: B = 10,000, ρ = 1, calls of 1,000 bytes, the second
/// after a 10-minute pause; read 0.1, write 1.25, TTL 300 s, min 1,024. Five minutes:
/// 12,500, 13,750, 1,100 + 1,250: 28,600. `cache = { ttl_s = 3600, write = 2.0 }`: 20,000,
/// 1,000 + 2,000, 1,100 + 2,000: 26,100, a saving of 2,500.
#[test]
fn docs_9_one_hour_cache_costs_26_100_against_28_600() {
    let toml = r#"
name = "hour"
base_tokens = 10000
bytes_per_token = 1.0

[cache]
read = 0.1
write = 1.25
ttl_s = 300
min_tokens = 1024

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

[[edit]]
name = "1-hour cache"
cache = { ttl_s = 3600, write = 2.0 }
"#;
    let (json, _) = run(toml);
    close(num(&json["baseline"]["cost"]), 28_600.0);
    let e = edit(&json, "1-hour cache");
    close(num(&e["cost"]), 26_100.0);
    close(num(&e["cost_saved"]), 2_500.0);
    close(num(&e["saved_tokens"]), 0.0);
}

/// MODEL §11 on §9's compaction example, at `[behaviour] refetch = 0.5`: the compaction
/// before call 4 removes the results of calls 1–3; ⌈1/0.5⌉ = 2, so the second removed (c2)
/// is fetched again right after call 4: that call reads 1,200 + 1,000 = 2,200, then its
/// 1,000 join and call 5 reads 3,200. T = 16,600: the edit now costs 1,600 more than the
/// baseline's 15,000. At 0.25 (⌈1/0.25⌉ = 4 > 3 removed) nothing is fetched: 13,400 as at 0.
#[test]
fn model_11_refetch_after_a_compaction_reads_16_600_against_15_000() {
    let compact = "[[edit]]\nname = \"compact\"\ncompact = { above_context_tokens = 3500, summary_tokens = 200 }\n";
    let (json, rows) = run(&uniform(
        5,
        1_000,
        1_000,
        "[behaviour]\nrefetch = 0.5\n",
        compact,
    ));
    close(num(&json["baseline"]["total_tokens"]), 15_000.0);
    let e = edit(&json, "compact");
    close(num(&e["total_tokens"]), 16_600.0);
    close(num(&e["saved_tokens"]), -1_600.0);
    assert_eq!(e["calls"], 7);
    assert_eq!(
        column(&rows, "compact", "context_tokens"),
        [
            1_000.0, 2_000.0, 3_000.0, 4_000.0, 1_200.0, 2_200.0, 3_200.0
        ]
    );
    let (json, _) = run(&uniform(
        5,
        1_000,
        1_000,
        "[behaviour]\nrefetch = 0.25\n",
        compact,
    ));
    close(num(&edit(&json, "compact")["total_tokens"]), 13_400.0);
}
