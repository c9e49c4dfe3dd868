//! Turning the file's serde shapes into checked engine types.
//!
//! Every check that can fail on user input lives here (or in the edit module, which this
//! calls so that an edit naming an unknown call fails before anything runs). Each error
//! names the file, the line and column where known, the key, and what would be valid.

use super::file::*;
use super::{
    Action, Axis, CacheSpec, Call, ClearPolicy, Edit, MergeAt, Place, Price, Scenario, SweepSpec,
    TrimBy, tsv,
};
use crate::cache::presets;
use crate::error::{Error, Located, line_column};
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;

/// Largest number accepted anywhere in a scenario: a petabyte of bytes, a quadrillion
/// tokens. Beyond it, sums over a million calls could overflow to infinity.
pub const MAX_NUMBER: f64 = 1e15;

/// Largest number of values a `{ from, to, steps }` range may make.
pub const MAX_RANGE_STEPS: i64 = 100_000;

/// Where errors point: the file's name and text.
struct Checker<'a> {
    file: String,
    text: &'a str,
}

impl Checker<'_> {
    fn err(&self, span: Option<Range<usize>>, place: &str, message: impl Into<String>) -> Located {
        let at = span.map(|s| line_column(self.text, s.start));
        Located::new(&self.file, message).at(at).place(place)
    }

    /// A finite number `> 0`.
    fn positive(&self, v: &Spanned<f64>, place: &str) -> Result<f64, Located> {
        let x = *v.get_ref();
        if x.is_finite() && x > MAX_NUMBER {
            Err(self.too_large(v, place))
        } else if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(self.err(
                Some(v.span()),
                place,
                format!("{} must be a finite number > 0", show(x)),
            ))
        }
    }

    /// A finite number `>= 0`.
    fn non_negative(&self, v: &Spanned<f64>, place: &str) -> Result<f64, Located> {
        let x = *v.get_ref();
        if x.is_finite() && x > MAX_NUMBER {
            Err(self.too_large(v, place))
        } else if x.is_finite() && x >= 0.0 {
            Ok(x)
        } else {
            Err(self.err(
                Some(v.span()),
                place,
                format!("{} must be a finite number ≥ 0", show(x)),
            ))
        }
    }

    fn too_large(&self, v: &Spanned<f64>, place: &str) -> Located {
        let x = *v.get_ref();
        self.err(
            Some(v.span()),
            place,
            format!(
                "{} is too large: give at most 1e15 (sums of larger values overflow)",
                show(x)
            ),
        )
    }

    /// A whole number `>= min`.
    fn count(&self, v: &Spanned<i64>, place: &str, min: i64) -> Result<u64, Located> {
        let x = *v.get_ref();
        if x >= min {
            Ok(x as u64)
        } else {
            Err(self.err(
                Some(v.span()),
                place,
                format!("{x} must be a whole number ≥ {min}"),
            ))
        }
    }
}

fn show(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.abs() >= 1e15 {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// Checks a parsed scenario file; `path` is where it was read from.
pub fn scenario(raw: ScenarioFile, text: &str, path: &Path) -> Result<Scenario, Error> {
    let ck = Checker {
        file: path.display().to_string(),
        text,
    };
    let top = Some(0..0);
    let name = match &raw.name {
        Some(n) => scenario_name(&ck, n)?,
        None => return Err(ck.err(top, "name", "missing key `name` (e.g. name = \"nightly-maintenance\"; results go to out/<name>/)").into()),
    };
    let base_tokens = match &raw.base_tokens {
        Some(v) => ck.positive(v, "base_tokens")?,
        None => return Err(ck.err(top, "base_tokens", "missing key `base_tokens`: the tokens every call reads (system prompt, tools), e.g. base_tokens = 30000").into()),
    };
    let bytes_per_token = match &raw.bytes_per_token {
        Some(v) => ck.positive(v, "bytes_per_token")?,
        None => return Err(ck.err(top, "bytes_per_token", "missing key `bytes_per_token`: bytes per estimated token, e.g. bytes_per_token = 3.3").into()),
    };
    let retry_rate = match &raw.retry_rate {
        Some(v) => ck.non_negative(v, "retry_rate")?,
        None => 0.0,
    };
    let calls = match (&raw.calls_tsv, raw.call.is_empty()) {
        (Some(tsv), true) => tsv_calls(&ck, tsv, path)?,
        (None, false) => raw
            .call
            .iter()
            .enumerate()
            .map(|(i, c)| call(&ck, i, c))
            .collect::<Result<Vec<_>, _>>()?,
        (Some(tsv), false) => {
            return Err(ck
                .err(
                    Some(tsv.span()),
                    "calls_tsv",
                    "give the calls either as [[call]] tables or as calls_tsv, not both",
                )
                .into());
        }
        (None, true) => {
            return Err(ck
                .err(
                    top,
                    "call",
                    "the scenario has no calls: add [[call]] tables or calls_tsv = \"run.tsv\"",
                )
                .into());
        }
    };
    let calls = finish_calls(&ck, calls, &raw.call)?;
    let cache = raw.cache.as_ref().map(|c| cache(&ck, c)).transpose()?;
    let price = raw.price.as_ref().map(|p| price(&ck, p)).transpose()?;
    let sweep = raw.sweep.as_ref().map(|s| sweep(&ck, s)).transpose()?;
    let mut edits: Vec<Edit> = Vec::with_capacity(raw.edit.len());
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, e) in raw.edit.into_iter().enumerate() {
        let span = e.span();
        let mut e = e.into_inner();
        let Some(name) = e.name.take() else {
            return Err(ck
                .err(
                    Some(span),
                    &format!("[[edit]] #{}", i + 1),
                    "missing key `name`: every edit needs a unique name",
                )
                .into());
        };
        let place = format!("[[edit]] \"{}\"", name.get_ref());
        if name.get_ref().trim().is_empty() {
            return Err(ck
                .err(Some(name.span()), &place, "the name is empty")
                .into());
        }
        if name.get_ref() == "baseline" {
            return Err(ck
                .err(
                    Some(name.span()),
                    &place,
                    "`baseline` names the unedited run in the outputs; choose another name",
                )
                .into());
        }
        if let Some(first) = names.insert(name.get_ref().clone(), i) {
            return Err(ck
                .err(
                    Some(name.span()),
                    &place,
                    format!(
                        "duplicate edit name (edit #{} has it too); names must be unique",
                        first + 1
                    ),
                )
                .into());
        }
        let mut spans = Spans::default();
        let action = edit_action(&ck, &place, span.clone(), &mut e, &mut spans)?;
        // Calls are checked when the edit is applied (crate::evaluate::Study), which can
        // point here.
        let at = |s: &Range<usize>| line_column(text, s.start);
        edits.push(Edit {
            name: name.into_inner(),
            action,
            line_column: Some(at(&span)),
            key_line_columns: spans.0.iter().map(|(k, s)| (k.clone(), at(s))).collect(),
        });
    }
    let mut inputs = vec![path.to_path_buf()];
    inputs.extend(raw.calls_tsv.as_ref().map(|tsv| tsv_path(tsv, path)));
    Ok(Scenario {
        inputs,
        name,
        description: raw.description,
        source: ck.file.clone(),
        base_tokens,
        bytes_per_token,
        retry_rate,
        calls,
        edits,
        sweep,
        cache,
        price,
    })
}

fn scenario_name(ck: &Checker, n: &Spanned<String>) -> Result<String, Located> {
    let s = n.get_ref();
    let mut chars = s.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    let rest_ok =
        chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if first_ok && rest_ok && s.len() <= 100 {
        Ok(s.clone())
    } else {
        Err(ck.err(Some(n.span()), "name", format!("\"{s}\" is not a valid name: use lowercase letters, digits, '_' and '-', starting with a letter or digit, at most 100 characters (it becomes the directory out/<name>/)")))
    }
}

/// The trace `calls_tsv` names, relative to the scenario file.
fn tsv_path(tsv: &Spanned<String>, path: &Path) -> PathBuf {
    path.parent().unwrap_or(Path::new(".")).join(tsv.get_ref())
}

/// Reads the `calls_tsv` trace. A problem with the file as a whole (missing, not a regular
/// file, too large, no calls) is reported at the `calls_tsv` key that named it; a bad line
/// at its line in the trace.
fn tsv_calls(ck: &Checker, tsv: &Spanned<String>, path: &Path) -> Result<Vec<Call>, Error> {
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

fn call(ck: &Checker, index: usize, c: &Spanned<CallFile>) -> Result<Call, Located> {
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
fn finish_calls(
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

fn cache(ck: &Checker, c: &Spanned<CacheFile>) -> Result<CacheSpec, Located> {
    let span = Some(c.span());
    let c = c.get_ref();
    let preset = match &c.preset {
        Some(p) => Some(presets::find(p.get_ref()).ok_or_else(|| {
            ck.err(
                Some(p.span()),
                "[cache] preset",
                format!(
                    "unknown preset \"{}\"; known presets: {}",
                    p.get_ref(),
                    presets::names().join(", ")
                ),
            )
        })?),
        None => None,
    };
    let pick = |v: &Option<Spanned<f64>>,
                key: &str,
                from: Option<f64>,
                min_zero: bool|
     -> Result<f64, Located> {
        let place = format!("[cache] {key}");
        match (v, from) {
            (Some(v), _) if min_zero => ck.non_negative(v, &place),
            (Some(v), _) => ck.positive(v, &place),
            (None, Some(x)) => Ok(x),
            (None, None) => Err(ck.err(span.clone(), &place, format!("missing key `{key}` (give read, write, ttl_s and min_tokens, or a preset such as preset = \"anthropic-5m\")"))),
        }
    };
    let read = pick(&c.read, "read", preset.map(|p| p.read), false)?;
    let write = pick(&c.write, "write", preset.map(|p| p.write), false)?;
    if write < read {
        let at = c.write.as_ref().map(|w| w.span()).or(span);
        return Err(ck.err(at, "[cache] write", format!("write = {write} is below read = {read}: writing to the cache never costs less than reading from it")));
    }
    Ok(CacheSpec {
        read,
        write,
        ttl_s: pick(&c.ttl_s, "ttl_s", preset.map(|p| p.ttl_s), false)?,
        min_tokens: pick(
            &c.min_tokens,
            "min_tokens",
            preset.map(|p| p.min_tokens),
            true,
        )?,
        preset: preset.map(|p| format!("{} ({})", p.name, p.source)),
    })
}

fn price(ck: &Checker, p: &Spanned<PriceFile>) -> Result<Price, Located> {
    let span = Some(p.span());
    let p = p.get_ref();
    let input = match &p.input {
        Some(v) => ck.positive(v, "[price] input")?,
        None => {
            return Err(ck.err(
                span,
                "[price] input",
                "missing key `input`: USD per million input tokens",
            ));
        }
    };
    let output = p
        .output
        .as_ref()
        .map(|v| ck.positive(v, "[price] output"))
        .transpose()?;
    let source = match &p.source {
        Some(s) if !s.trim().is_empty() => s.clone(),
        _ => return Err(ck.err(span, "[price] source", "missing key `source`: where the prices come from (e.g. \"list price, 2026-11\"); it is printed beside every dollar figure")),
    };
    Ok(Price {
        input,
        output,
        source,
    })
}

fn sweep(ck: &Checker, s: &SweepFile) -> Result<SweepSpec, Located> {
    let axis = |a: &Option<Spanned<AxisFile>>,
                key: &str,
                zero_ok: bool|
     -> Result<Option<Axis>, Located> {
        a.as_ref()
            .map(|a| axis(ck, a, &format!("[sweep] {key}"), zero_ok))
            .transpose()
    };
    Ok(SweepSpec {
        base_tokens: axis(&s.base_tokens, "base_tokens", false)?,
        bytes_per_token: axis(&s.bytes_per_token, "bytes_per_token", false)?,
        cache_read: axis(&s.cache_read, "cache_read", false)?,
        retry_rate: axis(&s.retry_rate, "retry_rate", true)?,
    })
}

/// A swept axis, sorted ascending without repeats. `zero_ok` allows 0 (retry rate).
fn axis(
    ck_file: &Checker,
    a: &Spanned<AxisFile>,
    place: &str,
    zero_ok: bool,
) -> Result<Axis, Located> {
    let err = |m: String| ck_file.err(Some(a.span()), place, m);
    let values = match a.get_ref() {
        AxisFile::List(v) => v.clone(),
        AxisFile::Range { from, to, steps } => range(*from, *to, *steps).map_err(err)?,
    };
    checked_axis(values, zero_ok).map_err(err)
}

/// Swept values, from the file or the command line: at least one, each finite, `> 0` (or
/// `≥ 0` with `zero_ok`) and at most 1e15; sorted ascending without repeats.
pub fn checked_axis(values: Vec<f64>, zero_ok: bool) -> Result<Axis, String> {
    if values.is_empty() {
        return Err("the list is empty; give at least one value".into());
    }
    for &x in &values {
        let ok = x.is_finite() && x <= MAX_NUMBER && (x > 0.0 || (zero_ok && x == 0.0));
        if !ok {
            let want = if zero_ok { "≥ 0" } else { "> 0" };
            return Err(format!(
                "{} must be a finite number {want} and at most 1e15",
                show(x)
            ));
        }
    }
    Ok(sorted_axis(values))
}

/// `steps` evenly spaced values from `from` to `to`, both included.
pub fn range(from: f64, to: f64, steps: i64) -> Result<Vec<f64>, String> {
    if !(2..=MAX_RANGE_STEPS).contains(&steps) {
        return Err(format!(
            "steps = {steps}: give a whole number from 2 to {MAX_RANGE_STEPS}"
        ));
    }
    if !(from.is_finite() && to.is_finite()) || from == to {
        return Err(format!(
            "from = {} and to = {}: give two different finite numbers",
            show(from),
            show(to)
        ));
    }
    let last = (steps - 1) as f64;
    Ok((0..steps)
        .map(|i| {
            if i == steps - 1 {
                to
            } else {
                from + (to - from) * i as f64 / last
            }
        })
        .collect())
}

/// Sorts ascending and drops repeated values.
fn sorted_axis(mut values: Vec<f64>) -> Axis {
    values.sort_by(f64::total_cmp);
    values.dedup();
    Axis(values)
}

/// Spans of the keys of one edit, so an error found when applying it can point there.
#[derive(Default)]
struct Spans(Vec<(String, Range<usize>)>);

impl Spans {
    fn add(&mut self, key: String, span: Range<usize>) {
        self.0.push((key, span));
    }
    fn find(&self, key: &str) -> Option<Range<usize>> {
        // Used for errors found while reading the edit itself.
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, s)| s.clone())
    }
}

fn edit_action(
    ck: &Checker,
    place: &str,
    span: Range<usize>,
    e: &mut EditFile,
    spans: &mut Spans,
) -> Result<Action, Located> {
    let own = e.take_action();
    let steps = e.steps.take();
    let given = own.keys();
    match (given.len(), steps) {
        (0, Some(steps)) => {
            if steps.get_ref().is_empty() {
                return Err(ck.err(
                    Some(steps.span()),
                    &format!("{place}: steps"),
                    "steps is empty; list at least one step",
                ));
            }
            let count = steps.get_ref().len();
            let mut actions = Vec::with_capacity(count);
            for (i, step) in steps.into_inner().into_iter().enumerate() {
                let step_place = format!("{place}: step {}", i + 1);
                let step_span = step.span();
                let prefix = format!("step {}: ", i + 1);
                let action = one_action(
                    ck,
                    &step_place,
                    step_span,
                    step.into_inner(),
                    spans,
                    &prefix,
                )?;
                if matches!(action, Action::Clear(_)) && i + 1 != count {
                    return Err(ck.err(Some(spans.find(&format!("{prefix}clear")).unwrap_or(0..0)), &step_place, "a clear must be the last step: it is a policy replayed over the run that the other steps leave"));
                }
                actions.push(action);
            }
            Ok(Action::Steps(actions))
        }
        (0, None) => Err(ck.err(
            Some(span),
            place,
            "the edit has no action: give one of trim, merge, drop, move, clear or steps",
        )),
        (1, None) => one_action(ck, place, span, own, spans, ""),
        (_, steps) => {
            let mut all = given;
            if steps.is_some() {
                all.push("steps");
            }
            Err(ck.err(Some(span), place, format!("the edit has {} actions ({}); give exactly one, or put several in steps = [...]", all.len(), all.join(", "))))
        }
    }
}

impl ActionFile {
    fn keys(&self) -> Vec<&'static str> {
        let mut keys = Vec::new();
        if self.trim.is_some() {
            keys.push("trim");
        }
        if self.merge.is_some() {
            keys.push("merge");
        }
        if self.drop.is_some() {
            keys.push("drop");
        }
        if self.move_.is_some() {
            keys.push("move");
        }
        if self.clear.is_some() {
            keys.push("clear");
        }
        keys
    }
}

fn one_action(
    ck: &Checker,
    place: &str,
    span: Range<usize>,
    a: ActionFile,
    spans: &mut Spans,
    prefix: &str,
) -> Result<Action, Located> {
    let keys = a.keys();
    if keys.len() != 1 {
        let m = if keys.is_empty() {
            "the step has no action: give one of trim, merge, drop, move or clear".to_string()
        } else {
            format!(
                "the step has {} actions ({}); give exactly one per step",
                keys.len(),
                keys.join(", ")
            )
        };
        return Err(ck.err(Some(span), place, m));
    }
    let at = |key: &str| format!("{place}: {key}");
    if let Some(t) = a.trim {
        spans.add(format!("{prefix}trim"), t.span());
        let t = t.into_inner();
        spans.add(format!("{prefix}trim.call"), t.call.span());
        let mut by = Vec::new();
        if let Some(v) = &t.by_bytes {
            spans.add(format!("{prefix}trim.by_bytes"), v.span());
            by.push(TrimBy::Bytes(ck.positive(v, &at("trim.by_bytes"))?));
        }
        if let Some(v) = &t.to_bytes {
            spans.add(format!("{prefix}trim.to_bytes"), v.span());
            by.push(TrimBy::ToBytes(ck.non_negative(v, &at("trim.to_bytes"))?));
        }
        if let Some(v) = &t.by_percent {
            spans.add(format!("{prefix}trim.by_percent"), v.span());
            let p = ck.positive(v, &at("trim.by_percent"))?;
            if p > 100.0 {
                return Err(ck.err(
                    Some(v.span()),
                    &at("trim.by_percent"),
                    format!("{p} is over 100: give a percentage in (0, 100]"),
                ));
            }
            by.push(TrimBy::Percent(p));
        }
        if by.len() != 1 {
            return Err(ck.err(
                spans.find(&format!("{prefix}trim")),
                &at("trim"),
                "give exactly one of by_bytes, to_bytes or by_percent",
            ));
        }
        return Ok(Action::Trim {
            call: t.call.into_inner(),
            by: by[0],
        });
    }
    if let Some(m) = a.merge {
        let m = m.into_inner();
        spans.add(format!("{prefix}merge.calls"), m.calls.span());
        let overhead_bytes = match &m.overhead_bytes {
            Some(v) => ck.non_negative(v, &at("merge.overhead_bytes"))?,
            None => 0.0,
        };
        let at = match m.at {
            None | Some(MergeAtFile::First) => MergeAt::First,
            Some(MergeAtFile::Last) => MergeAt::Last,
        };
        let calls = m
            .calls
            .into_inner()
            .into_iter()
            .map(Spanned::into_inner)
            .collect();
        return Ok(Action::Merge {
            calls,
            overhead_bytes,
            at,
        });
    }
    if let Some(d) = a.drop {
        let d = d.into_inner();
        spans.add(format!("{prefix}drop.call"), d.call.span());
        return Ok(Action::Drop {
            call: d.call.into_inner(),
        });
    }
    if let Some(m) = a.move_ {
        let span = m.span();
        let m = m.into_inner();
        spans.add(format!("{prefix}move.call"), m.call.span());
        let to = match (m.before, m.after) {
            (Some(b), None) => {
                spans.add(format!("{prefix}move.before"), b.span());
                Place::Before(b.into_inner())
            }
            (None, Some(a)) => {
                spans.add(format!("{prefix}move.after"), a.span());
                Place::After(a.into_inner())
            }
            _ => {
                return Err(ck.err(
                    Some(span),
                    &at("move"),
                    "give exactly one of before = \"<call id>\" or after = \"<call id>\"",
                ));
            }
        };
        return Ok(Action::Move {
            call: m.call.into_inner(),
            to,
        });
    }
    if let Some(c) = a.clear {
        spans.add(format!("{prefix}clear"), c.span());
        return Ok(Action::Clear(clear(ck, place, &c)?));
    }
    Err(ck.err(Some(span), place, "no action"))
}

fn clear(ck: &Checker, place: &str, c: &Spanned<ClearFile>) -> Result<ClearPolicy, Located> {
    let span = Some(c.span());
    let c = c.get_ref();
    let at = |key: &str| format!("{place}: clear.{key}");
    let positive = |v: &Option<Spanned<f64>>, key: &str| {
        v.as_ref().map(|v| ck.positive(v, &at(key))).transpose()
    };
    let count = |v: &Option<Spanned<i64>>, key: &str, min: i64| {
        v.as_ref().map(|v| ck.count(v, &at(key), min)).transpose()
    };
    let policy = ClearPolicy {
        every_segments: count(&c.every_segments, "every_segments", 1)?,
        above_tool_bytes: positive(&c.above_tool_bytes, "above_tool_bytes")?,
        above_context_tokens: positive(&c.above_context_tokens, "above_context_tokens")?,
        older_than_calls: count(&c.older_than_calls, "older_than_calls", 1)?,
        keep_segments: count(&c.keep_segments, "keep_segments", 0)?.unwrap_or(0),
        keep_results: count(&c.keep_results, "keep_results", 0)?.unwrap_or(0),
        clear_at_least_tokens: match &c.clear_at_least_tokens {
            Some(v) => ck.non_negative(v, &at("clear_at_least_tokens"))?,
            None => 0.0,
        },
        placeholder_bytes: match &c.placeholder_bytes {
            Some(v) => ck.non_negative(v, &at("placeholder_bytes"))?,
            None => 9.0,
        },
        exclude_kinds: c
            .exclude_kinds
            .clone()
            .unwrap_or_else(|| vec!["web_search".into()]),
    };
    if policy.every_segments.is_none()
        && policy.above_tool_bytes.is_none()
        && policy.above_context_tokens.is_none()
        && policy.older_than_calls.is_none()
    {
        return Err(ck.err(span, &at("*"), "a clear needs a trigger: every_segments, above_tool_bytes, above_context_tokens or older_than_calls"));
    }
    Ok(policy)
}
