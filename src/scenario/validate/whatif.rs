//! The what-if keys of docs/model.md §9 that change what a run is priced and based on: the
//! `cache` and `model` edits, `base = { drop | defer }`, and the `[[base.part]]` tables
//! they name.

use super::{Checker, shown};
use crate::cache::{models, presets};
use crate::error::Located;
use crate::scenario::file::{BaseFile, BaseTableFile, CacheEditFile, ModelEditFile};
use crate::scenario::provider::{OPENAI_RETENTION, Provider, RETENTION_24H_S};
use crate::scenario::published;
use crate::scenario::{
    Action, BasePart, CacheChange, LabelGlob, ModelChange, PartChange, PartEdit, Terms, TraceKind,
};
use std::collections::HashSet;
use toml::Spanned;

/// Largest tokens factor a model edit accepts: tokenizers differ by tens of percent, and
/// ρ ÷ factor must stay in ρ's range.
pub const MAX_TOKENS_FACTOR: f64 = 10.0;
/// Smallest tokens factor a model edit accepts, the largest's reciprocal: 1e-300 would make
/// ρ ÷ factor infinite.
pub const MIN_TOKENS_FACTOR: f64 = 1.0 / MAX_TOKENS_FACTOR;

/// `cache = { preset, read, write, ttl_s, min_tokens, traces, avoid, only_longer,
/// providers }`.
pub(super) fn cache_edit(
    ck: &Checker,
    c: &Spanned<CacheEditFile>,
    place: &str,
) -> Result<Action, Located> {
    let span = Some(c.span());
    let c = c.get_ref();
    if let Some(r) = &c.retention {
        return retention(ck, c, r, place);
    }
    let preset = match &c.preset {
        Some(p) => Some(
            presets::find(p.get_ref())
                .or_else(|| presets::for_model(p.get_ref(), false).and_then(presets::find))
                .ok_or_else(|| {
                    ck.err(
                        Some(p.span()),
                        &format!("{place}.preset"),
                        format!(
                            "unknown preset \"{}\"; {}give one of {}, or a model name from the {} (add -1h for its 1-hour cache: claude-sonnet-4-5-1h)",
                            shown(p.get_ref()),
                            super::nearest(p.get_ref(), presets::names().into_iter()),
                            presets::generic_names().join(", "),
                            models::described()
                        ),
                    )
                })?,
        ),
        None => None,
    };
    let term = |v: &Option<Spanned<f64>>, key: &str, from: Option<f64>, zero: bool| {
        let at = format!("{place}.{key}");
        match v {
            Some(v) if zero => ck.non_negative(v, &at).map(Some),
            Some(v) => ck.positive(v, &at).map(Some),
            None => Ok(from),
        }
    };
    // The same slips as in `[cache]`: a percent for a multiple of the input price.
    for (v, key, max) in [
        (&c.read, "read", 1.0),
        (&c.write, "write", super::slips::MAX_WRITE),
    ] {
        if let Some(v) = v {
            let at = format!("{place}.{key}");
            super::slips::multiplier(ck, v.span(), &at, key, *v.get_ref(), max);
        }
    }
    let change = CacheChange {
        read: term(&c.read, "read", preset.map(|p| p.read), false)?,
        write: term(&c.write, "write", preset.map(|p| p.write), false)?,
        ttl_s: term(&c.ttl_s, "ttl_s", preset.map(|p| p.ttl_s), false)?,
        min_tokens: term(
            &c.min_tokens,
            "min_tokens",
            preset.map(|p| p.min_tokens),
            true,
        )?,
        preset: preset.map(|p| format!("{} ({})", p.name, p.source)),
        traces: c
            .traces
            .as_ref()
            .map(|t| traces(ck, t, place))
            .transpose()?,
        retention: None,
        avoid: avoid(ck, c, place)?,
        only_longer: c.only_longer.as_ref().is_some_and(|b| *b.get_ref()),
        providers: c
            .providers
            .as_ref()
            .map(|p| providers(ck, p, place))
            .transpose()?,
    };
    if change.only_longer && change.ttl_s.is_none() {
        return Err(ck.err(
            c.only_longer.as_ref().map(|b| b.span()).or(span),
            &format!("{place}.only_longer"),
            "only_longer compares each run's cache lifetime with the edit's ttl_s, which it does not give: add ttl_s (cache = { ttl_s = 3600, write = 2.0, only_longer = true }) or a preset with one, or leave only_longer out",
        ));
    }
    if [change.read, change.write, change.ttl_s, change.min_tokens]
        .iter()
        .all(Option::is_none)
        && change.avoid.is_empty()
    {
        return Err(ck.err(
            span,
            place,
            "the cache edit changes no term: give ttl_s, write, read or min_tokens (e.g. cache = { ttl_s = 3600, write = 2.0 }), or a preset (cache = { preset = \"claude-sonnet-4-5-1h\" })",
        ));
    }
    if let (Some(read), Some(write)) = (change.read, change.write)
        && write < read
    {
        return Err(ck.err(
            c.write.as_ref().map(|w| w.span()).or(span),
            &format!("{place}.write"),
            format!(
                "write = {write} is below read = {read}: writing to the cache never costs less than reading from it"
            ),
        ));
    }
    Ok(Action::Cache(change))
}

/// `cache = { retention = "24h", traces }`: OpenAI's extended prompt-cache retention, a
/// prefix kept up to 24 hours at the same prices (OpenAI's prompt-caching guide,
/// developers.openai.com/api/docs/guides/prompt-caching, read 2026-12-02). Whether the
/// calls' model offers it is checked where the edit meets a scenario
/// (`crate::scenario::provider`).
fn retention(
    ck: &Checker,
    c: &CacheEditFile,
    r: &Spanned<String>,
    place: &str,
) -> Result<Action, Located> {
    let at = format!("{place}.retention");
    match r.get_ref().as_str() {
        OPENAI_RETENTION => {}
        "in_memory" => {
            return Err(ck.err(
                Some(r.span()),
                &at,
                "in_memory is OpenAI's in-memory retention (prefixes kept 5 to 10 minutes idle, at most an hour), the cache an imported session already has: give retention = \"24h\" for the extended one",
            ));
        }
        other => {
            return Err(ck.err(
                Some(r.span()),
                &at,
                format!(
                    "\"{}\" is not a retention policy: give retention = \"24h\" (OpenAI's extended prompt-cache retention)",
                    shown(other)
                ),
            ));
        }
    }
    for (given, key) in [
        (c.preset.is_some(), "preset"),
        (c.read.is_some(), "read"),
        (c.write.is_some(), "write"),
        (c.ttl_s.is_some(), "ttl_s"),
        (c.min_tokens.is_some(), "min_tokens"),
        (c.providers.is_some(), "providers"),
    ] {
        if given {
            return Err(ck.err(
                Some(r.span()),
                &format!("{place}.{key}"),
                if key == "providers" {
                    "retention is OpenAI's own: it applies to the calls on OpenAI's API alone already, so give it without providers (traces may go with it)".to_string()
                } else {
                    format!("retention sets the cache's lifetime and keeps its prices (OpenAI prices both retention policies alike): give it without {key} (traces may go with it)")
                },
            ));
        }
    }
    Ok(Action::Cache(CacheChange {
        read: None,
        write: None,
        ttl_s: Some(RETENTION_24H_S),
        min_tokens: None,
        preset: Some(
            "OpenAI's extended prompt-cache retention, prompt_cache_retention = \"24h\" (prefixes kept up to 24 hours, at the same prices; OpenAI's prompt-caching guide, read 2026-12-02)".into(),
        ),
        traces: c
            .traces
            .as_ref()
            .map(|t| traces(ck, t, place))
            .transpose()?,
        retention: Some(OPENAI_RETENTION),
        avoid: avoid(ck, c, place)?,
        only_longer: c.only_longer.as_ref().is_some_and(|b| *b.get_ref()),
        providers: None,
    }))
}

/// `avoid = ["ttl", …]`: each a class of [`crate::scenario::AVOIDABLE`], named once.
fn avoid(ck: &Checker, c: &CacheEditFile, place: &str) -> Result<Vec<&'static str>, Located> {
    let Some(list) = &c.avoid else {
        return Ok(Vec::new());
    };
    let at = format!("{place}.avoid");
    let mut out: Vec<&'static str> = Vec::new();
    for v in list.get_ref() {
        let word = v.get_ref().as_str();
        let Some(class) = crate::scenario::AVOIDABLE.iter().find(|k| **k == word) else {
            let why = if word == "model" {
                "a model switch's cold cache is the calls' models' own (each model has its own cache): move the calls with a `model` edit instead".to_string()
            } else {
                format!("use one of {}", crate::scenario::AVOIDABLE.join(", "))
            };
            return Err(ck.err(
                Some(v.span()),
                &at,
                format!("\"{}\" is not a break class to avoid: {why}", shown(word)),
            ));
        };
        if out.contains(class) {
            return Err(ck.err(Some(v.span()), &at, format!("\"{word}\" is named twice")));
        }
        out.push(class);
    }
    if out.is_empty() {
        return Err(ck.err(
            Some(list.span()),
            &at,
            format!(
                "avoid names no class: give some of {}",
                crate::scenario::AVOIDABLE.join(", ")
            ),
        ));
    }
    Ok(out)
}

/// `providers = ["anthropic"]`: known providers (as a call's `convention` names them), each
/// once.
fn providers(
    ck: &Checker,
    list: &Spanned<Vec<Spanned<String>>>,
    place: &str,
) -> Result<Vec<Provider>, Located> {
    known_words(
        ck,
        list,
        &format!("{place}.providers"),
        "providers = [] changes no run: name anthropic, openai or both, or leave providers out (every provider)",
        |w| Provider::parse(w).map(|p| (p, p.key())),
        |w| {
            format!(
                "\"{w}\" is not a provider: give anthropic or openai (as a call's measured convention names them), e.g. providers = [\"anthropic\"]"
            )
        },
        "provider",
    )
}

/// `traces = ["main", "subagent"]`: known kinds, each once.
fn traces(
    ck: &Checker,
    t: &Spanned<Vec<Spanned<String>>>,
    place: &str,
) -> Result<Vec<TraceKind>, Located> {
    known_words(
        ck,
        t,
        &format!("{place}.traces"),
        "traces = [] changes no trace: name main, subagent or both, or leave traces out (every trace)",
        |w| TraceKind::parse(w).map(|k| (k, k.key())),
        |w| {
            format!(
                "\"{w}\" is not a trace kind: give main (a session's own conversation, after a compaction too) or subagent"
            )
        },
        "kind",
    )
}

/// A list of known words (`providers`, `traces`) at `at`: not empty (else `empty`), each
/// word one `parse` knows (with its key; else `unknown` of the word as shown), none twice.
fn known_words<T: PartialEq>(
    ck: &Checker,
    list: &Spanned<Vec<Spanned<String>>>,
    at: &str,
    empty: &str,
    parse: impl Fn(&str) -> Option<(T, &'static str)>,
    unknown: impl Fn(&str) -> String,
    each: &str,
) -> Result<Vec<T>, Located> {
    if list.get_ref().is_empty() {
        return Err(ck.err(Some(list.span()), at, empty));
    }
    let mut out = Vec::new();
    for word in list.get_ref() {
        let Some((known, key)) = parse(word.get_ref()) else {
            return Err(ck.err(Some(word.span()), at, unknown(&shown(word.get_ref()))));
        };
        if out.contains(&known) {
            return Err(ck.err(
                Some(word.span()),
                at,
                format!("names {key} twice; list each {each} once"),
            ));
        }
        out.push(known);
    }
    Ok(out)
}

/// `model = { to, tokens_factor, select }`.
pub(super) fn model_edit(
    ck: &Checker,
    m: &Spanned<ModelEditFile>,
    place: &str,
) -> Result<Action, Located> {
    let span = Some(m.span());
    let m = m.get_ref();
    let Some(to) = &m.to else {
        return Err(ck.err(
            span,
            place,
            "missing key `to`: the model to price the run as, from the price data (e.g. model = { to = \"claude-sonnet-4-6\" })",
        ));
    };
    let Some(terms) = models::find(to.get_ref()) else {
        return Err(ck.err(
            Some(to.span()),
            &format!("{place}.to"),
            format!(
                "no prices for model \"{}\" in the {}; {}name a model or a log's model id (claude-sonnet-4-6, gpt-5-codex, …), or give its prices in a file named by the SIMULATE_PRICES environment variable",
                shown(to.get_ref()),
                models::described(),
                super::nearest(to.get_ref(), models::all().map(|m| m.name.as_str()))
            ),
        ));
    };
    let tokens_factor = match &m.tokens_factor {
        Some(v) => {
            let f = ck.positive(v, &format!("{place}.tokens_factor"))?;
            if !(MIN_TOKENS_FACTOR..=MAX_TOKENS_FACTOR).contains(&f) {
                return Err(ck.err(
                    Some(v.span()),
                    &format!("{place}.tokens_factor"),
                    format!(
                        "{} is outside {MIN_TOKENS_FACTOR} to {MAX_TOKENS_FACTOR}: a tokenizer gives a few tens of percent more or fewer tokens for the same text (e.g. 1.3, or 0.8)",
                        super::show(f)
                    ),
                ));
            }
            f
        }
        None => 1.0,
    };
    let select = m
        .select
        .as_ref()
        .map(|s| super::select::selector(ck, s, &format!("{place}.select")))
        .transpose()?;
    Ok(Action::Model(ModelChange {
        to: terms.name.clone(),
        tokens_factor,
        select,
    }))
}

/// `base = { drop = NAME }` or `{ defer = NAME, stub_tokens = s }`; `b` has one of them.
pub(super) fn base_part_edit(
    ck: &Checker,
    b: &Spanned<BaseFile>,
    place: &str,
) -> Result<Action, Located> {
    let span = Some(b.span());
    let b = b.get_ref();
    let others = [&b.by_tokens, &b.by_bytes, &b.to_tokens]
        .iter()
        .any(|v| v.is_some());
    let (name, how) = match (&b.drop, &b.defer) {
        (Some(_), Some(_)) => {
            return Err(ck.err(
                span,
                place,
                "give one of drop or defer: a part is dropped or deferred, not both",
            ));
        }
        (Some(name), None) => {
            if let Some(s) = &b.stub_tokens {
                return Err(ck.err(
                    Some(s.span()),
                    &format!("{place}.stub_tokens"),
                    "stub_tokens is what a deferred part leaves in every request; a dropped part leaves nothing: remove it, or defer the part",
                ));
            }
            (name, PartEdit::Drop)
        }
        (None, Some(name)) => {
            let Some(s) = &b.stub_tokens else {
                return Err(ck.err(
                    span,
                    place,
                    "missing key `stub_tokens`: the tokens a deferred part leaves in every request (the tool-search tool and the deferred tools' names, as /context shows them; 0 if none), e.g. base = { defer = \"mcp:github\", stub_tokens = 300 }",
                ));
            };
            let stub_tokens = ck.non_negative(s, &format!("{place}.stub_tokens"))?;
            (name, PartEdit::Defer { stub_tokens })
        }
        (None, None) => return Err(ck.err(span, place, "no part named")),
    };
    if others {
        return Err(ck.err(
            span,
            place,
            "give either a change of the base (by_tokens, by_bytes or to_tokens) or a part to drop or defer, not both; put both in steps = [...]",
        ));
    }
    let key = if matches!(how, PartEdit::Drop) {
        "drop"
    } else {
        "defer"
    };
    let part = ck.label(name, &format!("{place}.{key}"))?.to_string();
    Ok(Action::BasePart(PartChange { part, how }))
}

/// The `[[base.part]]` tables, each sized by its `tokens`, its `definitions` times the
/// fitted tokens per loaded definition, or a `published` figure; together at most B.
pub(super) fn base_parts(
    ck: &Checker,
    table: &Spanned<BaseTableFile>,
    base_tokens: f64,
    terms: &Terms,
) -> Result<Vec<BasePart>, Located> {
    let mut parts: Vec<BasePart> = Vec::new();
    let mut names = HashSet::new();
    for (i, p) in table.get_ref().part.iter().enumerate() {
        let span = Some(p.span());
        let p = p.get_ref();
        let Some(name) = &p.name else {
            return Err(ck.err(
                span,
                &format!("[[base.part]] #{}", i + 1),
                "missing key `name`: every part needs a unique name (e.g. name = \"mcp:github\")",
            ));
        };
        let name = ck.label(name, &format!("[[base.part]] #{}: name", i + 1))?;
        let place = format!("[[base.part]] \"{}\"", shown(name));
        if !names.insert(name.to_string()) {
            return Err(ck.err(span, &place, "duplicate part name; names must be unique"));
        }
        let given = [
            p.tokens.is_some(),
            p.definitions.is_some(),
            p.published.is_some(),
        ];
        if given.iter().filter(|&&g| g).count() != 1 {
            return Err(ck.err(
                span,
                &place,
                "give exactly one size: tokens (e.g. from /context), definitions (× [terms] tokens_per_loaded_tool) or published (a shipped published figure, estimated)",
            ));
        }
        let source_given = p
            .source
            .as_ref()
            .map(|s| ck.label(s, &format!("{place}.source")).map(str::to_string))
            .transpose()?;
        let mut default_tools: Vec<String> = Vec::new();
        let (tokens, source) = if let Some(t) = &p.tokens {
            let tokens = ck.non_negative(t, &format!("{place}.tokens"))?;
            (
                tokens,
                source_given.unwrap_or_else(|| "given (scenario file)".to_string()),
            )
        } else if let Some(d) = &p.definitions {
            let n = ck.count(d, &format!("{place}.definitions"), 1)?;
            let Some(per) = &terms.tokens_per_loaded_tool else {
                return Err(ck.err(
                    Some(d.span()),
                    &format!("{place}.definitions"),
                    "definitions = N is sized by [terms] tokens_per_loaded_tool, which this scenario does not give: fit it (simulate fit on a log with tool search), give it, or give the part's tokens",
                ));
            };
            let from = per
                .source
                .clone()
                .unwrap_or_else(|| "given in [terms]".to_string());
            let derived = format!(
                "{n} definitions × {} tokens per loaded definition ({from})",
                crate::number::decimal(per.tokens)
            );
            let source = match source_given {
                Some(s) => format!("{s}; {derived}"),
                None => derived,
            };
            (n as f64 * per.tokens, source)
        } else if let Some(key) = &p.published {
            let Some(entry) = published::find(key.get_ref()) else {
                return Err(ck.err(
                    Some(key.span()),
                    &format!("{place}.published"),
                    format!(
                        "no published figure for \"{}\"; {}the shipped table has {} (measure a server yourself with /context and give tokens)",
                        shown(key.get_ref()),
                        super::nearest(key.get_ref(), published::all().iter().map(|p| p.key.as_str())),
                        published::all()
                            .iter()
                            .map(|p| p.key.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            };
            if let Some(s) = &p.source {
                return Err(ck.err(
                    Some(s.span()),
                    &format!("{place}.source"),
                    "a published figure carries its own source; to use your own figure, give tokens and source instead",
                ));
            }
            default_tools.clone_from(&entry.tools);
            (entry.tokens, format!("estimated: {}", entry.source))
        } else {
            return Err(ck.err(span, &place, "no size"));
        };
        let tools_text: Vec<(String, Option<std::ops::Range<usize>>)> = match &p.tools {
            Some(list) => list
                .iter()
                .map(|t| {
                    ck.label(t, &format!("{place}.tools"))
                        .map(|s| (s.to_string(), Some(t.span())))
                })
                .collect::<Result<_, _>>()?,
            None if !default_tools.is_empty() => {
                default_tools.into_iter().map(|t| (t, None)).collect()
            }
            None => {
                return Err(ck.err(
                    span,
                    &place,
                    "missing key `tools`: the tool names the part serves, as globs (e.g. tools = [\"mcp__github__*\"]; [] for a part that serves no tool, such as a settings file)",
                ));
            }
        };
        let tools = tools_text
            .into_iter()
            .map(|(text, at)| {
                glob::Pattern::new(&text)
                    .map(|pattern| LabelGlob {
                        text: text.clone(),
                        pattern,
                    })
                    .map_err(|e| {
                        ck.err(
                            at.or(span.clone()),
                            &format!("{place}.tools"),
                            format!("\"{}\" is not a valid glob: {}", shown(&text), e.msg),
                        )
                    })
            })
            .collect::<Result<_, _>>()?;
        parts.push(BasePart {
            name: name.to_string(),
            tokens,
            source,
            tools,
            deferred: p.deferred.as_ref().is_some_and(|d| *d.get_ref()),
        });
    }
    let sum: f64 = parts.iter().map(|p| p.tokens).sum();
    if sum > base_tokens {
        return Err(ck.err(
            Some(table.span()),
            "[[base.part]]",
            format!(
                "the base parts add up to {} tokens, more than base_tokens = {}: B is the parts plus the rest, so each part is a share of it (raise base_tokens or correct a part)",
                crate::number::grouped(sum, 0),
                crate::number::grouped(base_tokens, 0)
            ),
        ));
    }
    Ok(parts)
}
