//! Each suggestion in the user's own agent's settings: the Claude Code setting or
//! environment variable, or the Codex CLI `config.toml` key, that makes it real, with its
//! documented limits; or, where no setting implements it, what would (an instruction in
//! CLAUDE.md or AGENTS.md, a workflow, the API's own request fields).
//!
//! Every key written is one docs/settings.md lists with its documentation page and the
//! date it was read (tests read that table as the list of allowed keys). `fragment` writes
//! the files `suggest` puts beside `suggested.toml`; nothing here touches the user's
//! real settings.

pub mod claude_code;
pub mod codex;
pub mod fragment;
pub mod types;

pub use types::{Agent, HowTo, Key, Share, Value};

use super::report::Suggested;
use super::rules::Family;
use crate::history::files::Loaded;
use crate::history::session::SessionFigures;
use std::collections::BTreeMap;

/// Each agent's share of every edit's saving, by edit index, summed a session at a time
/// by the agent each came from, in session order.
pub type Shares = BTreeMap<Agent, Vec<Share>>;

/// Adds session `s`, which came from `agent`, to `shares`.
pub fn add_share(shares: &mut Shares, agent: Agent, s: &SessionFigures) {
    let shares = shares.entry(agent).or_default();
    if shares.len() < s.edits.len() {
        shares.resize(s.edits.len(), Share::default());
    }
    for (share, e) in shares.iter_mut().zip(&s.edits) {
        share.sessions += 1;
        share.cost_saved += e.cost_saved;
        share.baseline_cost += s.baseline_cost;
        if let Some(d) = e.dollars_saved {
            share.dollars_saved = Some(share.dollars_saved.unwrap_or(0.0) + d);
            share.priced_sessions += 1;
        }
        if let Some(r) = &e.refetch {
            share.refetch.add(r);
        }
    }
}

/// One agent's saving in words, with the sessions it rests on (`whose`: "its" where the
/// agent is named just before, else "Claude Code's"): dollars where priced, else the
/// share of their cost.
pub fn agent_saving(h: &HowTo, whose: &str) -> String {
    let sessions = crate::number::plural(h.sessions, "session", "sessions");
    let over = format!("over {whose} {sessions}");
    // A loss is said as what it adds, never as a negative saving.
    let verb = |x: f64| if x < 0.0 { ("adds", -x) } else { ("saves", x) };
    match h.dollars_saved.map(verb) {
        Some((verb, d)) if h.priced_sessions == h.sessions => {
            format!("{verb} {} {over}", crate::number::dollars(d))
        }
        Some((verb, d)) => format!(
            "{verb} {} over the {} priced of {whose} {sessions}",
            crate::number::dollars(d),
            h.priced_sessions,
        ),
        None => {
            let (verb, pct) = verb(h.cost_saved_pct);
            format!(
                "{verb} {} of the cost (no price known) {over}",
                crate::number::percent(pct)
            )
        }
    }
}

/// `The best change a setting makes: in Claude Code, compact above 75,000 tokens
/// (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=38), which saves $6.50 over its 85 sessions.`: for each
/// agent, the suggestion with a key that saves most over that agent's sessions (in dollars
/// where priced): the best overall may be one no setting of the user's agent offers. None
/// when no suggestion has a key.
pub fn best_settings(how: &[HowTo]) -> Option<String> {
    let mut agents: Vec<_> = how.iter().map(|h| h.agent).collect();
    agents.sort();
    agents.dedup();
    let measure = |h: &HowTo| h.dollars_saved.unwrap_or(h.cost_saved);
    let parts: Vec<String> = agents
        .into_iter()
        .filter_map(|agent| {
            let best = how
                .iter()
                .filter(|h| h.agent == agent && h.saves && h.key.is_some())
                .max_by(|a, b| {
                    measure(a)
                        .total_cmp(&measure(b))
                        .then(b.cost_rank.cmp(&a.cost_rank))
                })?;
            let key = best.key.as_ref()?;
            let value = key.value.plain();
            let setting = match key.path.strip_prefix("env.") {
                Some(var) => format!("{var}={value}"),
                None => format!("{} = {value}", key.path),
            };
            Some(format!(
                "in {}, {} ({setting}), which {}",
                agent.label(),
                best.edit,
                agent_saving(best, "its")
            ))
        })
        .collect();
    (!parts.is_empty()).then(|| format!("The best change a setting makes: {}.", parts.join("; ")))
}

/// The agents the sessions came from, each with its number of sessions, in [`Agent`]
/// order.
pub fn seen(loaded: &[Loaded]) -> Vec<(Agent, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for l in loaded {
        *counts.entry(Agent::of(l)).or_insert(0) += 1;
    }
    counts.into_iter().collect()
}

/// The saving of `s` in words: dollars where priced, else the share of the cost.
pub fn saving(s: &Suggested) -> String {
    let saves = match s.dollars_saved {
        // The percentage is of the cost in input-token equivalents, not of the dollars:
        // beside dollars it would read as theirs.
        Some(d) => format!(
            "saves {} summed over every session, rank {} by cost",
            crate::number::dollars(d),
            s.cost_rank
        ),
        None => format!(
            "saves {} of the cost (no price known), rank {} by cost",
            crate::number::percent(s.cost_saved_pct),
            s.cost_rank
        ),
    };
    // How much re-fetching would undo it (docs/model.md §11), beside the saving.
    match &s.refetch {
        Some(r) => format!("{saves}; {}", r.clause()),
        None => saves,
    }
}

/// How to make `s` real for `agent`, whose sessions save `share`.
pub fn how_to(s: &Suggested, agent: Agent, share: &Share) -> HowTo {
    let (key, how) = match agent {
        Agent::ClaudeCode => claude_code::how(s),
        Agent::Codex => codex::how(s),
        Agent::AnthropicApi => (None, anthropic_api(s)),
        Agent::OpenAiApi => (None, openai_api(s)),
    };
    HowTo {
        saves: share.saves(),
        agent,
        edit: s.name.clone(),
        cost_rank: s.cost_rank,
        sessions: share.sessions,
        priced_sessions: share.priced_sessions,
        dollars_saved: share.dollars_saved,
        cost_saved: share.cost_saved,
        cost_saved_pct: share.cost_saved_pct(),
        // Over this agent's sessions alone, on dollars where each of them is priced: the
        // total's stopping rate may not be this agent's.
        refetch: share
            .refetch
            .clone()
            .finish(share.priced_sessions == share.sessions && share.sessions > 0)
            .map(|r| r.clause()),
        key,
        how,
    }
}

/// Every candidate, for every agent seen, with its saving over that agent's sessions
/// alone (`shares`, by the candidate's edit index), best first: a setting changes only
/// its agent's sessions. Only candidates that save somewhere are listed; an agent whose
/// sessions it does not save is kept with `saves` false (said, never in its fragment),
/// so the agents' figures add up to the total.
pub fn all(
    candidates: &[Suggested],
    agents: &[(Agent, usize)],
    shares: &BTreeMap<Agent, Vec<Share>>,
) -> Vec<HowTo> {
    let mut out = Vec::new();
    for s in candidates {
        let hows: Vec<HowTo> = agents
            .iter()
            .filter_map(|&(agent, _)| {
                let share = shares.get(&agent)?.get(s.index)?;
                Some(how_to(s, agent, share))
            })
            .collect();
        // A candidate none of whose agents it saves is in no one's settings.
        if hows.iter().any(|h| h.saves) {
            out.extend(hows);
        }
    }
    out
}

/// No setting: what would, in any agent (a prompt or a workflow).
pub fn workflow(s: &Suggested, memory_file: &str) -> String {
    let p = &s.parameters;
    match s.family {
        Family::Cap => {
            let tool = p.tool.as_deref().unwrap_or("this tool");
            // How a smaller result is asked for depends on the tool.
            let how = match tool {
                "Read" => "a Read with offset and limit",
                "Grep" | "Glob" => "a narrower pattern or path",
                "Bash" | "exec_command" | "shell" | "write_stdin" => {
                    "output piped through head or tail, quieter flags"
                }
                _ => "a narrower request",
            };
            format!(
                "no setting caps {tool}'s output; what would: an instruction in {memory_file} asking for smaller results ({how})"
            )
        }
        Family::ReadOnce => format!(
            "no setting; what would: an instruction in {memory_file} not to read a file again unless it changed"
        ),
        // The edit replaces old tool results by a placeholder; /compact is the nearest a
        // user can do by hand (it summarises them away too), /clear drops far more.
        Family::IdleClearing => "no setting; nearest by hand: /compact when you come back after a pause longer than the cache's lifetime (the cache is cold there, so its rewrite costs nothing extra); the edit priced keeps the conversation and replaces only old tool results, which /compact summarises and /clear drops with everything else".into(),
        Family::Clearing => format!(
            "no setting; what would: an agent that replaces its old tool results by a placeholder in the history it re-sends (as Claude Code's microcompact does) {}, keeping {}{}{}",
            match (p.trigger_tokens, p.every_calls, p.after_gap_s) {
                (Some(t), _, _) => format!("once the context passes {} tokens", crate::number::grouped(t, 0)),
                (_, Some(k), _) => format!("every {k} calls"),
                (_, _, Some(g)) => format!("after a pause longer than {} s", crate::number::grouped(g, 0)),
                _ => "on a schedule".into(),
            },
            match p.keep_results.unwrap_or(0) {
                0 => "none of them".to_string(),
                k => format!("the latest {}", crate::number::plural(k as usize, "result", "results")),
            },
            match p.clear_at_least_tokens {
                Some(m) if m > 0.0 => format!(", only when that frees at least {} tokens", crate::number::grouped(m, 0)),
                _ => String::new(),
            },
            if p.at_cold { ", and only at a call after a pause longer than the cache's lifetime (the cache is cold there)" } else { "" }
        ),
        Family::Compaction if p.at_cold => format!(
            "no setting waits for a cold cache; what would: compact by hand (/compact) when you come back after a pause longer than the cache's lifetime and the context is above {} tokens",
            crate::number::grouped(p.threshold_tokens.unwrap_or(0.0), 0)
        ),
        Family::ToolDefinitions => format!(
            "no setting found for {}: remove it from the agent's tools while it is not needed",
            p.part.as_deref().unwrap_or("this part")
        ),
        _ => "no setting of this agent implements it".into(),
    }
}

fn anthropic_api(s: &Suggested) -> String {
    let p = &s.parameters;
    match (s.family, p.trigger_tokens, p.threshold_tokens) {
        (Family::ContextEditing, Some(t), _) => format!(
            "add to each Messages API request: \"context_management\": {{\"edits\": [{{\"type\": \"clear_tool_uses_20250919\", \"trigger\": {{\"type\": \"input_tokens\", \"value\": {t:.0}}}, \"keep\": {{\"type\": \"tool_uses\", \"value\": {}}}{}}}]}} with the beta header context-management-2025-06-27 (platform.claude.com/docs/en/build-with-claude/context-editing)",
            p.keep_tool_uses.unwrap_or(crate::suggest::rules::API_CLEAR_KEEP),
            match p.clear_at_least_tokens {
                Some(m) if m > 0.0 => format!(", \"clear_at_least\": {{\"type\": \"input_tokens\", \"value\": {m:.0}}}"),
                _ => String::new(),
            }
        ),
        (Family::Compaction, _, Some(t)) if p.at_cold => format!(
            "send the Messages API's compaction (compact_20260112, trigger {t:.0} input tokens) only with a request that comes after a pause longer than the cache's lifetime, where the cache is cold anyway"
        ),
        (Family::Compaction, _, Some(t)) => format!(
            "the Messages API's compaction (compact_20260112) with its trigger at {t:.0} input tokens, in the request's context_management edits"
        ),
        (Family::HourCache, ..) => "mark the cached prefix with \"cache_control\": {\"type\": \"ephemeral\", \"ttl\": \"1h\"}".into(),
        _ => workflow(s, "the system prompt"),
    }
}

fn openai_api(s: &Suggested) -> String {
    let p = &s.parameters;
    match (s.family, p.threshold_tokens) {
        (Family::Compaction, Some(t)) => format!(
            "the Responses API's server-side compaction with compact_threshold {t:.0} tokens"
        ),
        (Family::Retention, _) => {
            "send \"prompt_cache_retention\": \"24h\" with each request".into()
        }
        _ => workflow(s, "the system prompt"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::aggregate::Distribution;
    use crate::suggest::rules::Parameters;

    /// The keys docs/settings.md allows, by agent: its table's rows `| agent | `key` | …`.
    fn allowed() -> Vec<(String, String)> {
        include_str!("../../../docs/settings.md")
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                let agent = cells.get(1)?;
                let key = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
                matches!(*agent, "claude-code" | "codex")
                    .then(|| (agent.to_string(), key.to_string()))
            })
            .collect()
    }

    fn candidate(name: &str, family: Family, parameters: Parameters, rank: usize) -> Suggested {
        let d = Distribution {
            min: 0.0,
            p10: 0.0,
            median: 0.0,
            p90: 0.0,
            max: 0.0,
        };
        Suggested {
            name: name.into(),
            index: rank - 1,
            family,
            family_label: family.label(),
            parameters,
            evidence: String::new(),
            action: String::new(),
            cost_rank: rank,
            token_rank: rank,
            cost_saved: 100.0,
            cost_saved_pct: 10.0,
            dollars_saved: Some(1.25),
            priced_sessions: 2,
            saved_tokens: 100.0,
            saved_pct: 10.0,
            context_removed_tokens: 10.0,
            sessions_saving_cost: 1,
            sessions_adding_cost: 0,
            sessions: 2,
            per_session_cost_pct: d,
            sessions_selected_nothing: 0,
            sweep_points_saving_cost: 9,
            sweep_points: 9,
            sweep_cost_rank_best: 1,
            sweep_cost_rank_worst: 1,
            holds_over_sweep: true,
            refetch: None,
            on_front: None,
            series: None,
            point_label: String::new(),
        }
    }

    /// Every agent's share of each of `n` candidates: 2 sessions, both priced, $1.25 and
    /// 100 of 1,000 input-token equivalents saved.
    fn shares_of(agents: &[(Agent, usize)], n: usize) -> BTreeMap<Agent, Vec<Share>> {
        let share = Share {
            sessions: 2,
            priced_sessions: 2,
            cost_saved: 100.0,
            baseline_cost: 1000.0,
            dollars_saved: Some(1.25),
            ..Share::default()
        };
        agents
            .iter()
            .map(|&(a, _)| (a, vec![share.clone(); n]))
            .collect()
    }

    /// An agent's re-fetch clause is over its own sessions: here they stop saving at 0.25
    /// while the total (another agent's sessions in it) is not asked.
    #[test]
    fn an_agents_re_fetch_clause_is_over_its_own_sessions() {
        use crate::history::refetch::SessionRefetch;
        let s = candidate(
            "cap Bash",
            Family::Cap,
            Parameters {
                max_bytes: Some(800.0),
                ..Parameters::default()
            },
            1,
        );
        let mut share = Share {
            sessions: 1,
            priced_sessions: 0,
            cost_saved: 1000.0,
            baseline_cost: 4000.0,
            dollars_saved: None,
            ..Share::default()
        };
        share.refetch.add(&SessionRefetch {
            removed: 4,
            rates: vec![0.0, 0.1, 0.25, 0.5],
            saved_tokens: vec![1000.0, 600.0, -100.0, -500.0],
            cost_saved: vec![1000.0, 600.0, -100.0, -500.0],
            dollars_saved: None,
        });
        assert_eq!(
            how_to(&s, Agent::ClaudeCode, &share).refetch.as_deref(),
            Some(
                "stops saving if the agent re-fetches ≥ 0.25 of what it removes (still saves at 0.1, 60.0 % of its saving at 0 left)"
            )
        );
        assert_eq!(
            how_to(&s, Agent::Codex, &Share::default()).refetch,
            None,
            "no session of the agent removes results"
        );
    }

    /// Beside the saving, how much re-fetching would undo it (docs/model.md §11), in the
    /// table's line and in the settings fragments' comments.
    #[test]
    fn the_saving_says_the_re_fetch_rate_that_undoes_it() {
        use crate::history::refetch::{RateSaving, RefetchAggregate};
        let mut s = candidate(
            "compact above 60,000 tokens",
            Family::Compaction,
            Parameters {
                threshold_tokens: Some(60_000.0),
                ..Parameters::default()
            },
            1,
        );
        assert_eq!(
            saving(&s),
            "saves $1.25 summed over every session, rank 1 by cost"
        );
        let at = |rate: f64, d: f64| RateSaving {
            rate,
            saved_tokens: 0.0,
            cost_saved: 0.0,
            dollars_saved: Some(d),
        };
        s.refetch = Some(RefetchAggregate {
            sessions: 2,
            removed: 7,
            measure: "dollars",
            by_rate: vec![at(0.0, 1.25), at(0.1, 1.0), at(0.25, 0.5), at(0.5, -0.25)],
            stops_saving_at: Some(0.5),
            saves_at: Some(0.25),
        });
        assert_eq!(
            saving(&s),
            "saves $1.25 summed over every session, rank 1 by cost; stops saving if the agent re-fetches ≥ 0.5 of what it removes (still saves at 0.25, 40.0 % of its saving at 0 left)"
        );
        let share = Share {
            sessions: 2,
            priced_sessions: 2,
            cost_saved: 100.0,
            baseline_cost: 1000.0,
            dollars_saved: Some(1.25),
            ..Share::default()
        };
        // The agent's own sessions, here the same figures as the total.
        let mut share = share;
        share.refetch.add(&crate::history::refetch::SessionRefetch {
            removed: 7,
            rates: vec![0.0, 0.1, 0.25, 0.5],
            saved_tokens: vec![0.0; 4],
            cost_saved: vec![0.0; 4],
            dollars_saved: Some(vec![1.25, 1.0, 0.5, -0.25]),
        });
        let how = vec![how_to(&s, Agent::ClaudeCode, &share)];
        let json = super::fragment::claude_code(&how, "logs");
        assert!(
            json.contains("compact above 60,000 tokens — saves $1.25 over Claude Code's 2 sessions; stops saving if the agent re-fetches ≥ 0.5 of what it removes (still saves at 0.25, 40.0 % of its saving at 0 left), rank 1 by cost"),
            "{json}"
        );
    }

    fn every_kind() -> Vec<Suggested> {
        let p = Parameters::default;
        vec![
            candidate(
                "compact above 60,000 tokens",
                Family::Compaction,
                Parameters {
                    threshold_tokens: Some(60_000.0),
                    ..p()
                },
                1,
            ),
            candidate(
                "cap Bash at 7,071 bytes (p75)",
                Family::Cap,
                Parameters {
                    tool: Some("Bash".into()),
                    max_bytes: Some(7071.0),
                    ..p()
                },
                2,
            ),
            candidate(
                "cap mcp__gh__search at 10,000 bytes (p90)",
                Family::Cap,
                Parameters {
                    tool: Some("mcp__gh__search".into()),
                    max_bytes: Some(10_000.0),
                    ..p()
                },
                3,
            ),
            candidate(
                "defer mcp:gh",
                Family::ToolDefinitions,
                Parameters {
                    part: Some("mcp:gh".into()),
                    part_action: Some("defer"),
                    ..p()
                },
                4,
            ),
            candidate(
                "drop mcp:jira",
                Family::ToolDefinitions,
                Parameters {
                    part: Some("mcp:jira".into()),
                    part_action: Some("drop"),
                    ..p()
                },
                5,
            ),
            candidate(
                "cap Read at 7,071 bytes (p75)",
                Family::Cap,
                Parameters {
                    tool: Some("Read".into()),
                    max_bytes: Some(7071.0),
                    ..p()
                },
                6,
            ),
            candidate(
                "compact above 250,000 tokens",
                Family::Compaction,
                Parameters {
                    threshold_tokens: Some(250_000.0),
                    ..p()
                },
                7,
            ),
        ]
    }

    #[test]
    fn every_key_is_one_docs_settings_md_lists_with_the_values_the_edits_give() {
        let allowed = allowed();
        assert!(allowed.len() >= 10, "{allowed:?}");
        let agents = [(Agent::ClaudeCode, 1), (Agent::Codex, 1)];
        let how = all(
            &every_kind(),
            &agents,
            &shares_of(&agents, every_kind().len()),
        );
        let key = |agent: Agent, edit: &str| {
            how.iter()
                .find(|h| h.agent == agent && h.edit.starts_with(edit))
                .and_then(|h| h.key.as_ref())
                .map(|k| (k.path.clone(), k.value.clone()))
        };
        for h in &how {
            if let Some(k) = &h.key {
                let agent = if h.agent == Agent::ClaudeCode {
                    "claude-code"
                } else {
                    "codex"
                };
                assert!(
                    allowed.contains(&(agent.to_string(), k.path.clone())),
                    "{agent} {} is not in docs/settings.md",
                    k.path
                );
            }
        }
        let text = |t: &str| Value::Text(t.into());
        assert_eq!(
            key(Agent::ClaudeCode, "compact above 60"),
            Some(("env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE".into(), text("30")))
        );
        assert_eq!(
            key(Agent::ClaudeCode, "compact above 250"),
            Some(("env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE".into(), text("100")))
        );
        assert_eq!(
            key(Agent::Codex, "compact above 60"),
            Some((
                "model_auto_compact_token_limit".into(),
                Value::Integer(60_000)
            ))
        );
        assert_eq!(
            key(Agent::ClaudeCode, "cap Bash"),
            Some(("env.BASH_MAX_OUTPUT_LENGTH".into(), text("7071")))
        );
        // 10,000 bytes at 3.3 bytes per token, rounded up.
        assert_eq!(
            key(Agent::ClaudeCode, "cap mcp__"),
            Some(("env.MAX_MCP_OUTPUT_TOKENS".into(), text("3031")))
        );
        assert_eq!(
            key(Agent::ClaudeCode, "defer"),
            Some(("env.ENABLE_TOOL_SEARCH".into(), text("true")))
        );
        assert_eq!(
            key(Agent::ClaudeCode, "drop"),
            Some((
                "disabledMcpjsonServers".into(),
                Value::List(vec!["jira".into()])
            ))
        );
        assert_eq!(key(Agent::ClaudeCode, "cap Read"), None);
        assert_eq!(key(Agent::Codex, "cap Bash"), None);
        // A threshold above the default says the setting cannot raise it.
        let high = how
            .iter()
            .find(|h| h.edit.starts_with("compact above 250") && h.agent == Agent::ClaudeCode)
            .unwrap();
        assert!(
            high.key
                .as_ref()
                .unwrap()
                .limits
                .contains("the default already compacts there")
        );

        // The fragments: the JSON's keys (but the `_` comments) and the TOML's are allowed
        // ones, the best-ranked suggestion holds a key several set, and each key is
        // commented with its suggestion and saving.
        let json: serde_json::Value =
            serde_json::from_str(&fragment::claude_code(&how, "logs")).unwrap();
        let mut paths = Vec::new();
        for (k, v) in json.as_object().unwrap() {
            match (k.as_str(), v) {
                (k, _) if k.starts_with('_') => {}
                ("env", serde_json::Value::Object(env)) => {
                    paths.extend(env.keys().map(|n| format!("env.{n}")))
                }
                (k, _) => paths.push(k.to_string()),
            }
        }
        paths.sort();
        assert_eq!(
            paths,
            [
                "disabledMcpjsonServers",
                "env.BASH_MAX_OUTPUT_LENGTH",
                "env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
                "env.ENABLE_TOOL_SEARCH",
                "env.MAX_MCP_OUTPUT_TOKENS"
            ]
        );
        for p in &paths {
            assert!(allowed.contains(&("claude-code".into(), p.clone())), "{p}");
        }
        assert_eq!(json["env"]["CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"], "30");
        let c = json["_comments"]["env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"]
            .as_str()
            .unwrap();
        assert!(
            c.starts_with(
                "compact above 60,000 tokens — saves $1.25 over Claude Code's 2 sessions, rank 1 by cost"
            ),
            "{c}"
        );
        assert!(
            json["_no_setting"]["cap Read at 7,071 bytes (p75)"]
                .as_str()
                .unwrap()
                .contains("CLAUDE.md")
        );
        let toml_text = fragment::codex(&how, "logs");
        let table: toml::Table = toml_text.parse().unwrap();
        assert_eq!(
            table.keys().collect::<Vec<_>>(),
            ["model_auto_compact_token_limit"]
        );
        assert_eq!(
            table["model_auto_compact_token_limit"].as_integer(),
            Some(60_000)
        );
        assert!(
            toml_text.contains("# compact above 60,000 tokens — saves $1.25 over Codex CLI's 2"),
            "{toml_text}"
        );
        for k in table.keys() {
            assert!(allowed.contains(&("codex".into(), k.clone())), "{k}");
        }
        // A directory named with a line break, ESC, CR, BEL or DEL: the TOML comment took
        // them raw (a line break ended the comment, the others are not allowed in one).
        let hostile = "logs\nx = 1\u{1b}[31m\r\u{7}\u{7f}";
        let toml_text = fragment::codex(&how, hostile);
        let table: toml::Table = toml_text.parse().unwrap();
        assert_eq!(
            table.keys().collect::<Vec<_>>(),
            ["model_auto_compact_token_limit"]
        );
        assert!(
            toml_text.starts_with(
                "# Written by simulate suggest from logs\\nx = 1\\u{1b}[31m\\r\\u{7}\\u{7f}: "
            ),
            "{toml_text}"
        );
        let json_text = fragment::claude_code(&how, hostile);
        let json: serde_json::Value = serde_json::from_str(&json_text).unwrap();
        assert!(
            json["_comment"]
                .as_str()
                .unwrap()
                .contains("from logs\\nx = 1\\u{1b}[31m\\r\\u{7}\\u{7f}: NOT"),
            "{json_text}"
        );
        assert!(!json_text.contains('\u{7f}'), "{json_text}");
    }

    #[test]
    fn a_suggestion_that_loses_dollars_in_an_agent_s_sessions_is_not_in_its_settings() {
        let s = candidate(
            "compact above 60,000 tokens",
            Family::Compaction,
            Parameters {
                threshold_tokens: Some(60_000.0),
                ..Parameters::default()
            },
            1,
        );
        let agents = [(Agent::ClaudeCode, 1), (Agent::Codex, 1)];
        let mut shares = shares_of(&agents, 1);
        // Claude Code's sessions lose dollars (though they save input-token equivalents):
        // only Codex's settings carry it, with Codex's saving.
        shares.get_mut(&Agent::ClaudeCode).unwrap()[0].dollars_saved = Some(-0.45);
        let how = all(std::slice::from_ref(&s), &agents, &shares);
        let saves: Vec<(Agent, bool)> = how.iter().map(|h| (h.agent, h.saves)).collect();
        assert_eq!(saves, [(Agent::ClaudeCode, false), (Agent::Codex, true)]);
        assert_eq!(how[1].dollars_saved, Some(1.25));
        assert_eq!(how[1].cost_saved_pct, 10.0);
        // The loss is said as what it adds; the fragment leaves it out.
        assert_eq!(
            agent_saving(&how[0], "its"),
            "adds $0.45 over its 2 sessions"
        );
        assert!(!fragment::claude_code(&how, "logs").contains("compact above"));
        assert!(
            fragment::codex(&how, "logs").contains("compact above 60,000 tokens — saves $1.25")
        );
        // Lost everywhere, it is in no agent's list.
        shares.get_mut(&Agent::Codex).unwrap()[0].dollars_saved = Some(-0.1);
        assert!(all(&[s], &agents, &shares).is_empty());
    }
}
