#!/usr/bin/env python3
"""Prices observation masking on mini-swe-agent runs, as docs/swe-bench.md reports it:
the runs as they happened, the simulated baseline, and each masking edit of
tools/swe_bench_edits.toml under the runs' fitted cache terms and under an ideal prefix
cache. Every figure is `simulate`'s; this script only runs it and adds up its output.

    python3 tools/swe_bench.py --simulate target/release/simulate \\
        --runs ../shared/swe-trajectories/trajs --out "$(mktemp -d)"

1. `simulate import mini-swe-agent RUNS... --out OUT/scenarios --fit`: a scenario per run,
   B, ρ, the per-call term and the cache terms (miss share, lifetime, warm prefix) fitted
   to its measured usage and written into it.
2. `simulate history OUT/scenarios --edits EDITS --format json`: every edit on every run.
3. The table. Input cost is the simulated cost less the output's (each call's
   `output_tokens` at the output price over the input price, which masking does not
   change); an edit under the ideal cache is set against the baseline under the same
   ideal cache (the edit "ideal cache"), the others against the baseline. Percentiles are
   nearest-rank over the runs, as `simulate history` gives them.

--runs takes folders (searched for *.traj.json) or files. Python 3.11 or later (tomllib).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
EDITS = os.path.join(HERE, "swe_bench_edits.toml")
IDEAL = "ideal cache"
IDEAL_PREFIX = IDEAL + ", "


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def nearest_rank(values, p):
    """The nearest-rank p-th percentile (p in 0..100) of `values`."""
    xs = sorted(values)
    k = max(1, math.ceil(p / 100 * len(xs)))
    return xs[k - 1]


def measured_and_output(path):
    """(prompt tokens, cached tokens, measured dollars, output tokens) of one scenario."""
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    prompt = cached = dollars = output = 0.0
    for call in doc.get("call", []):
        m = call.get("measured", {})
        prompt += m.get("input_tokens", 0)
        cached += m.get("cache_read_input_tokens", 0)
        dollars += m.get("cost_usd", 0.0)
        output += call.get("output_tokens", 0)
    return prompt, cached, dollars, output


def pct(x):
    return f"{x:+.1f} %"


def usd(x):
    return f"{'+' if x >= 0 else '−'}${abs(x):,.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--simulate", required=True)
    ap.add_argument("--runs", required=True, nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--edits", default=EDITS)
    ap.add_argument("--no-fit", action="store_true",
                    help="import without --fit: B the first prompt, ρ assumed, no fitted cache terms")
    ap.add_argument("--input-price", type=float, default=2.0,
                    help="USD per million uncached input tokens, for the measured usage at list price")
    ap.add_argument("--read-price", type=float, default=0.2,
                    help="USD per million cached input tokens, for the measured usage at list price")
    ap.add_argument("--output-ratio", type=float, default=None,
                    help="an output token's price in input tokens (default: the first run's [price], output over input)")
    a = ap.parse_args()
    scenarios = os.path.join(a.out, "scenarios")
    run([a.simulate, "import", "mini-swe-agent", *a.runs, "--out", scenarios,
         *([] if a.no_fit else ["--fit"]), "--format", "json"])
    history = json.loads(run([a.simulate, "history", scenarios, "--edits", a.edits,
                              "--out", a.out, "--name", "swe-bench", "--no-charts",
                              "--format", "json"]))
    with open(a.edits, "rb") as f:
        names = [e["name"] for e in tomllib.load(f)["edit"]]
    ratio = a.output_ratio
    if ratio is None:
        first = os.path.join(scenarios, history["sessions"][0]["file"])
        report = json.loads(run([a.simulate, first, "--format", "json", "--out", "-"]))
        ratio = report["price"]["output"] / report["price"]["input"]
    sessions = history["sessions"]
    n = len(sessions)
    calls = sum(s["calls"] for s in sessions)
    m_prompt = m_cached = m_dollars = 0.0
    # Per run: simulated prompt tokens, input cost (input-token eq.), $ per input-token eq.
    base_tokens, base_input, per_unit = [], [], []
    edit_cost = {name: [] for name in names}
    edit_tokens = {name: [] for name in names}
    for s in sessions:
        prompt, cached, dollars, output = measured_and_output(os.path.join(scenarios, s["file"]))
        m_prompt += prompt
        m_cached += cached
        m_dollars += dollars
        out_cost = ratio * output
        base_tokens.append(s["baseline_total_tokens"])
        base_input.append(s["baseline_cost"] - out_cost)
        per_unit.append(s["baseline_dollars"] / s["baseline_cost"])
        # A session's edits come in the edits file's order.
        if len(s["edits"]) != len(names):
            sys.exit(f"{s['name']}: {len(s['edits'])} edits in the history, {len(names)} in {a.edits}")
        by_name = dict(zip(names, s["edits"]))
        for name in names:
            e = by_name[name]
            edit_cost[name].append(s["baseline_cost"] - e["cost_saved"] - out_cost)
            edit_tokens[name].append(e["total_tokens"])
    if max(per_unit) - min(per_unit) > 1e-12 * max(per_unit):
        sys.exit("the runs are not all at one input price: this table assumes they are")
    fitted = sum(1 for s in sessions if "fitted" in s["sources"]["base_tokens"])
    sim_input_usd = sum(c * u for c, u in zip(base_input, per_unit))
    list_usd = ((m_prompt - m_cached) * a.input_price + m_cached * a.read_price) / 1e6
    ideal_input = edit_cost[IDEAL]
    ideal_usd = sum(c * u for c, u in zip(ideal_input, per_unit))
    terms = "preset" if a.no_fit else "fitted"
    print(f"{n} runs, {calls:,} calls; B and ρ fitted in {fitted}")
    print()
    print("| | prompt tokens | cache reads | input cost |")
    print("|---|---|---|---|")
    print(f"| measured (as they happened; $ output included: ${m_dollars:,.2f}) | {m_prompt/1e6:,.1f} M | {100*m_cached/m_prompt:.1f} % | ${list_usd:,.2f} at list price |")
    print(f"| simulated baseline, {terms} cache terms | {sum(base_tokens)/1e6:,.1f} M | | ${sim_input_usd:,.2f} |")
    print(f"| simulated baseline, ideal prefix cache | {sum(base_tokens)/1e6:,.1f} M | | ${ideal_usd:,.2f} |")
    print()
    print("| masking | cache | prompt tokens | input cost | input cost, $ | input cost per run: median [p10, p90] |")
    print("|---|---|---|---|---|---|")
    for name in names:
        if name == IDEAL:
            continue
        ideal = name.startswith(IDEAL_PREFIX)
        against = ideal_input if ideal else base_input
        cost = edit_cost[name]
        tokens = edit_tokens[name]
        d_tokens = 100 * (sum(tokens) / sum(base_tokens) - 1)
        d_cost = 100 * (sum(cost) / sum(against) - 1)
        d_usd = sum((c - b) * u for c, b, u in zip(cost, against, per_unit))
        runs = [100 * (c / b - 1) for c, b in zip(cost, against)]
        label = name[len(IDEAL_PREFIX):] if ideal else name
        print(f"| {label} | {'ideal' if ideal else terms} | {pct(d_tokens)} | {pct(d_cost)} | {usd(d_usd)} | "
              f"{pct(nearest_rank(runs, 50))} [{pct(nearest_rank(runs, 10))}, {pct(nearest_rank(runs, 90))}] |")


if __name__ == "__main__":
    main()
