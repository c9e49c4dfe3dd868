//! The evidence gathered in shards, each in any order, merged in any order, and written
//! and read back as JSON on the way, is the evidence of one pass in name order.

use super::{Evidence, Gatherer};
use crate::scenario::{Scenario, load_str};
use std::path::Path;

/// A fixed linear congruential sequence: every run tests the same splits.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.next(from.len() as u64) as usize]
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.next(i as u64 + 1) as usize);
        }
    }
}

/// Session `i`: on OpenAI's API (models with and without retention) or Anthropic's, with
/// or without a cache, a compaction and parts; calls whose sizes, inputs and pauses
/// repeat across sessions, with searches and pinned results. Every field whose figure
/// the first session by name gives differs from session to session, so an order that
/// leaked into the evidence would show.
fn session(i: usize, r: &mut Sequence) -> Scenario {
    let openai = r.next(3) == 0;
    let model = if openai {
        r.pick(&["gpt-4o", "gpt-5.5", "gpt-4.1-mini", "o3"])
    } else {
        "claude-sonnet-4-5"
    };
    let mut text = format!(
        "name = \"s{i:02}\"\nbase_tokens = {}\nbytes_per_token = {}\n\n[import]\nformat = \"claude-code\"\nfile = \"s{i:02}.jsonl\"\nmodel = \"{model}\"\nconvention = \"{}\"\n",
        1_000 + r.next(40) * 250,
        r.pick(&["3.3", "4", "3.71"]),
        if openai { "openai" } else { "anthropic" },
    );
    if r.next(2) == 0 {
        text += &format!(
            "trace = \"after-compaction\"\ncompaction_summary_bytes = {}\n",
            5_000 + i
        );
    } else {
        text += "trace = \"main\"\n";
    }
    if r.next(5) > 0 {
        let ttl = r.pick(&["300", "3600"]);
        text += &format!("\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = {ttl}\nmin_tokens = 1024\n");
    }
    for part in ["mcp:github", "mcp:jira"] {
        if r.next(2) == 0 {
            let tool = part.replace("mcp:", "mcp__");
            text += &format!(
                "\n[[base.part]]\nname = \"{part}\"\ntokens = {}\nsource = \"s{i:02}\"\ntools = [\"{tool}__*\"]\ndeferred = {}\n",
                100 + i,
                r.next(2) == 0
            );
        }
    }
    for c in 0..3 + r.next(12) {
        let tool = r.pick(&[
            "Bash",
            "Read",
            "WebFetch",
            "mcp__github__get",
            "mcp__jira__get",
        ]);
        text += &format!(
            "\n[[call]]\nid = \"c{c}\"\ntool = \"{tool}\"\nbytes = {}\ninput_hash = \"h{}\"\ngap_s = {}\n",
            r.next(8) * 1_000 + r.next(3),
            r.next(6),
            r.pick(&["0", "10", "400", "4000", "90000"])
        );
        match (tool, r.next(4)) {
            ("WebFetch", 0) => text += "kind = \"web_search\"\n",
            ("Read", 0) => text += "pinned = true\n",
            _ => {}
        }
    }
    let shown = format!("s{i:02}.toml");
    load_str(&text, Path::new(&shown)).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn sessions() -> Vec<Scenario> {
    let mut r = Sequence(7);
    (0..40).map(|i| session(i, &mut r)).collect()
}

fn gather(sessions: &[&Scenario]) -> Gatherer {
    let mut g = Gatherer::default();
    sessions.iter().for_each(|s| g.add(s));
    g
}

/// Sessions split at random into k shards, each gathered in a random order, written as
/// JSON and read back, then merged in a random order: the evidence of one pass by name.
#[test]
fn shards_merged_in_any_order_are_the_evidence_in_name_order() {
    let all = sessions();
    let expected = gather(&all.iter().collect::<Vec<_>>()).finish();
    // The splits would prove little if the evidence had nothing that depends on order.
    assert!(
        expected.compactions.len() >= 2,
        "{:?}",
        expected.compactions
    );
    assert_eq!(expected.parts.len(), 2);
    assert!(expected.openai.without_retention.len() >= 2);
    assert!(expected.tools.iter().any(|t| t.searches > 0));
    assert!(expected.tools.iter().any(|t| t.pinned > 0));
    assert_eq!(expected.pauses.len(), 2);
    assert!(!expected.openai.contexts.is_empty() && !expected.contexts.is_empty());
    assert!(expected.uncached_sessions > 0 && !expected.repeats.is_empty());
    let mut r = Sequence(11);
    for k in [1, 2, 3, 5, 8, 40] {
        for round in 0..4 {
            let mut shards: Vec<Vec<&Scenario>> = vec![Vec::new(); k];
            for s in &all {
                shards[r.next(k as u64) as usize].push(s);
            }
            let mut gathered: Vec<Gatherer> = shards
                .iter_mut()
                .map(|shard| {
                    r.shuffle(shard);
                    let json = gather(shard).to_json();
                    Gatherer::from_json(&json, "shard.json").unwrap()
                })
                .collect();
            r.shuffle(&mut gathered);
            let mut merged = Gatherer::default();
            gathered.into_iter().for_each(|g| merged.merge(g));
            assert_eq!(merged.finish(), expected, "{k} shards, round {round}");
        }
    }
}

/// A gatherer read back from its JSON is the same gatherer, and finishes as the same
/// evidence; every per-call figure is there by its bits.
#[test]
fn a_gatherer_reads_back_from_its_json() {
    let all = sessions();
    let g = gather(&all.iter().collect::<Vec<_>>());
    let json = g.to_json();
    let back = Gatherer::from_json(&json, "evidence.json").unwrap();
    assert_eq!(back, g);
    assert_eq!(back.to_json(), json);
    let (evidence, read): (Evidence, Evidence) = (g.finish(), back.finish());
    assert_eq!(read, evidence);
    assert_eq!(
        serde_json::to_string(&read.contexts).unwrap(),
        serde_json::to_string(&evidence.contexts).unwrap()
    );
}

#[test]
fn bad_evidence_files_are_refused_naming_the_file() {
    let err = Gatherer::from_json("{\"tools\": 3}", "shard-2.json")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("shard-2.json:1:"), "{err}");
    assert!(
        err.contains("not the evidence `simulate suggest` gathers"),
        "{err}"
    );
    let all = sessions();
    let mut g = gather(&all.iter().collect::<Vec<_>>());
    g.without_retention_first.pop();
    let err = Gatherer::from_json(&g.to_json(), "shard-3.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("first sessions for them: one each"), "{err}");
}
