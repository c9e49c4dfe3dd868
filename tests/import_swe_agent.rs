//! `simulate import swe-agent`: SWE-agent's `*.traj`, which measures no request, only the
//! run's totals. The fixtures are hand-made in the format's shape
//! (`tests/fixtures/import/swe-agent/make.py` writes them and prints the figures held
//! here): `runs/` has 1.1's `query` on each step, `old/` the older `messages`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::Value;
use std::fs;
use std::path::Path;
use support::simulate;

const SWE: &str = "tests/fixtures/import/swe-agent";
const RHO: f64 = 3.3;

fn import_json(args: &[&str], out: &Path) -> Value {
    let assert = simulate()
        .args(["import", "swe-agent"])
        .args(args)
        .arg("--out")
        .arg(out)
        .args(["--format", "json"])
        .assert()
        .success();
    serde_json::from_slice(&assert.get_output().stdout).unwrap()
}

fn scenario(out: &Path, name: &str) -> toml::Table {
    let text = fs::read_to_string(out.join(format!("{name}.toml"))).unwrap();
    toml::from_str(&text).unwrap()
}

fn calls(s: &toml::Table) -> &Vec<toml::Value> {
    s["call"].as_array().unwrap()
}

fn ints(s: &toml::Table, key: &str) -> Vec<Option<i64>> {
    calls(s)
        .iter()
        .map(|c| c.get(key).and_then(toml::Value::as_integer))
        .collect()
}

fn strs<'a>(s: &'a toml::Table, key: &str) -> Vec<Option<&'a str>> {
    calls(s)
        .iter()
        .map(|c| c.get(key).and_then(toml::Value::as_str))
        .collect()
}

fn trace<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap()
}

#[test]
fn each_step_is_a_call_with_its_bytes_and_no_measured_usage() {
    let out = tempfile::tempdir().unwrap();
    let report = import_json(&[SWE], out.path());
    assert_eq!(report["format"], "swe-agent");
    assert_eq!(report["traces"].as_array().unwrap().len(), 2);

    // 1.1+ (`query`): four steps.
    let s = scenario(out.path(), "demo__calc-1");
    assert_eq!(
        strs(&s, "id"),
        ["step-1", "step-2", "step-3", "step-4"].map(Some)
    );
    assert_eq!(
        strs(&s, "label"),
        ["find_file: calc.py", "open: calc.py", "edit: 2:2", "submit"].map(Some)
    );
    assert_eq!(
        strs(&s, "tool"),
        ["find_file", "open", "edit", "submit"].map(Some)
    );
    assert_eq!(strs(&s, "kind"), [Some("tool"); 4]);
    // The observation's bytes join after the step; the reply joins as output_bytes.
    assert_eq!(ints(&s, "bytes"), [54, 74, 34, 67].map(Some));
    assert_eq!(ints(&s, "output_bytes"), [49, 41, 68, 29].map(Some));
    // Unknown per call: neither output_tokens nor [call.measured] is written.
    assert_eq!(ints(&s, "output_tokens"), [None; 4]);
    assert!(calls(&s).iter().all(|c| c.get("measured").is_none()));
    // B: the system prompt and the task, 128 bytes ÷ 3.3 = 38.8 → 39.
    assert_eq!(s["base_tokens"].as_integer(), Some(39));
    assert!(
        s["base_tokens_source"]
            .as_str()
            .unwrap()
            .starts_with("estimated: the system prompt and first user message, 128 bytes ÷ the assumed bytes_per_token 3.3")
    );
    let i = &s["import"];
    assert_eq!(i["format"].as_str(), Some("swe-agent"));
    assert_eq!(i["requests"].as_integer(), Some(4));
    assert_eq!(i["model"].as_str(), Some("gpt-4o-mini"));
    assert_eq!(i["tokens_sent"].as_integer(), Some(1500));
    assert_eq!(i["tokens_received"].as_integer(), Some(210));
    assert_eq!(i["api_calls"].as_integer(), Some(5));
    assert_eq!(i["instance_cost_usd"].as_float(), Some(0.0123));

    // Before 1.1.0 (`messages`), on one line: three steps.
    let s = scenario(out.path(), "demo__hello-1");
    assert_eq!(
        strs(&s, "label"),
        ["search_dir: greet", "open: hello.py", "submit"].map(Some)
    );
    assert_eq!(ints(&s, "bytes"), [17, 16, 5].map(Some));
    assert_eq!(ints(&s, "output_bytes"), [39, 31, 23].map(Some));
    // 46 bytes ÷ 3.3 = 13.9 → 14.
    assert_eq!(s["base_tokens"].as_integer(), Some(14));
    assert_eq!(s["import"]["api_calls"].as_integer(), Some(3));
    assert!(s["import"].get("model").is_none());

    // The summary: no usage sums (null, not 0), the run's totals, and the simulated input
    // beside tokens_sent. Call k's input is B + what joined before it ÷ ρ.
    let t = trace(&report, "demo__calc-1");
    assert!(t["usage"].is_null());
    assert_eq!(t["run_totals"]["tokens_sent"], 1500);
    assert_eq!(t["run_totals"]["api_calls"], 5);
    assert_eq!(t["run_totals"]["base_bytes"], 128);
    assert_eq!(t["steps"], 4);
    let est =
        4.0 * 39.0 + ((54 + 49) + (54 + 49 + 74 + 41) + (54 + 49 + 74 + 41 + 34 + 68)) as f64 / RHO;
    let got = t["estimated_input_tokens"].as_f64().unwrap();
    assert!((got - est).abs() < 1e-9, "{got} vs {est}");
    let pct = t["input_difference_pct"].as_f64().unwrap();
    assert!(
        (pct - (est - 1500.0) / 1500.0 * 100.0).abs() < 1e-9,
        "{pct}"
    );
    let t = trace(&report, "demo__hello-1");
    let est = 3.0 * 14.0 + ((17 + 39) + (17 + 39 + 16 + 31)) as f64 / RHO;
    assert!((t["estimated_input_tokens"].as_f64().unwrap() - est).abs() < 1e-9);
    assert_eq!(t["steps"], 3);
}

#[test]
fn the_simulated_input_is_the_ledgers_and_the_table_sets_it_beside_tokens_sent() {
    let out = tempfile::tempdir().unwrap();
    let assert = simulate()
        .args(["import", "swe-agent", &format!("{SWE}/runs"), "--out"])
        .arg(out.path())
        .assert()
        .success();
    let text = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("  demo__calc-1: simulated 350 est. tokens over 4 steps; tokens_sent 1,500 over 5 api_calls; difference -76.7 % of tokens_sent; instance_cost $0.0123\n"),
        "{text}"
    );
    assert!(!text.contains("simulate fit"), "{text}");
    // The scenario's own ledger gives the same sum.
    let path = out.path().join("demo__calc-1.toml");
    let assert = simulate()
        .arg(&path)
        .args(["--out", "-"])
        .assert()
        .success();
    let ledger = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        ledger.contains("Baseline: reread total 350 est. tokens over 4 calls"),
        "{ledger}"
    );
}

#[test]
fn fit_says_there_is_nothing_to_fit_and_writes_the_scenarios() {
    let out = tempfile::tempdir().unwrap();
    let report = import_json(&[SWE, "--fit"], out.path());
    let fit = report["fit"].as_array().unwrap();
    assert_eq!(fit.len(), 2);
    for q in fit {
        assert_eq!(q["status"], "not fitted");
        assert!(
            q["reason"]
                .as_str()
                .unwrap()
                .starts_with("the log measures no request"),
            "{q}"
        );
    }
    assert!(out.path().join("demo__calc-1.toml").exists());
    assert!(out.path().join("demo__hello-1.toml").exists());
}

#[test]
fn a_trajectory_given_as_a_scenario_names_its_import() {
    for file in ["runs/demo__calc-1.traj", "old/demo__hello-1.traj"] {
        let assert = simulate()
            .arg(format!("{SWE}/{file}"))
            .args(["--out", "-"])
            .assert()
            .code(2);
        let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert!(
            err.contains("this is a SWE-agent log, not a scenario: make scenarios of it with `simulate import swe-agent"),
            "{err}"
        );
    }
}
