//! Issue 25 §6: what is refused, and what is a slip. Each item with the message a user
//! reads: a compaction that would compact before every call, a percentage written as a
//! share, a model id with dots, the project's own data in text shown to a user, an agent
//! log or a directory given where a scenario or an edits file is wanted.
#![allow(clippy::unwrap_used)]

mod support;
use simulate::scenario::load_str;
use std::fs;
use std::path::Path;
use support::simulate;

const HEAD: &str = "name = \"s\"\nbase_tokens = 30000\nbytes_per_token = 1\n[[call]]\nid = \"a\"\nbytes = 50000\n[[call]]\nid = \"b\"\nbytes = 50000\n[[call]]\nid = \"c\"\nbytes = 50000\n";

/// Runs the scenario `text` with no files written: exit code, stdout, stderr.
fn run(text: &str, args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    fs::write(&path, text).unwrap();
    let o = simulate()
        .arg(&path)
        .arg("--no-write")
        .args(args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    (
        o.status.code().unwrap(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr)
            .unwrap()
            .replace(&dir.path().display().to_string(), "DIR"),
    )
}

#[test]
fn a_compaction_trigger_at_or_below_b_plus_summary_is_refused_naming_both() {
    let (code, _, stderr) = run(
        &format!(
            "{HEAD}[[edit]]\nname = \"low\"\ncompact = {{ above_context_tokens = 32000, summary_tokens = 3000 }}\n"
        ),
        &[],
    );
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: DIR/s.toml:15:11: [[edit]] \"low\": compact: a trigger of 32,000 tokens is at or below what a compaction leaves, B + summary = 30,000 + 3,000 = 33,000 tokens (at B = 30,000, ρ = 1): the context would stay over the trigger and compact again before every call; give a trigger above 33,000, or a smaller summary\n"
    );
    // Above it at the nominal point, but not where the default sweep's B is largest (4/3 B
    // = 40,000): the corner is named.
    let (code, _, stderr) = run(
        &format!(
            "{HEAD}[[edit]]\nname = \"low\"\ncompact = {{ above_context_tokens = 40000, summary_tokens = 3000 }}\n"
        ),
        &[],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("B + summary = 40,000 + 3,000 = 43,000 tokens (at B = 40,000, ρ = 1.25, a corner of the sweep)"),
        "{stderr}"
    );
    // A trigger above B + summary at every point runs.
    let (code, _, _) = run(
        &format!(
            "{HEAD}[[edit]]\nname = \"ok\"\ncompact = {{ above_context_tokens = 44000, summary_tokens = 3000 }}\n"
        ),
        &[],
    );
    assert_eq!(code, 0);
}

#[test]
fn at_percent_under_one_is_a_slip() {
    let s = load_str(
        &format!(
            "{HEAD}[[edit]]\nname = \"p\"\ncompact = {{ at_percent = 0.9, window_tokens = 200000000, summary_tokens = 3000 }}\n"
        ),
        Path::new("s.toml"),
    )
    .unwrap();
    assert_eq!(
        s.edits[0].warnings,
        vec!["s.toml:15:26: [[edit]] \"p\": compact.at_percent: 0.9 % of the window: did you mean 90? at_percent is a percentage, not a share of 1 (for 90 %, write at_percent = 90)".to_string()]
    );
    let s = load_str(
        &format!(
            "{HEAD}[[edit]]\nname = \"p\"\ncompact = {{ at_percent = 90, window_tokens = 200000, summary_tokens = 3000 }}\n"
        ),
        Path::new("s.toml"),
    )
    .unwrap();
    assert!(s.edits[0].warnings.is_empty());
}

#[test]
fn did_you_mean_reads_a_dot_as_a_dash() {
    let err = |model: &str| {
        load_str(
            &format!("{HEAD}[[edit]]\nname = \"m\"\nmodel = {{ to = \"{model}\" }}\n"),
            Path::new("s.toml"),
        )
        .unwrap_err()
        .to_string()
    };
    let e = err("claude-sonnet-4.5");
    assert!(e.contains("did you mean \"claude-sonnet-4-5\"?"), "{e}");
    let e = err("Claude-Opus-4.1");
    assert!(e.contains("did you mean \"claude-opus-4-1\"?"), "{e}");
}

/// Text shown to a user never names this project's own data: suggest's assumed summary
/// says assumed, and no source string in the code names the shared logs.
#[test]
fn no_text_names_the_projects_own_data() {
    let mut offenders = Vec::new();
    let mut stack = vec![Path::new("src").to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            for (i, line) in fs::read_to_string(&path).unwrap().lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                for word in [
                    "shared real logs",
                    "real-logs",
                    "13,366",
                    "2.1.114 sessions",
                ] {
                    if code.contains(word) {
                        offenders.push(format!("{}:{}: {word}", path.display(), i + 1));
                    }
                }
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:?}");
}

#[test]
fn an_agent_log_given_as_the_scenario_names_its_import() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "session.jsonl",
            "{\"type\":\"file-history-snapshot\",\"messageId\":\"m\",\"snapshot\":{}}\n{\"parentUuid\":null,\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
            "this is a Claude Code log, not a scenario: make scenarios of it with `simulate import claude-code",
        ),
        (
            "rollout-x.jsonl",
            "{\"timestamp\":\"2026-01-01T00:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"x\"}}\n",
            "this is a Codex CLI log, not a scenario: make scenarios of it with `simulate import codex",
        ),
    ];
    for (name, text, said) in cases {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        let o = simulate().arg(&path).arg("--no-write").output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let stderr = String::from_utf8(o.stderr).unwrap();
        assert!(stderr.contains(said), "{stderr}");
        assert!(stderr.contains(&format!("{name} --out DIR`")), "{stderr}");
    }
}

#[test]
fn a_directory_given_as_the_edits_file_gets_advice_for_edits() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(HEAD, &["--edits", "."]);
    drop(dir);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: .: is a directory, not a file: --edits takes one edits file of [[edit]] tables (e.g. scenarios/imported/edits.toml; `simulate suggest DIR` writes one, suggested.toml, from your sessions)\n"
    );
}

/// A missing price tells a binary user what to do: name a file of prices with
/// `SIMULATE_PRICES`; it prices a model the data lacks, and a bad one is refused naming the
/// file, line and key.
#[test]
fn a_file_of_prices_of_ones_own_prices_a_model_the_data_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("s.toml");
    fs::write(
        &scenario,
        format!("{HEAD}[price]\nmodel = \"glm-4.6\"\n[[edit]]\nname = \"drop a\"\ndrop = {{ call = \"a\" }}\n"),
    )
    .unwrap();
    // Without the file: the error says what to do.
    let o = simulate()
        .arg(&scenario)
        .arg("--no-write")
        .env_remove("SIMULATE_PRICES")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(
        stderr.contains("no prices for model \"glm-4.6\"")
            && stderr.contains("a file named by the SIMULATE_PRICES environment variable"),
        "{stderr}"
    );
    let prices = dir.path().join("prices.toml");
    fs::write(
        &prices,
        "[[model]]\nname = \"glm-4.6\"\ninput = 0.6\noutput = 2.2\nsource = \"z.ai pricing, read 2026-12-01\"\n",
    )
    .unwrap();
    let o = simulate()
        .arg(&scenario)
        .args(["--no-write", "--format", "json"])
        .env("SIMULATE_PRICES", &prices)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // B = 30,000, three calls of 50,000 bytes at ρ = 1: T = 240,000 est. tokens, $0.6 per
    // million: $0.144.
    assert_eq!(json["baseline"]["dollars"], 0.144);
    let text = json.to_string();
    assert!(text.contains("z.ai pricing, read 2026-12-01"), "{text}");
    fs::write(
        &prices,
        "[[model]]\nname = \"glm-4.6\"\ninput = 0.6\noutput = \"cheap\"\nsource = \"s\"\n",
    )
    .unwrap();
    let o = simulate()
        .arg(&scenario)
        .arg("--no-write")
        .env("SIMULATE_PRICES", &prices)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "error: {}:4:10: prices: invalid type",
            prices.display()
        )),
        "{stderr}"
    );
}

/// Values beyond any physical meaning (a call of 10¹⁵ bytes, a base of 10¹⁵ tokens) give the
/// same figures by closed form and by `--replay`: every figure of `sweep.csv`, cost
/// included, for edits of the calls, the base's parts, the cache and the model, to 1e-9 of
/// the baseline's total at the point (the model's tie tolerance, §5).
#[test]
fn the_largest_values_give_the_same_figures_by_closed_form_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = String::from(
        "name = \"edge\"\nbase_tokens = 1e15\nbytes_per_token = 3.3\nretry_rate = 0.5\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n[price]\nmodel = \"claude-sonnet-4-5\"\n[[base.part]]\nname = \"p\"\ntokens = 5e14\ntools = [\"mcp__x__*\"]\n",
    );
    for (i, (bytes, tokens, gap, tool)) in [
        (1e15, 0.0, 0, "Read"),
        (3.0, 5.0, 400, "mcp__x__a"),
        (1e9, 1e15, 0, "Read"),
        (1e3, 0.0, 4000, "Read"),
        (20.0, 0.0, 0, "Read"),
    ]
    .iter()
    .enumerate()
    {
        t.push_str(&format!(
            "[[call]]\nid = \"c{i}\"\ntool = \"{tool}\"\nbytes = {bytes:e}\ntokens = {tokens:e}\ngap_s = {gap}\noutput_tokens = 10\n"
        ));
    }
    t.push_str("[[edit]]\nname = \"trim\"\ntrim = { call = \"c0\", by_percent = 50 }\n[[edit]]\nname = \"drop\"\ndrop = { call = \"c3\" }\n[[edit]]\nname = \"model\"\nmodel = { to = \"claude-haiku-4-5\", tokens_factor = 1.3 }\n[[edit]]\nname = \"defer\"\nbase = { defer = \"p\", stub_tokens = 300 }\n[[edit]]\nname = \"cache\"\ncache = { ttl_s = 3600, write = 2.0 }\n");
    let path = dir.path().join("edge.toml");
    fs::write(&path, t).unwrap();
    let sweep = |replay: bool| {
        let out = dir.path().join(if replay { "rp" } else { "cf" });
        let mut c = simulate();
        c.arg(&path).arg("--no-charts").arg("--out").arg(&out);
        if replay {
            c.arg("--replay");
        }
        c.assert().success();
        support::rows(&out.join("edge").join("sweep.csv"))
    };
    let (closed, replayed) = (sweep(false), sweep(true));
    assert_eq!(closed.len(), replayed.len());
    assert!(closed.len() >= 45);
    for (a, b) in closed.iter().zip(&replayed) {
        // The baseline's total and cost at the row's point: the edit's plus its saving.
        let baseline = |k: &str, saved: &str| support::number(a, k) + support::number(a, saved);
        for (k, of) in [
            ("total_tokens", ("total_tokens", "saved_tokens")),
            ("saved_tokens", ("total_tokens", "saved_tokens")),
            ("cost", ("cost", "cost_saved")),
            ("cost_saved", ("cost", "cost_saved")),
        ] {
            let (x, y) = (support::number(a, k), support::number(b, k));
            let tolerance = 1e-9 * baseline(of.0, of.1);
            assert!(
                (x - y).abs() <= tolerance,
                "{} {k}: {x} against {y}",
                a["edit"]
            );
        }
    }
}
