#!/usr/bin/env python3
"""Writes src/cache/litellm.json: the filtered snapshot of LiteLLM's price data.

LiteLLM (MIT) ships `model_prices_and_context_window_backup.json` inside its wheel on
PyPI. This keeps the entries of the models `simulate import` meets (Anthropic direct,
Bedrock and Bedrock converse Anthropic models with their region prefixes, Vertex AI
Anthropic models, OpenAI's GPT-5 and later families, codex and o-series models) and, of
each, only the fields the cost model reads. The output is sorted and indented, so the same
version gives the same bytes, whichever platform's wheel pip picks (the header records
the version and the sha256 of the file read, not of the wheel). Gemini models through
Google AI Studio (`gemini/…`) and Vertex AI (`vertex_ai/gemini-…`) are kept too. Refresh
(README, "Cache presets and prices"):

    pip download litellm==VERSION --no-deps -d /tmp/litellm
    python3 benches/litellm_snapshot.py /tmp/litellm/litellm-VERSION-*.whl > src/cache/litellm.json
"""

import hashlib
import json
import re
import sys
import zipfile

PRICES = "litellm/model_prices_and_context_window_backup.json"

# Which entries: (litellm_provider, pattern the key must match).
KEEP = [
    ("anthropic", re.compile(r"^claude-")),
    # `anthropic.claude-…` and region prefixes (`us.`, `eu.`, `jp.`, `apac.`, `global.`, …).
    ("bedrock", re.compile(r"^([a-z-]+\.)?anthropic\.claude-")),
    ("bedrock_converse", re.compile(r"^([a-z-]+\.)?anthropic\.claude-")),
    ("vertex_ai-anthropic_models", re.compile(r"^vertex_ai/claude-")),
    ("openai", re.compile(r"^(gpt-([5-9]|[1-9][0-9])|o[1-9]|codex)")),
    # Gemini through Google AI Studio and Vertex AI (mini-swe-agent's SWE-bench runs).
    ("gemini", re.compile(r"^gemini/gemini-")),
    ("vertex_ai", re.compile(r"^vertex_ai/gemini-")),
]
MODES = {"chat", "responses"}

# Which fields: the standard-tier prices, the 1-hour cache write, the minimum cacheable
# prompt, long-context tiers (`…_above_200k_tokens`), and where LiteLLM read them.
FIELDS = {
    "litellm_provider",
    "source",
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "cache_creation_input_token_cost_above_1hr",
    "prompt_cache_min_tokens",
}
TIER = re.compile(
    r"^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost"
    r"|cache_creation_input_token_cost|cache_creation_input_token_cost_above_1hr)"
    r"_above_[0-9]+k_tokens$"
)


def kept(key, entry):
    provider = entry.get("litellm_provider")
    return (
        entry.get("mode") in MODES
        # A price of 0 (a free experimental model) prices nothing.
        and (entry.get("input_cost_per_token") or 0) > 0
        and (entry.get("output_cost_per_token") or 0) > 0
        and any(provider == p and pattern.match(key) for p, pattern in KEEP)
    )


def main(wheel_path):
    with zipfile.ZipFile(wheel_path) as wheel:
        raw = wheel.read(PRICES)
        metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        version = next(
            line.split(":", 1)[1].strip()
            for line in wheel.read(metadata).decode().splitlines()
            if line.startswith("Version:")
        )
    prices = json.loads(raw)
    models = {
        key: {k: v for k, v in entry.items() if k in FIELDS or TIER.match(k)}
        for key, entry in prices.items()
        if isinstance(entry, dict) and kept(key, entry)
    }
    snapshot = {
        "litellm": {
            "package": "litellm",
            "version": version,
            "license": "MIT",
            "file": PRICES,
            "file_sha256": hashlib.sha256(raw).hexdigest(),
            "regenerate": "python3 benches/litellm_snapshot.py WHEEL > src/cache/litellm.json",
        },
        "models": models,
    }
    sys.stdout.write(json.dumps(snapshot, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: litellm_snapshot.py LITELLM_WHEEL")
    main(sys.argv[1])
