//! The live part of `report.html`: two sliders, B and ρ, that re-rank the edits in the
//! browser from the closed forms of their reread totals.
//!
//! A reread total is affine in B and 1/ρ (docs/model.md §1) for every run whose events
//! do not move with them, so three coefficients per run give its total anywhere:
//! `T = c·x + k + y/v`. One page embeds them as a JSON data block and a small inline
//! script (`live.js`, no file or network fetched) recomputes the savings, percentages,
//! ranks and the exact break-evens of adjacent edits as the sliders move. For one
//! scenario `x` is B and `v` is ρ; for a history they are the factors applied to every
//! session's own B and ρ, and the coefficients are the sessions' sums
//! (`c = Σ calls·B`, `k = Σ tokens`, `y = Σ bytes/ρ`), which add up because each session
//! is affine in its own B and ρ. Without JavaScript the panel stays hidden and the page
//! shows the nominal figures it was written with.

use super::html_escape::escape;
use crate::ledger::Affine;
use crate::number::{decimal, grouped};
pub(crate) use crate::rank::TIE_TOLERANCE;
use crate::report::Report;
use serde::Serialize;
use std::io::{self, Write};

/// The script: reads the data block, fills the panel, re-ranks the table `#edits`.
const SCRIPT: &str = include_str!("live.js");

/// Styles of the panel and of a table moved off its nominal point.
pub(crate) const STYLE: &str = "
.live { border: 1px solid #cfd6e4; background: #f7f9fc; padding: 0.4em 1em 0.8em; margin: 0.8em 0 1em; }
.live h3 { margin-top: 0.6em; }
.live .slider { display: grid; grid-template-columns: 11em minmax(12em, 1fr) 12em; gap: 0.1em 1em; align-items: center; margin: 0.7em 0; }
.live input[type=range] { width: 100%; margin: 0; accent-color: #0072b2; }
.live output { font-weight: 600; font-variant-numeric: tabular-nums; }
.live .ends { grid-column: 2; display: flex; justify-content: space-between; font-size: 0.8em; color: #666; }
.live .ruler { grid-column: 2; position: relative; font-size: 0.82em; overflow: hidden; }
.live .tick { position: relative; height: 1.45em; }
.live .tick i { position: absolute; top: 0; height: 1.3em; border-left: 2px solid #d55e00; }
.live .tick span { position: absolute; top: 0.05em; white-space: nowrap; color: #8a3b00; }
.live .tick.nominal i { border-left-color: #999; }
.live .tick.nominal span { color: #666; }
.live button { font: inherit; padding: 0.15em 0.7em; }
.live p.now { font-size: 1.05em; margin: 0.6em 0 0.3em; }
.live ul { margin: 0.3em 0; padding-left: 1.4em; }
@media (max-width: 720px) { .live .slider { grid-template-columns: 1fr; } .live .ends, .live .ruler { grid-column: 1; } }
@media print { .live button, #live-link { display: none; } }
table.moved tbody td:not(.moves):not(.name):not(.fixed), table.moved tr.nominal-only td { color: #999; }
body.moved p.at-nominal::before { content: 'At the nominal point: '; font-weight: 600; }
table.moved tr.nominal-only td.name::after { content: ' (sampled only: at the nominal point)'; }
table.moved tr.interpolated td.name::after, table.moved tr.nearest td.name::after, table.moved tr.gridded td.name::after { font-size: 0.85em; color: #8a3b00; }
table.moved tr.interpolated td.name::after { content: ' ≈ interpolated between the sweep’s grid points'; }
table.moved tr.nearest td.name::after { content: ' ≈ at the nearest grid point of the sweep'; }
table.moved tr.gridded td.name::after { content: ' (sampled: the sweep’s own figures at this grid point)'; }
";

/// `T = c·x + k + y/v`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Form {
    pub c: f64,
    pub k: f64,
    pub y: f64,
}

impl From<&Affine> for Form {
    fn from(a: &Affine) -> Form {
        Form {
            c: a.calls,
            k: a.tokens,
            y: a.bytes,
        }
    }
}

/// One slider.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Axis {
    /// Its key in the page's fragment: `report.html#B=12000&rho=3.3`.
    pub key: &'static str,
    pub min: f64,
    pub max: f64,
    pub nominal: f64,
}

impl Axis {
    /// The slider over `swept` and the nominal value.
    pub fn over(key: &'static str, swept: &[f64], nominal: f64) -> Axis {
        let min = swept.iter().copied().fold(nominal, f64::min);
        let max = swept.iter().copied().fold(nominal, f64::max);
        Axis {
            key,
            min,
            max,
            nominal,
        }
    }
}

/// One edit of the table: its row is `<tr data-edit="index">`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct LiveEdit {
    pub name: String,
    /// Declaration order (ties rank in it, as `rank::rank` does).
    pub index: usize,
    /// None: no closed form; the row is ranked from `sampled`, or without samples stays
    /// at the nominal point.
    pub form: Option<Form>,
    /// Without a closed form: its saving at each point of [`Live::grid`] (est. tokens,
    /// `[x·nv + v]`), as the sweep computed it; the page interpolates between them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampled: Option<Vec<f64>>,
    /// Its saving at the nominal point, as the table says: where a sampled edit stands
    /// there, whatever the grid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominal_saved: Option<f64>,
    /// Its cost's closed form, when the cost moves (see [`Live::cost`]).
    pub cost: Option<Form>,
    /// Without one: its cost saving at each grid point, input-token equivalents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_sampled: Option<Vec<f64>>,
    /// Its cost saving at the nominal point, as the table says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominal_cost_saved: Option<f64>,
    /// Whether it has dollars (the table's dollar cell is not "—").
    pub priced: bool,
}

impl LiveEdit {
    /// An edit with its closed forms only.
    pub fn new(name: String, index: usize, form: Option<Form>) -> LiveEdit {
        LiveEdit {
            name,
            index,
            form,
            sampled: None,
            nominal_saved: None,
            cost: None,
            cost_sampled: None,
            nominal_cost_saved: None,
            priced: false,
        }
    }

    /// Whether the row can move at all: a closed form or samples.
    fn ranked(&self) -> bool {
        self.form.is_some() || self.sampled.is_some()
    }
}

/// The sweep's grid points on the sliders' plane: the x values and the v values,
/// ascending; a sampled figure at `(x[i], v[j])` is at `i·v.len() + j`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct LiveGrid {
    pub x: Vec<f64>,
    pub v: Vec<f64>,
}

/// The cost columns, where every ranked edit's cost moves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct LiveCost {
    /// The baseline's cost, input-token equivalents: its closed form, or its values at the
    /// grid points.
    pub baseline: Option<Form>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_sampled: Option<Vec<f64>>,
    /// The baseline's cost at the nominal point, as the table says.
    pub baseline_nominal: f64,
    /// USD per input-token equivalent, where the dollar columns move: a run's dollars are
    /// its cost (output included) at the scenario's input price.
    pub per_cost: Option<f64>,
}

/// Everything the script needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Live {
    /// `scenario` (x is B in tokens, v is ρ) or `history` (both are factors).
    pub kind: &'static str,
    pub x: Axis,
    pub v: Axis,
    /// Baseline calls (summed over sessions for a history): equivalent calls divide by
    /// the average baseline call.
    pub calls: f64,
    pub baseline: Form,
    /// In declaration order.
    pub edits: Vec<LiveEdit>,
    /// The grid the sampled figures are at; None when nothing is sampled.
    pub grid: Option<LiveGrid>,
    /// None: the cost columns stay at the nominal point.
    pub cost: Option<LiveCost>,
    pub tie_tolerance: f64,
}

impl Live {
    /// The sliders and their values as a person reads them.
    fn labels(&self) -> [(&'static str, String, String, String, String); 2] {
        match self.kind {
            "history" => {
                let f = |x: f64| format!("× {}", decimal(x));
                [
                    (
                        "x",
                        "factor on every session's B".into(),
                        f(self.x.min),
                        f(self.x.max),
                        f(self.x.nominal),
                    ),
                    (
                        "v",
                        "factor on every session's ρ".into(),
                        f(self.v.min),
                        f(self.v.max),
                        f(self.v.nominal),
                    ),
                ]
            }
            _ => [
                (
                    "x",
                    "base tokens B".into(),
                    format!("{} tokens", grouped(self.x.min, 0)),
                    format!("{} tokens", grouped(self.x.max, 0)),
                    format!("{} tokens", grouped(self.x.nominal, 0)),
                ),
                (
                    "v",
                    "bytes per token ρ".into(),
                    decimal(self.v.min),
                    decimal(self.v.max),
                    format!("{} bytes/token", decimal(self.v.nominal)),
                ),
            ],
        }
    }
}

/// The live data of one scenario's page: B and ρ over the swept range and the nominal
/// point, each edit's closed form, and the cost's where it is exact; the runs without one
/// at the sweep's grid points, where the command kept them. None without a sweep or
/// without edits.
pub(crate) fn of_report(r: &Report) -> Option<Live> {
    let forms = &r.sweep.as_ref()?.closed_forms;
    let baseline = forms.tokens.first().copied().flatten()?;
    if r.edits.is_empty() {
        return None;
    }
    let pick = |forms: &[Option<Affine>], run: usize| forms.get(run).copied().flatten();
    let samples = forms.samples.as_ref();
    // A run's saving at each grid point: the baseline's total less its own, as the sweep
    // (and sweep.csv) computes it.
    let saved = |totals: &[Vec<f64>], run: usize| -> Option<Vec<f64>> {
        let (base, own) = (totals.first()?, totals.get(run)?);
        Some(base.iter().zip(own).map(|(b, e)| b - e).collect())
    };
    let cost_forms = forms.cost.as_deref().unwrap_or_default();
    let cost_samples = samples.and_then(|s| s.cost.as_deref());
    let mut edits: Vec<LiveEdit> = r
        .edits
        .iter()
        .map(|e| {
            let run = e.index + 1;
            let form = pick(&forms.tokens, run);
            let cost = pick(cost_forms, run);
            let sampled = form
                .is_none()
                .then(|| samples.and_then(|s| saved(&s.tokens, run)))
                .flatten();
            let cost_sampled = cost
                .is_none()
                .then(|| cost_samples.and_then(|c| saved(c, run)))
                .flatten();
            LiveEdit {
                nominal_saved: sampled.as_ref().map(|_| e.saved_tokens),
                nominal_cost_saved: cost_sampled.as_ref().map(|_| e.cost_saved),
                sampled,
                cost: cost.map(|a| Form::from(&a)),
                cost_sampled,
                priced: e.dollars.is_some(),
                ..LiveEdit::new(e.name.clone(), e.index, form.map(|a| Form::from(&a)))
            }
        })
        .collect();
    edits.sort_by_key(|e| e.index);
    // Only where the table has cost or dollar columns, and every edit the sliders rank
    // has its cost as a closed form or at the grid points.
    let base_cost = pick(cost_forms, 0);
    let base_cost_sampled = base_cost
        .is_none()
        .then(|| cost_samples.and_then(|c| c.first().cloned()))
        .flatten();
    let costs_move = (r.cost_order.is_some() || r.price.is_some())
        && (base_cost.is_some() || base_cost_sampled.is_some())
        && edits
            .iter()
            .filter(|e| e.ranked())
            .all(|e| e.cost.is_some() || e.cost_sampled.is_some());
    let cost = costs_move.then(|| LiveCost {
        baseline: base_cost.map(|a| Form::from(&a)),
        baseline_sampled: base_cost_sampled,
        baseline_nominal: r.baseline.cost,
        per_cost: forms
            .dollars_per_cost
            .filter(|_| r.price.is_some() && r.baseline.dollars.is_some()),
    });
    if cost.is_none() {
        for e in &mut edits {
            (e.cost, e.cost_sampled, e.nominal_cost_saved) = (None, None, None);
        }
    }
    let grid = samples
        .filter(|_| {
            edits
                .iter()
                .any(|e| e.sampled.is_some() || e.cost_sampled.is_some())
                || cost.as_ref().is_some_and(|c| c.baseline_sampled.is_some())
        })
        .map(|s| LiveGrid {
            x: s.base_tokens.clone(),
            v: s.bytes_per_token.clone(),
        });
    let axis = |key, (min, max): (f64, f64), nominal| Axis {
        key,
        min,
        max,
        nominal,
    };
    Some(Live {
        kind: "scenario",
        x: axis("B", forms.base_tokens, r.base_tokens),
        v: axis("rho", forms.bytes_per_token, r.bytes_per_token),
        calls: r.baseline.calls as f64,
        baseline: Form::from(&baseline),
        edits,
        grid,
        cost,
        tie_tolerance: TIE_TOLERANCE,
    })
}

/// The panel, hidden until the script shows it; without JavaScript a `<noscript>` note
/// says what it would do. `nominal_only` names the table's columns that stay at the
/// nominal point, with why.
pub(crate) fn panel(out: &mut dyn Write, live: &Live, nominal_only: &str) -> io::Result<()> {
    let history = live.kind == "history";
    writeln!(
        out,
        "<noscript><p class=\"note\">With JavaScript on, sliders here move {} and re-rank the edits live, from the closed forms embedded in this page. The figures below are at the nominal point.</p></noscript>",
        if history {
            "the factors on every session's B and ρ"
        } else {
            "B and ρ"
        }
    )?;
    writeln!(
        out,
        "<section id=\"live\" class=\"live\" hidden>\n<h3>Move the assumptions</h3>"
    )?;
    writeln!(
        out,
        "<p class=\"note\">{}{} Drag a slider, or open this page with a fragment such as <code>#{}={}&amp;{}={}</code>: the address then links to that point. The orange marks are the exact break-evens of edits next to each other in the current order: on the first slider at the current {}, on the second at the current {}.</p>",
        if history {
            "Every session's reread total is affine in its own B and 1/ρ, so with every session's B and ρ multiplied by the same factors the summed totals are affine in the factor on B and in 1 over the factor on ρ: this page recomputes the summed savings, percentages and ranks from those coefficients, exactly, in the browser."
        } else {
            "A reread total is affine in B and 1/ρ, so this page recomputes every saving, percentage and rank from the closed-form coefficients of each run, exactly, in the browser."
        },
        if live.grid.is_some() {
            " The runs without a closed form are ranked from the sweep's own figures instead (see below, marked ≈ between grid points)."
        } else {
            ""
        },
        live.x.key,
        if history {
            decimal(live.x.min)
        } else {
            format!("{}", live.x.min.round())
        },
        live.v.key,
        decimal(live.v.max),
        if history { "factor on ρ" } else { "ρ" },
        if history { "factor on B" } else { "B" },
    )?;
    for (id, label, min, max, nominal) in live.labels() {
        let axis = if id == "x" { &live.x } else { &live.v };
        // The sweep's grid points, as the browser's tick marks on the slider.
        let points = live
            .grid
            .as_ref()
            .map(|g| if id == "x" { &g.x } else { &g.v });
        let list = match points {
            Some(_) => format!(" list=\"live-{id}-grid\""),
            None => String::new(),
        };
        writeln!(
            out,
            "<div class=\"slider\"><label for=\"live-{id}\">{}</label><input type=\"range\" id=\"live-{id}\" min=\"{}\" max=\"{}\" step=\"any\" value=\"{}\"{list}><output id=\"live-{id}-value\" for=\"live-{id}\">{}</output>\n<div class=\"ends\"><span>{}</span><span>{}</span></div>\n<div class=\"ruler\" id=\"live-{id}-ruler\"></div></div>",
            escape(&label),
            axis.min,
            axis.max,
            axis.nominal,
            escape(&nominal),
            escape(&min),
            escape(&max)
        )?;
        if let Some(points) = points {
            write!(out, "<datalist id=\"live-{id}-grid\">")?;
            for p in points {
                write!(out, "<option value=\"{p}\"></option>")?;
            }
            writeln!(out, "</datalist>")?;
        }
    }
    writeln!(
        out,
        "<p><button type=\"button\" id=\"live-reset\">Back to the nominal point</button> <a id=\"live-link\">Link to this point</a> <span id=\"live-clamped\" class=\"note\"></span></p>\n<p class=\"now\" id=\"live-now\"></p>"
    )?;
    let names = |keep: &dyn Fn(&LiveEdit) -> bool| -> Vec<&str> {
        live.edits
            .iter()
            .filter(|e| keep(e))
            .map(|e| e.name.as_str())
            .collect()
    };
    let tokens_sampled = names(&|e| e.sampled.is_some());
    let cost_sampled = names(&|e| e.form.is_some() && e.cost_sampled.is_some());
    let base_cost_sampled = live
        .cost
        .as_ref()
        .is_some_and(|c| c.baseline_sampled.is_some());
    let mut interpolated = String::new();
    if let Some(grid) = &live.grid {
        let mut which = Vec::new();
        if !tokens_sampled.is_empty() {
            which.push(format!(
                "{} ({})",
                tokens_sampled.join(", "),
                if history {
                    "in some session a clearing or compaction moves with B or ρ, or a base edit removes more than the base somewhere in the sweep"
                } else {
                    "a clearing or compaction that moves with B or ρ"
                }
            ));
        }
        if !cost_sampled.is_empty() || base_cost_sampled {
            which.push(format!(
                "the cost of {}",
                if base_cost_sampled {
                    "every run".to_string()
                } else {
                    cost_sampled.join(", ")
                }
            ));
        }
        interpolated = format!(
            " No closed form for {}: these stay in the ranking at the sweep's own figures, exact at its {} grid points ({} × {}, the ticks on the sliders) and interpolated linearly in {} between them, marked ≈; outside the grid, the nearest grid point's.",
            which.join("; "),
            grid.x.len() * grid.v.len(),
            grid.x.len(),
            grid.v.len(),
            if history {
                "the factor on B and in 1 over the factor on ρ"
            } else {
                "B and 1/ρ"
            },
        );
    }
    let fixed = names(&|e| !e.ranked());
    let fixed = if fixed.is_empty() {
        String::new()
    } else {
        format!(
            " Sampled only, and not moved: {} (no closed form: {}; no samples of the sweep here); {} at the nominal point, greyed, below the others.",
            fixed.join(", "),
            if history {
                "in some session a clearing or compaction moves with B or ρ, or a base edit removes more than the base somewhere in the sweep"
            } else {
                "a clearing or compaction that moves with B or ρ"
            },
            if fixed.len() == 1 {
                "it stays"
            } else {
                "they stay"
            },
        )
    };
    writeln!(
        out,
        "<p class=\"note\" id=\"live-method\">Off the nominal point the table's rank, saved est. tokens, saved and equiv. calls are at the sliders' point; {}.{}{}</p>\n</section>",
        escape(nominal_only),
        escape(&interpolated),
        escape(&fixed)
    )
}

/// After the table: the break-evens of the edits next to each other in it, hidden until
/// the script fills them.
pub(crate) fn after_table(out: &mut dyn Write, live: &Live) -> io::Result<()> {
    let (x, v) = if live.kind == "history" {
        ("f_B", "f_ρ")
    } else {
        ("B", "ρ")
    };
    writeln!(
        out,
        "<div id=\"live-after\" class=\"live\" hidden>\n<p class=\"note\">Break-evens of the edits next to each other in the order above, at the sliders' {v}: where their savings are equal, {x}* = −(Δtokens + Δbytes/{v})/Δcalls and {v}* = −Δbytes/(Δcalls·{x} + Δtokens), from the same coefficients (Δ: the first edit's less the second's).</p>\n<ul id=\"live-break-evens\"></ul>\n</div>"
    )
}

/// The data block and the script, at the end of the body.
pub(crate) fn script(out: &mut dyn Write, live: &Live) -> io::Result<()> {
    let json = serde_json::to_string(live).map_err(io::Error::other)?;
    // `<` only occurs inside JSON strings, where `\u003c` reads the same: no edit name
    // can close the block.
    let json = json.replace('<', "\\u003c");
    writeln!(
        out,
        "<script type=\"application/json\" id=\"live-data\">{json}</script>\n<script>\n{SCRIPT}</script>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live() -> Live {
        Live {
            kind: "scenario",
            x: Axis::over("B", &[8_000.0, 48_000.0], 24_000.0),
            v: Axis::over("rho", &[3.0, 4.6], 3.8),
            calls: 3.0,
            baseline: Form {
                c: 3.0,
                k: 0.0,
                y: 1.0,
            },
            edits: vec![LiveEdit::new("</script><b>".into(), 0, None)],
            grid: None,
            cost: None,
            tie_tolerance: 1e-9,
        }
    }

    #[test]
    fn no_edit_name_can_close_the_data_block() {
        let mut page = Vec::new();
        script(&mut page, &live()).unwrap();
        let page = String::from_utf8(page).unwrap();
        let block = page.split("</script>").next().unwrap();
        assert!(block.contains("\\u003c/script>\\u003cb>"), "{block}");
        let data: serde_json::Value =
            serde_json::from_str(block.split_once('>').unwrap().1).unwrap();
        assert_eq!(data["edits"][0]["name"], "</script><b>");
        assert_eq!(data["x"]["min"], 8000.0);
    }

    #[test]
    fn the_panel_is_hidden_without_javascript_and_names_sampled_edits() {
        let mut page = Vec::new();
        panel(
            &mut page,
            &live(),
            "the cost columns stay at the nominal point",
        )
        .unwrap();
        let page = String::from_utf8(page).unwrap();
        assert!(page.contains("<section id=\"live\" class=\"live\" hidden>"));
        assert!(page.contains("<noscript>"));
        assert!(page.contains("min=\"8000\" max=\"48000\" step=\"any\" value=\"24000\""));
        assert!(page.contains("Sampled only, and not moved: &lt;/script&gt;&lt;b&gt;"));
        assert!(
            !page.contains("href="),
            "the panel links nowhere until the script runs"
        );
    }

    /// An edit without a closed form but with the sweep's figures is ranked, not greyed: the
    /// panel names it with why, and the sliders mark the grid points it is exact at.
    #[test]
    fn a_sampled_edit_is_named_and_the_grid_is_marked_on_the_sliders() {
        let mut live = live();
        live.edits[0].sampled = Some(vec![1.0, 2.0, 3.0, 4.0]);
        live.edits[0].nominal_saved = Some(2.5);
        live.grid = Some(LiveGrid {
            x: vec![8_000.0, 48_000.0],
            v: vec![3.0, 4.6],
        });
        let mut page = Vec::new();
        panel(&mut page, &live, "no cost columns").unwrap();
        let page = String::from_utf8(page).unwrap();
        assert!(
            page.contains("value=\"24000\" list=\"live-x-grid\">"),
            "{page}"
        );
        assert!(page.contains(
            "<datalist id=\"live-x-grid\"><option value=\"8000\"></option><option value=\"48000\"></option></datalist>"
        ));
        assert!(page.contains(
            "<datalist id=\"live-v-grid\"><option value=\"3\"></option><option value=\"4.6\"></option></datalist>"
        ));
        assert!(page.contains(
            "No closed form for &lt;/script&gt;&lt;b&gt; (a clearing or compaction that moves with B or ρ): these stay in the ranking at the sweep&#39;s own figures, exact at its 4 grid points (2 × 2, the ticks on the sliders)"
        ), "{page}");
        assert!(!page.contains("Sampled only, and not moved"));
        let mut data = Vec::new();
        script(&mut data, &live).unwrap();
        let data = String::from_utf8(data).unwrap();
        assert!(
            data.contains("\"sampled\":[1.0,2.0,3.0,4.0],\"nominal_saved\":2.5"),
            "{data}"
        );
        assert!(data.contains("\"grid\":{\"x\":[8000.0,48000.0],\"v\":[3.0,4.6]}"));
    }

    #[test]
    fn an_axis_spans_the_swept_values_and_the_nominal_point() {
        let a = Axis::over("B", &[20_000.0, 30_000.0], 50_000.0);
        assert_eq!((a.min, a.max, a.nominal), (20_000.0, 50_000.0, 50_000.0));
    }
}
