//! Hand-computed figures of the what-if edits of docs/model.md §9 that change prices,
//! cache terms and the base's parts: `cache`, `model`, `base = { drop | defer }`.
#![allow(clippy::unwrap_used)]

use simulate::evaluate::{Evaluation, Study, evaluate};
use simulate::ledger::Assumptions;
use simulate::scenario::{Scenario, load_str};
use simulate::timeline::CallFigures;
use std::path::Path;

fn scenario(toml: &str) -> Scenario {
    load_str(toml, Path::new("test.toml")).unwrap()
}

fn at(s: &Scenario) -> Assumptions {
    Assumptions {
        base_tokens: s.base_tokens,
        bytes_per_token: s.bytes_per_token,
    }
}

fn nominal(s: &Scenario) -> Evaluation {
    let study = Study::new(s).unwrap();
    evaluate(&study, study.nominal(at(s)))
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

/// Per-request (label, context, cached, written) of edit `e` (None: the baseline).
fn requests(s: &Scenario, e: Option<usize>) -> Vec<(String, f64, f64, f64)> {
    let study = Study::new(s).unwrap();
    let subject = e.map_or(&study.baseline, |i| &study.edited[i]);
    let clearings = subject.clearings(&study, at(s));
    let mut out = Vec::new();
    subject.walk(
        &study,
        &clearings,
        at(s),
        |_, slot, f: &CallFigures<f64>| {
            out.push((
                subject.run.label(&s.calls, slot).to_string(),
                f.context,
                f.cached,
                f.written,
            ));
        },
    );
    out
}

const THREE_KB: &str = r#"
name = "three"
base_tokens = 1000
bytes_per_token = 1.0
[[call]]
id = "a"
bytes = 1000
[[call]]
id = "b"
bytes = 1000
[[call]]
id = "c"
bytes = 1000
"#;

#[test]
fn a_tokens_factor_divides_bytes_per_token_and_leaves_the_base() {
    // docs/model.md §9: three calls of 1,000 bytes, ρ = 1, B = 1,000, f = 1.3: the calls
    // read 1,000, 1,000 + 1,300 and 1,000 + 2,600: T = 6,900 against 6,000.
    let s = scenario(&format!(
        "{THREE_KB}[[edit]]\nname = \"newer tokenizer\"\nmodel = {{ to = \"claude-sonnet-4-5\", tokens_factor = 1.3 }}\n"
    ));
    let e = nominal(&s);
    close(e.baseline.total_tokens, 6_000.0);
    close(e.edits[0].outcome.total_tokens, 6_900.0);
    close(e.edits[0].saving.saved, -900.0);
    let contexts: Vec<f64> = requests(&s, Some(0)).iter().map(|r| r.1).collect();
    for (got, want) in contexts.iter().zip([1_000.0, 2_300.0, 3_600.0]) {
        close(*got, want);
    }
}

const DEFER: &str = r#"
name = "github"
base_tokens = 30000
bytes_per_token = 1.0
[[base.part]]
name = "mcp:github"
tokens = 20000
source = "/context, 2026-11-30"
tools = ["mcp__github__*"]
[[call]]
id = "r1"
tool = "Read"
bytes = 100
[[call]]
id = "gh"
tool = "mcp__github__x"
bytes = 100
[[call]]
id = "r2"
tool = "Read"
bytes = 100
[[edit]]
name = "defer GitHub tools"
base = { defer = "mcp:github", stub_tokens = 0 }
[[edit]]
name = "drop GitHub tools"
base = { drop = "mcp:github" }
"#;

#[test]
fn a_deferred_part_joins_after_a_tool_search_before_its_first_use() {
    // docs/model.md §9: B = 30,000 of which the part is 20,000, stub 0; calls Read,
    // mcp__github__x, Read of 100 bytes: 10,000, then the search 10,100, then 30,100 and
    // 30,200: T = 80,400 against 90,300.
    let s = scenario(DEFER);
    let e = nominal(&s);
    close(e.baseline.total_tokens, 90_300.0);
    close(e.edits[0].outcome.total_tokens, 80_400.0);
    let got: Vec<(String, f64)> = requests(&s, Some(0))
        .into_iter()
        .map(|r| (r.0, r.1))
        .collect();
    let label = |id: &str| {
        s.calls
            .iter()
            .find(|c| c.id == id)
            .unwrap()
            .label
            .to_string()
    };
    assert_eq!(
        got,
        vec![
            (label("r1"), 10_000.0),
            ("tool search: loads mcp:github".to_string(), 10_100.0),
            (label("gh"), 30_100.0),
            (label("r2"), 30_200.0),
        ]
    );
    // The search is a request: four of them; equivalent calls keep the baseline's three.
    assert_eq!(e.edits[0].outcome.calls, 4);
    close(
        e.edits[0].saving.equivalent_calls,
        9_900.0 / (90_300.0 / 3.0),
    );
    // Dropped, the part leaves every request: n × 20,000 = 60,000 saved.
    close(e.edits[1].outcome.total_tokens, 30_300.0);
    let study = Study::new(&s).unwrap();
    let uses = &study.edited[1].whatif.parts[0];
    assert_eq!(uses.call_ids, vec!["gh"]);
    assert_eq!(uses.tools_used, vec!["mcp__github__x"]);
}
