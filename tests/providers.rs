//! Issue 25 §3: each edit for the providers that have it (docs/model.md §9). Anthropic's
//! context editing and compaction are refused on calls of OpenAI's API, OpenAI's
//! server-side compaction and 24-hour retention on Anthropic's (and retention on a model
//! that does not offer it), each naming a model; over many sessions such a step changes
//! nothing and is noted; OpenAI's own edits give hand-computed figures.
#![allow(clippy::unwrap_used)]

mod support;
use simulate::evaluate::{Study, evaluate};
use simulate::ledger::Assumptions;
use simulate::scenario::{Scenario, load_str, provider};
use std::fs;
use std::path::Path;
use support::simulate;

fn scenario(toml: &str) -> Scenario {
    load_str(toml, Path::new("test.toml")).unwrap()
}

fn at(s: &Scenario) -> Assumptions {
    Assumptions {
        base_tokens: s.base_tokens,
        bytes_per_token: s.bytes_per_token,
    }
}

/// `n` calls of `bytes` each; with `usage = Some((convention, model))`, each carries its
/// measured usage (the tokens do not matter here). The second call comes after `gap_s`.
fn calls(n: usize, bytes: u32, gap_s: u32, usage: Option<(&str, &str)>) -> String {
    let mut t = String::new();
    for i in 1..=n {
        let gap = if i == 2 { gap_s } else { 0 };
        t.push_str(&format!(
            "[[call]]\nid = \"{i}\"\nbytes = {bytes}\ngap_s = {gap}\n"
        ));
        if let Some((convention, model)) = usage {
            t.push_str(&format!(
                "[call.measured]\ninput_tokens = 1\ncache_creation_input_tokens = 0\ncache_read_input_tokens = 0\nmodel = \"{model}\"\nconvention = \"{convention}\"\n"
            ));
        }
    }
    t
}

const HEAD: &str = "name = \"p\"\nbase_tokens = 1000\nbytes_per_token = 1\n";
const OPENAI: Option<(&str, &str)> = Some(("openai", "gpt-5.1-codex"));
const ANTHROPIC: Option<(&str, &str)> = Some(("anthropic", "claude-sonnet-4-5"));

/// docs/model.md §9's compaction example as OpenAI's server-side compaction: five calls of
/// 1,000 bytes, B = 1,000, ρ = 1, compact_threshold 3,500, summary 200: the calls read
/// 1,000, 2,000, 3,000; the compaction reads 4,000; calls 4 and 5 read 1,200 and 2,200.
#[test]
fn openai_compaction_compacts_over_its_threshold() {
    let s = scenario(&format!(
        "{HEAD}{}[[edit]]\nname = \"c\"\ncompact = {{ api = \"openai-responses\", compact_threshold = 3500, summary_tokens = 200 }}\n",
        calls(5, 1_000, 0, OPENAI)
    ));
    provider::check(&s).unwrap();
    let study = Study::new(&s).unwrap();
    assert_eq!(study.edit_notes, vec![Vec::<String>::new()]);
    let e = evaluate(&study, study.nominal(at(&s)));
    assert_eq!(e.baseline.total_tokens, 15_000.0);
    assert_eq!(e.edits[0].outcome.total_tokens, 13_400.0);
    assert_eq!(e.edits[0].outcome.calls, 6);
    let policy = study.edited[0].compact.as_ref().unwrap();
    assert!(
        policy
            .trigger
            .starts_with("OpenAI's server-side compaction in the Responses API, above 3,500"),
        "{}",
        policy.trigger
    );
}

/// OpenAI's 24-hour retention: B = 10,000, ρ = 1, three calls of 1,000 bytes, the second
/// after 600 s; OpenAI's terms (read 0.1, no write fee, TTL 300 s, min 1,024). In memory
/// the pause expires the prefix: 10,000, then 11,000 written again, then 1,100 + 1,000:
/// 23,100. Kept 24 hours: 10,000, then 1,000 + 1,000, then 1,100 + 1,000: 14,100, a saving
/// of 9,000 (39.0 %), the reread total unchanged (33,000).
#[test]
fn retention_keeps_the_prefix_over_a_pause_at_the_same_prices() {
    let s = scenario(&format!(
        "name = \"r\"\nbase_tokens = 10000\nbytes_per_token = 1\n[cache]\nread = 0.1\nwrite = 1.0\nttl_s = 300\nmin_tokens = 1024\n{}[[edit]]\nname = \"24h\"\ncache = {{ retention = \"24h\" }}\n",
        calls(3, 1_000, 600, OPENAI)
    ));
    provider::check(&s).unwrap();
    let study = Study::new(&s).unwrap();
    let e = evaluate(&study, study.nominal(at(&s)));
    assert_eq!(e.baseline.total_tokens, 33_000.0);
    assert_eq!(e.edits[0].outcome.total_tokens, 33_000.0);
    assert_eq!(e.baseline.cost, 23_100.0);
    assert_eq!(e.edits[0].outcome.cost, 14_100.0);
    assert_eq!(e.edits[0].cost_saving.saved, 9_000.0);
}

/// The error `provider::check` gives for `edit` on calls of `usage`.
fn refused(usage: Option<(&str, &str)>, edit: &str) -> String {
    let s = scenario(&format!(
        "{HEAD}{}[[edit]]\nname = \"e\"\n{edit}\n",
        calls(2, 1_000, 0, usage)
    ));
    provider::check(&s).unwrap_err().to_string()
}

#[test]
fn another_providers_mechanism_is_refused_at_its_key_naming_the_model() {
    // Two calls of 11 lines each after 3 lines of head, then [[edit]] and name: the
    // action is line 26.
    let clear = "clear = { api = \"clear_tool_uses_20250919\", trigger_input_tokens = 5000 }";
    assert_eq!(
        refused(OPENAI, clear),
        "test.toml:26:17: [[edit]] \"e\": clear.api: Anthropic's context editing (clear_tool_uses_20250919) exists only on Anthropic's API; these calls ran on OpenAI's API (model gpt-5.1-codex, convention openai), which has no such mechanism: OpenAI's own are compact = { api = \"openai-responses\", compact_threshold = N, summary_tokens = S } and cache = { retention = \"24h\" } where the model offers it"
    );
    let preset = refused(
        OPENAI,
        "compact = { preset = \"compact_20260112\", summary_tokens = 3000 }",
    );
    assert!(
        preset.starts_with("test.toml:26:22: [[edit]] \"e\": compact.preset: the Messages API's compaction (compact_20260112) exists only on Anthropic's API; these calls ran on OpenAI's API (model gpt-5.1-codex"),
        "{preset}"
    );
    let openai = refused(
        ANTHROPIC,
        "compact = { api = \"openai-responses\", compact_threshold = 100000, summary_tokens = 3000 }",
    );
    assert!(
        openai.starts_with("test.toml:26:19: [[edit]] \"e\": compact.api: server-side compaction in the Responses API (context_management with compact_threshold) exists only on OpenAI's API; these calls ran on Anthropic's API (model claude-sonnet-4-5, convention anthropic)"),
        "{openai}"
    );
    let retention = refused(ANTHROPIC, "cache = { retention = \"24h\" }");
    assert!(
        retention.contains("cache.retention: extended prompt-cache retention (prompt_cache_retention = \"24h\") exists only on OpenAI's API"),
        "{retention}"
    );
    // A step of steps is located with its step.
    let steps = refused(
        OPENAI,
        "steps = [{ trim = { call = \"1\", by_percent = 10 } }, { clear = { api = \"clear_tool_uses_20250919\" } }]",
    );
    assert!(steps.starts_with("test.toml:26:"), "{steps}");
    assert!(
        steps.contains("[[edit]] \"e\": step 2: clear.api:"),
        "{steps}"
    );
}

#[test]
fn retention_only_where_the_model_offers_it() {
    let edit = "cache = { retention = \"24h\" }";
    let old = refused(Some(("openai", "gpt-4o-2024-08-06")), edit);
    assert!(
        old.contains("cache.retention: model gpt-4o-2024-08-06 does not offer extended prompt-cache retention: OpenAI's prompt-caching guide (read 2026-12-02) lists gpt-5.5, gpt-5.5-pro"),
        "{old}"
    );
    let later = refused(Some(("openai", "gpt-5.6-luna")), edit);
    assert!(
        later.contains("model gpt-5.6-luna has no prompt_cache_retention: GPT-5.6 and later families keep a cached prefix at least 30 minutes"),
        "{later}"
    );
    // A dated id of a listed model offers it.
    let s = scenario(&format!(
        "{HEAD}{}[[edit]]\nname = \"e\"\n{edit}\n",
        calls(2, 1_000, 0, Some(("openai", "gpt-5-2025-08-07")))
    ));
    provider::check(&s).unwrap();
}

#[test]
fn the_import_tables_convention_stands_for_calls_without_usage_and_no_convention_takes_any_edit() {
    let clear = "[[edit]]\nname = \"e\"\nclear = { api = \"clear_tool_uses_20250919\" }\n";
    let imported = scenario(&format!(
        "{HEAD}[import]\nformat = \"codex\"\nfile = \"rollout.jsonl\"\nmodel = \"gpt-5.5\"\nconvention = \"openai\"\n{}{clear}",
        calls(2, 1_000, 0, None)
    ));
    let e = provider::check(&imported).unwrap_err().to_string();
    assert!(e.contains("(model gpt-5.5, convention openai)"), "{e}");
    let by_hand = scenario(&format!(
        "{HEAD}{}{clear}[[edit]]\nname = \"o\"\ncompact = {{ api = \"openai-responses\", compact_threshold = 1500, summary_tokens = 10 }}\n",
        calls(2, 1_000, 0, None)
    ));
    provider::check(&by_hand).unwrap();
}

/// Over many sessions the refused step changes nothing in the session and is noted per
/// edit, as a rule that selects nothing is.
#[test]
fn in_a_history_the_refused_step_changes_nothing_and_is_noted() {
    let s = scenario(&format!(
        "{HEAD}{}[[edit]]\nname = \"e\"\nclear = {{ api = \"clear_tool_uses_20250919\", trigger_input_tokens = 1500, keep_tool_uses = 0 }}\n",
        calls(4, 1_000, 0, OPENAI)
    ));
    let study = Study::new(&s).unwrap();
    assert_eq!(study.edit_notes[0].len(), 1);
    assert!(
        study.edit_notes[0][0].starts_with("clear: Anthropic's context editing"),
        "{:?}",
        study.edit_notes
    );
    let e = evaluate(&study, study.nominal(at(&s)));
    assert_eq!(e.edits[0].outcome.total_tokens, e.baseline.total_tokens);
    // The same edit on Anthropic's calls clears.
    let a = scenario(&format!(
        "{HEAD}{}[[edit]]\nname = \"e\"\nclear = {{ api = \"clear_tool_uses_20250919\", trigger_input_tokens = 1500, keep_tool_uses = 0 }}\n",
        calls(4, 1_000, 0, ANTHROPIC)
    ));
    let study = Study::new(&a).unwrap();
    assert!(study.edit_notes[0].is_empty());
    let e = evaluate(&study, study.nominal(at(&a)));
    assert!(e.edits[0].outcome.total_tokens < e.baseline.total_tokens);
}

/// The Messages API's `context_management` is never printed for calls of OpenAI's API,
/// even for a clearing of the engine's own that the API could express.
#[test]
fn no_context_management_json_for_openai_calls() {
    let json = |usage| {
        let s = scenario(&format!(
            "{HEAD}{}[[edit]]\nname = \"e\"\nclear = {{ above_context_tokens = 1500, keep_results = 1 }}\n",
            calls(4, 1_000, 0, usage)
        ));
        let study = Study::new(&s).unwrap();
        let nominal = evaluate(&study, study.nominal(at(&s)));
        let sources = simulate::report::Sources::of(&s, false, false);
        simulate::report::Report::new(&study, &nominal, sources, None).context_management
    };
    assert!(json(ANTHROPIC).is_some());
    assert!(json(OPENAI).is_none());
}

#[test]
fn the_binary_refuses_it_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.toml");
    fs::write(&s, format!("{HEAD}{}", calls(3, 1_000, 0, OPENAI))).unwrap();
    let edits = dir.path().join("edits.toml");
    fs::write(
        &edits,
        "[[edit]]\nname = \"context editing\"\nclear = { api = \"clear_tool_uses_20250919\" }\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let assert = simulate()
        .arg(&s)
        .arg("--edits")
        .arg(&edits)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2);
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("edits.toml:3:17: [[edit]] \"context editing\": clear.api:")
            && stderr.contains("model gpt-5.1-codex"),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// `dedupe` with `same_bytes` reads once only the repeats whose result has the first's
/// size. Calls of one input returning 100, 100 and 300 bytes, then a call of 1 byte (B =
/// 1, ρ = 1): they read 1, 101, 201 and 501 (T = 804). With `same_bytes` the second
/// becomes the 9-byte placeholder and the third stays: 1, 101, 110, 410 (T = 622); without,
/// both go: 1, 101, 110, 119 (T = 331).
#[test]
fn dedupe_same_bytes_keeps_a_repeat_that_found_something_new() {
    let call = |id: &str, bytes: u32| {
        format!("[[call]]\nid = \"{id}\"\ntool = \"Poll\"\ninput_hash = \"aa\"\nbytes = {bytes}\n")
    };
    let total = |same: bool| {
        let s = scenario(&format!(
            "name = \"d\"\nbase_tokens = 1\nbytes_per_token = 1\n{}{}{}[[call]]\nid = \"z\"\nbytes = 1\n[[edit]]\nname = \"once\"\ndedupe = {{ select = {{ tool = \"Poll\" }}, same_bytes = {same} }}\n",
            call("a", 100),
            call("b", 100),
            call("c", 300)
        ));
        let study = Study::new(&s).unwrap();
        let e = evaluate(&study, study.nominal(at(&s)));
        (e.baseline.total_tokens, e.edits[0].outcome.total_tokens)
    };
    assert_eq!(total(true), (804.0, 622.0));
    assert_eq!(total(false), (804.0, 331.0));
}
