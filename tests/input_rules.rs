//! Issue 16 §3 and §4: what the importer writes loads, text from files reaches the
//! terminal escaped, one set of input rules for a file and a history, and the silent
//! wrong answers a new user hits are said out loud.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::Value;
use std::fs;
use std::path::Path;
use support::simulate;

const REGRESSIONS: &str = "tests/fixtures/import/regressions";

/// Imports `file` as `format` into `out` (exit 0) and returns stdout.
fn import(format: &str, file: &Path, out: &Path) -> String {
    let assert = simulate()
        .args(["import", format, "--out"])
        .arg(out)
        .arg(file)
        .assert()
        .success();
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

/// Every scenario in `dir` runs (exit 0); returns how many there are.
fn all_run(dir: &Path) -> usize {
    let mut n = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "toml") {
            simulate().arg(&path).arg("--no-write").assert().success();
            n += 1;
        }
    }
    n
}

/// Session ids, agent ids and request ids with U+0000, U+0001, ESC, DEL and U+0085 (both
/// formats): before, the description held them raw and the loader refused every scenario
/// written, so `history` failed for the whole folder.
#[test]
fn ids_with_control_characters_make_scenarios_that_load_and_a_history_that_runs() {
    let root = tempfile::tempdir().unwrap();
    let claude = root.path().join("claude");
    import(
        "claude-code",
        &Path::new(REGRESSIONS).join("control-characters-in-ids.jsonl"),
        &claude,
    );
    assert_eq!(all_run(&claude), 2);
    let codex = root.path().join("codex");
    import(
        "codex",
        &Path::new(REGRESSIONS).join("codex-control-characters-in-session-id.jsonl"),
        &codex,
    );
    assert_eq!(all_run(&codex), 2);
    let text = fs::read_to_string(claude.join("shop-1a2b-3c4.toml")).unwrap();
    assert!(
        text.contains("description = \"Claude Code session 1a2b -3c… (main trace), 1 request,"),
        "{text}"
    );
    // Where it came from stays exact, escaped by TOML.
    assert!(
        text.contains("session_id = \"1a2b\\u0000\\u0001\\u001B\\u007F\u{85}-3c4d\""),
        "{text}"
    );
    let edits = root.path().join("edits.toml");
    fs::write(
        &edits,
        "[[edit]]\nname = \"cap\"\ncap = { select = { tool = \"Bash\" }, max_bytes = 10 }\n",
    )
    .unwrap();
    let assert = simulate()
        .arg("history")
        .arg(&claude)
        .arg("--edits")
        .arg(&edits)
        .args(["--no-write", "--format", "json"])
        .assert()
        .success();
    let report: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(report["sessions"].as_array().unwrap().len(), 2);
}

/// The two importers' fuzz targets, run over their seed corpora (issue 16's inputs
/// among them): every scenario a seed makes loads.
#[test]
fn every_fuzz_seed_of_the_importers_makes_scenarios_that_load() {
    use simulate::import::{Format, files::SourceFile, load, write};
    for (format, dir) in [
        (Format::ClaudeCode, "fuzz/seeds/import_claude_code"),
        (Format::Codex, "fuzz/seeds/import_codex"),
    ] {
        let reader = format.reader();
        let mut seeds = 0;
        let mut scenarios = 0;
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let source = SourceFile {
                canonical: path.clone(),
                path: path.clone(),
            };
            seeds += 1;
            let Ok(loaded) = load(reader, std::slice::from_ref(&source)) else {
                continue;
            };
            for trace in &loaded.assembled.traces {
                let text = write::render(trace, reader);
                if let Err(e) = simulate::scenario::load_str(&text, Path::new("imported.toml")) {
                    panic!(
                        "{}: the scenario does not load: {e}\n{text}",
                        path.display()
                    );
                }
                scenarios += 1;
            }
        }
        assert!(seeds > 10 && scenarios > 0, "{dir}: {seeds} seeds");
    }
}

const MAIN: &str = "tests/fixtures/import/claude-code/projects/-home-dev-shop/1a2b3c4d-1111-4222-8333-444455556666.jsonl";

fn fifo(path: &Path) {
    let mode = rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR;
    rustix::fs::mkfifoat(rustix::fs::CWD, path, mode).unwrap();
}

/// Issue 16 §3: an unreadable file among good ones (here a named pipe, which also blocked
/// the import forever when read) is listed, and the rest imported; the import fails only
/// when no request was found, and then names it too.
#[test]
fn an_unreadable_file_among_good_ones_is_listed_and_the_rest_imported() {
    let root = tempfile::tempdir().unwrap();
    let logs = root.path().join("logs");
    fs::create_dir(&logs).unwrap();
    fs::copy(MAIN, logs.join("good.jsonl")).unwrap();
    fifo(&logs.join("pipe.jsonl"));
    let out = root.path().join("out");
    let assert = simulate()
        .args(["import", "claude-code"])
        .arg(&logs)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let pipe = logs.join("pipe.jsonl").display().to_string();
    assert!(
        stdout.contains(&format!(
            "\nFiles that could not be read (no scenario; the rest was imported):\n  {pipe}: is a named pipe (FIFO), not a regular file: save what it carries to a file first\n"
        )),
        "{stdout}"
    );
    assert_eq!(support::names(&out).len(), 3);
    // JSON lists it too.
    let assert = simulate()
        .args(["import", "claude-code", "--force", "--format", "json"])
        .arg(&logs)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let report: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(
        report["unreadable_files"],
        serde_json::json!([{"file": pipe, "reason": "is a named pipe (FIFO), not a regular file: save what it carries to a file first"}])
    );
    // Alone, it is an error naming it; nothing is written.
    let empty = root.path().join("empty");
    let assert = simulate()
        .args(["import", "claude-code"])
        .arg(logs.join("pipe.jsonl"))
        .arg("--out")
        .arg(&empty)
        .assert()
        .code(2);
    assert_eq!(
        String::from_utf8(assert.get_output().stderr.clone()).unwrap(),
        format!(
            "error: {pipe}: no Claude Code request found, nothing written: {pipe} (cannot read: is a named pipe (FIFO), not a regular file: save what it carries to a file first)\n"
        )
    );
    assert!(!empty.exists());
}

/// Issue 16 §3: file names with ESC or a line break are printed escaped in the import
/// summary (they were printed raw: a file name could recolour the terminal or forge lines).
#[test]
fn file_names_with_escapes_and_line_breaks_are_printed_escaped() {
    let root = tempfile::tempdir().unwrap();
    let logs = root.path().join("logs");
    fs::create_dir(&logs).unwrap();
    fs::copy(MAIN, logs.join("a\u{1b}[31mred\nforged.jsonl")).unwrap();
    fs::write(logs.join("b\u{1b}]0;title\u{7}.jsonl"), "").unwrap();
    let out = root.path().join("out");
    let assert = simulate()
        .args(["import", "claude-code"])
        .arg(&logs)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    for text in [&stdout, &stderr] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
    }
    let dir = logs.display();
    assert!(
        stdout.contains(&format!("  from {dir}/a\\u{{1b}}[31mred\\nforged.jsonl → ")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "  {dir}/b\\u{{1b}}]0;title\\u{{7}}.jsonl (empty)\n"
        )),
        "{stdout}"
    );
}
