//! A read of nothing in the middle of a turn is the provider's (`provider`, docs/model.md
//! §4 "Breaks"); at a new prompt it stays `unexplained`. Both in the logs' own shapes: a
//! Claude Code session through Amazon Bedrock (`msg_bdrk_` ids, no `requestId`) and a
//! Codex CLI rollout (OpenAI's convention: the input includes the cached tokens; hits in
//! 128-token blocks), as on the shared real logs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;

const LOGS: &str = "tests/fixtures/import/breaks-read-none";

/// `(call, class, written tokens, input-token equivalents, dollars)` of every break after
/// the first request, from `breaks.csv`.
fn breaks(format: &str, dir: &str) -> Vec<(usize, String, f64, f64, f64)> {
    let out = tempfile::tempdir().unwrap();
    Command::cargo_bin("simulate")
        .unwrap()
        .args(["import", format, &format!("{LOGS}/{dir}"), "--fit", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let csv = std::fs::read_to_string(out.path().join("breaks.csv")).unwrap();
    csv::Reader::from_reader(csv.as_bytes())
        .records()
        .map(|x| {
            let x = x.unwrap();
            (
                x[1].parse().unwrap(),
                x[4].to_string(),
                x[9].parse().unwrap(),
                x[10].parse().unwrap(),
                x[11].parse().unwrap(),
            )
        })
        .filter(|b: &(usize, String, f64, f64, f64)| b.0 > 1)
        .collect()
}

#[test]
fn bedrock_a_read_of_nothing_after_a_tool_result_is_the_providers_after_a_prompt_unexplained() {
    // Inputs 20,010, 22,010, 24,010, 26,010 (the turn ends), then a prompt: 28,010, 30,010.
    // Request 3 reads nothing 6 s after request 2 read 20,000, with only a tool result
    // between them: provider, 22,010 written. Request 5 reads nothing after a prompt:
    // unexplained, 26,010. Sonnet 4.5: write 1.25, read 0.1, $3 per million input tokens.
    let w3 = 22_010.0 * (1.25 - 0.1);
    let w5 = 26_010.0 * (1.25 - 0.1);
    assert_eq!(
        breaks("claude-code", "claude"),
        vec![
            (3, "provider".to_string(), 22_010.0, w3, w3 * 3.0 / 1e6),
            (5, "unexplained".to_string(), 26_010.0, w5, w5 * 3.0 / 1e6),
        ]
    );
}

#[test]
fn codex_a_read_of_nothing_mid_turn_is_the_providers_after_a_prompt_unexplained() {
    // Inputs 18,703, 18,911 (reads 18,304), 20,292 (reads nothing mid-turn: provider, the
    // 18,816 a perfect cache reads in 128-token blocks), 20,500, then a prompt: 22,000
    // (reads nothing: unexplained, 20,480). No write fee: billed as plain input instead of
    // read at 0.1; gpt-5-codex at $1.25 per million input tokens.
    let w3 = 18_816.0 * (1.0 - 0.1);
    let w5 = 20_480.0 * (1.0 - 0.1);
    assert_eq!(
        breaks("codex", "codex"),
        vec![
            (3, "provider".to_string(), 18_816.0, w3, w3 * 1.25 / 1e6),
            (5, "unexplained".to_string(), 20_480.0, w5, w5 * 1.25 / 1e6),
        ]
    );
}
