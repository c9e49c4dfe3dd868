//! The sweep's findings as data: does the ranking hold, which pairs flip and where, and
//! the exact break-evens, summarised per pair once so every output says the same.

use super::order_line;
use crate::evaluate::Study;
use crate::number::{decimal, grouped, plural};
use crate::sweep::{BreakEven, Grid, Point, Stability, SweepOutcome};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// A flip with its points spelled out.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlipReport {
    pub a: String,
    pub b: String,
    pub count: usize,
    pub region: String,
    pub points: Vec<Point>,
}

/// Ranking stability for one measure.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MeasureReport {
    pub nominal_order: Vec<String>,
    /// The nominal order as a line, ties shown: `a = b > c`.
    pub order: String,
    pub winner: Option<String>,
    pub ranking_holds: bool,
    pub points_matching_nominal_order: usize,
    pub points_matching_winner: usize,
    pub flips: Vec<FlipReport>,
}

/// A pair compared only at the grid points.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Pair {
    pub a: String,
    pub b: String,
}

/// The swept values.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GridReport {
    pub base_tokens: Vec<f64>,
    pub bytes_per_token: Vec<f64>,
    /// Null without `[cache]`.
    pub cache_read: Option<Vec<f64>>,
    pub retry_rate: Vec<f64>,
    /// Re-fetch rates: shares of removed results fetched again (docs/model.md §11).
    pub refetch: Vec<f64>,
    /// Whether the grid is docs/model.md's default (⅔B, B, 4⁄3B × 0.75ρ, ρ, 1.25ρ).
    pub default: bool,
}

/// The sweep's findings.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SweepReport {
    pub grid: GridReport,
    /// `closed form`, `replay`, or `closed form; replayed where …` when some runs' events
    /// move with the assumptions.
    pub method: &'static str,
    pub points: usize,
    pub nominal_on_grid: bool,
    #[serde(flatten)]
    pub tokens: MeasureReport,
    pub break_even: Vec<BreakEven>,
    /// The break-evens summarised per pair of edits, in nominal order.
    pub break_even_by_pair: Vec<BreakEvenSummary>,
    pub sampled_only: Vec<Pair>,
    /// Ranking by cost, with `[cache]`.
    pub cost: Option<MeasureReport>,
    /// The closed forms of the reread totals (and of the costs, where exact) over the
    /// sliders' range. Not in the JSON: `report.html` embeds them to re-rank the edits as
    /// B and ρ move.
    #[serde(skip)]
    pub closed_forms: super::ClosedForms,
}

/// What the exact break-evens of one pair of edits say over all swept ρ.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BreakEvenSummary {
    /// The edit that saves more at the nominal point, and the other.
    pub a: String,
    pub b: String,
    /// `never` (one always saves more), `same` (they always tie), `inside` (a break-even
    /// lies inside the swept B range at some ρ), `outside` (break-evens exist, all outside).
    pub kind: &'static str,
    /// ρ values with a break-even inside the swept B range, of all swept ρ.
    pub inside_at: usize,
    pub of: usize,
    /// Lowest and highest break-even B inside the swept range, est. tokens.
    pub base_tokens_from: Option<f64>,
    pub base_tokens_to: Option<f64>,
    /// The edit that saves more above the break-even (or everywhere, for `never`).
    pub above: Option<String>,
    /// The same in words.
    pub sentence: String,
}

impl GridReport {
    /// `B 20,000 / 30,000 / 40,000 × ρ 2.5 / 3.3 / 4`, with the other axes when swept.
    pub fn describe(&self) -> String {
        let mut text = format!(
            "B {} × ρ {}",
            axis(&self.base_tokens, |v| grouped(v, 0)),
            axis(&self.bytes_per_token, decimal)
        );
        if let Some(c) = self.cache_read.as_ref().filter(|c| c.len() > 1) {
            text.push_str(&format!(" × cache read {}", axis(c, decimal)));
        }
        if self.retry_rate.len() > 1 {
            text.push_str(&format!(" × retry {}", axis(&self.retry_rate, decimal)));
        }
        if self.refetch.len() > 1 {
            text.push_str(&format!(" × re-fetch {}", axis(&self.refetch, decimal)));
        }
        text
    }
}

fn axis(values: &[f64], format: impl Fn(f64) -> String) -> String {
    match values {
        [] => String::new(),
        [only] => format(*only),
        _ if values.len() <= 6 => values
            .iter()
            .map(|&v| format(v))
            .collect::<Vec<_>>()
            .join(" / "),
        [first, .., last] => format!(
            "{} … {} ({} values)",
            format(*first),
            format(*last),
            values.len()
        ),
    }
}

/// One break-even in words, at the precision a person needs.
fn sentence(x: &BreakEven) -> String {
    let rho = decimal(x.bytes_per_token);
    let other = |w: &str| if w == x.a { x.b.clone() } else { x.a.clone() };
    match (x.base_tokens, &x.above) {
        (Some(b), Some(w)) => format!(
            "{w} saves more than {} for every B above {} at ρ = {rho}{}",
            other(w),
            grouped(b, 0),
            if x.inside_range {
                ""
            } else {
                " (outside the swept range)"
            }
        ),
        (None, Some(w)) => format!(
            "{w} saves more than {} for every B > 0 at ρ = {rho}: never a break-even",
            other(w)
        ),
        _ => format!("{} and {} save the same for every B at ρ = {rho}", x.a, x.b),
    }
}

/// The break-evens of each pair, summarised over the swept ρ values, pairs in the order
/// they first come in `all`.
///
/// The rows are indexed by pair once: time and memory grow with the rows (edits² × ρ
/// values), where filtering every row for every pair grew with their square (300 edits
/// took 90 s).
fn by_pair(all: &[BreakEven]) -> Vec<BreakEvenSummary> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for x in all {
        let pair = (x.a.as_str(), x.b.as_str());
        // A pair's rows that are not adjacent make one summary each time it comes back,
        // of all its rows (as the rows of one pair are normally adjacent, never seen).
        if pairs.last() != Some(&pair) {
            pairs.push(pair);
        }
    }
    let rows_of = rows_by_pair(all);
    pairs
        .into_iter()
        .map(|(a, b)| summary(a, b, rows_of.get(&(a, b)).map_or(&[], Vec::as_slice)))
        .collect()
}

/// The break-even rows of each pair of edits `(a, b)`, in their order in `all`: every
/// output that shows a pair's rows looks them up here, as filtering all the rows (edits² ×
/// ρ values) for each pair grows with the fourth power of the edits (1,000 edits: minutes).
pub fn rows_by_pair(all: &[BreakEven]) -> FxHashMap<(&str, &str), Vec<&BreakEven>> {
    let mut rows_of: FxHashMap<(&str, &str), Vec<&BreakEven>> = FxHashMap::default();
    for x in all {
        rows_of
            .entry((x.a.as_str(), x.b.as_str()))
            .or_default()
            .push(x);
    }
    rows_of
}

/// What the break-evens `rows` of edits `a` and `b` (one a swept ρ) say together.
fn summary(a: &str, b: &str, rows: &[&BreakEven]) -> BreakEvenSummary {
    let inside: Vec<&BreakEven> = rows.iter().copied().filter(|x| x.inside_range).collect();
    let values: Vec<f64> = inside.iter().filter_map(|x| x.base_tokens).collect();
    let from = values.iter().copied().reduce(f64::min);
    let to = values.iter().copied().reduce(f64::max);
    let same_above = rows
        .first()
        .and_then(|r| r.above.clone())
        .filter(|w| rows.iter().all(|x| x.above.as_ref() == Some(w)));
    let kind = if rows
        .iter()
        .all(|x| x.base_tokens.is_none() && x.above.is_none())
    {
        "same"
    } else if rows.iter().all(|x| x.base_tokens.is_none()) && same_above.is_some() {
        "never"
    } else if !inside.is_empty() {
        "inside"
    } else {
        "outside"
    };
    let rhos = plural(rows.len(), "swept ρ", "swept ρ values");
    let every_rho = if rows.len() == 1 {
        "at the swept ρ".to_string()
    } else {
        format!("at all {rhos}")
    };
    let sentence = match kind {
        "same" => format!("{a} and {b} save the same for every B and ρ"),
        "never" => {
            let w = same_above.clone().unwrap_or_default();
            let other = if w == a { b } else { a };
            format!("{w} saves more than {other} for every B > 0 {every_rho}: no break-even")
        }
        _ if rows.len() == 1 => sentence(rows[0]),
        "inside" => {
            let above: Vec<&str> = inside.iter().filter_map(|x| x.above.as_deref()).collect();
            let winner = match above.first() {
                Some(w) if above.iter().all(|x| x == w) => {
                    format!("; {w} saves more above it")
                }
                _ => String::new(),
            };
            let range = match (from, to) {
                (Some(l), Some(h)) if l != h => {
                    format!("B from {} to {}", grouped(l, 0), grouped(h, 0))
                }
                (Some(l), _) => format!("B = {}", grouped(l, 0)),
                _ => String::new(),
            };
            format!(
                "{a} vs {b}: break-even inside the swept B range at {} of {rhos}, {range}{winner}",
                inside.len()
            )
        }
        _ => format!("{a} vs {b}: no break-even inside the swept B range at any of {rhos}"),
    };
    BreakEvenSummary {
        a: a.to_string(),
        b: b.to_string(),
        kind,
        inside_at: inside.len(),
        of: rows.len(),
        base_tokens_from: from,
        base_tokens_to: to,
        above: same_above,
        sentence,
    }
}

impl MeasureReport {
    fn new(st: &Stability, names: &[String], grid: &Grid) -> MeasureReport {
        let ordered: Vec<&str> = st
            .nominal
            .order
            .iter()
            .map(|&i| names[i].as_str())
            .collect();
        let ranks: Vec<usize> = st
            .nominal
            .order
            .iter()
            .map(|&i| st.nominal.ranks[i])
            .collect();
        MeasureReport {
            order: order_line(&ordered, &ranks),
            nominal_order: st.nominal.order.iter().map(|&i| names[i].clone()).collect(),
            winner: st.nominal.order.first().map(|&i| names[i].clone()),
            ranking_holds: st.holds(),
            points_matching_nominal_order: st.matching_order,
            points_matching_winner: st.matching_winner,
            flips: st
                .flips(names, grid)
                .into_iter()
                .map(|f| FlipReport {
                    points: f.indices.iter().map(|&i| grid.point(i as usize)).collect(),
                    a: f.a,
                    b: f.b,
                    count: f.count,
                    region: f.region,
                })
                .collect(),
        }
    }
}

impl SweepReport {
    /// The report of a sweep over `study`'s edits.
    pub fn new(study: &Study, sweep: &SweepOutcome, closed_form: bool) -> SweepReport {
        let names: Vec<String> = study.edited.iter().map(|s| s.name.clone()).collect();
        let g = &sweep.grid;
        SweepReport {
            grid: GridReport {
                base_tokens: g.base_tokens.clone(),
                bytes_per_token: g.bytes_per_token.clone(),
                cache_read: g.cache_read.iter().copied().collect(),
                retry_rate: g.retry_rate.clone(),
                refetch: g.refetch.clone(),
                default: g.default_axes,
            },
            method: match (closed_form, sweep.sampled_only.is_empty()) {
                (false, _) => "replay",
                (true, true) => "closed form",
                (true, false) => "closed form; replayed where a clearing moves with B or ρ",
            },
            points: g.len(),
            nominal_on_grid: sweep.nominal_on_grid,
            tokens: MeasureReport::new(&sweep.tokens, &names, g),
            break_even_by_pair: by_pair(&sweep.break_even),
            break_even: sweep
                .break_even
                .iter()
                .map(|x| BreakEven {
                    sentence: sentence(x),
                    ..x.clone()
                })
                .collect(),
            sampled_only: sweep
                .sampled_only
                .iter()
                .map(|&(a, b)| Pair {
                    a: names[a].clone(),
                    b: names[b].clone(),
                })
                .collect(),
            cost: sweep
                .cost
                .as_ref()
                .map(|c| MeasureReport::new(c, &names, g)),
            closed_forms: super::ClosedForms::new(study, sweep),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summaries as they were made before the rows were indexed: every row filtered
    /// for every pair.
    fn by_pair_filtering(all: &[BreakEven]) -> Vec<BreakEvenSummary> {
        let mut pairs: Vec<(&str, &str)> =
            all.iter().map(|b| (b.a.as_str(), b.b.as_str())).collect();
        pairs.dedup();
        pairs
            .into_iter()
            .map(|(a, b)| {
                let rows: Vec<&BreakEven> = all.iter().filter(|x| x.a == a && x.b == b).collect();
                summary(a, b, &rows)
            })
            .collect()
    }

    /// Break-even rows of `edits` edits at `rhos` ρ values, of every kind of summary.
    fn rows(edits: usize, rhos: usize) -> Vec<BreakEven> {
        let name = |i: usize| format!("edit {i}");
        let mut all = Vec::new();
        for i in 0..edits {
            for j in i + 1..edits {
                for r in 0..rhos {
                    let k = i * 7 + j * 3 + r;
                    let (base_tokens, above) = match k % 4 {
                        0 => (None, None),
                        1 => (None, Some(name(i))),
                        _ => (
                            Some(1000.0 * (k % 50) as f64),
                            Some(name(if k % 3 == 0 { i } else { j })),
                        ),
                    };
                    all.push(BreakEven {
                        a: name(i),
                        b: name(j),
                        bytes_per_token: 2.0 + r as f64,
                        base_tokens,
                        inside_range: k % 5 < 3,
                        above,
                        sentence: String::new(),
                    });
                }
            }
        }
        all
    }

    #[test]
    fn indexed_summaries_are_those_of_filtering_every_row() {
        for (edits, rhos) in [(1, 3), (2, 1), (5, 3), (40, 3)] {
            let all = rows(edits, rhos);
            assert_eq!(by_pair(&all), by_pair_filtering(&all), "{edits} edits");
        }
        // A pair that comes back after another: a summary each time, as before.
        let mut all = rows(3, 2);
        all.swap(1, 2);
        let got = by_pair(&all);
        assert_eq!(got, by_pair_filtering(&all));
        assert_eq!(got.len(), 5);
        assert_eq!(by_pair(&[]), Vec::new());
    }

    #[test]
    fn many_edits_are_summarised_once_a_pair() {
        // 400 edits, 3 ρ: 79,800 pairs of 239,400 rows, each pair's 3 rows.
        let all = rows(400, 3);
        let got = by_pair(&all);
        assert_eq!(got.len(), 400 * 399 / 2);
        assert!(got.iter().all(|s| s.of == 3));
    }
}
