//! The names a rule's selector gives that no call has: a mistyped `tool = "bash"` selects
//! nothing in every session, silently, unless someone says which names the traces have.

use super::Calls;
use super::{Action, Selector};
use std::collections::BTreeSet;

/// The tools and kinds of a set of calls (a trace, or every session of a history).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Names {
    pub tools: BTreeSet<String>,
    pub kinds: BTreeSet<String>,
}

impl Names {
    /// The tools and kinds `calls` have.
    pub fn of(calls: &Calls) -> Names {
        let mut names = Names::default();
        names.add(calls);
        names
    }

    /// Adds the tools and kinds of `calls`.
    pub fn add(&mut self, calls: &Calls) {
        for t in calls.details().filter_map(|d| d?.tool.as_deref()) {
            if !self.tools.contains(t) {
                self.tools.insert(t.to_string());
            }
        }
        for k in calls.kinds() {
            if !self.kinds.contains(k) {
                self.kinds.insert(k.to_string());
            }
        }
    }

    /// Adds `other`'s names.
    pub fn extend(&mut self, other: Names) {
        self.tools.extend(other.tools);
        self.kinds.extend(other.kinds);
    }

    /// Why `select` matches nothing as far as names go: each tool or kind it gives that
    /// none of these calls has, with the nearest name they do have, and the names they
    /// have (`calls` words them: "no call", "no session"). Empty when every name it gives
    /// is there (it then matches nothing for another reason: label, size, or the two
    /// together).
    pub fn missing(&self, select: &Selector, calls: &str) -> Vec<String> {
        self.missing_names(select.tools.as_deref(), select.kinds.as_deref(), calls)
    }

    /// As [`Names::missing`], for a selector's `tools` and `kinds` alone.
    pub fn missing_names(
        &self,
        tools: Option<&[String]>,
        kinds: Option<&[String]>,
        calls: &str,
    ) -> Vec<String> {
        let mut out = Vec::new();
        for (key, wanted, have) in [("tool", tools, &self.tools), ("kind", kinds, &self.kinds)] {
            let Some(wanted) = wanted else { continue };
            if wanted.iter().any(|w| have.contains(w)) {
                continue;
            }
            for w in wanted {
                let mean = nearest(w, have)
                    .map_or_else(String::new, |n| format!(" (did you mean \"{n}\"?)"));
                let there = if have.is_empty() {
                    format!("{calls} has a {key} at all")
                } else {
                    format!("{key}s there: {}", listed(have))
                };
                out.push(format!(
                    "{calls} has {key} \"{}\"{mean}; {there}",
                    crate::printable::printable(w)
                ));
            }
        }
        out
    }
}

/// The name in `have` that `name` was probably meant as: the same but for case, else the
/// closest by Jaro–Winkler similarity (at least 0.85).
fn nearest<'a>(name: &str, have: &'a BTreeSet<String>) -> Option<&'a str> {
    if let Some(same) = have.iter().find(|h| h.eq_ignore_ascii_case(name)) {
        return Some(same);
    }
    have.iter()
        .map(|h| (strsim::jaro_winkler(name, h), h.as_str()))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, h)| h)
}

/// At most 12 names, then how many more.
fn listed(names: &BTreeSet<String>) -> String {
    const SHOWN: usize = 12;
    let shown: Vec<&str> = names.iter().take(SHOWN).map(String::as_str).collect();
    match names.len().checked_sub(SHOWN) {
        Some(more) if more > 0 => format!("{} and {more} more", shown.join(", ")),
        _ => shown.join(", "),
    }
}

impl Action {
    /// Every selector of the action, with the rule's key (`cap`, `step 2: drop`).
    pub fn selectors(&self) -> Vec<(String, &Selector)> {
        match self {
            Action::TrimSelected { select, .. } => vec![("trim".into(), select)],
            Action::DropSelected { select } => vec![("drop".into(), select)],
            Action::Cap { select, .. } => vec![("cap".into(), select)],
            Action::Dedupe { select, .. } => vec![("dedupe".into(), select)],
            Action::Steps(steps) => steps
                .iter()
                .enumerate()
                .flat_map(|(i, s)| {
                    s.selectors()
                        .into_iter()
                        .map(move |(k, sel)| (format!("step {}: {k}", i + 1), sel))
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(tools: &[&str]) -> Names {
        Names {
            tools: tools.iter().map(|t| t.to_string()).collect(),
            kinds: ["tool".to_string()].into_iter().collect(),
        }
    }

    #[test]
    fn a_mistyped_tool_names_the_tools_there_and_the_nearest() {
        let select = Selector {
            tools: Some(vec!["bash".into()]),
            ..Selector::default()
        };
        assert_eq!(
            names(&["Bash", "Read", "WebSearch"]).missing(&select, "no call"),
            [
                "no call has tool \"bash\" (did you mean \"Bash\"?); tools there: Bash, Read, WebSearch"
            ]
        );
        let select = Selector {
            tools: Some(vec!["Grpe".into(), "Bash".into()]),
            kinds: Some(vec!["websearch".into()]),
            ..Selector::default()
        };
        // One listed tool is there: the tools are fine; the kind is not.
        assert_eq!(
            names(&["Bash"]).missing(&select, "no session"),
            ["no session has kind \"websearch\"; kinds there: tool"]
        );
        assert_eq!(
            Names::default().missing(&select, "no call"),
            [
                "no call has tool \"Grpe\"; no call has a tool at all",
                "no call has tool \"Bash\"; no call has a tool at all",
                "no call has kind \"websearch\"; no call has a kind at all"
            ]
        );
    }
}
