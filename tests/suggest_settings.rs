//! Each agent's setting carries the saving over that agent's sessions only (issue 27 §2):
//! sessions from Claude Code and Codex CLI, one suggestion, a saving per agent that sums
//! to the total, in the printed table, the JSON and both settings fragments.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::Path;

/// A session as an importer of `format` would tie it to its agent: B = 1,000, ρ = 1, no
/// cache, $2 per million input tokens; five Bash calls of these bytes.
fn session(dir: &Path, name: &str, format: &str, convention: &str, sizes: &[u64]) {
    let mut text = format!(
        "name = \"{name}\"\nbase_tokens = 1000\nbytes_per_token = 1\n\n[import]\nformat = \"{format}\"\nfile = \"log.jsonl\"\nconvention = \"{convention}\"\n\n[price]\ninput = 2.0\noutput = 10.0\nsource = \"list price, for the test\"\n"
    );
    for (i, b) in sizes.iter().enumerate() {
        text.push_str(&format!(
            "\n[[call]]\nid = \"c{i}\"\nlabel = \"Bash {i}\"\ntool = \"Bash\"\nbytes = {b}\n"
        ));
    }
    fs::write(dir.join(format!("{name}.toml")), text).unwrap();
}

/// Two Claude Code sessions and one Codex session, each with one 20,000-byte Bash output
/// among four of 500 to 800. Capped at the p75 (800 bytes), the large output saves
/// 19,200 tokens in each call after it: cc-a 1 call (19,200), cc-b 3 (57,600), cx-a 2
/// (38,400). At $2/M: Claude Code 76,800 tokens, $0.1536; Codex 38,400, $0.0768; the
/// total 115,200, $0.2304.
fn two_agents(dir: &Path) {
    session(
        dir,
        "cc-a",
        "claude-code",
        "anthropic",
        &[500, 600, 700, 20_000, 800],
    );
    session(
        dir,
        "cc-b",
        "claude-code",
        "anthropic",
        &[500, 20_000, 600, 700, 800],
    );
    session(
        dir,
        "cx-a",
        "codex",
        "openai",
        &[500, 600, 20_000, 700, 800],
    );
}

const CAP: &str = "cap Bash at 800 bytes (p75)";

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9, "{a} != {b}");
}

#[test]
fn each_agents_setting_carries_the_saving_over_its_own_sessions() {
    let sessions = tempfile::tempdir().unwrap();
    two_agents(sessions.path());
    let json = Command::cargo_bin("simulate")
        .unwrap()
        .arg("suggest")
        .arg(sessions.path())
        .args(["--no-write", "--format", "json"])
        .assert()
        .success();
    let report: Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    let cap = report["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == CAP)
        .unwrap();
    close(cap["dollars_saved"].as_f64().unwrap(), 0.2304);
    close(cap["cost_saved"].as_f64().unwrap(), 115_200.0);
    let settings = report["settings"].as_array().unwrap();
    let of = |agent: &str, edit: &str| {
        settings
            .iter()
            .find(|h| h["agent"] == agent && h["edit"] == edit)
    };
    let cc = of("claude-code", CAP).unwrap();
    let cx = of("codex", CAP).unwrap();
    assert_eq!(
        (cc["sessions"].as_u64(), cx["sessions"].as_u64()),
        (Some(2), Some(1))
    );
    close(cc["dollars_saved"].as_f64().unwrap(), 0.1536);
    close(cx["dollars_saved"].as_f64().unwrap(), 0.0768);
    close(cc["cost_saved"].as_f64().unwrap(), 76_800.0);
    close(cx["cost_saved"].as_f64().unwrap(), 38_400.0);
    // The agents' shares add up to the suggestion's total.
    close(
        cc["dollars_saved"].as_f64().unwrap() + cx["dollars_saved"].as_f64().unwrap(),
        cap["dollars_saved"].as_f64().unwrap(),
    );
    assert_eq!(
        (cc["saves"].as_bool(), cx["saves"].as_bool()),
        (Some(true), Some(true))
    );
    // Context editing (Anthropic's) saves nothing in the Codex session: said so, and not
    // in its settings (the fragment below holds the cap alone).
    let clearing = settings
        .iter()
        .find(|h| h["edit"].as_str().unwrap().starts_with("context editing"))
        .unwrap();
    assert_eq!(clearing["agent"], "claude-code");
    let none = of("codex", clearing["edit"].as_str().unwrap()).unwrap();
    assert_eq!(none["saves"], false);
    assert_eq!(none["dollars_saved"].as_f64(), Some(0.0));

    // The table and the fragments say the same figures.
    let out = tempfile::tempdir().unwrap();
    let text = Command::cargo_bin("simulate")
        .unwrap()
        .arg("suggest")
        .arg(sessions.path())
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    let text = String::from_utf8(text.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains(&format!(
            "2. {CAP}: saves $0.23 summed over every session, rank 2 by cost; still saves\n      if the agent re-fetches 0.5 of what it removes (the most swept, 100.0 % of its saving at 0\n      left)\n      Claude Code, saves $0.15 over its 2 sessions: BASH_MAX_OUTPUT_LENGTH=800"
        )),
        "{text}"
    );
    assert!(
        text.contains(
            "      Codex CLI, saves $0.08 over its 1 session: no setting caps Bash's output"
        ),
        "{text}"
    );
    // One folder, OUT/<name>-suggest/, holds them.
    let folder = fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("-suggest"))
        .unwrap();
    let claude: Value = serde_json::from_str(
        &fs::read_to_string(folder.join("claude-code.settings.json")).unwrap(),
    )
    .unwrap();
    let comment = claude["_comments"]["env.BASH_MAX_OUTPUT_LENGTH"]
        .as_str()
        .unwrap();
    assert!(
        comment.starts_with(&format!(
            "{CAP} — saves $0.15 over Claude Code's 2 sessions; still saves if the agent re-fetches 0.5 of what it removes (the most swept, 100.0 % of its saving at 0 left), rank 2 by cost."
        )),
        "{comment}"
    );
    assert!(!text.contains("Codex CLI, saves $0.00"), "{text}");
    // The answer names the best change a setting of each agent makes, in that agent's
    // terms: the best overall may be one no setting offers.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!(
            "The best change a setting makes: in Claude Code, {CAP} (BASH_MAX_OUTPUT_LENGTH=800), which saves $0.15 over its 2 sessions"
        )),
        "{flat}"
    );
    let codex = fs::read_to_string(folder.join("codex.config.toml")).unwrap();
    assert!(!codex.contains("context editing"), "{codex}");
    assert!(
        codex.contains(&format!(
            "# - {CAP} — saves $0.08 over Codex CLI's 1 session; still saves if"
        )),
        "{codex}"
    );
}
