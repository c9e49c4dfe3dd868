//! Prices at import and run: a log's model id finds its entry in the price data (a
//! Bedrock regional profile, a Vertex AI id); a model the data lacks, or lacks cache terms
//! of, is a warning naming it and what is missing, and a run of its scenario says why its
//! cost is flat.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use serde_json::{Value, json};
use std::fs;
use std::path::Path;

const MODELS: &str = "tests/fixtures/import/models";

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// Imports the fixture: the JSON report and stderr.
fn import(out: &Path) -> (Value, String) {
    let assert = simulate()
        .args(["import", "claude-code", MODELS, "--format", "json", "--out"])
        .arg(out)
        .assert()
        .success();
    let o = assert.get_output();
    (
        serde_json::from_slice(&o.stdout).unwrap(),
        String::from_utf8(o.stderr.clone()).unwrap(),
    )
}

fn scenario(out: &Path, name: &str) -> toml::Table {
    toml::from_str(&fs::read_to_string(out.join(format!("{name}.toml"))).unwrap()).unwrap()
}

/// `(preset, price model)` as the importer wrote them.
fn priced(s: &toml::Table) -> (Option<&str>, Option<&str>) {
    (
        s.get("cache").and_then(|c| c["preset"].as_str()),
        s.get("price").and_then(|p| p["model"].as_str()),
    )
}

fn run(path: &Path) -> String {
    let assert = simulate().arg(path).arg("--no-write").assert().success();
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

fn line<'a>(text: &'a str, starts: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(starts))
        .unwrap_or_else(|| panic!("no line starting {starts:?} in {text}"))
        .trim_start()
}

const DATA: &str = "the price data (LiteLLM 1.110.2 and its overlay in src/cache/)";

#[test]
fn import_names_every_model_it_cannot_price_and_what_is_missing() {
    let out = tempfile::tempdir().unwrap();
    let (report, stderr) = import(out.path());
    let warnings: Vec<Value> = report["model_warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            json!([
                w["model"],
                w["priced_as"],
                w["missing"],
                w["scenarios"],
                w["some_calls_of"]
            ])
        })
        .collect();
    assert_eq!(
        warnings,
        [
            json!([
                "claude-fable-9",
                null,
                ["prices", "cache terms"],
                ["shop-a1a1a1a1"],
                []
            ]),
            json!([
                "claude-mystery-mini",
                null,
                ["prices", "cache terms"],
                [],
                ["shop-b2b2b2b2"]
            ]),
            json!([
                "claude-3-haiku@20240307",
                "vertex_ai/claude-3-haiku",
                [
                    "cache read price",
                    "cache write price",
                    "minimum cacheable tokens"
                ],
                ["shop-c3c3c3c3"],
                []
            ]),
            json!([
                "apac.anthropic.claude-haiku-4-5-20251001-v1:0",
                "apac.anthropic.claude-haiku-4-5-20251001-v1:0",
                ["1-hour cache write price"],
                ["shop-d4d4d4d4"],
                []
            ]),
        ]
    );
    // Each is a line of its own on stderr, as the JSON gives it.
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    for (l, w) in lines
        .iter()
        .zip(report["model_warnings"].as_array().unwrap())
    {
        assert_eq!(*l, format!("warning: {}", w["message"].as_str().unwrap()));
    }
    assert_eq!(
        lines[0],
        format!(
            "warning: model \"claude-fable-9\" is not in {DATA}: no prices and no prompt-cache terms, so no [cache] or [price] was written and the cost of shop-a1a1a1a1 is flat (every input token costs 1), with no dollars; give [cache] and [price] in the scenario, or give the model's prices in a file named by the SIMULATE_PRICES environment variable (docs/overview.md, Prices of your own)"
        )
    );

    // What was written: nothing for the unknown model; the Japan profile's own 1-hour
    // terms for the Bedrock Converse id; Vertex AI's prices without cache terms; the
    // 5-minute preset where the 1-hour write price is missing.
    let o = out.path();
    assert_eq!(priced(&scenario(o, "shop-a1a1a1a1")), (None, None));
    let jp = "jp.anthropic.claude-haiku-4-5-20251001-v1:0";
    assert_eq!(
        priced(&scenario(o, "shop-b2b2b2b2")),
        (Some(format!("{jp}-1h").as_str()), Some(jp))
    );
    assert_eq!(
        priced(&scenario(o, "shop-c3c3c3c3")),
        (None, Some("vertex_ai/claude-3-haiku"))
    );
    let apac = "apac.anthropic.claude-haiku-4-5-20251001-v1:0";
    assert_eq!(
        priced(&scenario(o, "shop-d4d4d4d4")),
        (Some(apac), Some(apac))
    );
}

#[test]
fn a_run_says_why_its_cost_is_flat_and_prices_a_regional_profile_at_its_own_price() {
    let out = tempfile::tempdir().unwrap();
    import(out.path());
    let o = out.path();

    let unknown = run(&o.join("shop-a1a1a1a1.toml"));
    assert_eq!(
        line(&unknown, "cost  "),
        format!(
            "cost             flat, because the log's model \"claude-fable-9\" is unknown to {DATA}: every input token costs 1 (no [cache]); cost in input-token equivalents"
        )
    );
    assert_eq!(
        line(&unknown, "dollars"),
        "dollars     — (no price data for claude-fable-9: dollars not computed)"
    );

    let vertex = run(&o.join("shop-c3c3c3c3.toml"));
    assert_eq!(
        line(&vertex, "cost  "),
        format!(
            "cost             no prompt cache, because {DATA} has no cache read price, cache write price and minimum cacheable tokens for the log's model \"claude-3-haiku@20240307\" (\"vertex_ai/claude-3-haiku\"): every input token costs 1; output tokens at 5 input tokens each (the output price over the input price); cost in input-token equivalents"
        )
    );
    assert_eq!(
        line(&vertex, "dollars"),
        format!(
            "dollars     — (no cache prices for vertex_ai/claude-3-haiku in {DATA}: dollars not computed)"
        )
    );

    // The Japan profile: 10 % above the list price, the 1-hour cache, Haiku 4.5's minimum.
    let jp = run(&o.join("shop-b2b2b2b2.toml"));
    assert!(
        line(&jp, "cost  ").starts_with(
            "cost             prompt cache: read 0.1×, write 2×, TTL 3,600 s, min 4,096 tokens (shorter requests are billed as plain input); preset jp.anthropic.claude-haiku-4-5-20251001-v1:0-1h; output tokens at 5 input tokens each"
        ),
        "{jp}"
    );
    assert!(
        line(&jp, "price  ") == "price            $1.1/M input tokens, $5.5/M output tokens",
        "{jp}"
    );
    // The source is said once, in its own line.
    assert!(
        line(&jp, "sources  ").starts_with("sources          prices: jp.anthropic.claude-haiku-4-5-20251001-v1:0 list price: LiteLLM 1.110.2 price data"),
        "{jp}"
    );
    assert_eq!(jp.matches("LiteLLM 1.110.2 price data").count(), 1, "{jp}");
    // The 1-hour preset says where its own write price and lifetime come from.
    assert!(
        line(&jp, "sources  ").contains("the 1-hour cache: write price from the price data's 1-hour cache write entry (cache_creation_input_token_cost_above_1hr), lifetime 3,600 s"),
        "{jp}"
    );
}
