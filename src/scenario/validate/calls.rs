//! `[[call]]` tables and `calls_tsv` traces: ids, sizes, kinds, segments.

use super::Checker;
use crate::error::{Error, Located};
use crate::scenario::file::CallFile;
use crate::scenario::{Call, tsv};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use toml::Spanned;

pub(super) fn tsv_calls(
    ck: &Checker,
    tsv: &Spanned<String>,
    path: &Path,
) -> Result<Vec<Call>, Error> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tsv_path = dir.join(tsv.get_ref());
    tsv::read_tsv(&tsv_path).map_err(|e| match e {
        Error::Unreadable { path, source } => ck
            .err(
                Some(tsv.span()),
                "calls_tsv",
                format!("cannot read {}: {source}", path.display()),
            )
            .into(),
        other => other,
    })
}

pub(super) fn call(ck: &Checker, index: usize, c: &Spanned<CallFile>) -> Result<Call, Located> {
    let span = Some(c.span());
    let c = c.get_ref();
    let (id, label) = match (&c.id, &c.label) {
        (Some(id), Some(label)) => (id.get_ref().clone(), label.clone()),
        (Some(id), None) => (id.get_ref().clone(), id.get_ref().clone()),
        (None, Some(label)) => (label.clone(), label.clone()),
        (None, None) => return Err(ck.err(
            span,
            &format!("[[call]] #{}", index + 1),
            "a call needs a `label` (and optionally a unique `id`; the id defaults to the label)",
        )),
    };
    let place = format!("[[call]] \"{id}\"");
    let num = |v: &Option<Spanned<f64>>, key: &str| -> Result<f64, Located> {
        v.as_ref()
            .map_or(Ok(0.0), |v| ck.non_negative(v, &format!("{place}: {key}")))
    };
    if c.bytes.is_none() && c.tokens.is_none() {
        return Err(ck.err(
            span,
            &place,
            "a call needs `bytes` (converted with bytes_per_token) or measured `tokens`, or both",
        ));
    }
    let kind = c.kind.clone().unwrap_or_else(|| "tool".into());
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
    })
}

/// Unique ids, default and contiguous segments.
pub(super) fn finish_calls(
    ck: &Checker,
    mut calls: Vec<Call>,
    raw: &[Spanned<CallFile>],
) -> Result<Vec<Call>, Located> {
    if raw.is_empty() {
        return Ok(calls); // TSV calls: ids are their distinct numbers, one segment
    }
    let span_of = |i: usize| raw.get(i).map(|c| c.span());
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(calls.len());
    for (i, c) in calls.iter().enumerate() {
        if let Some(first) = seen.insert(&c.id, i) {
            return Err(ck.err(
                span_of(i),
                &format!("[[call]] #{}", i + 1),
                format!(
                    "duplicate call id `{}` (call #{} has it too); give one of them a unique `id`",
                    c.id,
                    first + 1
                ),
            ));
        }
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
