//! The settings fragments `suggest` writes beside `suggested.toml`: one per agent the
//! sessions came from, each key with the suggestion it makes real and what it saved.
//! Fragments to read and copy from, never the user's settings themselves.
//!
//! JSON has no comments, so `claude-code.settings.json` carries them in keys Claude Code
//! does not read: `_comment` (what the file is), `_comments` (one per key, by the key's
//! path, e.g. `env.BASH_MAX_OUTPUT_LENGTH`) and `_no_setting` (each suggestion no setting
//! implements, with what would). Copy the other keys; leave the `_…` ones out.
//! `codex.config.toml` has `#` comments above each key.

use super::types::{Agent, HowTo, Key, Value};
use serde_json::{Map, Value as Json};

/// The suggestions of one agent whose keys go in its fragment (for a key several would
/// set, the one that saves the most over this agent's sessions; ties by rank), and those
/// no setting implements.
fn split(how: &[HowTo], agent: Agent) -> (Vec<(&HowTo, &Key)>, Vec<&HowTo>) {
    let mut keyed: Vec<(&HowTo, &Key)> = Vec::new();
    let mut none = Vec::new();
    let mut mine: Vec<&HowTo> = how.iter().filter(|h| h.agent == agent && h.saves).collect();
    // Dollars where every one is priced alike, else the cost.
    let by_dollars = mine
        .iter()
        .all(|h| h.dollars_saved.is_some() && h.priced_sessions == h.sessions);
    let saved = |h: &HowTo| {
        if by_dollars {
            h.dollars_saved.unwrap_or(0.0)
        } else {
            h.cost_saved
        }
    };
    mine.sort_by(|a, b| {
        saved(b)
            .total_cmp(&saved(a))
            .then(a.cost_rank.cmp(&b.cost_rank))
    });
    for h in mine {
        match &h.key {
            Some(k) if !keyed.iter().any(|(_, x)| x.path == k.path) => keyed.push((h, k)),
            Some(_) => {}
            None => none.push(h),
        }
    }
    (keyed, none)
}

/// The comment on one suggestion, control characters escaped (`\u{1b}`, `\n`): tool and
/// server names come from logs, and a TOML comment ends at a line break and may hold no
/// other control character.
fn comment(h: &HowTo, k: Option<&Key>) -> String {
    crate::printable::printable(&raw_comment(h, k)).into_owned()
}

fn raw_comment(h: &HowTo, k: Option<&Key>) -> String {
    // Over this agent's sessions only: the file changes no other agent's.
    let saving = super::agent_saving(h, &format!("{}'s", h.agent.label()));
    let saving = match &h.refetch {
        Some(r) => format!("{saving}; {r}"),
        None => saving,
    };
    match k {
        Some(k) => format!(
            "{} — {saving}, rank {} by cost. Limits: {}",
            h.edit, h.cost_rank, k.limits
        ),
        None => format!(
            "{} — {saving}, rank {} by cost: {}",
            h.edit, h.cost_rank, h.how
        ),
    }
}

/// `claude-code.settings.json`'s text (see the module's comment).
pub fn claude_code(how: &[HowTo], source: &str) -> String {
    let (keyed, none) = split(how, Agent::ClaudeCode);
    let source = crate::printable::printable(source);
    let mut root = Map::new();
    root.insert(
        "_comment".into(),
        Json::String(format!(
            "Written by simulate suggest from {source}: NOT your settings. Copy the keys you want into ~/.claude/settings.json (env: or export them in the shell) and leave every key starting with _ out: _comments says, per key, the suggestion it makes real and what it saved; _no_setting, the suggestions no setting implements and what would. Keys and limits: docs/settings.md."
        )),
    );
    let mut comments = Map::new();
    let mut env = Map::new();
    for (h, k) in &keyed {
        comments.insert(k.path.clone(), Json::String(comment(h, Some(k))));
        let value = match &k.value {
            Value::Text(t) => Json::String(t.clone()),
            Value::Integer(n) => Json::from(*n),
            Value::List(l) => Json::from(l.clone()),
        };
        match k.path.strip_prefix("env.") {
            Some(name) => {
                env.insert(name.to_string(), value);
            }
            None => {
                root.insert(k.path.clone(), value);
            }
        }
    }
    if !env.is_empty() {
        root.insert("env".into(), Json::Object(env));
    }
    root.insert("_comments".into(), Json::Object(comments));
    let no: Map<String, Json> = none
        .iter()
        .map(|h| (h.edit.clone(), Json::String(comment(h, None))))
        .collect();
    root.insert("_no_setting".into(), Json::Object(no));
    let mut text = serde_json::to_string_pretty(&Json::Object(root)).unwrap_or_default();
    text.push('\n');
    text
}

/// `codex.config.toml`'s text.
pub fn codex(how: &[HowTo], source: &str) -> String {
    let (keyed, none) = split(how, Agent::Codex);
    // The directory as given: a line break in its name ended the comment (invalid TOML).
    let source = crate::printable::printable(source);
    let mut out = format!(
        "# Written by simulate suggest from {source}: NOT your config. Copy the keys you want\n# into ~/.codex/config.toml. Keys and limits: docs/settings.md.\n"
    );
    if keyed.is_empty() {
        out.push_str("\n# No suggestion here is a config.toml key.\n");
    }
    for (h, k) in &keyed {
        out.push('\n');
        wrap(&mut out, &comment(h, Some(k)));
        let value = match &k.value {
            Value::Integer(n) => n.to_string(),
            Value::Text(t) => toml::Value::String(t.clone()).to_string(),
            Value::List(l) => {
                toml::Value::Array(l.iter().cloned().map(toml::Value::String).collect()).to_string()
            }
        };
        out.push_str(&format!("{} = {value}\n", k.path));
    }
    if !none.is_empty() {
        out.push_str("\n# No setting implements these; what would:\n");
        for h in none {
            wrap(&mut out, &format!("- {}", comment(h, None)));
        }
    }
    out
}

/// `text` as `#` comment lines of at most 92 columns.
fn wrap(out: &mut String, text: &str) {
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() + 1 + word.len() > 92 && line.len() > 1 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#  ");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
}
