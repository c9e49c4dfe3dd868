//! What the price data cannot price, in words: the import's warnings about a model the
//! data lacks, or lacks cache terms of, and what that does to which scenarios (their cost
//! is flat, or priced with the 5-minute cache, or their measured dollars are missing).
//! Never a silent flat cost.

use super::{models, presets};
use serde::Serialize;

/// A model the price data lacks, or lacks terms of (also printed on stderr).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelWarning {
    /// The model id as the log names it.
    pub model: String,
    /// The price data's entry it maps to, if any.
    pub priced_as: Option<String>,
    /// What is missing: `prices` and `cache terms` for an unknown model, else the terms
    /// (`minimum cacheable tokens`, `1-hour cache write price`, …).
    pub missing: Vec<&'static str>,
    /// Scenarios whose model it is.
    pub scenarios: Vec<String>,
    /// Scenarios where it made only some of the calls.
    pub some_calls_of: Vec<String>,
    /// The warning, as printed.
    pub message: String,
}

/// Which models a scenario's calls used.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelUse<'a> {
    pub scenario: &'a str,
    /// The model most calls used: it picks `[cache]` and `[price]`.
    pub model: Option<&'a str>,
    /// Whether most cache writes were 1-hour ones (the 1-hour preset is wanted).
    pub one_hour: bool,
    /// The other models some calls used.
    pub others: Vec<&'a str>,
}

/// The warnings of an import: one per model and what it lacks, in order of first use.
/// A scenario's own model without cache terms makes its cost flat; one without prices
/// leaves it without dollars; another model of some calls leaves their measured dollars
/// uncomputed.
pub fn of(uses: &[ModelUse]) -> Vec<ModelWarning> {
    const UNKNOWN: [&str; 2] = ["prices", "cache terms"];
    let mut warnings: Vec<ModelWarning> = Vec::new();
    let mut add = |model: &str, missing: Vec<&'static str>, scenario: &str, own: bool| {
        let at = match warnings
            .iter()
            .position(|w| w.model == model && w.missing == missing)
        {
            Some(i) => i,
            None => {
                warnings.push(ModelWarning {
                    model: model.to_string(),
                    priced_as: models::find(model).map(|m| m.name.clone()),
                    missing,
                    scenarios: Vec::new(),
                    some_calls_of: Vec::new(),
                    message: String::new(),
                });
                warnings.len() - 1
            }
        };
        let w = &mut warnings[at];
        let list = if own {
            &mut w.scenarios
        } else {
            &mut w.some_calls_of
        };
        if !list.iter().any(|s| s == scenario) {
            list.push(scenario.to_string());
        }
    };
    for u in uses {
        match u.model {
            None => add("", UNKNOWN.to_vec(), u.scenario, true),
            Some(m) => {
                let missing = models::find(m).map_or(UNKNOWN.to_vec(), |t| t.missing(u.one_hour));
                if !missing.is_empty() {
                    add(m, missing, u.scenario, true);
                }
            }
        }
        for m in &u.others {
            if models::find(m).is_none() {
                add(m, UNKNOWN.to_vec(), u.scenario, false);
            }
        }
    }
    for w in &mut warnings {
        w.message = message(w);
    }
    warnings
}

/// At most 3 scenario names, then how many more.
fn scenario_list(names: &[String]) -> String {
    const SHOWN: usize = 3;
    let shown: Vec<&str> = names.iter().take(SHOWN).map(String::as_str).collect();
    match names.len().checked_sub(SHOWN) {
        Some(more) if more > 0 => format!("{} and {more} more", shown.join(", ")),
        _ => models::in_words(&shown),
    }
}

/// A log's model id as a message shows it: quoted, escaped, at most 80 characters.
fn shown(model: &str) -> String {
    const MAX: usize = 80;
    let mut s: String = model.chars().take(MAX).collect();
    if model.chars().nth(MAX).is_some() {
        s.push('…');
    }
    format!("\"{}\"", crate::printable::printable(&s))
}

fn message(w: &ModelWarning) -> String {
    let data = models::described();
    let name = format!("model {}", shown(&w.model));
    let mut parts: Vec<String> = Vec::new();
    if !w.scenarios.is_empty() {
        let of = scenario_list(&w.scenarios);
        parts.push(match &w.priced_as {
            _ if w.model.is_empty() => format!(
                "the log names no model for {of}: no [cache] or [price] was written, so its cost is flat (every input token costs 1) and has no dollars; give [cache] and [price] in the scenario"
            ),
            None => format!(
                "{name} is not in the {data}: no prices and no prompt-cache terms, so no [cache] or [price] was written and the cost of {of} is flat (every input token costs 1), with no dollars; give [cache] and [price] in the scenario, or give the model's prices in a file named by the SIMULATE_PRICES environment variable (docs/overview.md, Prices of your own)"
            ),
            Some(entry) => {
                let missing = models::in_words(&w.missing);
                let is = if *entry == w.model {
                    format!("{name} is in the {data} but has no {missing}")
                } else {
                    format!("{name} is \"{entry}\" in the {data}, which has no {missing}")
                };
                match presets::for_model(&w.model, true) {
                    // Only the 1-hour terms are missing: the 5-minute preset stands in.
                    Some(p) => format!(
                        "{is}, though most cache writes of {of} were 1-hour ones: the 5-minute preset \"{p}\" was written instead; give [cache] write and ttl_s for the 1-hour cache"
                    ),
                    None => format!(
                        "{is}: no [cache] was written, so the cost of {of} is flat (every input token costs 1); give [cache] in the scenario, or give them in a file named by the SIMULATE_PRICES environment variable (docs/overview.md, Prices of your own)"
                    ),
                }
            }
        });
    }
    if !w.some_calls_of.is_empty() {
        parts.push(format!(
            "{name}, which made some calls of {}, is not in the {data}: their measured dollars are not computed",
            scenario_list(&w.some_calls_of)
        ));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses<'a>(
        scenario: &'a str,
        model: Option<&'a str>,
        one_hour: bool,
        others: &[&'a str],
    ) -> ModelUse<'a> {
        ModelUse {
            scenario,
            model,
            one_hour,
            others: others.to_vec(),
        }
    }

    #[test]
    fn known_models_with_all_their_terms_give_no_warning() {
        let all = [
            uses(
                "a",
                Some("claude-sonnet-4-5-20250929"),
                true,
                &["claude-haiku-4-5-20251001"],
            ),
            uses(
                "b",
                Some("converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0"),
                true,
                &[],
            ),
            uses("c", Some("gpt-5-codex"), false, &[]),
        ];
        assert_eq!(of(&all), []);
    }

    #[test]
    fn an_unknown_model_is_named_once_with_every_scenario_it_leaves_flat() {
        let all = [
            uses("s1", Some("claude-fable-9"), false, &[]),
            uses("s2", Some("claude-fable-9"), true, &[]),
            uses("s3", Some("claude-fable-9"), false, &[]),
            uses("s4", Some("claude-fable-9"), false, &[]),
            uses("s5", Some("claude-opus-4-7"), false, &["claude-fable-9"]),
        ];
        let w = of(&all);
        assert_eq!(w.len(), 1);
        assert_eq!(
            (w[0].priced_as.as_deref(), w[0].missing.as_slice()),
            (None, ["prices", "cache terms"].as_slice())
        );
        assert_eq!(w[0].scenarios, ["s1", "s2", "s3", "s4"]);
        assert_eq!(w[0].some_calls_of, ["s5"]);
        assert_eq!(
            w[0].message,
            "model \"claude-fable-9\" is not in the price data (LiteLLM 1.110.2 and its overlay in src/cache/): no prices and no prompt-cache terms, so no [cache] or [price] was written and the cost of s1, s2, s3 and 1 more is flat (every input token costs 1), with no dollars; give [cache] and [price] in the scenario, or give the model's prices in a file named by the SIMULATE_PRICES environment variable (docs/overview.md, Prices of your own); model \"claude-fable-9\", which made some calls of s5, is not in the price data (LiteLLM 1.110.2 and its overlay in src/cache/): their measured dollars are not computed"
        );
    }

    #[test]
    fn a_known_model_without_cache_terms_names_them() {
        let w = of(&[uses("v", Some("claude-3-haiku@20240307"), false, &[])]);
        assert_eq!(w[0].priced_as.as_deref(), Some("vertex_ai/claude-3-haiku"));
        assert_eq!(
            w[0].message,
            "model \"claude-3-haiku@20240307\" is \"vertex_ai/claude-3-haiku\" in the price data (LiteLLM 1.110.2 and its overlay in src/cache/), which has no cache read price, cache write price and minimum cacheable tokens: no [cache] was written, so the cost of v is flat (every input token costs 1); give [cache] in the scenario, or give them in a file named by the SIMULATE_PRICES environment variable (docs/overview.md, Prices of your own)"
        );
        // Only the 1-hour write price missing: the 5-minute preset stands in, and says so.
        let apac = "apac.anthropic.claude-haiku-4-5-20251001-v1:0";
        let w = of(&[
            uses("h", Some(apac), true, &[]),
            uses("five", Some(apac), false, &[]),
        ]);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].missing, ["1-hour cache write price"]);
        assert_eq!(
            w[0].message,
            format!(
                "model \"{apac}\" is in the price data (LiteLLM 1.110.2 and its overlay in src/cache/) but has no 1-hour cache write price, though most cache writes of h were 1-hour ones: the 5-minute preset \"{apac}\" was written instead; give [cache] write and ttl_s for the 1-hour cache"
            )
        );
    }

    #[test]
    fn a_log_without_a_model_and_odd_model_ids_are_said_plainly() {
        let w = of(&[uses("n", None, false, &[])]);
        assert_eq!(
            w[0].message,
            "the log names no model for n: no [cache] or [price] was written, so its cost is flat (every input token costs 1) and has no dollars; give [cache] and [price] in the scenario"
        );
        let odd = format!("line\nbreak{}", "x".repeat(100));
        let w = of(&[uses("o", Some(&odd), false, &[])]);
        assert!(
            w[0].message.starts_with(&format!(
                "model \"line\\nbreak{}…\" is not in",
                "x".repeat(70)
            )),
            "{}",
            w[0].message
        );
    }
}
