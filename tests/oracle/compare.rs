//! Figure-by-figure comparison of the binary's outputs (`--format json`, `ledger.csv`,
//! `sweep.csv`) with the oracle's, at a relative tolerance of 1e-9.

use serde_json::Value;
use std::collections::HashMap;

/// Relative tolerance; values far smaller than the case's scale (its baseline total) are
/// compared against that scale, so a 0 and a 1e-12 agree.
pub const TOLERANCE: f64 = 1e-9;

/// One figure on which the two disagree.
pub struct Diff {
    pub case: String,
    pub what: String,
    pub engine: String,
    pub oracle: String,
}

/// A CSV file's rows as maps from column to text.
pub type Rows = Vec<HashMap<String, String>>;

pub fn read_csv(path: &std::path::Path) -> Result<Rows, String> {
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| e.to_string())?;
        rows.push(
            headers
                .iter()
                .zip(record.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect(),
        );
    }
    Ok(rows)
}

struct Cmp<'a> {
    case: &'a str,
    scale: f64,
    diffs: Vec<Diff>,
}

impl Cmp<'_> {
    fn diff(&mut self, what: String, engine: String, oracle: String) {
        self.diffs.push(Diff {
            case: self.case.to_string(),
            what,
            engine,
            oracle,
        });
    }

    fn num(&mut self, what: impl Fn() -> String, engine: Option<f64>, oracle: Option<f64>) {
        match (engine, oracle) {
            (Some(a), Some(b)) => {
                let tol = TOLERANCE * a.abs().max(b.abs()).max(self.scale);
                if (a - b).abs() > tol {
                    self.diff(what(), format!("{a}"), format!("{b}"));
                }
            }
            (None, None) => {}
            (a, b) => self.diff(what(), format!("{a:?}"), format!("{b:?}")),
        }
    }

    fn text(&mut self, what: impl Fn() -> String, engine: &str, oracle: &str) {
        if engine != oracle {
            self.diff(what(), engine.to_string(), oracle.to_string());
        }
    }
}

fn f(v: &Value) -> Option<f64> {
    v.as_f64()
}

/// A CSV cell as a number, empty as missing.
fn cell(row: &HashMap<String, String>, key: &str) -> Option<f64> {
    row.get(key)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<f64>().unwrap_or(f64::NAN))
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Every disagreement between the binary's outputs and the oracle's on one case.
pub fn case(name: &str, json: &Value, ledger: &Rows, sweep: &Rows, oracle: &Value) -> Vec<Diff> {
    let runs = &oracle["runs"];
    let base = &runs["baseline"];
    let mut c = Cmp {
        case: name,
        scale: f(&base["total_tokens"]).unwrap_or(1.0).abs().max(1.0),
        diffs: Vec::new(),
    };
    // Totals.
    let b = &json["baseline"];
    for key in ["total_tokens", "cost", "dollars", "calls"] {
        c.num(|| format!("baseline {key}"), f(&b[key]), f(&base[key]));
    }
    let order: Vec<String> = ids(&oracle["order"]);
    let edits = json["edits"].as_array().cloned().unwrap_or_default();
    if edits.len() != order.len() {
        c.diff(
            "number of edits".into(),
            edits.len().to_string(),
            order.len().to_string(),
        );
    }
    for name in &order {
        let Some(e) = edits.iter().find(|e| e["name"].as_str() == Some(name)) else {
            c.diff(format!("edit {name}"), "missing".into(), "present".into());
            continue;
        };
        let o = &runs[name.as_str()];
        for key in ["total_tokens", "cost", "dollars", "calls"] {
            c.num(|| format!("edit {name} {key}"), f(&e[key]), f(&o[key]));
        }
        let saved = |run: &Value, k: &str| Some(f(&base[k])? - f(&run[k])?);
        c.num(
            || format!("edit {name} saved_tokens"),
            f(&e["saved_tokens"]),
            saved(o, "total_tokens"),
        );
        c.num(
            || format!("edit {name} cost_saved"),
            f(&e["cost_saved"]),
            saved(o, "cost"),
        );
        c.num(
            || format!("edit {name} dollars_saved"),
            f(&e["dollars_saved"]),
            saved(o, "dollars"),
        );
        events(&mut c, name, &e["events"], &o["events"]);
    }
    rows(&mut c, ledger, runs, &order);
    points(&mut c, sweep, &oracle["sweep"]);
    c.diffs
}

fn events(c: &mut Cmp, name: &str, engine: &Value, oracle: &Value) {
    let none = Vec::new();
    let e = engine.as_array().unwrap_or(&none);
    let o = oracle.as_array().unwrap_or(&none);
    if e.len() != o.len() {
        let show = |v: &[Value]| {
            v.iter()
                .map(|x| {
                    format!(
                        "before {} cleared {:?}",
                        x["before_call"],
                        ids(&x["cleared"])
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        c.diff(
            format!("edit {name}: number of events"),
            format!("{}: {}", e.len(), show(e)),
            format!("{}: {}", o.len(), show(o)),
        );
        return;
    }
    for (k, (a, b)) in e.iter().zip(o).enumerate() {
        c.num(
            || format!("edit {name} event {k} before_call"),
            f(&a["before_call"]),
            f(&b["before_call"]),
        );
        c.text(
            || format!("edit {name} event {k} cleared"),
            &ids(&a["cleared"]).join(" "),
            &ids(&b["cleared"]).join(" "),
        );
        c.num(
            || format!("edit {name} event {k} freed_tokens"),
            f(&a["freed_tokens"]),
            f(&b["freed_tokens"]),
        );
        c.text(
            || format!("edit {name} event {k} triggers"),
            &ids(&a["triggers"]).join(" "),
            &ids(&b["triggers"]).join(" "),
        );
    }
}

const NUMBERS: [&str; 7] = [
    "context_tokens",
    "cumulative_tokens",
    "cached_tokens",
    "written_tokens",
    "uncached_tokens",
    "cost",
    "output_tokens",
];

fn rows(c: &mut Cmp, ledger: &Rows, runs: &Value, order: &[String]) {
    let mut names = vec!["baseline".to_string()];
    names.extend(order.iter().cloned());
    for name in &names {
        let e: Vec<&HashMap<String, String>> = ledger
            .iter()
            .filter(|r| r.get("edit") == Some(name))
            .collect();
        let none = Vec::new();
        let o = runs[name.as_str()]["rows"].as_array().unwrap_or(&none);
        if e.len() != o.len() {
            c.diff(
                format!("ledger.csv {name}: rows"),
                e.len().to_string(),
                o.len().to_string(),
            );
            continue;
        }
        for (k, (a, b)) in e.iter().zip(o).enumerate() {
            let at = |col: &str| format!("ledger.csv {name} row {} ({col})", k + 1);
            c.num(|| at("call"), cell(a, "call"), f(&b["call"]));
            let get = |col: &str| a.get(col).cloned().unwrap_or_default();
            c.text(|| at("id"), &get("id"), b["id"].as_str().unwrap_or(""));
            c.text(
                || at("label"),
                &get("label"),
                b["label"].as_str().unwrap_or(""),
            );
            // A call given in tokens only shows 0 bytes; a compaction or search none.
            let bytes = f(&b["bytes"]).or(b["id"].as_str().map(|_| 0.0));
            c.num(|| at("bytes"), cell(a, "bytes"), bytes);
            c.text(
                || at("cleared"),
                &get("cleared"),
                &ids(&b["cleared"]).join(" "),
            );
            for col in NUMBERS {
                // Without [cache] the oracle has no cache columns (the binary writes 0).
                // Nor has the binary's ledger.csv cost columns for a run with neither a
                // cache nor output to price.
                if a.contains_key(col) && (!b[col].is_null() || col == "cost") {
                    c.num(|| at(col), cell(a, col), f(&b[col]));
                }
            }
        }
    }
}

fn points(c: &mut Cmp, sweep: &Rows, oracle: &Value) {
    let none = Vec::new();
    let o = oracle.as_array().unwrap_or(&none);
    if sweep.len() != o.len() {
        c.diff(
            "sweep.csv rows".into(),
            sweep.len().to_string(),
            o.len().to_string(),
        );
        return;
    }
    for (k, (a, b)) in sweep.iter().zip(o).enumerate() {
        let at = |col: &str| format!("sweep.csv row {} ({col})", k + 1);
        let get = |col: &str| a.get(col).cloned().unwrap_or_default();
        c.text(
            || at("edit"),
            &get("edit"),
            b["edit"].as_str().unwrap_or(""),
        );
        c.text(
            || at("nominal"),
            &get("nominal"),
            &b["nominal"].as_bool().unwrap_or(false).to_string(),
        );
        for col in [
            "base_tokens",
            "bytes_per_token",
            "cache_read",
            "retry_rate",
            "refetch",
            "total_tokens",
            "saved_tokens",
            "cost",
            "cost_saved",
        ] {
            // Without [cache] sweep.csv has no cost columns.
            if a.contains_key(col) {
                c.num(|| at(col), cell(a, col), f(&b[col]));
            }
        }
    }
}
