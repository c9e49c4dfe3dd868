#!/usr/bin/env python3
"""An independent implementation of ../shared/MODEL.md §1–§5, §9 and §11, for tests/oracle.rs.

Written from MODEL.md alone (docs/model.md where MODEL.md is silent), without reading the
Rust engine, so that the two can be compared figure by figure on random scenarios.

Usage: oracle.py SCENARIO.toml...  prints one JSON object: {path: result}, where result is
{"runs": {"baseline": RUN, "<edit>": RUN, ...}, "order": [edit names], "sweep": [POINT]}.
A RUN is the nominal point's {total_tokens, cost, dollars, calls, rows, events}; its rows
are the ledger's requests (as ledger.csv), its events the clearings and compactions.
Standard library only (Python 3.11+: tomllib).

What it covers (the keys it reads; anything else is refused, so a test cannot silently
compare a scenario the oracle does not understand):
- the scenario: name, base_tokens, bytes_per_token, retry_rate, [behaviour] refetch,
  [sweep] (base_tokens, bytes_per_token, cache_read, retry_rate, refetch), [cache] (read, write, ttl_s, min_tokens,
  output, miss_share, warm_share), [import] trace, [price] (input, output, source, or a model of the table below), [[base.part]] (name, tokens, source, tools);
- calls: id, label, bytes, tokens, kind, tool, input_hash, pinned, segment, gap_s,
  output_tokens, [call.measured] (its model prices the call, §4; its convention is the
  provider a cache step's `providers` compares);
- edits: trim, merge, drop, move (by id), clear (§3, and api = "clear_tool_uses_20250919"
  as MODEL §9 describes it: stateless), compact (above_context_tokens or at_percent of
  window_tokens, summary_tokens, keep_calls), at = "cold" in clear and compact
  (docs/model.md §9), base (by_tokens, by_bytes, to_tokens, drop,
  defer + stub_tokens), cache (ttl_s, write, read, min_tokens, traces, avoid, only_longer,
  providers), model (to,
  tokens_factor), and steps of them.

Where MODEL.md is silent, the oracle follows docs/model.md or, failing that, the binary's
outputs' shape, each said here so a reader can check the choice:
- a request at another model than the previous one finds nothing cached (MODEL §12's
  `model` break; a cache is per model);
- a compaction or tool-search request takes the pause before the call it precedes, and the
  call follows at once (docs/model.md §9, for the tool search);
- a compaction that would summarize nothing but the kept calls does not run (as §3 runs no
  clearing that clears nothing); docs/model.md's "some call before it is not yet
  summarized" leaves it open;
- retries of a request under the cache's minimum cost 1 per token (docs/model.md §4);
- a model edit: the target's 1-hour write price where the run's TTL is 3,600 s, its input
  price over the scenario's [price] input (1 without [price]) (docs/model.md §9);
- the miss share μ prices every token a cache reads, the warm read of a cold request and
  a retry's re-sent tokens too
  (docs/model.md §4: "a token the cache would read"); a model switch reads no warm prefix
  (§4 names the first request and those after a pause as cold); μ and w stay under an edit's
  `cache` step and a `model` edit ("they describe the client and the provider");
- a merged call keeps the tool of the call at its position, as its kind and segment;
- swept lists are taken in ascending order (the binary's grid order);
- MODEL §11's re-fetches (every ⌈1/p⌉-th removed result, in the order removed, fetched by
  one added request right after the call that follows its removal): removed results are
  those of the clearing and compaction events, in event order, leaving out calls with no
  result and user prompts (kind `prompt`); the edit's own schedule is made without the
  re-fetches (they move no trigger and are not cleared again); a compaction summarises every
  re-fetched result before it; the added request takes the pause before the call it
  precedes and reads what that call would, after any clearing or compaction there; a
  removal before the last call is fetched after it, one after the last call never; 1/p
  within 1e-9 of a whole number is that number; the default swept rates are 0, 0.1, 0.25
  and 0.5 (with the nominal one) where an edit clears or compacts;
- `at = "cold"` (docs/model.md §9): a call is cold where its own pause (as it stands in the
  edited run) exceeds the scenario's `[cache] ttl_s`, 300 s without a cache; a clearing's
  triggers that fire before a call that is not cold stay armed, and the clearing is made at
  the next cold call with the keep rules as they stand there, its triggers every one that
  fired since the last clearing, in the order of TRIGGERS (as the binary lists them); one that clears nothing, or too little,
  leaves them armed (as §3 says of any clearing);
- the API's context editing (stateless) is reported as the binary reports it: an event where
  a request's edit clears results the previous request's did not (those ids), with all the
  request frees; ledger.csv's `cleared` names those ids.
"""

import fnmatch
import json
import math
import sys
import tomllib

# Per-model prices, USD per million tokens, from the project's price data
# (src/cache/litellm.json, LiteLLM's snapshot: input_cost_per_token, output_cost_per_token,
# cache_read_input_token_cost, cache_creation_input_token_cost (and _above_1hr),
# prompt_cache_min_tokens), and the 5-minute TTL Anthropic gives (src/cache/overlay.toml).
# Only these models may be named by a random case.
MODELS = {
    "claude-sonnet-4-5": dict(input=3.0, output=15.0, read=0.3, write=3.75, write_1h=6.0, min_tokens=1024),
    "claude-opus-4-5": dict(input=5.0, output=25.0, read=0.5, write=6.25, write_1h=10.0, min_tokens=4096),
    "claude-haiku-4-5": dict(input=1.0, output=5.0, read=0.1, write=1.25, write_1h=2.0, min_tokens=4096),
}

PLACEHOLDER_BYTES = 9.0


class Refused(Exception):
    """A key or shape this oracle does not implement."""


def only(table, keys, where):
    extra = set(table) - set(keys)
    if extra:
        raise Refused(f"{where}: keys the oracle does not implement: {sorted(extra)}")


# ---------------------------------------------------------------------------- the file


def load(path):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    only(doc, ["name", "description", "base_tokens", "bytes_per_token", "retry_rate", "sweep",
               "cache", "price", "base", "call", "edit", "behaviour", "import"], "scenario")
    imported = doc.get("import", {})
    only(imported, ["format", "file", "trace"], "[import]")
    # docs/model.md §9 (`traces`): a scenario's kind is its `[import] trace`; main for
    # `main`, `after-compaction` and a scenario not written by an importer.
    trace = imported.get("trace", "main")
    if trace not in ("main", "subagent", "after-compaction"):
        raise Refused(f"[import] trace = {trace!r}")
    behaviour = doc.get("behaviour", {})
    only(behaviour, ["refetch"], "[behaviour]")
    sc = {
        "B": float(doc["base_tokens"]),
        "rho": float(doc["bytes_per_token"]),
        "retry": float(doc.get("retry_rate", 0.0)),
        "refetch": float(behaviour.get("refetch", 0.0)),
        "sweep": doc.get("sweep"),
        "cache": None,
        "price": None,
        "parts": {},
        "trace": trace,
    }
    if "cache" in doc:
        c = doc["cache"]
        only(c, ["read", "write", "ttl_s", "min_tokens", "output", "miss_share", "warm_share",
                 "ttl_s_source", "miss_share_source", "warm_share_source"], "[cache]")
        # μ and w (docs/model.md §4): a token the cache would read is priced
        # (1 − μ)·read + μ·write; a cold request reads w·B.
        sc["cache"] = {"read": float(c["read"]), "write": float(c["write"]),
                       "ttl": float(c["ttl_s"]), "min": float(c["min_tokens"]),
                       "miss": float(c.get("miss_share", 0.0)),
                       "warm": float(c.get("warm_share", 0.0))}
        sc["cache_output"] = float(c["output"]) if "output" in c else None
    else:
        sc["cache_output"] = None
    if "price" in doc:
        p = doc["price"]
        only(p, ["input", "output", "source", "model"], "[price]")
        if "model" in p:
            m = MODELS[p["model"]]
            sc["price"] = {"input": m["input"], "output": m["output"]}
        else:
            sc["price"] = {"input": float(p["input"]),
                           "output": float(p["output"]) if "output" in p else None}
    for part in doc.get("base", {}).get("part", []):
        only(part, ["name", "tokens", "source", "tools"], "[[base.part]]")
        sc["parts"][part["name"]] = {"tokens": float(part["tokens"]), "tools": part.get("tools", [])}
    calls = []
    segment = 1
    for c in doc.get("call", []):
        only(c, ["id", "label", "bytes", "tokens", "kind", "tool", "input_hash", "pinned",
                 "segment", "gap_s", "output_tokens", "measured"], "[[call]]")
        cid = c.get("id", c.get("label"))
        kind = c.get("kind", "tool")
        segment = c.get("segment", segment)
        measured = c.get("measured", {})
        calls.append({
            "id": cid,
            "label": c.get("label", cid),
            "bytes": float(c["bytes"]) if "bytes" in c else None,
            "tokens": float(c["tokens"]) if "tokens" in c else None,
            "kind": kind,
            "tool": c.get("tool"),
            "pinned": c.get("pinned", kind == "web_search"),
            "segment": segment,
            "gap": float(c.get("gap_s", 0.0)),
            "out": float(c.get("output_tokens", 0.0)),
            "model": measured.get("model"),
            "convention": measured.get("convention"),
        })
    sc["calls"] = calls
    sc["edits"] = []
    for e in doc.get("edit", []):
        name = e["name"]
        steps = e["steps"] if "steps" in e else [{k: v for k, v in e.items() if k != "name"}]
        sc["edits"].append((name, steps))
    return sc


# ---------------------------------------------------------------------------- the edits


def index_of(calls, cid):
    for i, c in enumerate(calls):
        if c["id"] == cid:
            return i
    raise Refused(f"no call {cid!r}")


def cold_only(a, where):
    if a.get("at", "cold") != "cold":
        raise Refused(f"{where}.at = {a['at']!r}")


def lifetime(sc):
    """The cache lifetime `at = "cold"` waits for (docs/model.md §9): the scenario's own
    `[cache] ttl_s`, 300 s without a cache; never an edit's `cache` step's."""
    return sc["cache"]["ttl"] if sc["cache"] else 300.0


# The classes μ prices together: the misses within the lifetime (docs/model.md §9, avoid).
WITHIN_LIFETIME = {"edit", "tools", "resume", "provider", "unexplained"}


def avoid(sc, run, classes):
    """`cache = { avoid = [...] }` (docs/model.md §9): the run priced as if breaks of those
    classes had not happened. `ttl`: the prefix never expires (10⁹ s); `cold` on a trace
    that starts a session or subagent, `compaction` on one that starts after a compaction:
    warm_share = 1; any class μ prices: μ = 0; `model` is refused (by the binary too)."""
    for name in classes:
        if name == "ttl":
            run["cache_edit"]["ttl"] = 1e9
        elif name == "cold":
            if sc["trace"] != "after-compaction":
                run["cache_edit"]["warm"] = 1.0
        elif name == "compaction":
            if sc["trace"] == "after-compaction":
                run["cache_edit"]["warm"] = 1.0
        elif name in WITHIN_LIFETIME:
            run["cache_edit"]["miss"] = 0.0
        else:
            raise Refused(f"avoid {name!r}")


def takes_provider(sc, a):
    """`providers = [...]` (docs/model.md §9): a run whose calls say they ran on a provider
    the list leaves out (a measured call's `convention`) is left unchanged; a run whose
    calls say nothing takes the step."""
    if "providers" not in a:
        return True
    said = {c["convention"] for c in sc["calls"] if c["convention"] is not None}
    return all(p in a["providers"] for p in said)


def lives_longer(sc, run, a):
    """`only_longer = true` (docs/model.md §9): the run's cache (its [cache] ttl_s, or what an
    earlier step set) already lives the step's ttl_s or longer: the step leaves it, every
    term unchanged."""
    if not a.get("only_longer", False) or not sc["cache"]:
        return False
    current = run["cache_edit"].get("ttl", sc["cache"]["ttl"])
    return current >= float(a["ttl_s"])


def apply_steps(sc, steps):
    """The run an edit describes: its calls, base operations, policy and pricing."""
    run = {
        "calls": [dict(c) for c in sc["calls"]],
        "base_ops": [],
        "defer": None,
        "policy": None,
        "cache_edit": {},
        "model": None,
        "factor": 1.0,
        "dropped_parts": [],
    }
    for step in steps:
        if len(step) != 1:
            raise Refused(f"a step with {sorted(step)}")
        (action, a), = step.items()
        calls = run["calls"]
        if action == "trim":
            only(a, ["call", "by_bytes", "to_bytes", "by_percent"], "trim")
            c = calls[index_of(calls, a["call"])]
            if "by_bytes" in a:
                c["bytes"] = c["bytes"] - a["by_bytes"]
            elif "to_bytes" in a:
                c["bytes"] = float(a["to_bytes"])
            else:
                k = 1.0 - a["by_percent"] / 100.0
                if c["bytes"] is not None:
                    c["bytes"] *= k
                if c["tokens"] is not None:
                    c["tokens"] *= k
        elif action == "merge":
            only(a, ["calls", "overhead_bytes", "at"], "merge")
            idx = sorted(index_of(calls, cid) for cid in a["calls"])
            members = [calls[i] for i in idx]
            at = idx[0] if a.get("at", "first") == "first" else idx[-1]
            merged = dict(calls[at])
            overhead = float(a.get("overhead_bytes", 0))
            has_bytes = any(m["bytes"] is not None for m in members) or overhead > 0
            merged["bytes"] = (sum(m["bytes"] or 0.0 for m in members) + overhead) if has_bytes else None
            has_tokens = any(m["tokens"] is not None for m in members)
            merged["tokens"] = sum(m["tokens"] or 0.0 for m in members) if has_tokens else None
            merged["out"] = sum(m["out"] for m in members)
            merged["label"] = "+".join(m["label"] for m in members)
            new = []
            for i, c in enumerate(calls):
                if i == at:
                    new.append(merged)
                elif i not in idx:
                    new.append(c)
            run["calls"] = new
        elif action == "drop":
            only(a, ["call"], "drop")
            del calls[index_of(calls, a["call"])]
        elif action == "move":
            only(a, ["call", "before", "after"], "move")
            c = calls.pop(index_of(calls, a["call"]))
            if "before" in a:
                calls.insert(index_of(calls, a["before"]), c)
            else:
                calls.insert(index_of(calls, a["after"]) + 1, c)
        elif action == "clear":
            if a.get("api") == "clear_tool_uses_20250919":
                only(a, ["api", "trigger_input_tokens", "keep_tool_uses", "clear_at_least_tokens",
                         "exclude_tools", "placeholder_bytes"], "clear api")
                run["policy"] = ("api", a)
            else:
                only(a, ["every_segments", "every_calls", "above_tool_bytes", "above_context_tokens",
                         "older_than_calls", "after_gap_s", "keep_segments", "keep_results",
                         "clear_at_least_tokens", "placeholder_bytes", "exclude_kinds", "tools",
                         "exclude_tools", "at"], "clear")
                cold_only(a, "clear")
                run["policy"] = ("clear", a)
        elif action == "compact":
            only(a, ["above_context_tokens", "at_percent", "window_tokens", "summary_tokens",
                     "keep_calls", "at"], "compact")
            cold_only(a, "compact")
            run["policy"] = ("compact", a)
        elif action == "base":
            only(a, ["by_tokens", "by_bytes", "to_tokens", "drop", "defer", "stub_tokens"], "base")
            if "by_tokens" in a:
                run["base_ops"].append(("by_tokens", float(a["by_tokens"])))
            elif "by_bytes" in a:
                run["base_ops"].append(("by_bytes", float(a["by_bytes"])))
            elif "to_tokens" in a:
                run["base_ops"].append(("to_tokens", float(a["to_tokens"])))
            elif "drop" in a:
                part = sc["parts"][a["drop"]]
                run["base_ops"].append(("by_tokens", part["tokens"]))
            else:
                part = sc["parts"][a["defer"]]
                stub = float(a["stub_tokens"])
                run["base_ops"].append(("by_tokens", part["tokens"] - stub))
                run["defer"] = (a["defer"], part["tokens"], part["tools"])
        elif action == "cache":
            only(a, ["ttl_s", "write", "read", "min_tokens", "traces", "avoid", "only_longer",
                     "providers"], "cache")
            kind = "subagent" if sc["trace"] == "subagent" else "main"
            if (kind in a.get("traces", ["main", "subagent"]) and takes_provider(sc, a)
                    and not lives_longer(sc, run, a)):
                for key, name in [("ttl_s", "ttl"), ("write", "write"), ("read", "read"),
                                  ("min_tokens", "min")]:
                    if key in a:
                        run["cache_edit"][name] = float(a[key])
                avoid(sc, run, a.get("avoid", []))
        elif action == "model":
            only(a, ["to", "tokens_factor"], "model")
            if a["to"] not in MODELS:
                raise Refused(f"model {a['to']!r} not in the oracle's table")
            run["model"] = a["to"]
            run["factor"] = float(a.get("tokens_factor", 1.0))
        else:
            raise Refused(f"edit action {action!r}")
    return run


# ---------------------------------------------------------------------------- pricing


def run_terms(sc, run, cache_read):
    """The run's own cache terms and output ratio, and the models that price its calls.

    Returns (terms_of(model_name_or_None) -> dict, scenario_input_price or None)."""
    scn_input = sc["price"]["input"] if sc["price"] else None
    if sc["price"] and sc["price"]["output"] is not None:
        scn_ratio = sc["price"]["output"] / sc["price"]["input"]
    else:
        scn_ratio = sc["cache_output"]
    scn_cache = None
    if sc["cache"]:
        scn_cache = dict(sc["cache"])
        scn_cache["read"] = cache_read
        for k, v in run["cache_edit"].items():
            scn_cache[k] = v

    def terms(model):
        """Terms of a call at `model` (None: the scenario's own)."""
        name = run["model"] or model
        if name is None:
            return {"cache": scn_cache, "ratio": scn_ratio, "scale": 1.0, "input": scn_input,
                    "model": None}
        m = MODELS[name]
        cache = None
        if sc["cache"]:
            ttl = scn_cache["ttl"]
            write = m["write_1h"] if ttl == 3600 else m["write"]
            cache = {"read": m["read"] / m["input"], "write": write / m["input"], "ttl": ttl,
                     "min": m["min_tokens"], "miss": scn_cache["miss"],
                     "warm": scn_cache["warm"]}
        scale = m["input"] / scn_input if scn_input else 1.0
        return {"cache": cache, "ratio": m["output"] / m["input"], "scale": scale,
                "input": m["input"], "model": name}

    return terms, scn_input


# ---------------------------------------------------------------------------- the walk


def walk(sc, run, B, rho, cache_read, retry, refetch=0.0):
    f = run["factor"]
    rho_e = rho / f
    base = B
    for op, n in run["base_ops"]:
        if op == "by_tokens":
            base -= n
        elif op == "by_bytes":
            base -= n / rho_e
        else:
            base = n
    calls = run["calls"]
    n = len(calls)
    res = [(c["tokens"] or 0.0) + (c["bytes"] or 0.0) / rho_e for c in calls]
    size = [res[q] + calls[q]["out"] for q in range(n)]

    search_at = None
    part_tokens = 0.0
    if run["defer"]:
        _, part_tokens, globs = run["defer"]
        for q, c in enumerate(calls):
            if c["tool"] is not None and any(fnmatch.fnmatchcase(c["tool"], g) for g in globs):
                search_at = q
                break

    requests = []  # dict(kind, pos, blocks, gap, out, model, cleared)
    events = []

    def blocks_for(p, cleared, ph, first=0, head=()):
        """Request of call p: base, then what stands of calls first..p-1."""
        bl = [("base", base)] + list(head)
        for q in range(first, p):
            if search_at is not None and q == search_at:
                bl.append((("part",), part_tokens))
            if q in cleared:
                bl.append((("r", q, "ph"), ph + calls[q]["out"]))
            else:
                bl.append((("r", q, "o"), size[q]))
        return bl

    def add(kind, p, blocks, gap, out, cleared_ids):
        requests.append({"kind": kind, "pos": p, "blocks": blocks, "gap": gap, "out": out,
                         "model": calls[p]["model"], "cleared": cleared_ids})

    def add_call(p, blocks, cleared_ids):
        gap = calls[p]["gap"]
        if search_at is not None and p == search_at:
            add("search", p, blocks, gap, 0.0, [])
            gap = 0.0
            blocks = blocks + [(("part",), part_tokens)]
        add("call", p, blocks, gap, calls[p]["out"], cleared_ids)

    policy = run["policy"]
    if policy is None:
        for p in range(n):
            add_call(p, blocks_for(p, set(), 0.0), [])
    elif policy[0] == "clear":
        walk_clear(policy[1], calls, res, rho_e, blocks_for, add_call, events, lifetime(sc))
    elif policy[0] == "api":
        a = policy[1]
        trigger = float(a.get("trigger_input_tokens", 100000))
        keep = int(a.get("keep_tool_uses", 3))
        at_least = float(a.get("clear_at_least_tokens", 0))
        excluded = a.get("exclude_tools", [])
        ph = float(a.get("placeholder_bytes", PLACEHOLDER_BYTES)) / rho_e
        # Each request is edited on its own; the edited sets only grow (the unedited
        # context grows, and so do the results over the kept ones and what they free).
        # As the binary reports it, an event is a request whose edit clears a result the
        # previous request's did not: those results, and what the request frees in all.
        before = set()
        for p in range(n):
            unedited = sum(t for _, t in blocks_for(p, set(), ph))
            cleared = set()
            if p >= 1 and unedited > trigger:
                cand = [q for q in range(p)
                        if calls[q]["kind"] == "tool" and not calls[q]["pinned"]
                        and calls[q]["tool"] not in excluded and res[q] > 0]
                kept = set(cand[max(0, len(cand) - keep):]) if keep > 0 else set()
                to_clear = [q for q in cand if q not in kept]
                freed = sum(res[q] - ph for q in to_clear)
                if to_clear and freed >= at_least:
                    cleared = set(to_clear)
                    new = [calls[q]["id"] for q in to_clear if q not in before]
                    if new:
                        events.append({"before_call": p + 1, "cleared": new,
                                       "freed_tokens": freed,
                                       "triggers": ["trigger_input_tokens"]})
            new = [calls[q]["id"] for q in sorted(cleared) if q not in before]
            before = cleared
            add_call(p, blocks_for(p, cleared, ph), new)
    elif policy[0] == "compact":
        a = policy[1]
        if "above_context_tokens" in a:
            trigger = float(a["above_context_tokens"])
        else:
            trigger = float(a["at_percent"]) / 100.0 * float(a["window_tokens"])
        S = float(a["summary_tokens"])
        keep = int(a.get("keep_calls", 0))
        cut = 0  # calls before `cut` are summarized
        summary = None  # (key, tokens) of the standing summary
        # docs/model.md §9, `at = "cold"`: a trigger that fires acts only before a call
        # whose pause exceeds the scenario's cache lifetime; until then it stays armed.
        cold_at = lifetime(sc) if a.get("at") == "cold" else None
        armed = False
        for p in range(n):
            head = [summary] if summary else []
            bl = blocks_for(p, set(), 0.0, first=cut, head=head)
            ctx = sum(t for _, t in bl)
            # MODEL §9 and docs/model.md §9 ("some call before it is not yet summarized")
            # leave open a compaction that would summarize nothing but the kept calls; the
            # binary runs none then, as §3 runs no clearing that clears nothing.
            fires = p >= 1 and ctx > trigger and cut < p - keep
            armed = armed or fires
            acts = fires if cold_at is None else (
                armed and p >= 1 and cut < p - keep and calls[p]["gap"] > cold_at)
            if acts:
                armed = False
                gap = calls[p]["gap"]
                requests.append({"kind": "compaction", "pos": p, "blocks": bl, "gap": gap,
                                 "out": S, "model": calls[p]["model"], "cleared": []})
                new_cut = p - keep
                gone = list(range(cut, new_cut))
                freed = (summary[1] if summary else 0.0) + sum(size[q] for q in gone) - S
                events.append({"before_call": p + 1, "cleared": [calls[q]["id"] for q in gone],
                               "freed_tokens": freed, "triggers": ["compact"]})
                cut = new_cut
                summary = (("summary", p), S)
                bl = blocks_for(p, set(), 0.0, first=cut, head=[summary])
                requests.append({"kind": "call", "pos": p, "blocks": bl, "gap": 0.0,
                                 "out": calls[p]["out"], "model": calls[p]["model"],
                                 "cleared": [calls[q]["id"] for q in gone]})
            else:
                add_call(p, bl, [])
    requests = with_refetches(requests, events, calls, res, size, refetch, search_at)
    return price(sc, run, calls, requests, events, cache_read, retry, policy)


def every(p):
    """⌈1/p⌉, with 1/p within 1e-9 of a whole number taken as it (MODEL §11)."""
    x = 1.0 / p
    k = round(x) if abs(x - round(x)) < 1e-9 else math.ceil(x)
    return max(1, int(k))


def with_refetches(requests, events, calls, res, size, p, search_at):
    """The requests with MODEL §11's re-fetches at rate p added; `search_at` is where a
    deferred part's tool search runs (None without)."""
    n = len(calls)
    if p <= 0.0 or not events:
        return requests
    pos = {c["id"]: q for q, c in enumerate(calls)}
    removed = []  # (the call that follows the removal, the removed call)
    for e in events:
        for cid in e["cleared"]:
            q = pos[cid]
            if res[q] > 0 and calls[q]["kind"] != "prompt":
                removed.append((e["before_call"] - 1, q))
    k = every(p)
    fetched = [r for r in removed[k - 1::k] if r[0] < n]
    if not fetched:
        return requests
    after = {}  # call position -> [(key, tokens, removed call)], fetched right after it
    for j, (a, q) in enumerate(fetched):
        after.setdefault(a, []).append((("refetch", j), res[q], q))
    standing = []  # (after which result, key, tokens): re-fetched results in the context

    def slot(key):
        """Where a block stands in a request: the base, a summary, result q, the part a tool
        search loads (just before the result of the call it precedes, after any re-fetch
        right after the call before), a re-fetch right after call a."""
        if not isinstance(key, tuple):
            return -2.0
        if key[0] == "summary":
            return -1.0
        if key[0] == "r":
            return float(key[1])
        if key[0] == "part":
            return search_at - 0.25
        return after_of[key] + 0.5

    after_of = {}

    def with_blocks(blocks):
        """`blocks` with the standing re-fetched results, each right after call a's result
        (or where it stood, if summarised), after earlier re-fetches there."""
        bl = list(blocks)
        for a, key, tok in standing:
            after_of[key] = a
            at = next((i for i, (bk, _) in enumerate(bl) if slot(bk) > a + 0.5), len(bl))
            bl.insert(at, (key, tok))
        return bl

    def refetch_request(p_, blocks, gap, model, q, cleared):
        return {"kind": "refetch", "pos": p_, "blocks": blocks, "gap": gap, "out": 0.0,
                "model": model, "cleared": cleared, "fetched": q}

    out = []
    pending = []  # fetched right after the last call request seen
    last_call = None
    for r in requests:
        if r["kind"] == "compaction":
            out.append(dict(r, blocks=with_blocks(r["blocks"])))
            standing.clear()  # the compaction summarises them with the rest
            continue
        if pending:
            # Each reads what this request would; the pause before it is theirs, and a
            # clearing's ids go on the first request after it (as ledger.csv shows them).
            gap, cleared = r["gap"], r["cleared"]
            for key, tok, q in pending:
                out.append(refetch_request(r["pos"], with_blocks(r["blocks"]), gap, r["model"],
                                           q, cleared))
                gap, cleared = 0.0, []
                standing.append((r["pos"] - 1, key, tok))
            pending = []
            r = dict(r, gap=0.0, cleared=[])
        out.append(dict(r, blocks=with_blocks(r["blocks"])))
        if r["kind"] == "call":
            pending = after.get(r["pos"], [])
            last_call = r
    # Re-fetches after the last call: at once, reading everything it read and its result.
    for key, tok, q in pending:
        blocks = with_blocks(last_call["blocks"] + [(("r", n - 1, "o"), size[n - 1])])
        out.append(refetch_request(n - 1, blocks, 0.0, calls[n - 1]["model"], q, []))
        standing.append((n - 1, key, tok))
    return out


# A clearing's triggers in the order an event lists them.
TRIGGERS = ["every_segments", "every_calls", "above_tool_bytes", "above_context_tokens",
            "older_than_calls", "after_gap_s"]


def walk_clear(a, calls, res, rho_e, blocks_for, add_call, events, life):
    """MODEL §3: persistent clearings, checked before each call from the second on; with
    `at = "cold"` (docs/model.md §9) one acts only before a call whose pause exceeds `life`
    seconds, the triggers that fired before staying armed until then."""
    n = len(calls)
    ph = float(a.get("placeholder_bytes", PLACEHOLDER_BYTES)) / rho_e
    exclude_kinds = a.get("exclude_kinds", ["web_search"])
    tools = a.get("tools")
    exclude_tools = a.get("exclude_tools", [])
    at_least = float(a.get("clear_at_least_tokens", 0))

    def clearable(q):
        c = calls[q]
        return (not c["pinned"] and c["kind"] not in exclude_kinds
                and (tools is None or c["tool"] in tools)
                and c["tool"] not in exclude_tools and res[q] > 0)

    ok = [clearable(q) for q in range(n)]
    # Each segment's last call and whether it is tool-using (holds a clearable result).
    seg_last = {}
    seg_tool = {}
    for q, c in enumerate(calls):
        seg_last[c["segment"]] = q
        seg_tool[c["segment"]] = seg_tool.get(c["segment"], False) or ok[q]
    cleared = set()
    last_clearing = 0  # position of the call before which the last clearing happened
    wait_cold = a.get("at") == "cold"
    armed = []  # triggers that fired since the last clearing, waiting for a cold call
    for p in range(n):
        cleared_now = []
        if p >= 1:
            standing = [q for q in range(p) if ok[q] and q not in cleared]
            fired = []
            if "every_segments" in a:
                done = sum(1 for s, last in seg_last.items()
                           if seg_tool[s] and last_clearing <= last < p)
                if done >= a["every_segments"]:
                    fired.append("every_segments")
            if "every_calls" in a:
                # Calls completed since the last clearing (or the start).
                if p - last_clearing >= a["every_calls"]:
                    fired.append("every_calls")
            if "above_tool_bytes" in a:
                if sum(calls[q]["bytes"] or 0.0 for q in standing) > a["above_tool_bytes"]:
                    fired.append("above_tool_bytes")
            if "above_context_tokens" in a:
                ctx = sum(t for _, t in blocks_for(p, cleared, ph))
                if ctx > a["above_context_tokens"]:
                    fired.append("above_context_tokens")
            if "older_than_calls" in a:
                if any(q < p - a["older_than_calls"] for q in standing):
                    fired.append("older_than_calls")
            if "after_gap_s" in a:
                if calls[p]["gap"] > a["after_gap_s"]:
                    fired.append("after_gap_s")
            if wait_cold:
                # Armed triggers wait; at a cold call the clearing is made there, with the
                # keep rules as they stand there.
                armed += [t for t in fired if t not in armed]
                fired = [t for t in TRIGGERS if t in armed] if calls[p]["gap"] > life else []
            if fired:
                kept = set()
                clear_prior = [q for q in range(p) if ok[q]]
                if a.get("keep_segments", 0) > 0:
                    segs = []
                    for q in clear_prior:
                        if calls[q]["segment"] not in segs:
                            segs.append(calls[q]["segment"])
                    latest = set(segs[max(0, len(segs) - a["keep_segments"]):])
                    kept |= {q for q in clear_prior if calls[q]["segment"] in latest}
                if a.get("keep_results", 0) > 0:
                    kept |= set(clear_prior[max(0, len(clear_prior) - a["keep_results"]):])
                if "older_than_calls" in a:
                    kept |= {q for q in range(p) if q >= p - a["older_than_calls"]}
                to_clear = [q for q in standing if q not in kept]
                freed = sum(res[q] - ph for q in to_clear)
                if to_clear and freed >= at_least:
                    cleared |= set(to_clear)
                    cleared_now = to_clear
                    last_clearing = p
                    armed = []
                    events.append({"before_call": p + 1,
                                   "cleared": [calls[q]["id"] for q in to_clear],
                                   "freed_tokens": freed, "triggers": fired})
        add_call(p, blocks_for(p, cleared, ph), [calls[q]["id"] for q in cleared_now])


def common_prefix(a, b):
    total = 0.0
    for (ka, ta), (kb, tb) in zip(a, b):
        if ka != kb:
            break
        total += ta
    return total


def price(sc, run, calls, requests, events, cache_read, retry, policy):
    terms_of, scn_input = run_terms(sc, run, cache_read)
    rows = []
    total = 0.0
    cost_total = 0.0
    dollars_ok = scn_input is not None
    prev = None
    prev_model = None
    for r in requests:
        t = terms_of(r["model"])
        ctx = sum(tok for _, tok in r["blocks"])
        total += ctx
        cache = t["cache"]
        cached = written = uncached = None
        if cache is None:
            cost_in = ctx * (1.0 + retry)
        elif ctx < cache["min"]:
            cached, written, uncached = 0.0, 0.0, ctx
            cost_in = ctx * (1.0 + retry)
        else:
            cached = 0.0
            if prev is not None and r["gap"] <= cache["ttl"] and t["model"] == prev_model:
                cached = common_prefix(prev, r["blocks"])
            elif prev is None or r["gap"] > cache["ttl"]:
                # A cold request (the first, or after a pause past the lifetime) reads the
                # warm shared part of its own base; a model switch reads nothing (§12).
                base_tokens = r["blocks"][0][1]
                cached = min(cache["warm"] * base_tokens, ctx)
            if cached < cache["min"]:
                cached = 0.0
            written = ctx - cached
            uncached = 0.0
            read_price = (1.0 - cache["miss"]) * cache["read"] + cache["miss"] * cache["write"]
            cost_in = read_price * cached + cache["write"] * written + retry * read_price * ctx
        out_cost = 0.0
        if r["out"] > 0:
            if t["ratio"] is None:
                dollars_ok = False
            else:
                out_cost = t["ratio"] * r["out"]
        cost = t["scale"] * (cost_in + out_cost)
        cost_total += cost
        prev = r["blocks"]
        prev_model = t["model"]
        c = calls[r["pos"]]
        if r["kind"] == "call":
            rid, label, byts = c["id"], c["label"], c["bytes"]
        elif r["kind"] == "refetch":
            f = calls[r["fetched"]]
            rid, label, byts = f["id"], f["label"], f["bytes"]
        elif r["kind"] == "search":
            rid, label, byts = c["id"], f"tool search: loads {run['defer'][0]}", None
        else:
            rid, label, byts = None, "compaction request", None
        rows.append({"call": r["pos"] + 1, "id": rid, "label": label, "bytes": byts,
                     "context_tokens": ctx, "cumulative_tokens": total,
                     "cleared": r["cleared"], "cached_tokens": cached,
                     "written_tokens": written, "uncached_tokens": uncached,
                     "cost": cost, "output_tokens": r["out"]})
    return {
        "total_tokens": total,
        "cost": cost_total,
        "dollars": cost_total * scn_input / 1e6 if dollars_ok else None,
        "calls": len(requests),
        "rows": rows,
        "events": events if policy is not None and policy[0] in ("clear", "api", "compact") else None,
    }


# ---------------------------------------------------------------------------- the sweep


def values(spec, default):
    if spec is None:
        return default
    if isinstance(spec, dict):
        a, b, k = float(spec["from"]), float(spec["to"]), int(spec["steps"])
        return [a + (b - a) * i / (k - 1) for i in range(k)]
    # The binary sorts a list's values (MODEL §5 does not say; the order of the grid is
    # only its rows' order).
    return sorted(set(float(v) for v in spec))


def sweep(sc, runs, order):
    sw = sc["sweep"] or {}
    only(sw, ["base_tokens", "bytes_per_token", "cache_read", "retry_rate", "refetch"], "[sweep]")
    B, rho = sc["B"], sc["rho"]
    read = sc["cache"]["read"] if sc["cache"] else None
    grid_b = values(sw.get("base_tokens"), [B * 2.0 / 3.0, B, B * 4.0 / 3.0])
    grid_r = values(sw.get("bytes_per_token"), [rho * 0.75, rho, rho * 1.25])
    grid_c = values(sw.get("cache_read"), [read])
    grid_t = values(sw.get("retry_rate"), [sc["retry"]])
    removes = any(runs[name]["policy"] is not None for name in order)
    default_f = sorted(set([0.0, 0.1, 0.25, 0.5, sc["refetch"]])) if removes else [sc["refetch"]]
    grid_f = values(sw.get("refetch"), default_f)
    points = [(b, r, c, t, f, False) for b in grid_b for r in grid_r for c in grid_c
              for t in grid_t for f in grid_f]
    nominal = (B, rho, read, sc["retry"], sc["refetch"])
    found = False
    for i, p in enumerate(points):
        if p[:5] == nominal:
            points[i] = p[:5] + (True,)
            found = True
    if not found:
        points.append(nominal + (True,))
    out = []
    for b, r, c, t, f, nom in points:
        base = evaluate(sc, runs["baseline"], b, r, c, t, f)
        for name in order:
            e = evaluate(sc, runs[name], b, r, c, t, f)
            out.append({"base_tokens": b, "bytes_per_token": r, "cache_read": c, "retry_rate": t,
                        "refetch": f,
                        "nominal": nom, "edit": name, "total_tokens": e["total_tokens"],
                        "saved_tokens": base["total_tokens"] - e["total_tokens"],
                        "cost": e["cost"], "cost_saved": base["cost"] - e["cost"]})
    return out


def evaluate(sc, run, B, rho, cache_read, retry, refetch=0.0):
    read = run["cache_edit"].get("read", cache_read)
    return walk(sc, run, B, rho, read, retry, refetch)


def oracle(path):
    sc = load(path)
    runs = {"baseline": apply_steps(sc, [])}
    order = []
    for name, steps in sc["edits"]:
        runs[name] = apply_steps(sc, steps)
        order.append(name)
    read = sc["cache"]["read"] if sc["cache"] else None
    nominal = {name: evaluate(sc, run, sc["B"], sc["rho"], read, sc["retry"], sc["refetch"])
               for name, run in runs.items()}
    return {"runs": nominal, "order": order, "sweep": sweep(sc, runs, order)}


def main(argv):
    result = {}
    for path in argv[1:]:
        try:
            result[path] = oracle(path)
        except Refused as e:
            result[path] = {"refused": str(e)}
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
