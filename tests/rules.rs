//! Rule edits and the base edit (docs/model.md §7), on a hand-computed trace: each rule's saving,
//! the id-based edit it stands for, and a rule that selects nothing.
#![allow(clippy::unwrap_used)]

use simulate::evaluate::{Evaluation, Study, evaluate};
use simulate::ledger::Assumptions;
use simulate::scenario::{Scenario, load_str};
use std::path::Path;

/// B = 1000, ρ = 1: sizes are bytes. Contexts 1000, 1100, 1300, 1600, 2000, 2500: T = 9500.
const TRACE: &str = r#"
name = "rules"
base_tokens = 1000
bytes_per_token = 1.0
[[call]]
id = "a"
label = "bash ls"
tool = "Bash"
bytes = 100
[[call]]
id = "b"
label = "cat a.md"
tool = "Read"
input_hash = "h1"
bytes = 200
[[call]]
id = "c"
label = "bash test"
tool = "Bash"
bytes = 300
[[call]]
id = "d"
label = "cat a.md"
tool = "Read"
input_hash = "h1"
bytes = 400
[[call]]
id = "e"
label = "search"
tool = "WebSearch"
kind = "web_search"
bytes = 500
tokens = 100
[[call]]
id = "f"
label = "bash build"
tool = "Bash"
bytes = 600
"#;

fn scenario(edits: &str) -> Scenario {
    load_str(&format!("{TRACE}{edits}"), Path::new("rules.toml")).unwrap()
}

fn nominal(s: &Scenario) -> Evaluation {
    let study = Study::new(s).unwrap();
    evaluate(
        &study,
        study.nominal(Assumptions {
            base_tokens: s.base_tokens,
            bytes_per_token: s.bytes_per_token,
        }),
    )
}

/// Each edit's saving on the reread total, in file order.
fn savings(edits: &str) -> Vec<f64> {
    let s = scenario(edits);
    let e = nominal(&s);
    // With e's 100 measured tokens, the baseline is 9500 + 100 (re-read once) = 9600.
    assert_eq!(e.baseline.total_tokens, 9600.0);
    e.edits.iter().map(|r| r.saving.saved).collect()
}

fn edit(name: &str, action: &str) -> String {
    format!("\n[[edit]]\nname = \"{name}\"\n{action}\n")
}

#[test]
fn cap_cuts_every_selected_result_and_matches_the_id_edits_it_stands_for() {
    let got = savings(&[
        edit("cap", "cap = { select = { tool = \"Bash\" }, max_bytes = 150 }"),
        edit(
            "by id",
            "steps = [{ trim = { call = \"c\", to_bytes = 150 } }, { trim = { call = \"f\", to_bytes = 150 } }]",
        ),
    ]
    .concat());
    // c: 300 → 150, re-read by 3 calls; f is last (never re-read); a is under the cap.
    assert_eq!(got, vec![450.0, 450.0]);
}

#[test]
fn cap_scales_measured_tokens_with_the_bytes() {
    let got = savings(&edit(
        "cap search",
        "cap = { select = { kind = \"web_search\" }, max_bytes = 250 }",
    ));
    // e: 500 bytes → 250 and its 100 tokens → 50, re-read once: 250 + 50.
    assert_eq!(got, vec![300.0]);
}

#[test]
fn trim_drop_and_dedupe_by_selector() {
    let got = savings(
        &[
            edit(
                "trim search",
                "trim = { select = { kind = \"web_search\" }, by_percent = 50 }",
            ),
            edit("drop reads", "drop = { select = { tool = \"Read\" } }"),
            edit(
                "drop reads by id",
                "steps = [{ drop = { call = \"b\" } }, { drop = { call = \"d\" } }]",
            ),
            edit("dedupe reads", "dedupe = { select = { tool = \"Read\" } }"),
            edit(
                "trim md",
                "trim = { select = { label = \"cat *.md\" }, by_percent = 100 }",
            ),
        ]
        .concat(),
    );
    // trim: e's 500 bytes and 100 tokens halve, re-read once: 300.
    // drop: a, c, e, f: contexts 1000, 1100, 1400, 2000 (e's 100 tokens join) = 5500.
    // dedupe: d (re-read by 2) becomes a 9-byte placeholder: (400 − 9)·2 = 782.
    // trim md: b and d to nothing: 200·4 + 400·2 = 1600.
    assert_eq!(got, vec![300.0, 4100.0, 4100.0, 782.0, 1600.0]);
}

#[test]
fn a_rule_that_selects_nothing_is_reported_not_an_error() {
    let s = scenario(&edit(
        "cap grep",
        "cap = { select = { tool = \"Grep\" }, max_bytes = 10 }",
    ));
    let study = Study::new(&s).unwrap();
    assert_eq!(
        study.warnings,
        vec![
            "[[edit]] \"cap grep\": cap: the selector matches no call in this trace: no call has tool \"Grep\"; tools there: Bash, Read, WebSearch"
        ]
    );
    assert_eq!(nominal(&s).edits[0].saving.saved, 0.0);
}

#[test]
fn base_edits_save_exactly_n_times_the_change() {
    let got = savings(
        &[
            edit("shorter prompt", "base = { by_tokens = 300 }"),
            edit("new skill file", "base = { by_tokens = -100 }"),
            edit("drop an MCP server", "base = { by_bytes = 600 }"),
            edit("tiny prompt", "base = { to_tokens = 400 }"),
            edit(
                "both",
                "steps = [{ base = { by_tokens = 300 } }, { drop = { select = { tool = \"Read\" } } }]",
            ),
        ]
        .concat(),
    );
    // 6 calls: 6·300, 6·(−100), 6·600/ρ, 6·(1000 − 400); both: 4100 + 4·300.
    assert_eq!(got, vec![1800.0, -600.0, 3600.0, 3600.0, 5300.0]);
}

#[test]
fn a_base_below_zero_is_an_error() {
    let s = scenario(&edit("too much", "base = { by_tokens = 1500 }"));
    let study = Study::new(&s).unwrap();
    let e = study
        .check_bases(&[Assumptions {
            base_tokens: 1000.0,
            bytes_per_token: 1.0,
        }])
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("[[edit]] \"too much\": base: takes the base tokens below zero: B = 1,000 at ρ = 1 becomes -500"),
        "{e}"
    );
}

#[test]
fn a_base_edit_has_an_exact_break_even_with_a_sequence_edit() {
    use simulate::sweep::{Grid, SweepOptions, run};
    let s = scenario(
        &[
            edit("drop reads", "drop = { select = { tool = \"Read\" } }"),
            edit("shorter prompt", "base = { by_tokens = 1500 }"),
        ]
        .concat()
        .replace("bytes_per_token = 1.0", "bytes_per_token = 3.0")
        .replace("base_tokens = 1000", "base_tokens = 2000"),
    );
    let study = Study::new(&s).unwrap();
    let nominal = study.nominal(Assumptions {
        base_tokens: 2000.0,
        bytes_per_token: 3.0,
    });
    let grid = Grid::new(&s, &nominal, &Default::default()).unwrap();
    let mut sinks: [&mut dyn simulate::sweep::PointSink; 0] = [];
    let o = run(
        &study,
        &grid,
        &nominal,
        SweepOptions {
            closed_form: true,
            progress: false,
        },
        &mut sinks,
    )
    .unwrap();
    // drop saves 2B + (100 + 2·100 … ) / ρ: baseline 6B + (3500 + 100·ρ)/ρ, drop 4B +
    // (1400 + 100·ρ)/ρ: 2B + 2100/ρ. The base edit saves 6·1500 = 9000. They tie at
    // B = 4500 − 1050/ρ: 4150 at ρ = 3.
    let at3 = o
        .break_even
        .iter()
        .find(|x| x.bytes_per_token == 3.0)
        .unwrap();
    assert!((at3.base_tokens.unwrap() - 4150.0).abs() < 1e-9, "{at3:?}");
}
