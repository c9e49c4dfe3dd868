//! What one scenario refuses before it runs that a history takes session by session: a
//! compaction whose trigger the context it leaves already exceeds (docs/model.md §9,
//! `compact`). (A base edit below zero is `Study::check_bases`; an edit of another
//! provider's mechanism, `scenario::provider::check`.)

use crate::error::{Error, Located};
use crate::evaluate::Study;
use crate::ledger::Assumptions;
use crate::number::{decimal, grouped};

/// Refuses a compaction whose trigger is at or below B + its summary at any of `points`
/// (the nominal point and the sweep's corners; B + S is largest at the largest B): after a
/// compaction the context is at least B + S, so it would stay over the trigger and compact
/// again before every call. The error names both numbers and the edit's `compact` key.
pub fn compaction_triggers(study: &Study, points: &[Assumptions]) -> Result<(), Error> {
    for (e, subject) in study.scenario.edits.iter().zip(&study.edited) {
        let Some(policy) = &subject.compact else {
            continue;
        };
        // The nominal point first, then where B is largest.
        let largest = points.iter().max_by(|a, b| {
            subject
                .at(**a)
                .base_tokens
                .total_cmp(&subject.at(**b).base_tokens)
        });
        let leaves = |at: &Assumptions| subject.at(*at).base_tokens + policy.summary_tokens;
        let Some(&at) = points
            .first()
            .into_iter()
            .chain(largest)
            .find(|at| policy.threshold_tokens <= leaves(at))
        else {
            continue;
        };
        let corner = points.first() != Some(&at);
        let b = subject.at(at).base_tokens;
        let after = leaves(&at);
        let key = e
            .key_line_columns
            .iter()
            .find(|(k, _)| k.ends_with("compact"))
            .map(|(k, at)| (k.clone(), *at));
        return Err(Located::new(
            study.scenario.edits_source(),
            format!(
                "a trigger of {} tokens is at or below what a compaction leaves, B + summary = {} + {} = {} tokens (at B = {}, ρ = {}{}): the context would stay over the trigger and compact again before every call; give a trigger above {}, or a smaller summary{}",
                grouped(policy.threshold_tokens, 0),
                grouped(b, 0),
                grouped(policy.summary_tokens, 0),
                grouped(after, 0),
                grouped(at.base_tokens, 0),
                decimal(at.bytes_per_token),
                if corner { ", a corner of the sweep" } else { "" },
                grouped(after, 0),
                if corner { ", or sweep B over lower values" } else { "" }
            ),
        )
        .at(key.as_ref().map(|(_, at)| *at).or(e.line_column))
        .place(format!(
            "[[edit]] \"{}\": {}",
            e.name,
            key.map_or_else(|| "compact".to_string(), |(k, _)| k)
        ))
        .into());
    }
    Ok(())
}
