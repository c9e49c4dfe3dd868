//! Observation masking on mini-swe-agent runs (docs/swe-bench.md): a hand-made run in the
//! trajectory shape, imported and masked at every call and every 10 calls, with exact
//! figures; and the shared SWE-bench runs (`../shared/swe-trajectories/`, skipped when
//! absent): a three-run subset gives the table docs/swe-bench.md states for it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use serde_json::{Value, json};
use std::fs;
use std::path::Path;

const SWE_TRAJECTORIES: &str = "../shared/swe-trajectories/trajs";
/// The three runs of the subset docs/swe-bench.md gives figures for.
const SUBSET: [&str; 3] = [
    "astropy__astropy-12907",
    "django__django-11099",
    "sympy__sympy-20590",
];

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

/// A mini-swe-agent 1.x run through OpenRouter with `n` calls: the first prompt is 5,000
/// tokens; each reply's content is 33 bytes (10 tokens at the importer's assumed 3.3 bytes
/// per token) and each observation 330 bytes (100 tokens); 10 completion tokens a call.
fn run(n: usize) -> Value {
    let mut messages = vec![
        json!({"role": "system", "content": "You are a helpful assistant."}),
        json!({"role": "user", "content": "<pr_description>Fix it.</pr_description>"}),
    ];
    for k in 0..n {
        let content = format!("THOUGHT: go.\n\n```bash\necho {k:02}\n```");
        assert_eq!(content.len(), 33);
        let observation = format!(
            "<returncode>0</returncode>\n<output>\n{}\n</output>",
            "x".repeat(284)
        );
        assert_eq!(observation.len(), 330);
        let prompt = 5_000 + 110 * k as u64;
        let cached = if k == 0 { 0 } else { prompt - 110 };
        messages.push(
            json!({"role": "assistant", "content": content, "extra": {"response": {
            "id": format!("gen-mask-{k}"), "provider": "Google",
            "model": "google/gemini-3-pro-preview", "object": "chat.completion",
            "created": 1_763_510_000 + k as u64,
            "choices": [{"finish_reason": "stop", "index": 0,
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": 10,
                      "total_tokens": prompt + 10, "cost": 0.01,
                      "prompt_tokens_details": {"cached_tokens": cached},
                      "completion_tokens_details": {"reasoning_tokens": 0}}}}}),
        );
        messages.push(json!({"role": "user", "content": observation}));
    }
    json!({"info": {"exit_status": "Submitted", "submission": "",
                    "model_stats": {"instance_cost": 0.01 * n as f64, "api_calls": n},
                    "mini_version": "1.15.0",
                    "config": {"model": {"model_name": "google/gemini-3-pro-preview"}}},
           "messages": messages, "trajectory_format": "mini-swe-agent-1",
           "instance_id": "demo__mask-1"})
}

/// 25 calls, B = 5,000, every call adds 10 + 100 tokens: baseline contexts 5,000 + 110·p
/// (p = 0…24), T = 158,000. A masked result (placeholder 33 bytes, 10 tokens) frees 90.
/// - every call (`older_than_calls = 10`): before call p, results 0…p − 11 are masked:
///   T = 158,000 − 90·(1 + … + 14) = 148,550.
/// - every 10 calls (`every_calls = 10, keep_results = 10`): before p = 10, 10 results
///   stand, all kept (the trigger stays armed); p = 11 masks result 0; p = 21 results
///   1…10. Masked counts: 1 for p = 11…20, 11 for p = 21…24: T = 158,000 − 90·54 = 153,140.
///
/// Cost (Gemini 3 Pro preview's cache: read 0.1×, no write fee, minimum 4,096 tokens; no
/// miss share, the run not fitted), input only:
/// - baseline: call 1 written (5,000), then each reads the previous context and writes 110:
///   0.1·(Σ_{p<24} 5,000 + 110·p = 150,360) + 7,640 = 22,676.
/// - every call: from p = 11 each masking breaks the prefix after B and the 20-token
///   stubs before it (the masked result's own reply is written again):
///   cached = 5,000 + 20·(p − 11); Σ cached = 54,950 + 71,820 = 126,770;
///   written = 148,550 − 126,770 = 21,780: 12,677 + 21,780 = 34,457 (+52 %).
/// - every 10 calls: cached 5,000 at p = 11 and 5,020 at p = 21, else the previous context:
///   Σ cached = 143,300, written 9,840: 14,330 + 9,840 = 24,170 (+6.6 %).
#[test]
fn masking_a_hand_made_run_at_every_call_and_every_ten_calls() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    fs::create_dir(&runs).unwrap();
    fs::write(
        runs.join("demo__mask-1.traj.json"),
        serde_json::to_vec(&run(25)).unwrap(),
    )
    .unwrap();
    let scenarios = dir.path().join("scenarios");
    simulate()
        .args(["import", "mini-swe-agent"])
        .arg(&runs)
        .arg("--out")
        .arg(&scenarios)
        .assert()
        .success();
    let path = scenarios.join("demo__mask-1.toml");
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str(
        "\n[[edit]]\nname = \"every call\"\nclear = { older_than_calls = 10, placeholder_bytes = 33 }\n\
         \n[[edit]]\nname = \"every 10 calls\"\nclear = { every_calls = 10, keep_results = 10, placeholder_bytes = 33 }\n",
    );
    fs::write(&path, text).unwrap();
    let assert = simulate()
        .arg(&path)
        .args(["--format", "json", "--no-charts", "--out"])
        .arg(dir.path().join("out"))
        .assert()
        .success();
    let report: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(report["base_tokens"].as_f64(), Some(5_000.0));
    let edit = |name: &str| {
        report["edits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()
            .clone()
    };
    // Output: 25 calls × 10 tokens at 6 input tokens each ($12 over $2 a million).
    let output = 25.0 * 10.0 * 6.0;
    close(
        report["baseline"]["total_tokens"].as_f64().unwrap(),
        158_000.0,
    );
    close(
        report["baseline"]["cost"].as_f64().unwrap(),
        22_676.0 + output,
    );
    let every = edit("every call");
    close(every["total_tokens"].as_f64().unwrap(), 148_550.0);
    close(every["cost"].as_f64().unwrap(), 34_457.0 + output);
    let steps = edit("every 10 calls");
    close(steps["total_tokens"].as_f64().unwrap(), 153_140.0);
    close(steps["cost"].as_f64().unwrap(), 24_170.0 + output);
    let befores = |e: &Value| -> Vec<u64> {
        e["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["before_call"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(befores(&every), (12..=25).collect::<Vec<u64>>());
    assert_eq!(befores(&steps), vec![12, 22]);
}

/// Whether `python3` with `tomllib` (3.11 or later) runs; else skip with a printed reason.
fn python_available() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import tomllib"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: python3 (3.11 or later, with tomllib) is not on the PATH");
    }
    ok
}

/// The subset's table as docs/swe-bench.md states it: the lines between its markers.
fn documented_subset() -> String {
    let page = fs::read_to_string("docs/swe-bench.md").unwrap();
    let start = page
        .find("<!-- subset table: begin -->")
        .expect("docs/swe-bench.md marks the subset table");
    let end = page.find("<!-- subset table: end -->").unwrap();
    page[start..end]
        .lines()
        .skip(1)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// The shared runs: on three of them, `tools/swe_bench.py` (import --fit, history with
/// tools/swe_bench_edits.toml) prints the table docs/swe-bench.md gives for them, to the
/// last digit; and, from `simulate history` alone, the signs the page's argument rests on.
#[test]
fn three_shared_runs_give_the_documented_table() {
    if !Path::new(SWE_TRAJECTORIES).is_dir() {
        eprintln!("skipped: {SWE_TRAJECTORIES} is not here (a fresh clone has no shared runs)");
        return;
    }
    let files: Vec<String> = SUBSET
        .iter()
        .map(|r| format!("{SWE_TRAJECTORIES}/{r}.traj.json"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let scenarios = dir.path().join("scenarios");
    simulate()
        .args(["import", "mini-swe-agent"])
        .args(&files)
        .arg("--out")
        .arg(&scenarios)
        .arg("--fit")
        .assert()
        .success();
    let assert = simulate()
        .arg("history")
        .arg(&scenarios)
        .args(["--edits", "tools/swe_bench_edits.toml", "--out", "-"])
        .args(["--format", "json"])
        .assert()
        .success();
    let history: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let sessions = history["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3);
    for s in sessions {
        let edits = s["edits"].as_array().unwrap();
        let (ideal, every, steps) = (&edits[0], &edits[7], &edits[8]);
        // The order of tools/swe_bench_edits.toml: "ideal cache", then six masks under the
        // fitted terms, then the same six under the ideal cache.
        assert_eq!(
            every["what_if"]["cache"]["ttl_s"],
            ideal["what_if"]["cache"]["ttl_s"]
        );
        let saved = |e: &Value| e["cost_saved"].as_f64().unwrap();
        // Masking at every call saves prompt tokens and costs more under the ideal cache
        // than the ideal cache alone; moving the window every 10 calls costs less than that.
        assert!(every["saved_tokens"].as_f64().unwrap() > 0.0);
        assert!(saved(every) < saved(ideal), "{}", s["name"]);
        assert!(saved(steps) > saved(every), "{}", s["name"]);
    }
    if !python_available() {
        return;
    }
    let out = std::process::Command::new("python3")
        .arg("tools/swe_bench.py")
        .args(["--simulate", env!("CARGO_BIN_EXE_simulate"), "--runs"])
        .args(&files)
        .arg("--out")
        .arg(dir.path().join("tool"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        documented_subset()
    );
}
