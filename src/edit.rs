//! Applying edits to the baseline: trim, merge, drop, move, and `steps` of them.
//!
//! Pure functions from the baseline's calls to an edited [`Run`]. A `clear` does not
//! change the sequence; it is a policy applied while the run is replayed (see
//! `crate::clear`), so it is handed back beside the run.

use crate::run::{Run, Slot};
use crate::scenario::Calls;
use crate::scenario::{
    Action, BaseChange, ClearPolicy, CompactPolicy, MergeAt, Place, Selector, Terms, TrimBy,
};
use crate::whatif::{self, WhatIf};
use rustc_hash::{FxHashMap, FxHashSet};

/// Call ids to baseline indices, built once per study.
pub type Ids<'a> = FxHashMap<&'a str, u32>;

/// The index of those `calls` whose ids are in `wanted` (the ids edits name): one pass,
/// without hashing a million ids into a map when edits name a handful.
pub fn ids<'a>(calls: &Calls, wanted: &[&'a str]) -> Ids<'a> {
    calls.positions(wanted)
}

/// A run as an edit leaves it, with the clearing policy to replay it under and the change
/// to its base tokens, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Edited {
    pub run: Run,
    pub clear: Option<ClearPolicy>,
    /// `BaseChange::NONE` unless the edit has a `base` action.
    pub base: BaseChange,
    /// Things to report that are not errors: a rule that selected no call.
    pub notes: Vec<String>,
    /// Beside each note, why, where the trace's names tell (`tool = "bash"` where the
    /// trace has only `Bash`): for one trace a likely slip; over many sessions, a session
    /// without the tool is normal, so a history leaves these out.
    pub why: Vec<Option<String>>,
    /// Other things to report that are not errors: a trim that had nothing to trim.
    pub warnings: Vec<String>,
    /// The compaction policy to replay the run under, if the edit has one.
    pub compact: Option<CompactPolicy>,
    /// What the edit's `cache`, `model` and base-part steps leave beside the run (its own
    /// prices and cache terms, tokens factor, tool searches; docs/model.md §9).
    pub whatif: WhatIf,
    /// Results its rules removed as the run was made (a cap's cut, a dedupe's repeat), in
    /// order: (baseline call, bytes, measured tokens removed), for the re-fetches of
    /// docs/model.md §11.
    pub removed: Vec<(u32, f64, f64)>,
}

// Defined with the run it is applied to, so the what-if steps (`crate::whatif`), which
// this module drives, can return it without importing back from here.
pub use crate::run::EditError;

/// Applies `action` to `baseline`, the run of `calls` (whose ids `ids` indexes); `terms`
/// are the scenario's named terms (a merge leaves one call's framing, not one per call),
/// `scope` what its what-if steps need of the scenario (its cache, prices, base parts).
pub fn apply(
    calls: &Calls,
    ids: &Ids,
    baseline: &Run,
    action: &Action,
    terms: &Terms,
    scope: &whatif::Scope,
) -> Result<Edited, EditError> {
    let mut editor = Editor {
        per_call_tokens: terms.per_call(),
        calls,
        ids,
        run: baseline.clone(),
        base: BaseChange::NONE,
        notes: Vec::new(),
        why: Vec::new(),
        warnings: Vec::new(),
        prefix: String::new(),
        compact: None,
        whatif: whatif::Steps::new(scope),
        removed: Vec::new(),
    };
    let mut clear = None;
    match action {
        Action::Steps(steps) => {
            for (i, step) in steps.iter().enumerate() {
                editor.prefix = format!("step {}: ", i + 1);
                editor.step(step, &mut clear).map_err(|e| EditError {
                    key: format!("step {}: {}", i + 1, e.key),
                    message: e.message,
                })?;
            }
        }
        single => editor.step(single, &mut clear)?,
    }
    let mut run = editor.run;
    if let Some(policy) = clear.as_ref().filter(|p| p.clear_tool_inputs) {
        run = with_tool_inputs_clearable(calls, run, policy);
    }
    let (whatif, whatif_notes) = editor.whatif.finish(calls, &mut run);
    let mut notes = editor.notes;
    notes.extend(whatif_notes);
    // What-if notes have no why; the rules' notes keep theirs, in order.
    let mut why = editor.why;
    why.resize(notes.len(), None);
    Ok(Edited {
        run,
        clear,
        base: editor.base,
        notes,
        why,
        warnings: editor.warnings,
        compact: editor.compact,
        whatif,
        removed: editor.removed,
    })
}

/// With `clear_tool_inputs`, a cleared result takes its tool-use inputs with it: they
/// move from the model's message into the result, so the policy clears both. Only where
/// the message is given as bytes; inside logged output tokens the inputs cannot be told
/// apart, and stay.
fn with_tool_inputs_clearable(calls: &Calls, run: Run, _policy: &ClearPolicy) -> Run {
    run.map(|_, mut s| {
        let inputs = calls
            .at(s.origin as usize)
            .detail
            .as_ref()
            .filter(|d| d.output_bytes.is_some())
            .map_or(0.0, |d| d.tool_input_bytes)
            .min(s.own_bytes);
        s.own_bytes -= inputs;
        s.bytes += inputs;
        Some(s)
    })
}

struct Editor<'a> {
    /// Tokens every call adds (`[terms] tokens_per_call`).
    per_call_tokens: f64,
    calls: &'a Calls,
    ids: &'a Ids<'a>,
    run: Run,
    base: BaseChange,
    notes: Vec<String>,
    why: Vec<Option<String>>,
    warnings: Vec<String>,
    /// `step 2: ` while a step of `steps` is applied.
    prefix: String,
    compact: Option<CompactPolicy>,
    whatif: whatif::Steps<'a>,
    /// See [`Edited::removed`].
    removed: Vec<(u32, f64, f64)>,
}

fn error(key: impl Into<String>, message: impl Into<String>) -> EditError {
    EditError {
        key: key.into(),
        message: message.into(),
    }
}

impl Editor<'_> {
    fn step(&mut self, action: &Action, clear: &mut Option<ClearPolicy>) -> Result<(), EditError> {
        // A provider's own mechanism on another provider's calls changes nothing here;
        // one scenario refuses it before (`crate::scenario::provider::check`).
        if let Some(r) =
            crate::scenario::provider::refusal(self.calls, self.whatif.scope().import, action)
        {
            let what = r.key.split('.').next().unwrap_or(r.key);
            self.notes.push(format!("{what}: {}", r.message));
            self.why.push(None);
            return Ok(());
        }
        match action {
            Action::Trim { call, by } => self.trim(call, *by),
            Action::Merge {
                calls,
                overhead_bytes,
                at,
            } => self.merge(calls, *overhead_bytes, *at),
            Action::Drop { call } => {
                let p = self.position("drop.call", call)?;
                self.run.remove(p);
                Ok(())
            }
            Action::Move { call, to } => self.move_call(call, to),
            Action::Clear(policy) => {
                *clear = Some(policy.clone());
                Ok(())
            }
            Action::Compact(policy) => {
                self.compact = Some(policy.clone());
                Ok(())
            }
            Action::Base(change) => {
                self.base = self.base.then(*change);
                Ok(())
            }
            Action::TrimSelected { select, percent } => {
                let keep = 1.0 - percent / 100.0;
                self.rule("trim", select, |_, mut s| {
                    s.bytes *= keep;
                    s.tokens *= keep;
                    Some(s)
                });
                Ok(())
            }
            Action::DropSelected { select } => {
                self.rule("drop", select, |_, _| None);
                Ok(())
            }
            Action::Cap { select, max_bytes } => {
                let mut removed = Vec::new();
                self.rule("cap", select, |_, mut s| {
                    if s.bytes > *max_bytes {
                        // Measured tokens shrink with the bytes they came with.
                        let kept = s.tokens * (max_bytes / s.bytes);
                        removed.push((s.origin, s.bytes - max_bytes, s.tokens - kept));
                        s.tokens = kept;
                        s.bytes = *max_bytes;
                    }
                    Some(s)
                });
                self.removed.extend(removed);
                Ok(())
            }
            Action::Dedupe {
                select,
                placeholder_bytes,
                same_bytes,
            } => {
                // Each input hash with the bytes its first selected call returned.
                let mut seen: FxHashMap<&str, f64> = FxHashMap::default();
                let calls = self.calls;
                let mut removed = Vec::new();
                self.rule("dedupe", select, |call, mut s| {
                    let repeat = match calls.at(call).input_hash() {
                        Some(hash) => match seen.get(hash) {
                            Some(&first) => !same_bytes || first == s.bytes,
                            None => {
                                seen.insert(hash, s.bytes);
                                false
                            }
                        },
                        None => false,
                    };
                    if repeat {
                        removed.push((s.origin, s.bytes, s.tokens));
                        s.bytes = *placeholder_bytes;
                        s.tokens = 0.0;
                    }
                    Some(s)
                });
                self.removed.extend(removed);
                Ok(())
            }
            Action::Steps(_) => Err(error("steps", "steps cannot be nested")),
            Action::Cache(change) => self.whatif.cache(change),
            Action::Model(change) => {
                let selected = match &change.select {
                    Some(select) => {
                        let mut selected = vec![false; self.calls.len()];
                        self.rule("model", select, |origin, slot| {
                            selected[origin] = true;
                            Some(slot)
                        });
                        Some(selected)
                    }
                    None => None,
                };
                self.whatif.model(change, selected.as_deref())
            }
            Action::BasePart(change) => {
                let base = self.whatif.part(change)?;
                self.base = self.base.then(base);
                Ok(())
            }
        }
    }

    /// Applies `change` to every call `select` selects (given the baseline index of the
    /// call it stands for), in one pass; notes a rule that selected nothing.
    fn rule(
        &mut self,
        action: &str,
        select: &Selector,
        mut change: impl FnMut(usize, Slot) -> Option<Slot>,
    ) {
        let calls = self.calls;
        let run = &self.run;
        let mut selected = 0usize;
        let edited = run.map(|_, slot| {
            let origin = slot.origin as usize;
            if select.selects(calls.at(origin), run.label(calls, &slot), slot.bytes) {
                selected += 1;
                change(origin, slot)
            } else {
                Some(slot)
            }
        });
        if selected == 0 {
            // A name no call has is most likely a slip (`tool = "bash"`): say which the
            // trace has, and the nearest.
            let missing = crate::scenario::Names::of(calls).missing(select, "no call");
            self.why
                .push((!missing.is_empty()).then(|| missing.join("; ")));
            self.notes.push(format!(
                "{action}: the selector matches no call in this trace"
            ));
        }
        self.run = edited;
    }

    /// Position of call `id` in the run as edited so far.
    fn position(&self, key: &str, id: &str) -> Result<usize, EditError> {
        let Some(&origin) = self.ids.get(id) else {
            return Err(error(key, unknown_call(self.calls, id)));
        };
        self.run.position(origin).ok_or_else(|| {
                error(
                    key,
                    format!("call `{id}` is no longer in the run here: an earlier step dropped it or merged it into another call"),
                )
            })
    }

    fn trim(&mut self, id: &str, by: TrimBy) -> Result<(), EditError> {
        let key = match by {
            TrimBy::Bytes(_) => "trim.by_bytes",
            TrimBy::ToBytes(_) => "trim.to_bytes",
            TrimBy::Percent(_) => "trim.by_percent",
        };
        let p = self.position("trim.call", id)?;
        let Some(mut slot) = self.run.get(p) else {
            return Err(error("trim.call", format!("call `{id}` is not in the run")));
        };
        let bytes = slot.bytes;
        slot.bytes = match by {
            TrimBy::Bytes(_) | TrimBy::ToBytes(_) if bytes == 0.0 => {
                return Err(error(
                    key,
                    format!(
                        "call `{id}` has no bytes (its size is in measured tokens): trim it by_percent"
                    ),
                ));
            }
            TrimBy::Bytes(b) if b > bytes => {
                return Err(error(
                    key,
                    format!(
                        "removes {b} bytes but call `{id}` has only {bytes}: a trim cannot go below zero bytes"
                    ),
                ));
            }
            TrimBy::Bytes(b) => bytes - b,
            TrimBy::ToBytes(n) if n > bytes => {
                return Err(error(
                    key,
                    format!(
                        "{n} is more than call `{id}`'s {bytes} bytes: a trim can only shrink a call"
                    ),
                ));
            }
            TrimBy::ToBytes(n) => n,
            // Nothing to trim is not a mistake in the edit: the trim changes nothing.
            TrimBy::Percent(_) if bytes == 0.0 && slot.tokens == 0.0 => {
                self.warnings.push(format!(
                    "{}{key}: call `{id}` has an empty result (no bytes, no tokens): the trim changes nothing",
                    self.prefix
                ));
                return Ok(());
            }
            // A percentage scales the whole result, bytes and measured tokens alike.
            TrimBy::Percent(p) => {
                slot.tokens -= slot.tokens * p / 100.0;
                bytes - bytes * p / 100.0
            }
        };
        self.run.set(p, slot);
        Ok(())
    }

    fn merge(&mut self, ids: &[String], overhead_bytes: f64, at: MergeAt) -> Result<(), EditError> {
        if ids.len() < 2 {
            return Err(error(
                "merge.calls",
                match ids.len() {
                    0 => "lists no call; a merge needs at least two".to_string(),
                    n => format!("lists {n} call; a merge needs at least two"),
                },
            ));
        }
        // Linear in the number of calls merged: a set for repeats, one pass over the run's
        // pieces for all positions, one for all removals.
        let mut origins = Vec::with_capacity(ids.len());
        for id in ids {
            match self.ids.get(id.as_str()) {
                Some(&origin) => origins.push(origin),
                // Unknown ids are reported in list order, after any repeat before them.
                None => origins.push(u32::MAX),
            }
        }
        let found = self.run.positions(&origins);
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        let mut positions = Vec::with_capacity(ids.len());
        for ((id, &origin), position) in ids.iter().zip(&origins).zip(found) {
            if !seen.insert(id.as_str()) {
                return Err(error(
                    "merge.calls",
                    format!("names call `{id}` twice; list each call once"),
                ));
            }
            match position {
                Some(p) if origin != u32::MAX => positions.push(p),
                // Unknown, or gone after an earlier step: `position` says which.
                _ => positions.push(self.position("merge.calls", id)?),
            }
        }
        positions.sort_unstable();
        let parts = self.run.remove_sorted(&positions);
        let (keep, at_index) = match at {
            MergeAt::First => (0, positions[0]),
            // Every other merged call stood before the last one.
            MergeAt::Last => (
                parts.len() - 1,
                positions[positions.len() - 1] + 1 - parts.len(),
            ),
        };
        let Some(&kept) = parts.get(keep) else {
            return Err(error("merge.calls", "a merged call is not in the run"));
        };
        let label = parts
            .iter()
            .map(|s| self.run.label(self.calls, s))
            .collect::<Vec<_>>()
            .join("+");
        let label = self.run.push_label(self.calls, label);
        let merged = Slot {
            label,
            bytes: parts.iter().map(|s| s.bytes).sum::<f64>() + overhead_bytes,
            tokens: parts.iter().map(|s| s.tokens).sum(),
            output_tokens: parts.iter().map(|s| s.output_tokens).sum(),
            // One call now answers for all: one message's framing, not one per call.
            own_tokens: parts.iter().map(|s| s.own_tokens).sum::<f64>()
                - (parts.len() - 1) as f64 * self.per_call_tokens,
            own_bytes: parts.iter().map(|s| s.own_bytes).sum(),
            ..kept
        };
        self.run.insert(at_index, merged);
        Ok(())
    }

    fn move_call(&mut self, id: &str, to: &Place) -> Result<(), EditError> {
        let (key, target, after) = match to {
            Place::Before(t) => ("move.before", t, false),
            Place::After(t) => ("move.after", t, true),
        };
        if target == id {
            return Err(error(
                key,
                format!("moves call `{id}` relative to itself; name another call"),
            ));
        }
        let from = self.position("move.call", id)?;
        self.position(key, target)?;
        let Some(slot) = self.run.remove(from) else {
            return Err(error("move.call", format!("call `{id}` is not in the run")));
        };
        let target_at = self.position(key, target)?;
        self.run
            .insert(if after { target_at + 1 } else { target_at }, slot);
        Ok(())
    }
}

/// "unknown call `x`", with the nearest ids so a typo is easy to fix.
fn unknown_call(calls: &Calls, id: &str) -> String {
    // A number written another way (`007`, ` 7`, `+7`): a trace reads all of them as 7,
    // whose id is `7`.
    if let Ok(n) = id.trim().trim_start_matches('+').parse::<u64>() {
        let plain = n.to_string();
        if plain != id && !calls.positions(&[plain.as_str()]).is_empty() {
            return format!(
                "unknown call `{id}`; did you mean `{plain}`? (a call numbered in a trace has its number in plain decimal as its id)"
            );
        }
    }
    // A label where the id belongs.
    if let Some(i) = (0..calls.len()).find(|&i| calls.label(i) == id) {
        return format!(
            "unknown call `{id}`: that is the label of call `{}`; edits name calls by their id: `{}`",
            calls.id(i),
            calls.id(i)
        );
    }
    // The nearest id, the first of equals; without writing every id out.
    let mut near: Option<(f64, String)> = None;
    for i in 0..calls.len() {
        let candidate = calls.id(i);
        let score = strsim::jaro_winkler(id, &candidate);
        if score >= 0.75 && near.as_ref().is_none_or(|(best, _)| score > *best) {
            near = Some((score, candidate.to_string()));
        }
    }
    match near {
        Some((_, best)) => format!("unknown call `{id}`; did you mean `{best}`?"),
        None if calls.len() <= 12 => {
            let all: Vec<String> = calls.iter().map(|c| c.id.to_string()).collect();
            format!("unknown call `{id}`; the calls are: {}", all.join(", "))
        }
        None => format!(
            "unknown call `{id}` (calls are named by their `id`, or their `label` when no id is given)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Call;
    use std::sync::Arc;

    fn call(id: &str, bytes: f64) -> Call {
        Call {
            id: id.into(),
            label: format!("label {id}").into(),
            kind: Arc::from("tool"),
            bytes,
            tokens: 0.0,
            output_tokens: 0.0,
            pinned: false,
            segment: 1,
            gap_s: 0.0,
            measured: false,
            detail: None,
        }
    }

    fn calls() -> Calls {
        Calls::from(vec![
            call("a", 100.0),
            call("b", 200.0),
            call("c", 300.0),
            call("d", 400.0),
        ])
    }

    fn apply(calls: &Calls, action: &Action) -> Result<Edited, EditError> {
        let pricing = crate::pricing::Pricing::of_cache(None);
        super::apply(
            calls,
            &super::ids(calls, &action.call_ids()),
            &Run::baseline(calls, &Terms::default()),
            action,
            &Terms::default(),
            &whatif::Scope {
                cache: None,
                price: None,
                pricing: &pricing,
                calls,
                trace: crate::scenario::TraceKind::Main,
                parts: &[],
                input_price: None,
                import: None,
            },
        )
    }

    fn order(calls: &Calls, edited: &Edited) -> Vec<(String, f64)> {
        edited
            .run
            .iter()
            .map(|s| (calls.at(s.origin as usize).id.to_string(), s.bytes))
            .collect()
    }

    fn ids(v: &[(String, f64)]) -> Vec<&str> {
        v.iter().map(|(id, _)| id.as_str()).collect()
    }

    /// An unknown id written as another form of a number, or as a call's label, is
    /// answered with the id meant.
    #[test]
    fn unknown_ids_point_at_the_id_meant() {
        let mut given = vec![call("7", 10.0), call("x", 20.0)];
        given[1].label = "read a".into();
        let c = Calls::from(given);
        let err = |id: &str| {
            apply(&c, &Action::Drop { call: id.into() })
                .unwrap_err()
                .message
        };
        assert_eq!(
            err("007"),
            "unknown call `007`; did you mean `7`? (a call numbered in a trace has its number in plain decimal as its id)"
        );
        assert_eq!(err(" 7"), err("007").replace("`007`", "` 7`"));
        assert_eq!(
            err("read a"),
            "unknown call `read a`: that is the label of call `x`; edits name calls by their id: `x`"
        );
        assert_eq!(err("8"), "unknown call `8`; the calls are: 7, x");
    }

    #[test]
    fn trims_by_bytes_to_bytes_and_percent() {
        let c = Calls::from(vec![call("x", 1001.0)]);
        let by = |by| {
            apply(
                &c,
                &Action::Trim {
                    call: "x".into(),
                    by,
                },
            )
            .unwrap()
            .run
            .get(0)
            .unwrap()
            .bytes
        };
        assert_eq!(by(TrimBy::Bytes(1.0)), 1000.0);
        assert_eq!(by(TrimBy::ToBytes(10.0)), 10.0);
        assert!((by(TrimBy::Percent(33.0)) - 670.67).abs() < 1e-9);
        let below = apply(
            &c,
            &Action::Trim {
                call: "x".into(),
                by: TrimBy::Bytes(1002.0),
            },
        );
        assert_eq!(below.unwrap_err().key, "trim.by_bytes");
    }

    #[test]
    fn merge_keeps_the_first_or_last_position_and_sums() {
        let c = calls();
        let merge = |at| Action::Merge {
            calls: vec!["d".into(), "b".into()],
            overhead_bytes: 50.0,
            at,
        };
        let first = apply(&c, &merge(MergeAt::First)).unwrap();
        assert_eq!(
            order(&c, &first),
            vec![
                ("a".into(), 100.0),
                ("b".into(), 650.0),
                ("c".into(), 300.0)
            ]
        );
        // Labels join in sequence order, not listed order.
        assert_eq!(
            first.run.label(&c, &first.run.get(1).unwrap()),
            "label b+label d"
        );
        let last = apply(&c, &merge(MergeAt::Last)).unwrap();
        assert_eq!(ids(&order(&c, &last)), vec!["a", "c", "d"]);
    }

    #[test]
    fn merge_errors_name_the_key() {
        let c = calls();
        let twice = Action::Merge {
            calls: vec!["a".into(), "a".into()],
            overhead_bytes: 0.0,
            at: MergeAt::First,
        };
        assert!(apply(&c, &twice).unwrap_err().message.contains("twice"));
        let one = Action::Merge {
            calls: vec!["a".into()],
            overhead_bytes: 0.0,
            at: MergeAt::First,
        };
        assert!(
            apply(&c, &one)
                .unwrap_err()
                .message
                .contains("at least two")
        );
        let unknown = Action::Merge {
            calls: vec!["a".into(), "bb".into()],
            overhead_bytes: 0.0,
            at: MergeAt::First,
        };
        let e = apply(&c, &unknown).unwrap_err();
        assert_eq!(e.key, "merge.calls");
        assert!(e.message.contains("unknown call `bb`"), "{}", e.message);
    }

    #[test]
    fn moves_before_and_after() {
        let c = calls();
        let mv = |to| Action::Move {
            call: "a".into(),
            to,
        };
        let before = apply(&c, &mv(Place::Before("d".into()))).unwrap();
        assert_eq!(ids(&order(&c, &before)), vec!["b", "c", "a", "d"]);
        let after = apply(&c, &mv(Place::After("d".into()))).unwrap();
        assert_eq!(ids(&order(&c, &after)), vec!["b", "c", "d", "a"]);
        let back = Action::Move {
            call: "d".into(),
            to: Place::Before("a".into()),
        };
        assert_eq!(
            ids(&order(&c, &apply(&c, &back).unwrap())),
            vec!["d", "a", "b", "c"]
        );
        assert!(
            apply(&c, &mv(Place::Before("a".into())))
                .unwrap_err()
                .message
                .contains("itself")
        );
    }

    #[test]
    fn steps_apply_in_order_and_see_earlier_steps() {
        let c = calls();
        let steps = Action::Steps(vec![
            Action::Merge {
                calls: vec!["a".into(), "b".into()],
                overhead_bytes: 0.0,
                at: MergeAt::First,
            },
            Action::Drop { call: "c".into() },
            Action::Trim {
                call: "b".into(),
                by: TrimBy::Bytes(1.0),
            },
        ]);
        let e = apply(&c, &steps).unwrap_err();
        assert_eq!(e.key, "step 3: trim.call");
        assert!(e.message.contains("no longer in the run"), "{}", e.message);
    }

    /// Regression: a merge of N calls took one scan and one removal per call (quadratic:
    /// 100,000 calls took over a minute). Now one pass does it; the result is the same.
    #[test]
    fn merging_many_spread_calls_keeps_the_rest_in_order() {
        let c: Calls = (0..3_000)
            .map(|i| call(&format!("c{i}"), i as f64))
            .collect();
        let merged: Vec<String> = (0..3_000).step_by(7).map(|i| format!("c{i}")).collect();
        for at in [MergeAt::First, MergeAt::Last] {
            let steps = Action::Steps(vec![
                Action::Move {
                    call: "c700".into(),
                    to: Place::Before("c3".into()),
                },
                Action::Merge {
                    calls: merged.iter().rev().cloned().collect(),
                    overhead_bytes: 5.0,
                    at,
                },
            ]);
            let edited = apply(&c, &steps).unwrap();
            // Every multiple of 7 is merged (c700 too, moved before c3): into c0's place at
            // the front, or into c2996's, before c2997.
            let mut expected: Vec<usize> = (0..3_000).filter(|i| i % 7 != 0).collect();
            let (keep, position) = match at {
                MergeAt::First => (0, 0),
                MergeAt::Last => (2_996, expected.len() - 3),
            };
            expected.insert(position, keep);
            let got: Vec<usize> = edited.run.iter().map(|s| s.origin as usize).collect();
            assert!(got == expected, "{at:?}: the run differs");
            let slot = edited.run.get(position).unwrap();
            let total: f64 = (0..3_000).step_by(7).map(|i| i as f64).sum();
            assert_eq!(slot.bytes, total + 5.0);
            let label = edited.run.label(&c, &slot);
            assert!(
                label.starts_with("label c0+label c700+label c7+"),
                "{label}"
            );
        }
        let twice = Action::Merge {
            calls: vec!["c1".into(), "c2".into(), "c9999".into(), "c1".into()],
            overhead_bytes: 0.0,
            at: MergeAt::First,
        };
        // Errors come in list order: the unknown id before the repeat after it.
        let e = apply(&c, &twice).unwrap_err();
        assert!(e.message.contains("unknown call `c9999`"), "{}", e.message);
    }
}
