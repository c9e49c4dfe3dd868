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

/// Imports `path` (a log or a folder of them) as `format` into `out` (exit 0) and
/// returns stdout and stderr.
fn import(format: &str, path: &Path, out: &Path) -> (String, String) {
    let assert = simulate()
        .args(["import", format, "--out"])
        .arg(out)
        .arg(path)
        .assert()
        .success();
    let text = |b: &Vec<u8>| String::from_utf8(b.clone()).unwrap();
    (
        text(&assert.get_output().stdout),
        text(&assert.get_output().stderr),
    )
}

/// What `command` prints as JSON, exit 0.
fn json(command: &mut assert_cmd::Command) -> Value {
    let assert = command.assert().success();
    serde_json::from_slice(&assert.get_output().stdout).unwrap()
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
    let report = json(
        simulate()
            .arg("history")
            .arg(&claude)
            .arg("--edits")
            .arg(&edits)
            .args(["--no-write", "--format", "json"]),
    );
    assert_eq!(report["sessions"].as_array().unwrap().len(), 2);
}

/// The importers' fuzz targets, run over their seed corpora (issue 16's inputs
/// among them): every scenario a seed makes loads.
#[test]
fn every_fuzz_seed_of_the_importers_makes_scenarios_that_load() {
    use simulate::import::{Format, files::SourceFile, load, write};
    for (format, dir) in [
        (Format::ClaudeCode, "fuzz/seeds/import_claude_code"),
        (Format::Codex, "fuzz/seeds/import_codex"),
        (Format::Otel, "fuzz/seeds/import_otel"),
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
    let (stdout, _) = import("claude-code", &logs, &out);
    let pipe = logs.join("pipe.jsonl").display().to_string();
    assert!(
        stdout.contains(&format!(
            "\nFiles that could not be read (no scenario; the rest was imported):\n  {pipe}: is a named pipe (FIFO), not a regular file: save what it carries to a file first\n"
        )),
        "{stdout}"
    );
    assert_eq!(support::names(&out).len(), 3);
    // JSON lists it too.
    let report = json(
        simulate()
            .args(["import", "claude-code", "--force", "--format", "json"])
            .arg(&logs)
            .arg("--out")
            .arg(&out),
    );
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
    let (stdout, stderr) = import("claude-code", &logs, &out);
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

const HEAD: &str = "name = \"x\"\nbase_tokens = 1000\nbytes_per_token = 3.3\n";
const CALL: &str = "\n[[call]]\nlabel = \"a\"\nbytes = 100\n";

/// The scenario `HEAD + body + CALL` as loaded, or its error as printed.
fn load(body: &str) -> Result<simulate::scenario::Scenario, String> {
    simulate::scenario::load_str(&format!("{HEAD}{body}{CALL}"), Path::new("s.toml"))
        .map_err(|e| e.to_string())
}

const DATA: &str = "price data (LiteLLM 1.110.2 and its overlay in src/cache/)";

/// Issue 16 §4: an unknown preset is an error with did-you-mean, and the advice names only
/// presets that exist. (Before, the advice said "add -1h for the 1-hour cache", and
/// `gpt-5-1h`, which does not exist, was the name it led to.)
#[test]
fn unknown_presets_are_errors_whose_advice_names_only_presets_that_exist() {
    let generic = "anthropic-5m, anthropic-1h, openai-gpt-4o, openai-gpt-4.1, openai-gpt-5";
    let examples =
        "(e.g. claude-sonnet-4-5, claude-sonnet-4-5-1h for its 1-hour cache, gpt-5-codex)";
    assert_eq!(
        load("[cache]\npreset = \"gpt-5-1h\"\n").unwrap_err(),
        format!(
            "s.toml:5:10: [cache] preset: \"gpt-5-1h\" is not a preset: the {DATA} has no 1-hour cache terms for gpt-5; use preset = \"gpt-5\" (its 5-minute cache), or give read, write, ttl_s and min_tokens yourself"
        )
    );
    assert_eq!(
        load("[cache]\npreset = \"claude-haiku-4-5-2h\"\n").unwrap_err(),
        format!(
            "s.toml:5:10: [cache] preset: unknown preset \"claude-haiku-4-5-2h\"; did you mean \"claude-haiku-4-5-1h\"? give one of {generic}, or a model name or a log's model id from the {DATA} {examples}"
        )
    );
    assert_eq!(
        load("[cache]\npreset = \"-anything\"\n").unwrap_err(),
        format!(
            "s.toml:5:10: [cache] preset: unknown preset \"-anything\"; give one of {generic}, or a model name or a log's model id from the {DATA} {examples}"
        )
    );
    for example in [
        "claude-sonnet-4-5",
        "claude-sonnet-4-5-1h",
        "gpt-5-codex",
        "gpt-5",
        "claude-haiku-4-5-1h",
    ] {
        assert!(
            simulate::cache::presets::find(example).is_some(),
            "{example}"
        );
    }
}

/// A log's own model id works as a preset, and with `-1h` as its 1-hour one.
#[test]
fn a_logs_model_id_is_a_preset_and_with_1h_its_one_hour_cache() {
    let five = load("[cache]\npreset = \"claude-sonnet-4-5-20250929\"\n").unwrap();
    let c = five.cache.unwrap();
    assert_eq!((c.read, c.write, c.ttl_s), (0.1, 1.25, 300.0));
    let hour = load("[cache]\npreset = \"claude-sonnet-4-5-20250929-1h\"\n").unwrap();
    let c = hour.cache.unwrap();
    assert_eq!((c.read, c.write, c.ttl_s), (0.1, 2.0, 3600.0));
    // A route's id, whose 1-hour form the data has under another key.
    let routed = "converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0-1h";
    let c = load(&format!("[cache]\npreset = \"{routed}\"\n"))
        .unwrap()
        .cache
        .unwrap();
    assert_eq!((c.write, c.ttl_s, c.min_tokens), (2.0, 3600.0, 4096.0));
    assert!(
        c.preset
            .unwrap()
            .starts_with("jp.anthropic.claude-haiku-4-5-20251001-v1:0-1h (")
    );
}

/// Issue 16 §4: a price or cache key given beside a model or preset is labelled as the
/// scenario's, not as the list price.
#[test]
fn prices_and_cache_keys_given_beside_a_model_are_labelled_as_the_scenarios() {
    let list = load("[price]\nmodel = \"claude-sonnet-4-5\"\n")
        .unwrap()
        .price
        .unwrap();
    assert!(
        list.source.starts_with("claude-sonnet-4-5 list price: "),
        "{}",
        list.source
    );
    let source = |body: &str| load(body).unwrap().price.unwrap().source;
    let input = load("[price]\nmodel = \"claude-sonnet-4-5\"\ninput = 1.0\n")
        .unwrap()
        .price
        .unwrap();
    assert_eq!((input.input, input.output), (1.0, Some(15.0)));
    assert_eq!(
        input.source,
        format!("input from the scenario file; output: {}", list.source)
    );
    assert_eq!(
        source("[price]\nmodel = \"claude-sonnet-4-5\"\noutput = 9.0\n"),
        format!("output from the scenario file; input: {}", list.source)
    );
    assert_eq!(
        source("[price]\nmodel = \"claude-sonnet-4-5\"\ninput = 1.0\noutput = 2.0\n"),
        "input and output from the scenario file"
    );
    assert_eq!(
        source("[price]\nmodel = \"claude-sonnet-4-5\"\ninput = 1.0\nsource = \"our contract\"\n"),
        "our contract"
    );

    let plain = load("[cache]\npreset = \"anthropic-5m\"\n")
        .unwrap()
        .cache
        .unwrap();
    let source = plain.preset.unwrap();
    let read = load("[cache]\npreset = \"anthropic-5m\"\nread = 0.2\nttl_s = 600\n")
        .unwrap()
        .cache
        .unwrap();
    assert_eq!((read.read, read.write, read.ttl_s), (0.2, 1.25, 600.0));
    assert_eq!(
        read.preset.unwrap(),
        format!("{source}, with read and ttl_s from the scenario file")
    );
}

/// Issue 16 §3: `[price] source` with ESC or U+0001 was accepted and printed raw in the
/// table; it is text like any label: refused, located, the character escaped.
#[test]
fn a_price_source_with_control_characters_is_refused_and_shown_escaped() {
    assert_eq!(
        load("[price]\ninput = 3.0\nsource = \"list\\u001b[2J\"\n").unwrap_err(),
        "s.toml:6:10: [price] source: \"list\\u{1b}[2J\" holds the control character U+001B: remove it (control characters would corrupt the charts, the HTML page and the terminal)"
    );
    assert!(
        load("[price]\ninput = 3.0\nsource = \"a\\u0001\"\n")
            .unwrap_err()
            .contains("holds the control character U+0001")
    );
}

/// Issue 16 §3: what a scenario file controls reaches the run's table escaped: its name,
/// its free-text description (carriage returns and line breaks would overwrite or forge
/// lines) and the `[import] model` the loader does not check.
#[test]
fn a_runs_table_escapes_what_the_scenario_file_controls() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s\u{1b}[31m.toml");
    fs::write(
        &path,
        format!(
            "{}description = \"one\\rtwo\\nthree\"\n[import]\nformat = \"claude-code\"\nfile = \"x\"\nmodel = \"m\\u001b]0;t\\u0007\"\n{CALL}",
            HEAD
        ),
    )
    .unwrap();
    let assert = simulate().arg(&path).arg("--no-write").assert().success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\r'),
        "{stdout:?}"
    );
    let first: Vec<&str> = stdout.lines().take(2).collect();
    assert_eq!(
        first,
        [
            "x: one\\rtwo\\nthree",
            &format!(
                "  1 call, from {}/s\\u{{1b}}[31m.toml",
                dir.path().display()
            )
        ]
    );
    assert!(
        stdout.contains("  cost             flat, because the log's model \"m\\u{1b}]0;t\\u{7}\" is unknown to the price data"),
        "{stdout}"
    );
}

/// `simulate history DIR --edits FILE --format json` with the history's own edits; the
/// assertion on its exit code is the caller's.
fn history(dir: &Path) -> assert_cmd::assert::Assert {
    simulate()
        .arg("history")
        .arg(dir)
        .args([
            "--edits",
            "scenarios/history/edits.toml",
            "--no-write",
            "--format",
            "json",
        ])
        .assert()
}

/// Issue 16 §3: a history leaves out an entry named `*.toml` that is not a regular file (a
/// named pipe, a device, a folder, a broken link) and lists each; before, they were left
/// out without a word (and a FIFO found by a later reader would block it).
#[test]
fn a_history_lists_every_entry_it_skips() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("sessions");
    fs::create_dir(&dir).unwrap();
    let session = "scenarios/history/sessions/storefront-023606c1.toml";
    fs::copy(session, dir.join("one.toml")).unwrap();
    fifo(&dir.join("pipe.toml"));
    std::os::unix::fs::symlink("/dev/null", dir.join("null.toml")).unwrap();
    std::os::unix::fs::symlink(root.path().join("gone"), dir.join("gone.toml")).unwrap();
    fs::create_dir(dir.join("folder.toml")).unwrap();
    let assert = history(&dir).success();
    let report: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(report["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(
        report["skipped"],
        serde_json::json!([
            {"file": "folder.toml", "reason": "is a directory, not a file: the *.toml files in it are read, it is not"},
            {"file": "gone.toml", "reason": "a broken symbolic link, not read"},
            {"file": "null.toml", "reason": "is a device, not a regular file, not read"},
            {"file": "pipe.toml", "reason": "is a named pipe (FIFO), not a regular file: save what it carries to a file first, not read"},
        ])
    );
}

/// Issue 16 §3: one set of input rules. A session file over 8 MiB is refused by a history
/// as by a single run (before, a history read session files up to 1 GiB).
#[test]
fn a_history_reads_sessions_under_the_rules_of_a_single_run() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("sessions");
    fs::create_dir(&dir).unwrap();
    let mut text =
        fs::read_to_string("scenarios/history/sessions/storefront-023606c1.toml").unwrap();
    while text.len() <= 8 << 20 {
        text.push_str("# padding to go past the 8 MiB a scenario file may be\n");
    }
    let big = dir.join("big.toml");
    fs::write(&big, &text).unwrap();
    let size = text.len();
    let single = simulate().arg(&big).arg("--no-write").assert().code(2);
    let single = String::from_utf8(single.get_output().stderr.clone()).unwrap();
    let many = history(&dir).code(2);
    let many = String::from_utf8(many.get_output().stderr.clone()).unwrap();
    assert_eq!(many, single);
    assert_eq!(
        many,
        format!(
            "error: {}: file is {size} bytes; the limit for a scenario file is 8388608 bytes (8 MiB): put a long run in a trace and name it with calls_tsv = \"run.tsv\" (one call a line, up to 1 GiB)\n",
            big.display()
        )
    );
}

/// Issue 16 §4: unit slips are legal but almost surely wrong; each is a warning that names
/// the key and the value probably meant (before, each passed without a word).
#[test]
fn unit_slips_are_warnings_that_name_the_value_meant() {
    let text = "name = \"x\"\nbase_tokens = 1000\nbytes_per_token = 0.3\n[cache]\nread = 10\nwrite = 125\nttl_s = 300\nmin_tokens = 0\n[[call]]\nlabel = \"a\"\nbytes = 100\n[[edit]]\nname = \"trim a\"\ntrim = { call = \"a\", by_percent = 0.5 }\n[[edit]]\nname = \"halve tools\"\ntrim = { select = { kind = \"tool\" }, by_percent = 0.25 }\n[[edit]]\nname = \"1-hour cache\"\ncache = { ttl_s = 3600, write = 200, read = 10 }\n";
    let s = simulate::scenario::load_str(text, Path::new("s.toml")).unwrap();
    assert_eq!(
        s.warnings,
        [
            "s.toml:3:19: bytes_per_token: bytes_per_token = 0.3 means more tokens than bytes, which text does not have (about 2.5 to 4.5 bytes a token; the default is 3.3): for tokens per byte, write bytes_per_token = 3.33 (1 ÷ 0.3)",
            "s.toml:5:8: [cache] read: read = 10 makes a token read from the cache cost 10 times a plain input token: read is a multiple of the input price (0.1 is a tenth, 1.25 a quarter more), not a percent; did you mean read = 0.1?",
            "s.toml:6:9: [cache] write: write = 125 makes a token written to the cache cost 125 times a plain input token: write is a multiple of the input price (0.1 is a tenth, 1.25 a quarter more), not a percent; did you mean write = 1.25?",
        ]
    );
    assert_eq!(
        s.edits[0].warnings,
        [
            "s.toml:14:35: [[edit]] \"trim a\": trim.by_percent: by_percent = 0.5 takes 0.5 % off, not 50 %: by_percent is a percentage, not a share of 1 (for 50 %, write by_percent = 50)"
        ]
    );
    assert_eq!(
        s.edits[1].warnings,
        [
            "s.toml:17:51: [[edit]] \"halve tools\": trim.by_percent: by_percent = 0.25 takes 0.25 % off, not 25 %: by_percent is a percentage, not a share of 1 (for 25 %, write by_percent = 25)"
        ]
    );
    // The same slips in a cache edit (before: no word, and a saving of -2,894 %).
    assert_eq!(
        s.edits[2].warnings,
        [
            "s.toml:20:45: [[edit]] \"1-hour cache\": cache.read: read = 10 makes a token read from the cache cost 10 times a plain input token: read is a multiple of the input price (0.1 is a tenth, 1.25 a quarter more), not a percent; did you mean read = 0.1?",
            "s.toml:20:33: [[edit]] \"1-hour cache\": cache.write: write = 200 makes a token written to the cache cost 200 times a plain input token: write is a multiple of the input price (0.1 is a tenth, 1.25 a quarter more), not a percent; did you mean write = 2?",
        ]
    );
    // They reach the run's warnings, the file's first.
    let study = simulate::evaluate::Study::new(&s).unwrap();
    assert_eq!(study.warnings.len(), 7);
    assert_eq!(study.warnings[0], s.warnings[0]);
    assert_eq!(study.warnings[4], s.edits[1].warnings[0]);
    // Values as meant give none.
    let meant = "name = \"x\"\nbase_tokens = 1000\nbytes_per_token = 3.3\n[cache]\nread = 0.1\nwrite = 2\nttl_s = 300\nmin_tokens = 0\n[[call]]\nlabel = \"a\"\nbytes = 100\n[[edit]]\nname = \"trim a\"\ntrim = { call = \"a\", by_percent = 1 }\n";
    let s = simulate::scenario::load_str(meant, Path::new("s.toml")).unwrap();
    assert!(s.warnings.is_empty() && s.edits[0].warnings.is_empty());
}

/// Issue 16 §4: a `trim by_percent` of a call with an empty result trims nothing: a
/// warning, not an error (before: exit 2, "has an empty result: nothing to trim").
#[test]
fn a_percent_trim_of_an_empty_result_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    fs::write(
        &path,
        format!("{HEAD}[[call]]\nlabel = \"e\"\nbytes = 0\n{CALL}[[edit]]\nname = \"trim e\"\nsteps = [{{ drop = {{ call = \"x\" }} }}, {{ trim = {{ call = \"e\", by_percent = 50 }} }}]\n[[call]]\nid = \"x\"\nlabel = \"x\"\nbytes = 5\n"),
    )
    .unwrap();
    let report = json(
        simulate()
            .arg(&path)
            .args(["--no-write", "--format", "json"]),
    );
    assert_eq!(
        report["warnings"],
        serde_json::json!([
            "[[edit]] \"trim e\": step 2: trim.by_percent: call `e` has an empty result (no bytes, no tokens): the trim changes nothing"
        ])
    );
}

/// Issue 16 §4: a mistyped selector (`tool = "bash"`) saved nothing in every session,
/// silently; a run names the trace's tools and the nearest, and a history says it once
/// when no session has the name (a session without the tool is normal, and not said).
#[test]
fn a_mistyped_selector_names_the_tools_there_with_did_you_mean() {
    let dir = tempfile::tempdir().unwrap();
    let edits = dir.path().join("edits.toml");
    fs::write(
        &edits,
        "[[edit]]\nname = \"cap shell\"\ncap = { select = { tool = \"bash\" }, max_bytes = 8000 }\n[[edit]]\nname = \"cap real shell\"\ncap = { select = { tool = \"Bash\" }, max_bytes = 8000 }\n",
    )
    .unwrap();
    let report = json(
        simulate()
            .arg("scenarios/history/sessions/storefront-023606c1.toml")
            .arg("--edits")
            .arg(&edits)
            .args(["--no-write", "--format", "json"]),
    );
    assert_eq!(
        report["warnings"],
        serde_json::json!([
            "[[edit]] \"cap shell\": cap: the selector matches no call in this trace: no call has tool \"bash\" (did you mean \"Bash\"?); tools there: Bash, Edit, Grep, Read"
        ])
    );
    let report = json(
        simulate()
            .args(["history", "scenarios/history", "--edits"])
            .arg(&edits)
            .args(["--no-write", "--format", "json"]),
    );
    assert_eq!(
        report["warnings"],
        serde_json::json!([{
            "warning": "[[edit]] \"cap shell\": cap: no session has tool \"bash\" (did you mean \"Bash\"?); tools there: Bash, Edit, Grep, Read, WebSearch, mcp__github__get_issue, mcp__github__get_pull_request_diff, mcp__github__list_issues, mcp__github__list_pull_requests",
            "sessions": 12
        }])
    );
}

/// Issue 16 §4: two `[[call]]` tables with the same label and no id get ids of their own
/// (`label-2`, the first number free), with a warning, instead of an error; ids given
/// still may not clash.
#[test]
fn calls_with_one_label_and_no_id_get_ids_of_their_own() {
    let text = format!(
        "{HEAD}[[call]]\nlabel = \"cat a.md\"\nbytes = 1\n[[call]]\nid = \"cat a.md-2\"\nlabel = \"x\"\nbytes = 2\n[[call]]\nlabel = \"cat a.md\"\nbytes = 3\n[[edit]]\nname = \"drop the re-read\"\ndrop = {{ call = \"cat a.md-3\" }}\n"
    );
    let s = simulate::scenario::load_str(&text, Path::new("s.toml")).unwrap();
    let ids: Vec<String> = s.calls.iter().map(|c| c.id.to_string()).collect();
    assert_eq!(ids, ["cat a.md", "cat a.md-2", "cat a.md-3"]);
    assert_eq!(
        s.warnings,
        [
            "s.toml:11:1: [[call]] #3: has no id and the label `cat a.md` of call #1: its id is `cat a.md-3` (edits name calls by id; give it an `id` to choose)"
        ]
    );
    let labels: Vec<&str> = s.calls.iter().map(|c| c.label).collect();
    assert_eq!(labels, ["cat a.md", "x", "cat a.md"]);
    let study = simulate::evaluate::Study::new(&s).unwrap();
    assert_eq!(study.edited[0].run.len(), 2);
    // Two ids given alike stay an error.
    let clash = format!("{HEAD}[[call]]\nid = \"a\"\nbytes = 1\n[[call]]\nid = \"a\"\nbytes = 2\n");
    assert_eq!(
        simulate::scenario::load_str(&clash, Path::new("s.toml"))
            .unwrap_err()
            .to_string(),
        "s.toml:7:1: [[call]] #2: duplicate call id `a` (call #1 has it too); give one of them a unique `id`"
    );
}

/// Issue 16 §4: a trace given to the main command got a TOML parse error ("key with no
/// value"); it says what the file is and the two ways to use it.
#[test]
fn a_trace_given_as_a_scenario_says_it_is_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        (
            "run.tsv",
            "# number\tlabel\tbytes\n1\tcat a.md\t3000\n2\tls\t200\n",
        ),
        (
            "seed.txt",
            "1\tcat a.md\t3000\n1\tcat b.md\t100\n2\tls\t200\n",
        ),
    ] {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        let assert = simulate().arg(&path).assert().code(2);
        let p = path.display();
        assert_eq!(
            String::from_utf8(assert.get_output().stderr.clone()).unwrap(),
            format!(
                "error: {p}: this is a trace (number<TAB>label<TAB>bytes a line), not a scenario (TOML): print its ledger with `simulate ledger {p}`, or compare edits on it from a scenario that names it, calls_tsv = \"{p}\"\n"
            )
        );
    }
    // Broken TOML is still a TOML error.
    let path = dir.path().join("s.toml");
    fs::write(&path, "name = \n").unwrap();
    let assert = simulate().arg(&path).assert().code(2);
    assert!(
        String::from_utf8(assert.get_output().stderr.clone())
            .unwrap()
            .contains("s.toml:1:8: ")
    );
}

/// Issue 16 §4: a seed-format trace whose call number comes back after other calls is read
/// as the seed reads it, by `simulate ledger` (which streams until it meets the repeat,
/// then reads the trace whole) and by a scenario's `calls_tsv` alike.
#[test]
fn a_seed_trace_with_a_number_that_comes_back_is_summed_as_the_seed_sums_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("seed.tsv"),
        "1\tcat a.md\t3000\n2\tls\t200\n1\tcat b.md\t100\n3\tmake\t50\n",
    )
    .unwrap();
    let report = json(
        simulate()
            .arg("ledger")
            .arg(dir.path().join("seed.tsv"))
            .args(["--format", "json", "--base", "1000", "--bpt", "1"]),
    );
    let rows: Vec<(String, String, f64)> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["call"].as_str().unwrap().to_string(),
                r["label"].as_str().unwrap().to_string(),
                r["bytes"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("1".to_string(), "cat a.md+cat b.md".to_string(), 3100.0),
            ("2".to_string(), "ls".to_string(), 200.0),
            ("3".to_string(), "make".to_string(), 50.0),
        ]
    );
    // 1,000 + 4,100 + 4,300 = 9,400.
    assert_eq!(report["total_tokens"], 9400.0);
    fs::write(
        dir.path().join("s.toml"),
        "name = \"seed\"\nbase_tokens = 1000\nbytes_per_token = 1\ncalls_tsv = \"seed.tsv\"\n",
    )
    .unwrap();
    let s = simulate::scenario::load(&dir.path().join("s.toml")).unwrap();
    let labels: Vec<&str> = s.calls.iter().map(|c| c.label).collect();
    assert_eq!(labels, ["cat a.md+cat b.md", "ls", "make"]);
}

/// Issue 16 §4: a clearing whose trigger fired but found nothing worth clearing was
/// reported as "never fired"; it says it fired, where first, and why nothing was cleared.
#[test]
fn a_clearing_that_fired_with_nothing_to_clear_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    let calls = "[[call]]\nlabel = \"a\"\nbytes = 1000\n[[call]]\nlabel = \"b\"\nbytes = 1000\n[[call]]\nlabel = \"c\"\nbytes = 1000\n";
    fs::write(
        &path,
        format!(
            "name = \"x\"\nbase_tokens = 1000\nbytes_per_token = 1\n{calls}[[edit]]\nname = \"keep all\"\nclear = {{ above_context_tokens = 1500, keep_results = 5 }}\n[[edit]]\nname = \"too little\"\nclear = {{ above_context_tokens = 1500, clear_at_least_tokens = 100000 }}\n[[edit]]\nname = \"never\"\nclear = {{ above_context_tokens = 100000 }}\n"
        ),
    )
    .unwrap();
    let assert = simulate().arg(&path).arg("--no-write").assert().success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let start = stdout.find("Clearings (at the nominal point):").unwrap();
    let lines: Vec<&str> = stdout[start..].lines().skip(1).take(3).collect();
    let mut lines = lines;
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "  keep all: fired before 2 calls (first before call 2: above_context_tokens), but never cleared: each time every clearable result was kept, or none stood",
            "  never: never fired on this trace",
            "  too little: fired before 2 calls (first before call 2: above_context_tokens), but never cleared: each clearing would have freed less than clear_at_least_tokens",
        ]
    );
    let report = json(
        simulate()
            .arg(&path)
            .args(["--no-write", "--format", "json"]),
    );
    let keep = report["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "keep all")
        .unwrap();
    assert_eq!(
        keep["idle"],
        serde_json::json!({"firings": 2, "nothing_to_clear": 2, "too_little": 0, "first_before_call": 2, "first_triggers": ["above_context_tokens"]})
    );
}

/// Issue 16 §4: at extreme sizes every saving is within 1e-9 of the reread total and
/// counts as 0; the answer said "a and b tie for the largest saving: 0 est. tokens". It
/// says no edit saves anything, and how small a change cannot be told from none.
#[test]
fn no_measurable_saving_is_said_as_such_not_as_a_tie() {
    let answer = |text: &str| {
        let s = simulate::scenario::load_str(text, Path::new("s.toml")).unwrap();
        let study = simulate::evaluate::Study::new(&s).unwrap();
        let at = simulate::ledger::Assumptions {
            base_tokens: s.base_tokens,
            bytes_per_token: s.bytes_per_token,
        };
        let nominal = simulate::evaluate::evaluate(&study, study.nominal(at));
        let sources = simulate::report::Sources::of(&s, false, false);
        simulate::report::Report::new(&study, &nominal, sources, None).answer
    };
    let calls = "[[call]]\nlabel = \"a\"\nbytes = 1000\n[[call]]\nlabel = \"b\"\nbytes = 10\n[[call]]\nlabel = \"c\"\nbytes = 1\n";
    let trims = "[[edit]]\nname = \"trim a\"\ntrim = { call = \"a\", by_bytes = 500 }\n[[edit]]\nname = \"trim b\"\ntrim = { call = \"b\", by_bytes = 5 }\n";
    assert_eq!(
        answer(&format!(
            "name = \"x\"\nbase_tokens = 1e15\nbytes_per_token = 1\n{calls}{trims}"
        )),
        "No edit saves anything: a saving within 1e-9 of the reread total (3,000,000,000,002,010 est. tokens) counts as 0, so a change smaller than about 3,000,000 est. tokens cannot be told from none."
    );
    // At ordinary sizes the same edits save, and the answer says who saves the most.
    assert_eq!(
        answer(&format!(
            "name = \"x\"\nbase_tokens = 1000\nbytes_per_token = 1\n{calls}{trims}"
        )),
        "trim a saves the most: 1,000 est. tokens, 20.0 % of the reread total (0.60 average calls)."
    );
    let nothing = "[[edit]]\nname = \"nothing\"\ncap = { select = { tool = \"X\" }, max_bytes = 5 }\n[[edit]]\nname = \"adds\"\nbase = { by_tokens = -5 }\n";
    assert_eq!(
        answer(&format!(
            "name = \"x\"\nbase_tokens = 1000\nbytes_per_token = 1\n{calls}{nothing}"
        )),
        "No edit saves anything (nothing saves 0; the others add to the reread total): every saving is 0 est. tokens or less."
    );
}
