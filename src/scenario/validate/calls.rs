//! `[[call]]` tables and `calls_tsv` traces: ids, sizes, kinds, segments.

use super::Checker;
use crate::error::{Error, Located};
use crate::scenario::file::{CallFile, MeasuredFile};
use crate::scenario::{Call, CallDetail, Calls, Convention, MeasuredUsage, tsv};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;

/// The trace `calls_tsv` names, relative to the scenario file.
pub(super) fn tsv_path(tsv: &Spanned<String>, path: &Path) -> PathBuf {
    path.parent().unwrap_or(Path::new(".")).join(tsv.get_ref())
}

/// Reads the `calls_tsv` trace. A problem with the file as a whole (missing, not a regular
/// file, too large, no calls) is reported at the `calls_tsv` key that named it; a bad line
/// at its line in the trace.
pub(super) fn tsv_calls(ck: &Checker, tsv: &Spanned<String>, path: &Path) -> Result<Calls, Error> {
    let tsv_path = tsv_path(tsv, path);
    let at_key = |message: String| ck.err(Some(tsv.span()), "calls_tsv", message).into();
    tsv::read_tsv(&tsv_path).map_err(|e| match e {
        Error::Unreadable { path, source } => {
            at_key(format!("cannot read {}: {source}", path.display()))
        }
        Error::Input(l) if l.line_column.is_none() && l.file == tsv_path.display().to_string() => {
            at_key(format!("{}: {}", l.file, l.message))
        }
        other => other,
    })
}

pub(super) fn call(ck: &Checker, index: usize, c: &Spanned<CallFile>) -> Result<Call, Located> {
    let span = Some(c.span());
    let c = c.get_ref();
    let numbered = format!("[[call]] #{}", index + 1);
    if let Some(id) = &c.id {
        ck.name(id, &format!("{numbered}: id"), MAX_ID_CHARS)?;
    }
    if let Some(label) = &c.label {
        ck.label(label, &format!("{numbered}: label"))?;
    }
    let (id, label) = match (&c.id, &c.label) {
        (Some(id), Some(label)) => (id.get_ref().clone(), label.get_ref().clone()),
        (Some(id), None) => (id.get_ref().clone(), id.get_ref().clone()),
        (None, Some(label)) => (label.get_ref().clone(), label.get_ref().clone()),
        (None, None) => return Err(ck.err(
            span,
            &numbered,
            "a call needs a `label` (and optionally a unique `id`; the id defaults to the label)",
        )),
    };
    let place = format!("[[call]] \"{}\"", super::shown(&id));
    let num = |v: &Option<Spanned<f64>>, key: &str| -> Result<f64, Located> {
        v.as_ref()
            .map_or(Ok(0.0), |v| ck.non_negative(v, &format!("{place}: {key}")))
    };
    if c.bytes.is_none() && c.tokens.is_none() && c.images.is_none() {
        return Err(ck.err(
            span,
            &place,
            "a call needs `bytes` (converted with bytes_per_token) or measured `tokens`, or both",
        ));
    }
    let kind = match &c.kind {
        Some(k) => ck
            .name(k, &format!("{place}: kind"), MAX_ID_CHARS)?
            .to_string(),
        None => "tool".into(),
    };
    let tool = c
        .tool
        .as_ref()
        .map(|t| {
            ck.name(t, &format!("{place}: tool"), MAX_ID_CHARS)
                .map(Arc::from)
        })
        .transpose()?;
    let other_tools = match (&c.other_tools, &tool) {
        (None, _) => Vec::new(),
        (Some(list), None) => {
            return Err(ck.err(
                Some(list.span()),
                &format!("{place}: other_tools"),
                "other_tools lists the tools a request used after its first: give the first as `tool` too",
            ));
        }
        (Some(list), Some(first)) => {
            let mut names = Vec::new();
            for t in list.get_ref() {
                names.push(ck.name(t, &format!("{place}: other_tools"), MAX_ID_CHARS)?);
            }
            crate::scenario::other_tools(first, names, |t| Arc::from(t))
        }
    };
    let input_hash = c
        .input_hash
        .as_ref()
        .map(|h| {
            ck.name(h, &format!("{place}: input_hash"), MAX_ID_CHARS)
                .map(Into::into)
        })
        .transpose()?;
    let measured = c
        .measured
        .as_ref()
        .map(|m| measured(ck, m, &format!("{place}: measured")))
        .transpose()?;
    let output_bytes = c
        .output_bytes
        .as_ref()
        .map(|v| ck.non_negative(v, &format!("{place}: output_bytes")))
        .transpose()?;
    let tool_input_bytes = c
        .tool_input_bytes
        .as_ref()
        .map(|v| ck.non_negative(v, &format!("{place}: tool_input_bytes")))
        .transpose()?;
    let units = |v: &Option<Spanned<i64>>, key: &str| -> Result<u64, Located> {
        v.as_ref()
            .map_or(Ok(0), |v| ck.count(v, &format!("{place}: {key}"), 0))
    };
    let images = units(&c.images, "images")?;
    let loaded_tools = units(&c.loaded_tools, "loaded_tools")?;
    let detail = (tool.is_some()
        || !other_tools.is_empty()
        || input_hash.is_some()
        || measured.is_some()
        || output_bytes.is_some()
        || tool_input_bytes.is_some()
        || images > 0
        || loaded_tools > 0)
        .then(|| {
            Box::new(CallDetail {
                tool,
                other_tools,
                input_hash,
                measured,
                output_bytes,
                tool_input_bytes: tool_input_bytes.unwrap_or(0.0),
                images,
                loaded_tools,
            })
        });
    Ok(Call {
        id: id.into(),
        label: label.into(),
        pinned: c.pinned.unwrap_or(kind == "web_search"),
        kind: Arc::from(kind),
        bytes: num(&c.bytes, "bytes")?,
        tokens: num(&c.tokens, "tokens")?,
        output_tokens: num(&c.output_tokens, "output_tokens")?,
        segment: 0, // filled in by finish_calls, which knows the previous call
        gap_s: num(&c.gap_s, "gap_s")?,
        measured: c.tokens.is_some(),
        detail,
    })
}

/// Longest call id, kind, tool or hash, in characters.
const MAX_ID_CHARS: usize = 200;

/// `[call.measured]`: the provider's usage fields, each a whole number ≥ 0 when given (a
/// missing one stays missing), and the convention they follow.
fn measured(
    ck: &Checker,
    m: &Spanned<MeasuredFile>,
    place: &str,
) -> Result<MeasuredUsage, Located> {
    let span = Some(m.span());
    let m = m.get_ref();
    let count = |v: &Option<Spanned<f64>>, key: &str| -> Result<Option<f64>, Located> {
        v.as_ref()
            .map(|v| ck.non_negative(v, &format!("{place}.{key}")))
            .transpose()
    };
    let convention = match &m.convention {
        Some(c) => match c.get_ref().as_str() {
            "anthropic" => Convention::Anthropic,
            "openai" => Convention::OpenAi,
            other => {
                return Err(ck.err(
                    Some(c.span()),
                    &format!("{place}.convention"),
                    format!(
                        "\"{}\" is not a convention: give \"anthropic\" (input_tokens excludes cache reads and writes) or \"openai\" (input_tokens includes cached tokens)",
                        super::shown(other)
                    ),
                ));
            }
        },
        None => {
            return Err(ck.err(
                span,
                &format!("{place}.convention"),
                "missing key `convention`: say how input_tokens was counted, convention = \"anthropic\" (excludes cache reads and writes) or \"openai\" (includes cached tokens)",
            ));
        }
    };
    let usage = MeasuredUsage {
        input_tokens: count(&m.input_tokens, "input_tokens")?,
        cache_creation_input_tokens: count(
            &m.cache_creation_input_tokens,
            "cache_creation_input_tokens",
        )?,
        cache_creation_1h_input_tokens: count(
            &m.cache_creation_1h_input_tokens,
            "cache_creation_1h_input_tokens",
        )?,
        cache_read_input_tokens: count(&m.cache_read_input_tokens, "cache_read_input_tokens")?,
        output_tokens: count(&m.output_tokens, "output_tokens")?,
        cost_usd: count(&m.cost_usd, "cost_usd")?,
        model: m
            .model
            .as_ref()
            .map(|x| {
                ck.name(x, &format!("{place}.model"), MAX_ID_CHARS)
                    .map(Arc::from)
            })
            .transpose()?,
        convention,
        cache_event: match &m.cache_event {
            None => None,
            Some(e) if crate::scenario::CACHE_EVENTS.contains(&e.get_ref().as_str()) => {
                Some(Arc::from(e.get_ref().as_str()))
            }
            Some(e) => {
                return Err(ck.err(
                    Some(e.span()),
                    &format!("{place}.cache_event"),
                    format!(
                        "unknown cache event {:?}: use one of {}",
                        e.get_ref(),
                        crate::scenario::CACHE_EVENTS.join(", ")
                    ),
                ));
            }
        },
    };
    if let (Some(all), Some(one_hour)) = (
        usage.cache_creation_input_tokens,
        usage.cache_creation_1h_input_tokens,
    ) && one_hour > all
    {
        return Err(ck.err(
            m.cache_creation_1h_input_tokens.as_ref().map(|v| v.span()),
            &format!("{place}.cache_creation_1h_input_tokens"),
            format!("{one_hour} is more than cache_creation_input_tokens = {all}: the 1-hour writes are part of all cache writes"),
        ));
    }
    Ok(usage)
}

/// Unique ids, default and contiguous segments.
///
/// Ids given are the ids: two alike are an error. A call without one takes its label;
/// where that is taken (two `cat a.md` calls), it gets `label-2`, `label-3`, … (the first
/// number free), with a warning saying so, since edits name calls by id.
pub(super) fn finish_calls(
    ck: &Checker,
    mut calls: Vec<Call>,
    raw: &[Spanned<CallFile>],
) -> Result<Vec<Call>, Located> {
    let span_of = |i: usize| raw.get(i).map(|c| c.span());
    let given = |i: usize| raw.get(i).is_some_and(|c| c.get_ref().id.is_some());
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(calls.len());
    for (i, c) in calls.iter().enumerate().filter(|(i, _)| given(*i)) {
        if let Some(first) = seen.insert(c.id.to_string(), i) {
            let (first, again) = (first.min(i), first.max(i));
            return Err(ck.err(
                span_of(again),
                &format!("[[call]] #{}", again + 1),
                format!(
                    "duplicate call id `{}` (call #{} has it too); give one of them a unique `id`",
                    c.id,
                    first + 1
                ),
            ));
        }
    }
    for (i, c) in calls.iter_mut().enumerate() {
        if given(i) {
            continue;
        }
        let Some(&other) = seen.get(c.id.as_str()) else {
            seen.insert(c.id.to_string(), i);
            continue;
        };
        let own = (2..)
            .map(|n| format!("{}-{n}", c.id))
            .find(|id| !seen.contains_key(id))
            .unwrap_or_default();
        if let Some(span) = span_of(i) {
            ck.warn(
                span,
                &format!("[[call]] #{}", i + 1),
                format!(
                    "has no id and the label `{}` of call #{}: its id is `{own}` (edits name calls by id; give it an `id` to choose)",
                    super::shown(&c.id),
                    other + 1
                ),
            );
        }
        c.id = own.as_str().into();
        seen.insert(own, i);
    }
    let mut previous: Option<u64> = None;
    let mut finished: HashMap<u64, usize> = HashMap::new();
    for (i, (c, r)) in calls.iter_mut().zip(raw).enumerate() {
        let segment = match &r.get_ref().segment {
            Some(s) => ck.count(s, &format!("[[call]] \"{}\": segment", c.id), 0)?,
            None => previous.unwrap_or(1),
        };
        if let Some(prev) = previous.filter(|p| *p != segment) {
            finished.insert(prev, i);
            if finished.contains_key(&segment) {
                return Err(ck.err(span_of(i), &format!("[[call]] \"{}\": segment", c.id), format!("segment {segment} appears again after segment {prev}; a segment's calls must be contiguous")));
            }
        }
        c.segment = segment;
        previous = Some(segment);
    }
    Ok(calls)
}

/// Kinds the model gives a meaning to: `web_search` is pinned (never cleared) by default,
/// `tool` is the default kind.
const MEANT_KINDS: [(&str, &str); 2] = [
    (
        "web_search",
        "which is pinned (never cleared) by default, and these calls are not",
    ),
    (
        "tool",
        "the default kind, and these calls are a kind of their own (their own row where the total goes, not matched by `tool` in `exclude_kinds`)",
    ),
];

/// Warns of a kind that is almost one with a meaning (`websearch`, `Web-Search`, `Tool`):
/// legal, and almost surely a slip that silently loses the meaning.
pub(super) fn kind_slips(ck: &Checker, calls: &Calls) {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    for kind in calls.kinds() {
        for (meant, why) in MEANT_KINDS {
            if kind != meant && squash(kind) == squash(meant) {
                let n = (0..calls.len()).filter(|&i| calls.kind(i) == kind).count();
                ck.warn_file(
                    &format!(
                        "kind `{}` ({n} {})",
                        super::shown(kind),
                        if n == 1 { "call" } else { "calls" }
                    ),
                    format!("almost `{meant}`, {why}; write `{meant}` if that is what they are"),
                );
            }
        }
    }
}
