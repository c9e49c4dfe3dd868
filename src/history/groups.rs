//! `--group-by user|account|team|project|model`: the same edits summed per group of
//! sessions, so a lead sees for whom an edit matters.
//!
//! Every session carries its labels (in `shard.jsonl` too, so a merge can group shards run
//! without `--group-by`): the user is `[import] user_id` (OpenTelemetry's `user.id`, one
//! installation); the account `[import] account_uuid` (`user.account_uuid`: one person on
//! every machine); the team `[import] team` (a team attribute of the telemetry's resource,
//! `team_attribute` naming which); the
//! project is Claude Code's project folder in `[import] file` (`…/projects/<folder>/…`, the
//! working directory with `/` as `-`) and otherwise the `<project>` the importer put before
//! `-<session>` in the scenario name (the last part of the working directory, lower-cased);
//! the model is `[import] model`. A session without one is in the group `unknown user`
//! (`unknown project`, `unknown model`).
//!
//! Each group is summed like the whole, in session order, so its counts add up exactly to
//! the whole's and its sums to within floating-point rounding (the order of the additions
//! differs: the whole adds every session in turn, a group only its own).

use super::percentile::nearest_rank;
use crate::rank;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What to group the sessions by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupBy {
    User,
    Account,
    Team,
    Project,
    Model,
}

impl GroupBy {
    /// `user`, `project`, `model`: the flag's value and the CSV's `group_by`.
    pub fn key(self) -> &'static str {
        match self {
            GroupBy::User => "user",
            GroupBy::Account => "account",
            GroupBy::Team => "team",
            GroupBy::Project => "project",
            GroupBy::Model => "model",
        }
    }

    /// `users`, for headings.
    pub fn plural(self) -> &'static str {
        match self {
            GroupBy::User => "users",
            GroupBy::Account => "accounts",
            GroupBy::Team => "teams",
            GroupBy::Project => "projects",
            GroupBy::Model => "models",
        }
    }

    /// The group of a session without the label.
    pub fn unknown(self) -> &'static str {
        match self {
            GroupBy::User => "unknown user",
            GroupBy::Account => "unknown account",
            GroupBy::Team => "unknown team",
            GroupBy::Project => "unknown project",
            GroupBy::Model => "unknown model",
        }
    }

    /// The group `labels` puts a session in.
    pub fn of(self, labels: &Labels) -> &str {
        let label = match self {
            GroupBy::User => &labels.user,
            GroupBy::Account => &labels.account,
            GroupBy::Team => &labels.team,
            GroupBy::Project => &labels.project,
            GroupBy::Model => &labels.model,
        };
        label.as_deref().unwrap_or(self.unknown())
    }
}

/// A session's labels for grouping; None where its file does not say.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Labels {
    pub user: Option<String>,
    pub project: Option<String>,
    pub model: Option<String>,
    /// Left out of `shard.jsonl` when absent, so shards of logs without them read as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

impl Labels {
    /// The labels of `scenario` (see the module's comment).
    pub fn of(scenario: &Scenario) -> Labels {
        let Some(import) = &scenario.import else {
            return Labels::default();
        };
        Labels {
            user: import.user_id.clone().filter(|u| !u.is_empty()),
            // The readable name the importer gave the session (the last folder of its
            // working directory, as in the scenario's name), before Claude Code's folder
            // (`-home-me-src-shop`), which only a session without one falls back to.
            project: import
                .session_id
                .as_deref()
                .and_then(|id| name_project(&scenario.name, id))
                .or_else(|| project_folder(&import.format, &import.file)),
            model: import.model.clone().filter(|m| !m.is_empty()),
            account: import.account_uuid.clone().filter(|a| !a.is_empty()),
            team: import.team.clone().filter(|t| !t.is_empty()),
        }
    }
}

/// Claude Code's project folder: the component after the last `projects` in a Claude Code
/// log's path, when a file or folder follows it.
fn project_folder(format: &str, file: &str) -> Option<String> {
    if format != "claude-code" {
        return None;
    }
    let parts: Vec<&str> = file.split(['/', '\\']).collect();
    let at = parts.iter().rposition(|p| *p == "projects")?;
    let folder = parts.get(at + 1)?;
    (at + 2 < parts.len() && !folder.is_empty()).then(|| folder.to_string())
}

/// The `<project>` of a scenario the importer named `<project>-<session 8>…`; None when the
/// name has no such part, or the importer had no project (it then writes `session`).
fn name_project(name: &str, session_id: &str) -> Option<String> {
    let short = crate::import::trace::slug(session_id, 8);
    if short.is_empty() {
        return None;
    }
    let at = name.find(&format!("-{short}"))?;
    let project = &name[..at];
    (!project.is_empty() && project != "session").then(|| project.to_string())
}

/// One edit over one group's sessions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupEdit {
    pub name: String,
    /// Position in the edits file (0-based).
    pub index: usize,
    /// 1-based rank by the group's summed saving; ties share a rank.
    pub rank: usize,
    /// Σ of the group's per-session savings, est. tokens.
    pub saved_tokens: f64,
    /// `100 · saved_tokens / Σ the group's baseline totals`.
    pub saved_pct: f64,
    /// Σ of the group's cost savings, input-token equivalents.
    pub cost_saved: f64,
    pub cost_saved_pct: f64,
    /// The group's sessions where this edit ranks first, of those some edit changes the
    /// reread total of.
    pub sessions_first: usize,
    /// The group's sessions where it saves something, and where it adds rereads.
    pub sessions_saving: usize,
    pub sessions_adding: usize,
    /// Median of the group's per-session percentages, nearest-rank.
    pub median_session_pct: f64,
}

/// One group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupReport {
    /// The user, project or model; `unknown user` where a session has none.
    pub group: String,
    pub sessions: usize,
    /// Sessions no edit changes (in reread tokens or cost).
    pub sessions_unchanged: usize,
    /// Sessions some edit changes the cost of but none the reread total: left out of
    /// first in with the unchanged ones.
    pub sessions_cost_only: usize,
    pub calls: usize,
    pub baseline_total_tokens: f64,
    pub baseline_cost: f64,
    /// Cache breaks of its sessions, summed by class (docs/model.md §4, "Breaks").
    pub breaks: Vec<(crate::fit::breaks::BreakClass, crate::fit::breaks::ClassSum)>,
    /// By edit index.
    pub edits: Vec<GroupEdit>,
    /// Edit indices, best first (ties in edit order).
    pub order: Vec<usize>,
}

/// Every group, by name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupsReport {
    pub by: GroupBy,
    pub groups: Vec<GroupReport>,
}

/// Running sums of one group.
#[derive(Debug, Clone, Default)]
struct GroupSums {
    sessions: usize,
    unchanged: usize,
    cost_only: usize,
    calls: usize,
    baseline_total: f64,
    baseline_cost: f64,
    breaks: Vec<(crate::fit::breaks::BreakClass, crate::fit::breaks::ClassSum)>,
    edits: Vec<EditSums>,
}

#[derive(Debug, Clone, Default)]
struct EditSums {
    saved: f64,
    cost_saved: f64,
    first: usize,
    saving: usize,
    adding: usize,
    percents: Vec<f64>,
}

/// One session as a group sees it.
pub(crate) struct GroupSession<'a> {
    pub calls: usize,
    pub baseline_total: f64,
    pub baseline_cost: f64,
    pub unchanged: bool,
    /// No edit changes the reread total (first in leaves it out).
    pub reread_tied: bool,
    /// By edit index: saved tokens, cost saved, percent saved, rank.
    pub edits: &'a [(f64, f64, f64, usize)],
    /// Its cache breaks.
    pub breaks: &'a [crate::fit::breaks::Break],
}

/// Sums every group as the sessions come, in session order.
#[derive(Debug, Clone)]
pub(crate) struct Groups {
    by: GroupBy,
    edits: usize,
    groups: BTreeMap<String, GroupSums>,
}

impl Groups {
    pub(crate) fn new(by: GroupBy, edits: usize) -> Groups {
        Groups {
            by,
            edits,
            groups: BTreeMap::new(),
        }
    }

    /// Adds a session with `labels`.
    pub(crate) fn add(&mut self, labels: &Labels, s: &GroupSession) {
        let key = self.by.of(labels);
        if !self.groups.contains_key(key) {
            self.groups.insert(
                key.to_string(),
                GroupSums {
                    edits: vec![EditSums::default(); self.edits],
                    ..GroupSums::default()
                },
            );
        }
        let Some(g) = self.groups.get_mut(key) else {
            return;
        };
        g.sessions += 1;
        g.unchanged += usize::from(s.unchanged);
        g.cost_only += usize::from(s.reread_tied && !s.unchanged);
        g.calls += s.calls;
        g.baseline_total += s.baseline_total;
        g.baseline_cost += s.baseline_cost;
        crate::fit::breaks::merge_by_class(&mut g.breaks, &crate::fit::breaks::by_class(s.breaks));
        for (sums, &(saved, cost_saved, pct, rank)) in g.edits.iter_mut().zip(s.edits) {
            sums.saved += saved;
            sums.cost_saved += cost_saved;
            sums.first += usize::from(rank == 1 && !s.reread_tied);
            sums.saving += usize::from(saved > 0.0);
            sums.adding += usize::from(saved < 0.0);
            sums.percents.push(pct);
        }
    }

    /// The groups, by name, for the edits `names` (by index).
    pub(crate) fn finish(self, names: &[String]) -> GroupsReport {
        let groups = self
            .groups
            .into_iter()
            .map(|(group, g)| {
                let savings: Vec<f64> = g.edits.iter().map(|e| e.saved).collect();
                let ranking = rank::rank(&savings, g.baseline_total);
                let edits = g
                    .edits
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut e)| {
                        e.percents.sort_by(f64::total_cmp);
                        GroupEdit {
                            name: names.get(i).cloned().unwrap_or_default(),
                            index: i,
                            rank: ranking.ranks[i],
                            saved_tokens: e.saved,
                            saved_pct: 100.0 * e.saved / g.baseline_total,
                            cost_saved: e.cost_saved,
                            cost_saved_pct: 100.0 * e.cost_saved / g.baseline_cost,
                            sessions_first: e.first,
                            sessions_saving: e.saving,
                            sessions_adding: e.adding,
                            median_session_pct: nearest_rank(&e.percents, 50.0).unwrap_or(f64::NAN),
                        }
                    })
                    .collect();
                GroupReport {
                    group,
                    sessions: g.sessions,
                    sessions_unchanged: g.unchanged,
                    sessions_cost_only: g.cost_only,
                    calls: g.calls,
                    baseline_total_tokens: g.baseline_total,
                    baseline_cost: g.baseline_cost,
                    breaks: g.breaks,
                    edits,
                    order: ranking.order,
                }
            })
            .collect();
        GroupsReport {
            by: self.by,
            groups,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_is_the_name_before_the_session_else_claude_codes_folder() {
        // Issue 27 §5: the readable name, not the folder, wherever the importer named one.
        let mut s = crate::scenario::load_str(
            "name = \"shop-5e55a0e1\"\nbase_tokens = 1000\nbytes_per_token = 3.3\n[[call]]\nlabel = \"a\"\nbytes = 10\n[import]\nformat = \"claude-code\"\nfile = \"/h/.claude/projects/-home-ana-src-shop/5e55a0e1-aa.jsonl\"\nsession_id = \"5e55a0e1-aa\"\ntrace = \"main\"\n",
            std::path::Path::new("s.toml"),
        )
        .unwrap();
        assert_eq!(Labels::of(&s).project.as_deref(), Some("shop"));
        s.name = "session-5e55a0e1".into();
        assert_eq!(
            Labels::of(&s).project.as_deref(),
            Some("-home-ana-src-shop")
        );

        assert_eq!(
            project_folder(
                "claude-code",
                "/home/ana/.claude/projects/-home-ana-shop/5e55a0e1-aa.jsonl"
            ),
            Some("-home-ana-shop".into())
        );
        assert_eq!(
            project_folder(
                "claude-code",
                "x/projects/-home-ana-shop/5e55a0e1/subagents/agent-1.jsonl"
            ),
            Some("-home-ana-shop".into())
        );
        // A log outside Claude Code's folders, or another format: no folder to go by.
        assert_eq!(project_folder("claude-code", "logs/5e55a0e1.jsonl"), None);
        assert_eq!(project_folder("claude-code", "a/projects/x.jsonl"), None);
        assert_eq!(
            project_folder("codex", "/home/a/.codex/sessions/2025/10/01/r.jsonl"),
            None
        );
        assert_eq!(
            name_project("shop-5e55a0e1-agent-a1b2c3d4", "5e55a0e1-1234"),
            Some("shop".into())
        );
        assert_eq!(
            name_project("my-api-019a2b3c", "019a2b3c-9f"),
            Some("my-api".into())
        );
        // The OpenTelemetry import has no project: it names sessions `session-<id>`.
        assert_eq!(name_project("session-7f3a9c1e", "7f3a9c1e-55"), None);
        assert_eq!(name_project("renamed", "7f3a9c1e-55"), None);
    }

    #[test]
    fn a_session_without_a_label_is_in_the_unknown_group() {
        let labels = Labels {
            user: Some("ana".into()),
            ..Labels::default()
        };
        assert_eq!(GroupBy::User.of(&labels), "ana");
        assert_eq!(GroupBy::Model.of(&labels), "unknown model");
        assert_eq!(GroupBy::Project.of(&labels), "unknown project");
        assert_eq!(GroupBy::Account.of(&labels), "unknown account");
        assert_eq!(GroupBy::Team.of(&labels), "unknown team");
    }
}
