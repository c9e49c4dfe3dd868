//! The price data: it builds, its figures are sane, log ids find their model, the facts of
//! the hand-kept table it replaced still hold, and snapshot and overlay agree.

use super::*;
use crate::cache::overlay;
use crate::cache::snapshot::Snapshot;

fn snapshot() -> Snapshot {
    serde_json::from_str(SNAPSHOT).expect("litellm.json parses")
}

fn overlay() -> Overlay {
    toml::from_str(OVERLAY).expect("overlay.toml parses")
}

/// (name, input, output, cache read, write 5m, write 1h, min tokens), USD per MTok.
type Prices = (
    &'static str,
    f64,
    f64,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
);

fn prices(id: &str) -> Option<Prices> {
    find(id).map(|m| {
        (
            m.name.as_str(),
            m.input,
            m.output,
            m.cache_read,
            m.cache_write_5m,
            m.cache_write_1h,
            m.min_tokens,
        )
    })
}

#[test]
fn the_price_data_builds_from_the_pinned_snapshot() {
    let d = build(SNAPSHOT, OVERLAY).expect("price data builds");
    assert_eq!(d.header.version, "1.110.2");
    assert_eq!(
        d.header.file_sha256,
        "8943af58bf9f979c6a4bef815687117ffa341e462a41faed9be17b5c33d3dcc2"
    );
    assert_eq!(
        d.header.file,
        "litellm/model_prices_and_context_window_backup.json"
    );
    // 308 snapshot entries (263 Anthropic and OpenAI, 45 Gemini) and the 5 models the
    // overlay adds.
    assert_eq!(snapshot().models.len(), 308);
    assert_eq!(d.models.len(), 313);
    assert_eq!(data().models.len(), 313);
}

#[test]
fn every_figure_is_sane_and_has_a_source() {
    for m in all() {
        assert!(m.input > 0.0 && m.output > 0.0, "{m:?}");
        if let (Some(read), Some(write)) = (m.cache_read, m.cache_write_5m) {
            assert!(read > 0.0 && write >= read, "{m:?}");
        }
        if let (Some(five), Some(hour)) = (m.cache_write_5m, m.cache_write_1h) {
            assert!(hour >= five, "{m:?}");
        }
        if let Some(min) = m.min_tokens {
            // Up to Gemini's 6,144 (LiteLLM's vertex_ai/gemini-4-argon).
            assert!((512.0..=8192.0).contains(&min), "{m:?}");
        }
        assert_eq!(m.ttl_s, Some(300.0), "{}", m.name);
        if let Some(l) = &m.long_context {
            assert!(l.input > m.input && l.output > m.output, "{m:?}");
        }
        assert!(
            m.source.starts_with("LiteLLM 1.110.2 price data, entry \"")
                || m.source.starts_with("overlay: "),
            "{}: {}",
            m.name,
            m.source
        );
    }
}

#[test]
fn log_model_ids_find_their_entry() {
    // Claude API ids from real logs; a dated id is named by its undated alias.
    assert_eq!(
        prices("claude-opus-4-7"),
        Some((
            "claude-opus-4-7",
            5.0,
            25.0,
            Some(0.5),
            Some(6.25),
            Some(10.0),
            Some(2048.0)
        ))
    );
    assert_eq!(
        prices("claude-sonnet-4-5-20250929"),
        Some((
            "claude-sonnet-4-5",
            3.0,
            15.0,
            Some(0.3),
            Some(3.75),
            Some(6.0),
            Some(1024.0)
        ))
    );
    assert_eq!(
        prices("claude-opus-4-6"),
        Some((
            "claude-opus-4-6",
            5.0,
            25.0,
            Some(0.5),
            Some(6.25),
            Some(10.0),
            Some(4096.0)
        ))
    );
    assert_eq!(
        prices("claude-haiku-4-5-20251001"),
        Some((
            "claude-haiku-4-5",
            1.0,
            5.0,
            Some(0.1),
            Some(1.25),
            Some(2.0),
            Some(4096.0)
        ))
    );
    assert_eq!(
        prices("claude-opus-4-5-20251101"),
        Some((
            "claude-opus-4-5",
            5.0,
            25.0,
            Some(0.5),
            Some(6.25),
            Some(10.0),
            Some(4096.0)
        ))
    );
    assert_eq!(
        prices("claude-fable-5"),
        Some((
            "claude-fable-5",
            10.0,
            50.0,
            Some(1.0),
            Some(12.5),
            Some(20.0),
            Some(512.0)
        ))
    );
    // LiteLLM lists these only as Bedrock ids: the overlay keeps the Claude API's.
    assert_eq!(
        prices("claude-sonnet-4-20250514"),
        Some((
            "claude-sonnet-4",
            3.0,
            15.0,
            Some(0.3),
            Some(3.75),
            Some(6.0),
            Some(1024.0)
        ))
    );
    assert_eq!(
        prices("claude-opus-4-1-20250805"),
        Some((
            "claude-opus-4-1",
            15.0,
            75.0,
            Some(1.5),
            Some(18.75),
            Some(30.0),
            Some(1024.0)
        ))
    );
    assert_eq!(
        prices("claude-opus-4-20250514"),
        Some((
            "claude-opus-4",
            15.0,
            75.0,
            Some(1.5),
            Some(18.75),
            Some(30.0),
            Some(1024.0)
        ))
    );
    assert_eq!(
        prices("claude-opus-4-0").map(|p| p.0),
        Some("claude-opus-4")
    );
    // Bedrock: the regional profile's own entry, 10 % above the list price.
    assert_eq!(
        prices("converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0"),
        Some((
            "jp.anthropic.claude-haiku-4-5-20251001-v1:0",
            1.1,
            5.5,
            Some(0.11),
            Some(1.375),
            Some(2.2),
            Some(4096.0)
        ))
    );
    let us = find("us.anthropic.claude-sonnet-4-5-20250929-v1:0").expect("us. profile");
    assert_eq!(
        (
            us.name.as_str(),
            us.input,
            us.output,
            us.cache_read,
            us.cache_write_5m
        ),
        (
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            3.3,
            16.5,
            Some(0.33),
            Some(4.125)
        )
    );
    assert_eq!(
        us.long_context,
        Some(LongContext {
            above_input_tokens: 200_000.0,
            input: 6.6,
            output: 24.75,
            cache_read: Some(0.66),
            cache_write_5m: Some(8.25),
            cache_write_1h: Some(13.2),
        })
    );
    // A region LiteLLM does not list falls back to the model's Bedrock entry.
    assert_eq!(
        prices("ca.anthropic.claude-opus-4-7").map(|p| (p.0, p.1)),
        Some(("anthropic.claude-opus-4-7", 5.0))
    );
    // Vertex AI: its own entry, named by the undated alias.
    assert_eq!(
        prices("claude-sonnet-4-5@20250929"),
        Some((
            "vertex_ai/claude-sonnet-4-5",
            3.0,
            15.0,
            Some(0.3),
            Some(3.75),
            Some(6.0),
            Some(1024.0)
        ))
    );
    // OpenAI: no write fee (the write price is the input price), minimum 1,024.
    assert_eq!(
        prices("gpt-5-codex"),
        Some((
            "gpt-5-codex",
            1.25,
            10.0,
            Some(0.125),
            Some(1.25),
            None,
            Some(1024.0)
        ))
    );
    assert_eq!(
        prices("gpt-5.1-codex-max"),
        Some((
            "gpt-5.1-codex-max",
            1.25,
            10.0,
            Some(0.125),
            Some(1.25),
            None,
            Some(1024.0)
        ))
    );
    assert_eq!(
        prices("gpt-5.3-codex"),
        Some((
            "gpt-5.3-codex",
            1.75,
            14.0,
            Some(0.175),
            Some(1.75),
            None,
            Some(1024.0)
        ))
    );
    assert_eq!(
        prices("o4-mini"),
        Some((
            "o4-mini",
            1.1,
            4.4,
            Some(0.275),
            Some(1.1),
            None,
            Some(1024.0)
        ))
    );
    assert_eq!(prices("gpt-5-2025-08-07").map(|p| p.0), Some("gpt-5"));
    // From GPT-5.6 on, a write costs more than the input.
    assert_eq!(prices("gpt-5.6").map(|p| p.4), Some(Some(5.0)));
    // Unknown.
    assert_eq!(prices("llama-3"), None);
    assert_eq!(prices("claude-mystery-9"), None);
    assert_eq!(prices("<synthetic>"), None);
}

#[test]
fn cache_terms_are_multiples_of_the_input_price_and_name_what_is_missing() {
    let sonnet = find("claude-sonnet-4-5").expect("sonnet");
    let five = CacheTerms {
        read: 0.1,
        write: 1.25,
        ttl_s: 300.0,
        min_tokens: 1024.0,
    };
    assert_eq!(sonnet.cache(false), Some(five));
    assert_eq!(
        sonnet.cache(true),
        Some(CacheTerms {
            write: 2.0,
            ttl_s: 3600.0,
            ..five
        })
    );
    assert!(sonnet.missing(true).is_empty());
    // LiteLLM has no 1-hour write price for this profile (its siblings have one).
    let apac = find("apac.anthropic.claude-haiku-4-5-20251001-v1:0").expect("apac");
    assert!(apac.cache(false).is_some());
    assert_eq!(apac.cache(true), None);
    assert_eq!(apac.missing(true), ["1-hour cache write price"]);
    // Vertex AI's Claude 3 entries carry prices only.
    let old = find("claude-3-haiku@20240307").expect("vertex claude 3 haiku");
    assert_eq!(old.name, "vertex_ai/claude-3-haiku");
    assert_eq!(
        old.missing(false),
        [
            "cache read price",
            "cache write price",
            "minimum cacheable tokens"
        ]
    );
    // A fortieth of the input price (Claude Fable 5.1).
    let fable = find("claude-fable-5-1").and_then(|m| m.cache(false));
    assert_eq!(fable.map(|c| (c.read, c.min_tokens)), Some((0.025, 512.0)));
}

/// The 17 models of the hand-kept table this data replaced (src/cache/models.toml until
/// 2026-12-01), with its figures: (id, input, output, read ×, write 5m ×, write 1h ×, min
/// tokens, long-context tier (above, input, output)). Every one still holds. What
/// changed: the long-context tiers LiteLLM adds for gpt-5.4 and gpt-5.5 (over 272K input),
/// checked below; and ids the table folded into one model are their own entries at the
/// same prices (gpt-5-codex, gpt-5.1, gpt-5.1-codex were "gpt-5"; gpt-5.1-codex-mini was
/// "gpt-5-mini"; gpt-5.3-codex was "gpt-5.2").
type OldRow = (
    &'static str,
    f64,
    f64,
    f64,
    f64,
    Option<f64>,
    f64,
    Option<(f64, f64, f64)>,
);

const OLD_TABLE: [OldRow; 17] = [
    (
        "claude-fable-5-1",
        10.0,
        50.0,
        0.025,
        1.25,
        Some(2.0),
        512.0,
        None,
    ),
    (
        "claude-opus-4-6",
        5.0,
        25.0,
        0.1,
        1.25,
        Some(2.0),
        4096.0,
        None,
    ),
    (
        "claude-opus-4-5",
        5.0,
        25.0,
        0.1,
        1.25,
        Some(2.0),
        4096.0,
        None,
    ),
    (
        "claude-opus-4-1",
        15.0,
        75.0,
        0.1,
        1.25,
        Some(2.0),
        1024.0,
        None,
    ),
    (
        "claude-opus-4",
        15.0,
        75.0,
        0.1,
        1.25,
        Some(2.0),
        1024.0,
        None,
    ),
    (
        "claude-sonnet-4-6",
        3.0,
        15.0,
        0.1,
        1.25,
        Some(2.0),
        1024.0,
        None,
    ),
    (
        "claude-sonnet-4-5",
        3.0,
        15.0,
        0.1,
        1.25,
        Some(2.0),
        1024.0,
        Some((200_000.0, 6.0, 22.5)),
    ),
    (
        "claude-sonnet-4",
        3.0,
        15.0,
        0.1,
        1.25,
        Some(2.0),
        1024.0,
        Some((200_000.0, 6.0, 22.5)),
    ),
    (
        "claude-haiku-4-5",
        1.0,
        5.0,
        0.1,
        1.25,
        Some(2.0),
        4096.0,
        None,
    ),
    (
        "claude-3-5-haiku",
        0.8,
        4.0,
        0.1,
        1.25,
        Some(2.0),
        2048.0,
        None,
    ),
    (
        "claude-3-haiku",
        0.25,
        1.25,
        0.12,
        1.2,
        Some(2.0),
        2048.0,
        None,
    ),
    ("gpt-5", 1.25, 10.0, 0.1, 1.0, None, 1024.0, None),
    ("gpt-5-mini", 0.25, 2.0, 0.1, 1.0, None, 1024.0, None),
    (
        "gpt-5.1-codex-max",
        1.25,
        10.0,
        0.1,
        1.0,
        None,
        1024.0,
        None,
    ),
    ("gpt-5.2", 1.75, 14.0, 0.1, 1.0, None, 1024.0, None),
    (
        "gpt-5.4",
        2.5,
        15.0,
        0.1,
        1.0,
        None,
        1024.0,
        Some((272_000.0, 5.0, 22.5)),
    ),
    (
        "gpt-5.5",
        5.0,
        30.0,
        0.1,
        1.0,
        None,
        1024.0,
        Some((272_000.0, 10.0, 45.0)),
    ),
];

#[test]
fn the_facts_of_the_old_table_still_hold() {
    for (id, input, output, read, write, write_1h, min, tier) in OLD_TABLE {
        let m = find(id).unwrap_or_else(|| panic!("{id} not found"));
        assert_eq!(m.name, id);
        let c = m
            .cache(false)
            .unwrap_or_else(|| panic!("{id}: no cache terms"));
        assert_eq!(
            (m.input, m.output, c.read, c.write, c.ttl_s, c.min_tokens),
            (input, output, read, write, 300.0, min),
            "{id}"
        );
        assert_eq!(m.cache(true).map(|c| c.write), write_1h, "{id}");
        let t = m
            .long_context
            .as_ref()
            .map(|l| (l.above_input_tokens, l.input, l.output));
        assert_eq!(t, tier, "{id}");
    }
    // The ids the old table folded in, at the same prices.
    for (id, like) in [
        ("gpt-5-codex", "gpt-5"),
        ("gpt-5.1", "gpt-5"),
        ("gpt-5.1-codex", "gpt-5"),
        ("gpt-5.1-codex-mini", "gpt-5-mini"),
        ("gpt-5.3-codex", "gpt-5.2"),
    ] {
        let (m, l) = (find(id).expect("id"), find(like).expect("like"));
        assert_eq!(m.name, id);
        assert!(m.priced_like(l), "{id} is not priced like {like}");
    }
}

/// Anthropic's table of minimum cacheable prompts (github.com/anthropics/skills
/// skills/claude-api/shared/prompt-caching.md @0da71c3b), which "apply on every platform
/// where the model is available": every entry of these models, on every platform, has it.
#[test]
fn minimums_are_anthropics_on_every_platform() {
    let table: [(&str, f64); 16] = [
        ("claude-opus-5", 512.0),
        ("claude-fable-5-1", 512.0),
        ("claude-mythos-5-1", 512.0),
        ("claude-opus-4-8", 1024.0),
        ("claude-sonnet-5", 1024.0),
        ("claude-sonnet-4-6", 1024.0),
        ("claude-sonnet-4-5", 1024.0),
        ("claude-opus-4-1", 1024.0),
        ("claude-opus-4", 1024.0),
        ("claude-sonnet-4", 1024.0),
        ("claude-opus-4-7", 2048.0),
        ("claude-mythos-preview", 2048.0),
        ("claude-3-5-haiku", 2048.0),
        ("claude-opus-4-6", 4096.0),
        ("claude-opus-4-5", 4096.0),
        ("claude-haiku-4-5", 4096.0),
    ];
    let mut checked = 0;
    // Entries with no cache prices at all (Vertex AI's Claude 3.5 Haiku) are price-only.
    for m in all().filter(|m| m.cache_read.is_some()) {
        let base = model_id::base(&m.name);
        if let Some((_, min)) = table.iter().find(|(b, _)| *b == base) {
            assert_eq!(m.min_tokens, Some(*min), "{}", m.name);
            checked += 1;
        }
    }
    // 125 snapshot entries and 4 the overlay adds.
    assert_eq!(checked, 129);
}

#[test]
fn snapshot_and_overlay_agree() {
    let s = snapshot();
    let o = overlay();
    let providers: Vec<&str> = s
        .models
        .values()
        .map(|e| e.litellm_provider.as_str())
        .collect();
    for p in &o.provider {
        for name in &p.providers {
            assert!(
                providers.contains(&name.as_str()),
                "[[provider]] {name}: not in the snapshot"
            );
        }
    }
    // An amendment applies to some entry, and changes what it sets on each: a value the
    // snapshot already has is dead weight (LiteLLM caught up: drop the amendment).
    for a in &o.amend {
        let mut applies = 0;
        for (key, e) in &s.models {
            if !amendments(&o, key, &e.litellm_provider)
                .iter()
                .any(|x| std::ptr::eq(*x, a))
            {
                continue;
            }
            applies += 1;
            if let Some(min) = a.min_tokens {
                assert_ne!(e.prompt_cache_min_tokens, Some(min), "{key}: {}", a.model);
            }
            if let Some(hour) = a.cache_write_1h {
                assert_ne!(
                    e.cache_creation_input_token_cost_above_1hr.map(per_million),
                    Some(hour),
                    "{key}: {}",
                    a.model
                );
            }
            if let Some(l) = &a.long_context {
                let tier = e.tier().expect("tier");
                assert_ne!(
                    tier.map(|t| (
                        t.above_input_tokens,
                        t.input.map(per_million),
                        t.output.map(per_million)
                    )),
                    Some((l.above_input_tokens, Some(l.input), Some(l.output))),
                    "{key}: {}",
                    a.model
                );
            }
        }
        assert!(applies > 0, "[[amend]] {}: no snapshot entry", a.model);
    }
    // An added model is one the snapshot does not list on that provider, under any id.
    for a in &o.add {
        for (key, e) in &s.models {
            let same = e.litellm_provider == a.provider
                && (model_id::base(key) == a.key || a.aliases.contains(key));
            assert!(!same, "[[add]] {}: the snapshot has it as {key}", a.key);
        }
    }
    // OpenAI: "no additional fee on models before the GPT-5.6 family": LiteLLM gives no
    // write price before 5.6, so the rule fills every gap there and prices no write twice.
    for (key, e) in &s.models {
        if e.litellm_provider == "openai" {
            let before = overlay::gpt_family(key).is_none_or(|f| f < (5, 6));
            assert_eq!(
                e.cache_creation_input_token_cost.is_none(),
                before || key == "gpt-6-astra-law",
                "{key}"
            );
        }
    }
    // One OpenAI entry from 5.6 on has no write price: it stays without one.
    assert_eq!(
        data().models["gpt-6-astra-law"].missing(false),
        ["cache write price"]
    );
}

#[test]
fn the_model_edit_is_one_lookup() {
    // MODEL.md §9: the same run priced as another model takes its prices, cache terms and
    // minimum from here.
    let to = find("claude-sonnet-4-6").expect("sonnet 4.6");
    assert_eq!((to.input, to.output), (3.0, 15.0));
    assert_eq!(
        to.cache(false),
        Some(CacheTerms {
            read: 0.1,
            write: 1.25,
            ttl_s: 300.0,
            min_tokens: 1024.0
        })
    );
    assert!(to.source.contains("\"claude-sonnet-4-6\""), "{}", to.source);
}

#[test]
fn prices_cite_their_entry_and_cache_terms_the_overlay_too() {
    let sonnet = find("claude-sonnet-4-5-20250929").expect("sonnet");
    let entry = "LiteLLM 1.110.2 price data, entry \"claude-sonnet-4-5\" (citing https://platform.claude.com/docs/en/about-claude/pricing)";
    let tier = "long-context tier: Anthropic pricing (docs.anthropic.com long-context table; unverified for 4.5) and LiteLLM's own Bedrock and Vertex AI entries for the model; read 2026-11-29";
    let ttl = "TTL: Anthropic prompt caching, github.com/anthropics/skills prompt-caching.md (5-minute TTL by default); read 2026-12-01";
    assert_eq!(sonnet.source, format!("{entry}; {tier}"));
    assert_eq!(sonnet.cache_source, format!("{entry}; {ttl}; {tier}"));
    // An overlay minimum is a cache term: it is not cited for the prices.
    let mythos = find("claude-mythos-preview").expect("mythos");
    assert!(!mythos.source.contains("minimum"), "{}", mythos.source);
    assert!(
        mythos.cache_source.ends_with(
            "Mythos Preview 2,048 tokens on every platform; LiteLLM says 512); read 2026-12-01"
        ),
        "{}",
        mythos.cache_source
    );
    assert_eq!(mythos.min_tokens, Some(2048.0));
    let added = find("claude-opus-4").expect("opus 4");
    assert_eq!(
        added.source,
        "overlay: Anthropic: platform.claude.com pricing and github.com/anthropics/skills prompt-caching.md; read 2026-11-29"
    );
    assert_eq!(in_words(&["a", "b", "c"]), "a, b and c");
    assert_eq!(in_words(&["a"]), "a");
    assert_eq!(
        described(),
        "price data (LiteLLM 1.110.2 and its overlay in src/cache/)"
    );
}

/// The finder answers as `find` does, whether an id repeats the one before or not, and
/// for ids the price data does not know.
#[test]
fn the_finder_answers_as_find() {
    let ids = [
        "claude-sonnet-4-5-20250929",
        "claude-sonnet-4-5-20250929",
        "gpt-4o",
        "no-such-model",
        "no-such-model",
        "claude-sonnet-4-5-20250929",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    ];
    let mut finder = Finder::default();
    for id in ids {
        let got = finder.find(id).map(|m| m.name.as_str());
        assert_eq!(got, find(id).map(|m| m.name.as_str()), "{id}");
    }
    assert_eq!(
        finder
            .find("claude-sonnet-4-5-20250929")
            .map(|m| m.name.as_str()),
        Some("claude-sonnet-4-5")
    );
    assert!(finder.find("no-such-model").is_none());
}
