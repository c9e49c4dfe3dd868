//! `[[edit]]` tables: a name and exactly one action, or `steps` of them.
//!
//! Calls named by an edit are checked when it is applied (`crate::evaluate::Study`), which
//! points back here through the spans recorded for each key.

use super::Checker;
use super::clearing::clear;
use super::rules;
use super::whatif;
use crate::error::Located;
use crate::scenario::file::{ActionFile, EditFile, MergeAtFile};
use crate::scenario::{Action, Edit, MergeAt, Place, TrimBy};
use std::collections::HashMap;
use std::ops::Range;
use toml::Spanned;

/// Checks every `[[edit]]` table: unique names (not `baseline`), one action each.
pub(super) fn edits(ck: &Checker, raw: Vec<Spanned<EditFile>>) -> Result<Vec<Edit>, Located> {
    let mut edits: Vec<Edit> = Vec::with_capacity(raw.len());
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, e) in raw.into_iter().enumerate() {
        let span = e.span();
        let mut e = e.into_inner();
        let Some(name) = e.name.take() else {
            return Err(ck.err(
                Some(span),
                &format!("[[edit]] #{}", i + 1),
                "missing key `name`: every edit needs a unique name",
            ));
        };
        ck.name(
            &name,
            &format!("[[edit]] #{}: name", i + 1),
            super::MAX_NAME_CHARS,
        )?;
        let place = format!("[[edit]] \"{}\"", name.get_ref());
        if name.get_ref() == "baseline" {
            return Err(ck.err(
                Some(name.span()),
                &place,
                "`baseline` names the unedited run in the outputs; choose another name",
            ));
        }
        if let Some(first) = names.insert(name.get_ref().clone(), i) {
            return Err(ck.err(
                Some(name.span()),
                &place,
                format!(
                    "duplicate edit name (edit #{} has it too); names must be unique",
                    first + 1
                ),
            ));
        }
        let mut spans = Spans::default();
        let warned = ck.warnings.borrow().len();
        let action = edit_action(ck, &place, span.clone(), &mut e, &mut spans)?;
        // Calls are checked when the edit is applied (crate::evaluate::Study), which can
        // point here.
        let at = |s: &Range<usize>| ck.line_column(s.start);
        edits.push(Edit {
            name: name.into_inner(),
            action,
            line_column: Some(at(&span)),
            key_line_columns: spans.0.iter().map(|(k, s)| (k.clone(), at(s))).collect(),
            warnings: ck.warnings_since(warned),
        });
    }
    Ok(edits)
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
                if matches!(action, Action::Compact(_)) && i + 1 != count {
                    return Err(ck.err(Some(spans.find(&format!("{prefix}compact")).unwrap_or(0..0)), &step_place, "a compact must be the last step: it is a policy replayed over the run that the other steps leave"));
                }
                actions.push(action);
            }
            Ok(Action::Steps(actions))
        }
        (0, None) => Err(ck.err(
            Some(span),
            place,
            "the edit has no action: give one of trim, merge, drop, move, clear, compact, base, cap, dedupe, cache, model or steps",
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
        if self.compact.is_some() {
            keys.push("compact");
        }
        if self.base.is_some() {
            keys.push("base");
        }
        if self.cap.is_some() {
            keys.push("cap");
        }
        if self.dedupe.is_some() {
            keys.push("dedupe");
        }
        if self.cache.is_some() {
            keys.push("cache");
        }
        if self.model.is_some() {
            keys.push("model");
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
            "the step has no action: give one of trim, merge, drop, move, clear, compact, base, cap, dedupe, cache or model".to_string()
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
        let trim_span = t.span();
        let t = t.into_inner();
        let call = match (t.call, &t.select) {
            (Some(call), None) => call,
            (None, Some(select)) => {
                if t.by_bytes.is_some() || t.to_bytes.is_some() {
                    return Err(ck.err(
                        Some(trim_span),
                        &at("trim"),
                        "a trim with select takes by_percent only (by_bytes and to_bytes name one call's size)",
                    ));
                }
                return rules::trim_selected(
                    ck,
                    select,
                    t.by_percent.as_ref(),
                    trim_span,
                    &at("trim"),
                );
            }
            _ => return Err(ck.err(
                Some(trim_span),
                &at("trim"),
                "give either call = \"<call id>\" or select = { … } (a rule over every matching call), not both or neither",
            )),
        };
        spans.add(format!("{prefix}trim.call"), call.span());
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
            super::slips::percent(ck, v.span(), &at("trim.by_percent"), p);
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
            call: call.into_inner(),
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
        let drop_span = d.span();
        let d = d.into_inner();
        return match (d.call, &d.select) {
            (Some(call), None) => {
                spans.add(format!("{prefix}drop.call"), call.span());
                Ok(Action::Drop {
                    call: call.into_inner(),
                })
            }
            (None, Some(select)) => Ok(Action::DropSelected {
                select: super::select::selector(ck, select, &at("drop.select"))?,
            }),
            _ => Err(ck.err(
                Some(drop_span),
                &at("drop"),
                "give either call = \"<call id>\" or select = { … } (every matching call), not both or neither",
            )),
        };
    }
    if let Some(c) = a.cap {
        spans.add(format!("{prefix}cap"), c.span());
        return rules::cap(ck, &c, &at("cap"));
    }
    if let Some(d) = a.dedupe {
        spans.add(format!("{prefix}dedupe"), d.span());
        return rules::dedupe(ck, &d, &at("dedupe"));
    }
    if let Some(b) = a.base {
        spans.add(format!("{prefix}base"), b.span());
        return rules::base(ck, &b, &at("base"));
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
        if let Some(api) = &c.get_ref().api {
            spans.add(format!("{prefix}clear.api"), api.span());
        }
        return Ok(Action::Clear(clear(ck, place, &c)?));
    }
    if let Some(c) = a.compact {
        spans.add(format!("{prefix}compact"), c.span());
        for (key, v) in [("preset", &c.get_ref().preset), ("api", &c.get_ref().api)] {
            if let Some(v) = v {
                spans.add(format!("{prefix}compact.{key}"), v.span());
            }
        }
        return Ok(Action::Compact(super::compact::compact(ck, place, &c)?));
    }
    if let Some(c) = a.cache {
        spans.add(format!("{prefix}cache"), c.span());
        if let Some(r) = &c.get_ref().retention {
            spans.add(format!("{prefix}cache.retention"), r.span());
        }
        return whatif::cache_edit(ck, &c, &at("cache"));
    }
    if let Some(m) = a.model {
        spans.add(format!("{prefix}model"), m.span());
        return whatif::model_edit(ck, &m, &at("model"));
    }
    Err(ck.err(Some(span), place, "no action"))
}
