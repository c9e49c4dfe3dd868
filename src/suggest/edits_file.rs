//! `suggested.toml`: the candidates as an edits file a person can read, adjust and rerun
//! with `simulate history --edits`.
//!
//! The text is made twice: first with each edit's evidence only, which is parsed with the
//! normal loader and evaluated; then with the figures it gave added as comments. Comments
//! change no edit, and [`same_edits`] checks it, so the file written is what was evaluated.

use super::report::{SuggestReport, Suggested, rank_range};
use super::rules::{Family, Proposal, toml_string};
use crate::number::{grouped, percent, plural};
use crate::printable::printable;
use crate::scenario::Edit;

/// Comment lines are wrapped to this many characters.
const COMMENT_COLUMNS: usize = 92;

/// What the header says.
pub struct Header<'a> {
    /// The scenario or directory, as given.
    pub path: &'a str,
    pub sessions: usize,
    /// The command that reruns the file.
    pub rerun: &'a str,
    /// Base parts given to the suggestion (`--context`), written as `[[base.part]]`
    /// tables so the rerun reads them too.
    pub parts: &'a [crate::scenario::BasePart],
}

/// A family's heading in the file.
fn heading(f: Family) -> &'static str {
    match f {
        Family::Cap => "caps: tools whose outputs are large and skewed, at their p75 and p90 sizes",
        Family::ReadOnce => "read once: tools whose inputs repeat (input_hash seen again)",
        Family::IdleClearing => "clearing on idle time, at the cache TTL the pauses exceed",
        Family::Clearing => {
            "the cheapest clearing schedule the search found (trigger, keep, batch size, at cold)"
        }
        Family::ContextEditing => {
            "Anthropic's context editing at its defaults and on a grid of triggers × tool uses kept"
        }
        Family::Compaction => "compaction at thresholds found in the contexts the calls read",
        Family::HourCache => {
            "a 1-hour cache, where the pauses that outlive the cache mostly last up to an hour"
        }
        Family::Retention => {
            "OpenAI's 24-hour prompt-cache retention, where pauses outlive the cache and the model offers it"
        }
        Family::ToolDefinitions => {
            "tool-definition parts whose tools are rarely used, dropped or deferred"
        }
    }
}

/// `text` as `# ` comment lines of at most [`COMMENT_COLUMNS`] characters, its control
/// characters escaped ([`printable`]): TOML refuses them in a comment, and the text
/// quotes paths and names from the sessions (a directory named with ESC or a line break).
fn comment(text: &str) -> String {
    let text = printable(text);
    let mut out = String::new();
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() > 1 && line.chars().count() + 1 + word.chars().count() > COMMENT_COLUMNS {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The edits file of `proposal`; with `report`, each edit's figures as comments too.
pub fn text(proposal: &Proposal, header: &Header, report: Option<&SuggestReport>) -> String {
    let mut out = comment(&format!(
        "Edits suggested by `simulate suggest` from the data of {} ({}), every one evaluated on every session. Read them, change a number or delete an edit, and rerun:",
        header.path,
        plural(header.sessions, "session", "sessions")
    ));
    out.push_str(&format!("#\n#   {}\n#\n", printable(header.rerun)));
    out.push_str(&comment(
        "Each edit says what in the data suggested it and, evaluated, what it saves: cost in input-token equivalents under each session's prompt cache and reread tokens, summed over the sessions; the context it removes (est. tokens the agent no longer sees, counted once: docs/model.md §9); in how many sessions and at how many points of the assumption sweep it saves cost.",
    ));
    if !header.parts.is_empty() {
        out.push_str(
            "\n# --- base parts given (--context), taken by every session whose B holds them\n",
        );
        for p in header.parts {
            out.push('\n');
            out.push_str(&p.toml_table());
        }
    }
    let mut family = None;
    for c in &proposal.candidates {
        if family != Some(c.family) {
            family = Some(c.family);
            out.push_str(&format!("\n# --- {}\n", heading(c.family)));
        }
        out.push_str(&format!("\n[[edit]]\nname = {}\n", toml_string(&c.name)));
        out.push_str(&comment(&c.evidence));
        if let Some(s) = report.and_then(|r| r.candidates.iter().find(|s| s.name == c.name)) {
            out.push_str(&comment(&figures(
                s,
                report.map_or(0, |r| r.candidates.len()),
            )));
        }
        out.push_str(&c.action);
        out.push('\n');
    }
    out
}

/// `Evaluated: 3rd of 24 by cost: saves 4.1 % of the summed cost (…)…`.
fn figures(s: &Suggested, of: usize) -> String {
    let front = match s.on_front {
        Some(true) => " On its family's Pareto front.",
        Some(false) => " Off its family's Pareto front.",
        None => "",
    };
    let refetch = s
        .refetch
        .as_ref()
        .map_or_else(String::new, |r| format!(" It {}.", r.clause()));
    // An edit that costs more stays in the file to compare against, said plainly: a
    // "saves -32.6 %" reads as a saving at a glance.
    let cost = if s.cost_saved < 0.0 {
        format!(
            "COSTS MORE, kept only to compare (not advised): adds {} of the summed cost ({} input-token equivalents)",
            percent(-s.cost_saved_pct),
            grouped(-s.cost_saved, 0)
        )
    } else {
        format!(
            "saves {} of the summed cost ({} input-token equivalents)",
            percent(s.cost_saved_pct),
            grouped(s.cost_saved, 0)
        )
    };
    format!(
        "Evaluated: {} of {of} by cost; {cost} and {} of the reread tokens ({} est. tokens), removes {} est. tokens of context; saves cost in {} of {} sessions and at {} of {} sweep points ({} by cost there).{refetch}{front}",
        super::report::ordinal(s.cost_rank),
        percent(s.saved_pct),
        grouped(s.saved_tokens, 0),
        grouped(s.context_removed_tokens, 0),
        grouped(s.sessions_saving_cost as f64, 0),
        grouped(s.sessions as f64, 0),
        s.sweep_points_saving_cost,
        s.sweep_points,
        rank_range(s)
    )
}

/// Whether two edit lists are the same edits: names and actions (not where they are in
/// their files).
pub fn same_edits(a: &[Edit], b: &[Edit]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.name == y.name && x.action == y.action)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_wrap_at_word_boundaries() {
        let long = "word ".repeat(40);
        let c = comment(&long);
        assert!(
            c.lines()
                .all(|l| l.starts_with("# ") && l.len() <= COMMENT_COLUMNS)
        );
        assert_eq!(c.split_whitespace().filter(|w| *w == "word").count(), 40);
        assert_eq!(comment("short"), "# short\n");
    }
}
