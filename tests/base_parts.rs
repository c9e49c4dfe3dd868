//! Base parts without hand edits (issue 27 §4, docs/model.md §9): the importers write
//! `[[base.part]]` for what the logs show; `simulate import context` reads Claude Code's
//! `/context` text; an edits file's parts apply to every session of a history; `suggest`
//! proposes dropping a server few sessions use.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::Path;

const FIXTURES: &str = "tests/fixtures/import/base-parts";
const CONTEXT: &str = "tests/fixtures/context/context.txt";

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// (name, tokens, tools, deferred) of every part of the scenario at `path`.
fn parts(path: &Path) -> Vec<(String, i64, Vec<String>, bool)> {
    let t: toml::Table = toml::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    t["base"]["part"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["tokens"].as_integer().unwrap(),
                p["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| g.as_str().unwrap().to_string())
                    .collect(),
                p.get("deferred")
                    .and_then(toml::Value::as_bool)
                    .unwrap_or(false),
            )
        })
        .collect()
}

fn part(
    name: &str,
    tokens: i64,
    tools: &[&str],
    deferred: bool,
) -> (String, i64, Vec<String>, bool) {
    (
        name.to_string(),
        tokens,
        tools.iter().map(|t| t.to_string()).collect(),
        deferred,
    )
}

#[test]
fn claude_code_import_writes_the_skill_listing_deferred_and_used_mcp_servers() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args([
            "import",
            "claude-code",
            &format!("{FIXTURES}/claude-code"),
            "--out",
        ])
        .arg(out.path())
        .assert()
        .success();
    let scenario = out.path().join("desk-5e6f7a8b.toml");
    assert_eq!(
        parts(&scenario),
        vec![
            // 82 bytes of listing ÷ 3.3 = 24.8.
            part("skills", 25, &["Skill"], false),
            // Deferred (close_ticket added, then removed): "mcp__tracker__create_ticket" and
            // "mcp__tracker__search_tickets", 27 + 28 bytes and a separator each: 57 ÷ 3.3.
            part("mcp:tracker", 17, &["mcp__tracker__*"], true),
            // Two tools used in one request (not only its first): 2 × 1,400, assumed.
            part("mcp:wiki", 2_800, &["mcp__wiki__*"], false),
        ]
    );
    let text = fs::read_to_string(&scenario).unwrap();
    assert!(text.contains("lists 2 of its tools"), "{text}");
    assert!(text.contains("a lower bound: the server may define more"));
    // The scenario loads and runs: the parts fit its B (20,003).
    simulate()
        .arg(&scenario)
        .arg("--no-write")
        .assert()
        .success();
}

#[test]
fn codex_import_writes_the_system_prompt_and_the_mcp_server_used() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args(["import", "codex", &format!("{FIXTURES}/codex"), "--out"])
        .arg(out.path())
        .assert()
        .success();
    assert_eq!(
        parts(&out.path().join("ops-019c8a00.toml")),
        vec![
            // 63 bytes of base_instructions ÷ 3.3 = 19.1.
            part("system prompt", 19, &[], false),
            part("mcp:db-ops", 1_400, &["mcp__db-ops__*"], false),
        ]
    );
}

#[test]
fn import_context_reads_the_categories_and_each_mcp_server() {
    let out = tempfile::tempdir().unwrap();
    let assert = simulate()
        .args(["import", "context", CONTEXT, "--format", "json", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let report: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let got: Vec<(String, f64)> = report["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["tokens"].as_f64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, f64)> = [
        ("system prompt", 3_100.0),
        ("system tools", 12_400.0),
        // Per server, from the tool lines: 18.0k; 1.2k + 900 + 1.1k.
        ("mcp:docs-search", 18_000.0),
        ("mcp:tracker", 3_200.0),
        ("custom agents", 240.0),
        ("memory files", 1_800.0),
        ("skills", 410.0),
    ]
    .iter()
    .map(|(n, t)| (n.to_string(), *t))
    .collect();
    assert_eq!(got, want);
    let file = out.path().join("context-parts.toml");
    let p = parts(&file);
    assert_eq!(
        p[2],
        part("mcp:docs-search", 18_000, &["mcp__docs-search__*"], false)
    );
    assert!(fs::read_to_string(&file).unwrap().contains(
        "source = \"/context (context.txt) (Claude Code's estimate, rounded as printed)\""
    ));
    // A second import with other text does not replace it without --force.
    let other = out.path().join("context.txt");
    fs::write(&other, "  ⛁ System prompt: 1k tokens (0.5%)\n").unwrap();
    simulate()
        .args(["import", "context"])
        .arg(&other)
        .arg("--out")
        .arg(out.path())
        .assert()
        .code(2);
    // Text that is not /context output is refused, nothing written.
    let bad = out.path().join("bad.txt");
    fs::write(&bad, "hello\n").unwrap();
    simulate()
        .args(["import", "context"])
        .arg(&bad)
        .arg("--out")
        .arg(out.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no /context category"));
    assert!(!out.path().join("bad-parts.toml").exists());
}

/// Ten sessions of three 100-byte calls, B = 30,000, ρ = 1, no cache; the fourth uses a
/// GitHub tool in its second call.
fn ten_sessions(dir: &Path) {
    for i in 0..10 {
        let tool = if i == 3 {
            "mcp__github__get_issue"
        } else {
            "Read"
        };
        fs::write(
            dir.join(format!("s{i}.toml")),
            format!(
                "name = \"s{i}\"\nbase_tokens = 30000\nbytes_per_token = 1\n\n\
                 [[call]]\nlabel = \"a\"\ntool = \"Read\"\nbytes = 100\n\n\
                 [[call]]\nlabel = \"b\"\ntool = \"{tool}\"\nbytes = 100\n\n\
                 [[call]]\nlabel = \"c\"\ntool = \"Read\"\nbytes = 100\n"
            ),
        )
        .unwrap();
    }
}

const GITHUB_PART: &str = "[[base.part]]\nname = \"mcp:github\"\ntokens = 20000\nsource = \"/context, 2026-11-30\"\ntools = [\"mcp__github__*\"]\n";

#[test]
fn an_edits_file_with_parts_applies_them_to_every_session_of_a_history() {
    let sessions = tempfile::tempdir().unwrap();
    ten_sessions(sessions.path());
    let other = tempfile::tempdir().unwrap();
    let edits = other.path().join("edits.toml");
    fs::write(
        &edits,
        format!(
            "{GITHUB_PART}\n[[edit]]\nname = \"drop GitHub\"\nbase = {{ drop = \"mcp:github\" }}\n"
        ),
    )
    .unwrap();
    let assert = simulate()
        .arg("history")
        .arg(sessions.path())
        .arg("--edits")
        .arg(&edits)
        .arg("--no-write")
        .assert()
        .success();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    // 10 sessions × 3 calls × 20,000 tokens of the part: 600,000 of 903,000.
    assert!(
        out.contains("baseline: reread total 903,000 est. tokens over 30 calls"),
        "{out}"
    );
    assert!(
        out.contains("drop GitHub             600,000   66.4 %"),
        "{out}"
    );
    assert!(
        out.contains("1 call in 1 of 10 sessions use mcp:github's tools"),
        "{out}"
    );
}

#[test]
fn suggest_proposes_dropping_an_mcp_server_one_session_in_ten_uses() {
    let sessions = tempfile::tempdir().unwrap();
    ten_sessions(sessions.path());
    let other = tempfile::tempdir().unwrap();
    let context = other.path().join("parts.toml");
    fs::write(&context, GITHUB_PART).unwrap();
    let assert = simulate()
        .arg("suggest")
        .arg(sessions.path())
        .arg("--context")
        .arg(&context)
        .arg("--out")
        .arg(other.path().join("out"))
        .assert()
        .success();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        out.contains(
            "is declared in 10 sessions; 1\n      of them use its tools, in 1 call of their 30"
        ),
        "{out}"
    );
    // Dropped: 600,000 saved; deferred (stub 500 assumed): 9 × 3 × 19,500 in the sessions
    // that never call it, and in s3 90,300 − (10,500 + search 10,600 + 30,600 + 30,700).
    assert!(
        out.contains(
            "1  drop mcp:github                    tool definitions      600,000   66.4 %"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "2  defer mcp:github (tool search)     tool definitions      534,400   59.2 %"
        ),
        "{out}"
    );
    // One folder, OUT/<name>-suggest/, holds it.
    let folder = fs::read_dir(other.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("-suggest"))
        .unwrap();
    let suggested = fs::read_to_string(folder.join("suggested.toml")).unwrap();
    // The rerun reads the same part.
    assert!(suggested.contains(GITHUB_PART), "{suggested}");
    assert!(suggested.contains("base = { drop = \"mcp:github\" }"));
}

#[test]
fn suggest_reads_context_text_and_never_proposes_a_part_that_serves_no_tool() {
    let sessions = tempfile::tempdir().unwrap();
    // B large enough for every part of the fixture (39,150 tokens).
    for i in 0..4 {
        fs::write(
            sessions.path().join(format!("s{i}.toml")),
            format!(
                "name = \"s{i}\"\nbase_tokens = 50000\nbytes_per_token = 1\n\n[[call]]\nlabel = \"a\"\ntool = \"Read\"\nbytes = 100\n"
            ),
        )
        .unwrap();
    }
    let assert = simulate()
        .arg("suggest")
        .arg(sessions.path())
        .args(["--context", CONTEXT, "--no-write"])
        .assert()
        .success();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(out.contains("drop mcp:docs-search"), "{out}");
    assert!(out.contains("system tools (12,400 tokens"), "{out}");
    assert!(!out.contains("drop system tools"), "{out}");
}

/// Words of `text` joined by single spaces: the printed report wraps its lines.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_server_used_only_as_a_requests_second_tool_is_used_and_not_proposed_dropped() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args([
            "import",
            "claude-code",
            &format!("{FIXTURES}/claude-code-second-tool"),
            "--out",
        ])
        .arg(out.path())
        .assert()
        .success();
    let scenario = out.path().join("shop-7a8b9c0d.toml");
    // The first request ran `Read` and `mcp__srv__t` at once: both are recorded.
    let t: toml::Table = toml::from_str(&fs::read_to_string(&scenario).unwrap()).unwrap();
    let calls = t["call"].as_array().unwrap();
    let tools: Vec<(Option<&str>, Vec<&str>)> = calls
        .iter()
        .map(|c| {
            (
                c.get("tool").and_then(toml::Value::as_str),
                c.get("other_tools")
                    .and_then(toml::Value::as_array)
                    .map(|a| a.iter().map(|v| v.as_str().unwrap()).collect())
                    .unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        tools,
        vec![
            (Some("Read"), vec!["mcp__srv__t"]),
            (Some("Read"), vec![]),
            (None, vec![]),
        ]
    );
    assert_eq!(
        parts(&scenario),
        vec![part("mcp:srv", 1_400, &["mcp__srv__*"], false)]
    );
    // Its one declaring session uses it in 1 call of 3 (33 %, over the 5 % rule): not
    // proposed. Asked of each call's first tool only, it was used by none, and dropped.
    let assert = simulate()
        .arg("suggest")
        .arg(out.path())
        .arg("--no-write")
        .assert()
        .success();
    let text = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        words(&text).contains(
            "is declared in 1 session; 1 of them use its tools, in 1 call of their 3: not rarely used"
        ),
        "{text}"
    );
    assert!(!text.contains("drop mcp:srv"), "{text}");
    assert!(!text.contains("defer mcp:srv"), "{text}");
}
