//! The importer and the fit on real logs nobody on this project wrote: `../shared/real-logs/`
//! (its README says where each came from). They are never copied into the repository; each
//! test skips, saying why, where the folder is absent (a fresh clone has none).
//!
//! The figures these tests hold are the goals ("Real logs, faithfully"): on every
//! trace of 10 or more calls, R² ≥ 0.98 in 90 %, ρ within 1.5 to 6 bytes per token in 95 %,
//! the median of the per-trace median residuals at most 1 %, and the simulated cost within
//! ±5 % of the measured in 90 % of the traces with a measured cost and in 80 % of each
//! format's own (issue "The answer in money, and true", §7).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

const REAL_LOGS: &str = "../shared/real-logs";

/// The folders measured, with their format (`localpush-codex/` is left out: its text is
/// redacted, so its bytes are not the originals).
const CORPORA: [(&str, &str); 3] = [
    ("claude-code", "claude-code-log"),
    ("claude-code", "codemie-code"),
    ("codex", "codemie-code/codex-rollouts"),
];

fn real_logs() -> Option<PathBuf> {
    let p = PathBuf::from(REAL_LOGS);
    if p.is_dir() {
        Some(p)
    } else {
        println!("skipped: {REAL_LOGS} is not here (a fresh clone has no shared logs)");
        None
    }
}

fn import(format: &str, dir: &Path, out: &Path) -> Value {
    let assert = Command::cargo_bin("simulate")
        .unwrap()
        .args(["import", format])
        .arg(dir)
        .arg("--out")
        .arg(out)
        .args(["--fit", "--format", "json"])
        .assert()
        .success();
    serde_json::from_slice(&assert.get_output().stdout).unwrap()
}

#[test]
fn the_fit_meets_its_goals_on_real_logs() {
    let Some(root) = real_logs() else { return };
    let out = tempfile::tempdir().unwrap();
    let mut rows: Vec<Value> = Vec::new();
    for (i, (format, dir)) in CORPORA.iter().enumerate() {
        let report = import(format, &root.join(dir), &out.path().join(i.to_string()));
        rows.extend(report["fit"].as_array().unwrap().iter().map(|r| {
            let mut r = r.clone();
            r["format"] = Value::from(*format);
            r
        }));
    }
    let long: Vec<&Value> = rows
        .iter()
        .filter(|r| r["calls"].as_u64().unwrap() >= 10)
        .collect();
    let n = long.len();
    assert!(n >= 20, "only {n} traces of 10 or more calls");
    let good = long
        .iter()
        .filter(|r| r["r_squared"].as_f64().is_some_and(|x| x >= 0.98))
        .count();
    let plausible = long
        .iter()
        .filter(|r| {
            r["bytes_per_token"]
                .as_f64()
                .is_some_and(|x| (1.5..=6.0).contains(&x))
        })
        .count();
    let mut residuals: Vec<f64> = long
        .iter()
        .filter_map(|r| r["median_residual_pct"].as_f64())
        .collect();
    residuals.sort_by(f64::total_cmp);
    let k = residuals.len();
    let median = (residuals[(k - 1) / 2] + residuals[k / 2]) / 2.0;
    let costs: Vec<f64> = long
        .iter()
        .filter_map(|r| r["cost_difference_pct"].as_f64())
        .collect();
    let close = costs.iter().filter(|c| c.abs() <= 5.0).count();
    println!(
        "{n} traces of >= 10 calls: R² >= 0.98 in {good}; ρ in 1.5-6 in {plausible}; median residual {median:.2} %; |cost diff| <= 5 % in {close} of {}",
        costs.len()
    );
    assert!(good * 10 >= n * 9, "R² ≥ 0.98 in {good} of {n}");
    assert!(
        plausible * 20 >= n * 19,
        "ρ plausible in {plausible} of {n}"
    );
    assert!(median <= 1.0, "median residual {median} %");
    for format in ["claude-code", "codex"] {
        let own: Vec<f64> = long
            .iter()
            .filter(|r| r["format"] == format)
            .filter_map(|r| r["cost_difference_pct"].as_f64())
            .collect();
        let near = own.iter().filter(|c| c.abs() <= 5.0).count();
        assert!(
            near * 5 >= own.len() * 4,
            "{format}: cost within 5 % in {near} of {}",
            own.len()
        );
    }
    assert!(
        close * 10 >= costs.len() * 9,
        "cost within 5 % in {close} of {}",
        costs.len()
    );
}

/// Usage of one request: input, cache creation, cache read.
type Sums = [u64; 3];

/// An independent count of the deduplicated usage of Claude Code transcripts: one request
/// per (`message.id`, `requestId`) over the whole corpus, the largest copy kept.
fn claude_code_sums(files: &[PathBuf]) -> Sums {
    let mut requests: HashMap<(String, String), (u64, Sums)> = HashMap::new();
    let mut by_message: HashSet<String> = HashSet::new();
    for f in files {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let m = &v["message"];
            if v["type"] != "assistant"
                || m["model"] == "<synthetic>"
                || v["isApiErrorMessage"] == true
            {
                continue;
            }
            let (Some(id), Some(u)) = (m["id"].as_str(), m["usage"].as_object()) else {
                continue;
            };
            let get = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            if u.get("input_tokens").is_none() || u.get("output_tokens").is_none() {
                continue;
            }
            let sums = [
                get("input_tokens"),
                get("cache_creation_input_tokens"),
                get("cache_read_input_tokens"),
            ];
            let size = sums.iter().sum::<u64>() + get("output_tokens");
            // A copy without requestId is the same request as any copy of its message.
            let request = v["requestId"].as_str().unwrap_or("").to_string();
            let key = if request.is_empty() && by_message.contains(id) {
                requests
                    .keys()
                    .find(|(m, _)| m == id)
                    .cloned()
                    .unwrap_or((id.to_string(), request))
            } else {
                (id.to_string(), request)
            };
            by_message.insert(id.to_string());
            let e = requests.entry(key).or_insert((0, [0; 3]));
            if size > e.0 {
                *e = (size, sums);
            }
        }
    }
    requests
        .values()
        .fold([0; 3], |a, (_, s)| [a[0] + s[0], a[1] + s[1], a[2] + s[2]])
}

fn jsonl_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn deduplicated_usage_sums_equal_an_independent_count() {
    let Some(root) = real_logs() else { return };
    let out = tempfile::tempdir().unwrap();
    for (i, dir) in ["claude-code-log", "codemie-code"].iter().enumerate() {
        let dir = root.join(dir);
        let files: Vec<PathBuf> = jsonl_under(&dir)
            .into_iter()
            .filter(|p| !p.to_string_lossy().contains("codex"))
            .collect();
        let report = import("claude-code", &dir, &out.path().join(i.to_string()));
        let mut imported = [0u64; 3];
        for t in report["traces"].as_array().unwrap() {
            let u = &t["usage"];
            for (k, key) in [
                "input_tokens",
                "cache_creation_input_tokens",
                "cache_read_input_tokens",
            ]
            .iter()
            .enumerate()
            {
                imported[k] += u[key].as_u64().unwrap_or(0);
            }
        }
        let independent = claude_code_sums(&files);
        println!(
            "{}: imported {imported:?}, independent {independent:?}",
            dir.display()
        );
        assert_eq!(imported, independent, "{}", dir.display());
    }
}

/// Codex rollouts: one request per `token_count` event with `info`, a repeat of the same
/// running totals being a copy; input (cached included) and cached input summed.
#[test]
fn codex_usage_sums_equal_an_independent_count() {
    let Some(root) = real_logs() else { return };
    let dir = root.join("codemie-code/codex-rollouts");
    let out = tempfile::tempdir().unwrap();
    let report = import("codex", &dir, out.path());
    let mut independent = [0u64; 2];
    for f in jsonl_under(&dir) {
        let mut last_total: Option<Value> = None;
        for line in std::fs::read_to_string(f).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let p = &v["payload"];
            if v["type"] != "event_msg" || p["type"] != "token_count" || p["info"].is_null() {
                continue;
            }
            let total = p["info"]["total_token_usage"].clone();
            if last_total.as_ref() == Some(&total) {
                continue;
            }
            last_total = Some(total);
            let u = &p["info"]["last_token_usage"];
            independent[0] += u["input_tokens"].as_u64().unwrap_or(0);
            independent[1] += u["cached_input_tokens"].as_u64().unwrap_or(0);
        }
    }
    let mut imported = [0u64; 2];
    for t in report["traces"].as_array().unwrap() {
        imported[0] += t["usage"]["input_tokens"].as_u64().unwrap();
        imported[1] += t["usage"]["cache_read_input_tokens"].as_u64().unwrap();
    }
    println!("codex: imported {imported:?}, independent {independent:?}");
    assert_eq!(imported, independent);
}
