//! The command line: clap types live here and nowhere else.
//!
//! Raw flags are parsed by clap, then turned once into the validated [`Command`] the rest
//! of the program runs; the engine never sees a clap type.

use crate::command::Command;
use crate::command::ledger::LedgerConfig;
use crate::command::scenario::{RunConfig, RunFormat};
use crate::error::Located;
use crate::output::Format;
use crate::scenario::{Assumption, Axis};
use crate::sweep::AxisOverride;
use crate::sweep::SweepOverrides;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

const ABOUT: &str = "Which change to an LLM agent's context saves the most, and does that answer hold if the assumptions are off?";

const LONG_ABOUT: &str = "\
Which change to an LLM agent's context saves the most, and does that answer hold if the
assumptions are off?

Every call an agent makes re-reads the whole context so far: system prompt, tools, every
document read and every earlier result. simulate counts that reread ledger for a run of
calls described in a scenario file, applies each edit you describe (trim a document, merge
calls, drop or move one, clear stale results, cap a tool's output, shorten the system
prompt) and ranks the edits by how much of the reread total they save, in percent and in
equivalent average calls; with a prompt-cache model, by cost too. Then it sweeps the
assumptions (base tokens B, bytes per token ρ) to say whether the ranking holds, where it
flips, and the exact break-even.

Your own agent logs (Claude Code, Codex CLI) become scenarios with `simulate import`; the
provider's measured usage then stands beside the simulation, and `simulate fit` replaces
the assumed B and ρ with fitted ones. `simulate history` runs one set of edits over every
session of a directory; `simulate suggest` finds the edits in the sessions themselves.

Token figures say what they are: est. tokens (bytes ÷ ρ) over an assumed, fitted or
measured base; a reread total is a yardstick for comparing edits, not a bill.";

const AFTER_HELP: &str = "\
Examples:
  simulate scenarios/merge.toml
      Compare the edits of a scenario; write CSV files, SVG charts and report.html to
      out/merge/.
  simulate scenarios/merge.toml --base 20000 --bpt 4.0 --format json --no-write
      The same at another nominal point, as JSON on stdout, writing no files.
  simulate scenarios/merge.toml --sweep-base 10000:60000:11 --sweep-bpt 2.5,3.3,4.0
      Check whether the ranking holds over a grid of assumptions.
  simulate import claude-code ~/.claude/projects/-home-me-shop --out sessions
      One scenario per session trace, with the measured usage of every request.
  simulate fit sessions/shop-1a2b3c4d.toml --write
      Fit B and ρ to the measured usage and make them the scenario's nominal point.
  simulate sessions/shop-1a2b3c4d.toml --edits scenarios/imported/edits.toml
      Compare rule edits (cap a tool's output, read files once, clear on idle) on it.
  simulate history sessions --edits scenarios/imported/edits.toml
      The same edits over every session: totals, spread, and whether the ranking holds.
  simulate suggest sessions
      Edits found in the sessions themselves (caps, read once, clearing, compaction, a
      1-hour cache), evaluated, ranked by cost, written as an edits file to rerun.
  simulate ledger scenarios/trace.tsv --base 30000 --bpt 3.3
      The call-by-call ledger of a trace (lines of number<TAB>label<TAB>bytes).

Exit codes: 0 ok; 1 a failure while running (e.g. a write that broke); 2 bad usage or
bad input (the message names the file, line and key to fix); 130/143 interrupted
(Ctrl-C/SIGTERM; nothing half-written is left).

Apart from agent logs: `simulate telemetry FILE.jsonl --unit NAME` summarises a memory
system's own telemetry log (mean token counts, each over the rows that carry it); it reads
no agent session and is not listed above.

Every command's options: docs/usage.md; the scenario format: docs/scenario.md; every
output column: docs/outputs.md; the model: docs/model.md.";

#[derive(Parser, Debug)]
#[command(
    name = "simulate",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,

    /// The scenario file (TOML) to evaluate.
    #[arg(value_name = "SCENARIO.toml", required = true)]
    scenario: Option<PathBuf>,

    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Print the call-by-call reread ledger of a TSV trace.
    #[command(
        long_about = "Print the call-by-call reread ledger of a TSV trace.\n\nThe trace has one line per call: number<TAB>label<TAB>bytes. A first line such as `# number<TAB>label<TAB>bytes<TAB>tokens<TAB>output_tokens` declares optional columns (tokens, output_tokens, kind, segment, gap_s, pinned) after the three required ones. Lines with the same number are one call wherever they stand (bytes and tokens summed, labels joined with '+' in file order); calls are ordered by number; blank lines and lines starting with '#' are skipped. The whole trace is checked before anything is printed; then each row shows the context the call re-reads (before its own output joins) and the running total, streamed in constant memory (a trace whose numbers rise, the lines of each call together; any other is held in memory and sorted)."
    )]
    Ledger(LedgerArgs),
    /// Fit B and ρ to a scenario's measured usage (least squares), and optionally write them.
    #[command(
        long_about = "Fit the base tokens B, the bytes per token ρ and the named terms to a scenario's measured usage.\n\nFor every call with measured usage ([call.measured], as `simulate import` writes), the model says: measured total input − tokens given before = B + bytes in the context ÷ ρ + tokens per call × calls before + tokens per loaded tool definition × definitions before + tokens per image × images before. Least squares gives B, 1/ρ and each term the trace has (a term that never varies, or comes out negative, is not fitted and its [terms] value stands in), each with its standard error, with R², the median and worst residual, and the calls used and left out (and why). Beside it, the cache as the provider kept it: the lifetime its reads prove (the longest pause after which a request still read the previous prefix, never below the scenario's TTL), the share of the prefix written again within it (the miss share μ), and the warm shared prefix every cold request read (the first, and those after a pause past the lifetime) as a share of B, each with its evidence.\n\nWith --write the fitted values become the scenario's nominal point, the terms go into [terms] and the cache terms into [cache] (μ, warm_share, and ttl_s where the reads prove a longer lifetime), each labelled fitted with its source and evidence; the swept base-token and bytes-per-token axes are removed so the sweep centres on them. A fitted ρ outside 1 to 8 bytes per token, or B ≤ 0, is never written (the reason is said; --force does not change it). A poor fit (R² < 0.9) is written only with --force. The cache terms rest on the cache reads alone: they are written even where B and ρ are not.\n\nExamples:\n  simulate fit sessions/shop-5e55a0e1.toml\n  simulate fit sessions/shop-5e55a0e1.toml --write\n  simulate import claude-code ~/.claude/projects/-home-me-shop --out sessions --fit   (every trace at once)"
    )]
    Fit(FitArgs),
    /// Turn agent session logs (Claude Code, Codex CLI, Claude Code telemetry) into scenario files.
    #[command(long_about = IMPORT_ABOUT)]
    Import(ImportArgs),
    /// Mean token counts of a memory system's telemetry log, each over the rows that carry it.
    ///
    /// Hidden from the list of commands, which are all about agent logs and scenarios; the
    /// top-level help names it apart.
    #[command(
        hide = true,
        long_about = "Mean token counts of a memory system's telemetry log, each over the rows that carry it.\n\nThe log has one JSON object a line, with an optional `telemetry` object holding compact_total, real_total and reader_calls[].prompt_tokens. Each count keeps its own denominator: a row without it is left out of its mean, never read as 0. The counts are in the unit the log was counted in; say which with --unit, and it is printed beside every figure."
    )]
    Telemetry(TelemetryArgs),
    /// Evaluate the same edits on every session of a directory, and sum them.
    #[command(long_about = HISTORY_ABOUT)]
    History(HistoryArgs),
    /// Propose edits found in the sessions themselves, evaluate them all and rank them.
    #[command(long_about = SUGGEST_ABOUT)]
    Suggest(SuggestArgs),
}

const SUGGEST_ABOUT: &str = "\
Propose edits found in the sessions themselves, evaluate them all and rank them.

FILE|DIR is one scenario, or a directory of them (what `simulate import` writes). With no
path: your own logs, where Claude Code (~/.claude/projects, ~/.config/claude/projects, or
CLAUDE_CONFIG_DIR's comma-separated folders) and Codex CLI (~/.codex/sessions, or
CODEX_HOME's) keep them, said first; --since DATE, --last 30d and --project NAME narrow
them. They are imported and fitted into simulate's cache folder ($XDG_CACHE_HOME/simulate,
else ~/.cache/simulate), reused while no log changes (docs/local.md). The data is read
first, and each rule proposes the edits it finds there (docs/model.md §9):
  caps         tools whose outputs are large (p90 ≥ 4,096 bytes) and skewed (p90 ≥ 2 ×
               the median), capped at their p75 and p90 sizes (nearest rank); never a
               tool with results that cannot be replaced (web_search, pinned);
  read once    every tool with an input seen again in its session (input_hash) whose
               repeats mostly found the same result size; never a polling tool;
  idle         clearing after a pause longer than the cache TTL, where pauses exceed it;
  context      Anthropic's context editing at its defaults (100,000, keep 3) and on a grid
  editing      of triggers (the p50, p75 and p90 of the contexts the calls read, rounded
               to 5,000) × tool uses kept (1, 3, 5), from sessions not on OpenAI's API;
  compaction   at the same thresholds and the API's 150,000 (at least its minimum 50,000);
               OpenAI's server-side compaction on sessions of OpenAI's API; above B + the
               summary, measured from the history's own compactions or assumed (said);
  1-hour cache where the pauses longer than the cache TTL mostly last up to an hour;
  24h cache    OpenAI's extended retention, on OpenAI sessions whose model offers it;
  tool parts   drop or defer each [[base.part]] whose tools are rarely used (none where no
               scenario declares parts: a part's size is never guessed).
Every candidate is then evaluated on every session exactly as `simulate history DIR --edits
suggested.toml` evaluates it, and ranked by the cost it saves summed over the sessions
(input-token equivalents under each session's prompt cache), with the reread tokens it
saves, the context it removes (est. tokens the agent no longer sees, counted once), in how
many sessions it saves cost and at how many points of the assumption sweep (every
session's B × 2/3, 1, 4/3 and ρ × 0.75, 1, 1.25).

Each suggestion is then said in the settings of the agent the sessions came from (a Claude
Code environment variable or setting, a Codex CLI config.toml key, the API's request
fields), or that no setting implements it and what would (docs/settings.md).

Files in OUT/<name>-suggest/ (OUT/local-suggest/ for your own logs): suggested.toml (the
edits with what suggested each and what it saved, to read, adjust and rerun with `simulate
history DIR --edits`), claude-code.settings.json and codex.config.toml (for each agent
seen: the keys to copy into your settings, each with its suggestion and saving; never
written into your real settings), suggest.csv
(every candidate), and one chart per parametric family (tradeoff-cap.svg,
tradeoff-context-editing.svg, tradeoff-compaction.svg): cost saved against context
removed, the Pareto front marked, to pick a point rather than trust one number.

Shards: a suggestion has three rounds over every session (the evidence, the schedule
search on the candidates it proposes, the evaluation of the edits chosen), each of which
can run in parts: DIR --shard K/N runs the K-th of N parts of DIR's files (each file's part
fixed by its path, as `history --shard`) and writes OUT/<name>-suggest/suggest-shard.jsonl;
--merge PART… merges a round's parts into the plan of the next round
(OUT/<name>-suggest-round-R/plan.json) and prints the commands of the next round; --plan
PLAN runs a part of the plan's round. The merge of round 3 writes the suggestion: the same
files, byte for byte, as `simulate suggest DIR --out OUT`. Every command of the split takes
the same --context and --max-cost-diff, and the merges the same --out; a part or plan of
another round, listing of DIR, plan or flags, a part missing or given twice, or a session
in two parts, is refused.

Examples:
  simulate suggest
  simulate suggest --last 30d --project shop
  simulate suggest scenarios/history
  simulate history scenarios/history --edits out/history-suggest/suggested.toml
  simulate suggest sessions/shop-5e55a0e1.toml --top 5 --no-write
  simulate suggest ~/sessions --format json --jobs 1
  simulate suggest ~/sessions --shard 2/8 --out out/round-1/2
  simulate suggest --merge out/round-1/*/sessions-suggest --out out";

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("split").args(["shard", "merge"]).multiple(false)))]
struct SuggestArgs {
    /// A scenario file, or a directory searched recursively for them. None: your own
    /// Claude Code and Codex CLI logs, where the agents keep them (see --since, --last,
    /// --project).
    #[arg(value_name = "FILE|DIR")]
    path: Option<PathBuf>,

    #[command(flatten)]
    local: LocalArgs,

    /// Root directory for results; files go to OUT/<name>-suggest/. `--out -` writes no
    /// files.
    #[arg(long, value_name = "DIR", default_value = "out")]
    out: PathBuf,

    /// How many of the ranked edits the table shows (the JSON and suggest.csv have all).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    top: u32,

    /// What to print: a table for people, or everything (every candidate, the findings,
    /// suggested.toml's text) as JSON.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,

    /// Write no files: only print the results on stdout.
    #[arg(long)]
    no_write: bool,

    /// Threads to use (default: one per core); the results are the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    jobs: Option<u32>,

    /// Leave out the sessions whose simulated cost is more than PCT percent off their
    /// measured cost (sessions without measured usage stay in): neither their evidence
    /// nor their savings count; the table says how many it left out, and names them.
    #[arg(long, value_name = "PCT")]
    max_cost_diff: Option<f64>,

    /// Size the base's parts from Claude Code's /context output (a text file), or from
    /// the [[base.part]] tables `simulate import context` wrote: every session whose B
    /// holds them takes them, and suggest proposes dropping or deferring the MCP servers
    /// and skills loaded in every request that few sessions use. They are written into
    /// suggested.toml too, so its rerun reads the same parts.
    #[arg(long, value_name = "FILE")]
    context: Option<PathBuf>,

    /// Run only the K-th of N parts of DIR's files, for a batch runner's job K: round 1
    /// of a split suggestion, or with --plan the plan's round. A file's part is fixed by
    /// its path (as `history --shard`).
    #[arg(long, value_name = "K/N", conflicts_with = "merge")]
    shard: Option<String>,

    /// The plan a round's merge wrote (OUT/<name>-suggest-round-R/plan.json): with
    /// --shard, run a part of its round; with --merge, the plan the parts ran.
    #[arg(long, value_name = "PLAN", requires = "split")]
    plan: Option<PathBuf>,

    /// Merge the parts of one round of a split suggestion (the folders the parts wrote,
    /// OUT/<name>-suggest/, or their suggest-shard.jsonl): round 1 and 2 into the next
    /// round's plan, round 3 into the suggestion.
    #[arg(
        long,
        value_name = "PART",
        num_args = 1..,
        conflicts_with_all = ["path", "shard"]
    )]
    merge: Vec<PathBuf>,
}

/// Which of your own logs to read when no path is given.
#[derive(Args, Debug)]
struct LocalArgs {
    /// With no path: only the logs last written on or after DATE (YYYY-MM-DD, from 00:00
    /// UTC).
    #[arg(long, value_name = "DATE", conflicts_with = "last")]
    since: Option<String>,

    /// With no path: only the logs last written in the last N hours, days or weeks (12h,
    /// 30d, 2w).
    #[arg(long, value_name = "PERIOD")]
    last: Option<String>,

    /// With no path: only the sessions of project NAME (the last folder of the working
    /// directory the log records, e.g. shop; or Claude Code's folder, -home-me-shop).
    // Claude Code's folders start with a minus.
    #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
    project: Option<String>,
}

/// Your own logs' selection, when no path is given (`given`: a path was); the flags
/// without a path to apply to are refused rather than ignored.
fn local_config(
    a: LocalArgs,
    given: bool,
    format: Option<crate::import::Format>,
) -> Result<Option<crate::command::local::LocalConfig>, Located> {
    let any = a.since.is_some() || a.last.is_some() || a.project.is_some();
    if given {
        return if any {
            Err(Located::new(
                "command line",
                "--since, --last and --project choose among your own logs, read when no path is given: drop the path to read them, or give a folder holding only the sessions you want",
            ))
        } else {
            Ok(None)
        };
    }
    let mut filter = crate::local::Filter {
        project: a.project.filter(|p| !p.is_empty()),
        ..Default::default()
    };
    let period = match (a.since, a.last) {
        (Some(d), _) => Some(crate::local::select::since(&d)?),
        (None, Some(p)) => Some(crate::local::select::last(
            &p,
            std::time::SystemTime::now(),
        )?),
        (None, None) => None,
    };
    if let Some((since, said)) = period {
        filter.since = Some(since);
        filter.period = Some(said);
    }
    Ok(Some(crate::command::local::LocalConfig { filter, format }))
}

#[derive(Args, Debug)]
struct TelemetryArgs {
    /// The log: one JSON object a line.
    #[arg(value_name = "FILE.jsonl")]
    file: PathBuf,

    /// The unit the counts are in, as the run's settings name it (e.g. a tokenizer).
    #[arg(long, value_name = "NAME", required = true)]
    unit: String,

    /// What to print: a table for people, or JSON.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,
}

const HISTORY_ABOUT: &str = "\
Evaluate the same edits on every session of a directory, and sum them.

Every scenario file under DIR (searched recursively for *.toml, hidden files and
directories left out; what `simulate import` writes) is evaluated with the edits of EDITS.toml, each at its
own nominal B and ρ (fitted or assumed, as its file says), in parallel. A .toml file with
neither [[call]] tables nor calls_tsv (the edits file itself, say) is skipped and listed; a
broken scenario is an error naming the file.

For each edit: the saving summed over the sessions, its percentage of the summed baseline
reread totals, the distribution of the per-session percentages (median, p10, p90,
nearest-rank), and in how many sessions it ranks first. Then whether the aggregate ranking
holds across sessions (every session has its order) and across assumptions (every
session's B and ρ scaled by the same factors, summed again at each point). A rule that
selects nothing in a session is counted, not an error, and so is a step that stands for
another provider's mechanism than the session ran on (Anthropic's context editing on a
Codex session); an edit naming a call a session lacks is an error naming the edit and the
session.

Files in OUT/<name>/: summary.csv (per edit), sessions.csv (per session and edit),
sweep.csv (per factor point and edit), groups.csv (with --group-by), sessions.svg,
aggregate.svg, report.html, and shard.jsonl (every session's record, for --merge).

Shards: run the same command on parts of the sessions (--shard K/N takes the files of the
K-th of N parts, each file's part fixed by its path; --files-from LIST the files a list
names), on any batch runner, then
`simulate history --merge A/ B/ …` recomputes every figure of the whole from the shards'
shard.jsonl: the same files, byte for byte, as one run over all the sessions (one run
over DIR when the shards are --shard parts of DIR). Shards of other edits, factors or
versions, sharing a session, or --shard parts cut from different listings of DIR (it
changed between the jobs) are refused.

Examples:
  simulate history scenarios/history --edits scenarios/history/edits.toml
  simulate history ~/sessions --edits rules.toml --bpt-factors 0.5:1.5:11 --format json
  simulate history ~/sessions --edits rules.toml --group-by user
  simulate history ~/sessions --edits rules.toml --shard 2/8 --out shards/2
  simulate history --merge shards/*/sessions --out out";

#[derive(Args, Debug)]
struct HistoryArgs {
    /// Directory of scenario files, searched recursively for *.toml. None (and no
    /// --merge): your own Claude Code and Codex CLI logs (see --since, --last, --project).
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,

    #[command(flatten)]
    local: LocalArgs,

    /// The edits to evaluate on every session: [[edit]] tables, and [[base.part]] tables
    /// (named parts of B, such as an MCP server's tool definitions, as `simulate import
    /// context` writes them) that every session takes as its own where its B holds them,
    /// so an edit can drop or defer them. No other keys.
    #[arg(long, value_name = "EDITS.toml", required_unless_present = "merge")]
    edits: Option<PathBuf>,

    /// Merge the results of earlier runs (their folders, OUT/<name>/, or their
    /// shard.jsonl) instead of reading sessions: edits and factors come from the shards.
    #[arg(
        long,
        value_name = "SHARD",
        num_args = 1..,
        conflicts_with_all = ["dir", "edits", "base_factors", "bpt_factors", "shard", "files_from"]
    )]
    merge: Vec<PathBuf>,

    /// Read only the K-th of N parts of DIR's files, for a batch runner's job K; merge
    /// the N results with --merge. A file's part is fixed by its path (a hash of it
    /// relative to DIR), so files added between jobs move no other; each part records
    /// the listing it saw, and a merge refuses parts that saw different ones. A part may
    /// hold no session (N above the files): it writes a shard of no session.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,

    /// Read only the files LIST names, one a line, relative to DIR (as sessions.csv's
    /// file column); `-` reads the list from stdin. For a batch runner that hands each
    /// job its part of the files.
    #[arg(long, value_name = "LIST")]
    files_from: Option<PathBuf>,

    /// Sum the edits per user ([import] user_id: one installation), account ([import]
    /// account_uuid: one person on every machine), team ([import] team, from the
    /// telemetry's resource), project or model ([import] model) too.
    #[arg(long, value_enum, value_name = "BY")]
    group_by: Option<GroupByArg>,

    /// Leave out of every sum the sessions whose simulated cost is more than PCT percent
    /// off their measured cost (sessions without measured usage stay in); the table says
    /// how many it left out, and names them.
    #[arg(long, value_name = "PCT")]
    max_cost_diff: Option<f64>,

    /// List every pair of edits that flips in the table, not the few that matter most
    /// (flips.csv and report.html have every one either way).
    #[arg(long)]
    verbose: bool,

    /// Root directory for results; files go to OUT/<name>/. `--out -` writes no files.
    #[arg(long, value_name = "DIR", default_value = "out")]
    out: PathBuf,

    /// Name of the results directory ([a-z0-9][a-z0-9_-]*); default: DIR's own name.
    #[arg(long, value_name = "NAME")]
    name: Option<String>,

    /// Write no files: only print the results on stdout.
    #[arg(long)]
    no_write: bool,

    /// What to print: a table for people, or everything (aggregate, distribution, every
    /// session) as JSON.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,

    /// Do not draw the SVG charts and the HTML report.
    #[arg(long)]
    no_charts: bool,

    /// Factors on every session's own B for the sweep: a list `0.5,1,2` or a range
    /// `FROM:TO:STEPS` (default 2/3,1,4/3).
    #[arg(long, value_name = "FACTORS", allow_hyphen_values = true)]
    base_factors: Option<String>,

    /// Factors on every session's own ρ for the sweep: a list or `FROM:TO:STEPS`
    /// (default 0.75,1,1.25).
    #[arg(long, value_name = "FACTORS", allow_hyphen_values = true)]
    bpt_factors: Option<String>,
}

#[derive(Args, Debug)]
struct FitArgs {
    /// The scenario file (TOML), with measured usage on its calls.
    #[arg(value_name = "SCENARIO.toml")]
    scenario: PathBuf,

    /// What to print: a table for people, or JSON.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,

    /// Write the fitted B and ρ into the scenario file as its nominal point, and the cache
    /// terms into its [cache] (those even where B and ρ are refused).
    #[arg(long)]
    write: bool,

    /// With --write: write even a poor fit.
    #[arg(long, requires = "write")]
    force: bool,
}

const IMPORT_ABOUT: &str = "\
Turn agent session logs into scenario files, one per trace.

Each API request becomes one [[call]]: copies of a request (one line per content block,
streaming snapshots, a resumed session's replay) are merged, keeping the largest usage.
What joined the context after the call (tool results, user text) becomes its bytes; the
provider's own usage counts go to [call.measured], with their convention named. A
compaction ends a trace; subagents are traces of their own. Lines that cannot be read are
counted and listed with file and line; the rest is still imported. A context that falls by
more than 15 % and 5,000 tokens with no compaction in the log starts a trace of its own.

Formats:
  claude-code  ~/.claude/projects/<project>/<session>.jsonl (and subagents/agent-*.jsonl)
  codex        ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl (any *.jsonl whose first line is a rollout's)
  otel         Claude Code's OpenTelemetry events as an OpenTelemetry Collector's `file`
               exporter writes them (OTLP/JSON, one export a line; *.json, *.jsonl, and
               gzipped copies): many sessions and people in one file, one scenario each
  mini-swe-agent  <instance>.traj.json: one run a file, every model reply's usage and
               cost (OpenAI's convention: prompt_tokens includes cached tokens)
  atif         ATIF trajectories (Harbor's Agent Trajectory Interchange Format, v1.0 to
               v1.8: trajectory.json, *.trajectory.json, *.atif.json): a call per agent
               step with metrics; embedded subagent trajectories are traces of their own
  swe-agent    SWE-agent's <instance_id>.traj: a call per step (its reply and observation
               as bytes), but no usage per call: B is the first query's bytes at an assumed
               ρ, the run's totals (tokens_sent, api_calls, cost) go to [import] and the
               summary sets the simulated input beside tokens_sent; --fit cannot fit them

Producing `otel` files: run Claude Code with
  CLAUDE_CODE_ENABLE_TELEMETRY=1  OTEL_LOGS_EXPORTER=otlp
  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4317   (OTEL_EXPORTER_OTLP_PROTOCOL=grpc)
  OTEL_LOG_TOOL_DETAILS=1   (optional: MCP server and tool names, commands and file paths
                             in the labels, and tool inputs so identical re-reads match)
and give the collector a logs pipeline to a file exporter with `format: json` (the default)
and no `compression` (zstd is not read; gzip the files afterwards if you like):
  exporters: { file: { path: /var/log/otel/claude.json } }
  service: { pipelines: { logs: { receivers: [otlp], exporters: [file] } } }
Each api_request event is a call; the tool_result events after it are what joined, by
their tool_result_size_bytes, which are UTF-16 code units of the result as sent, not
UTF-8 bytes (the unit is said in every scenario; `simulate fit` absorbs the difference);
a compaction starts the next trace; user.id and organization.id go to [import]. The
telemetry has no text: labels show tool names and, with OTEL_LOG_TOOL_DETAILS=1, the
command or path.

Examples:
  simulate import claude-code ~/.claude/projects/-home-me-myproj --out scenarios/myproj
  simulate import codex ~/.codex/sessions/2025/10 --out scenarios/codex --format json
  simulate import otel /var/log/otel/ --out scenarios/team --fit";

/// `simulate import context FILE --out DIR`: one file of /context text.
fn import_context(i: ImportArgs) -> Result<Command, Located> {
    let [file] = <[PathBuf; 1]>::try_from(i.paths).map_err(|paths| {
        Located::new(
            "command line",
            format!(
                "`simulate import context` reads one file of /context text, {} given",
                paths.len()
            ),
        )
    })?;
    Ok(Command::ImportContext(
        crate::command::context::ContextConfig {
            file,
            out: i.out,
            force: i.force,
            output: i.format.into(),
        },
    ))
}

#[derive(Args, Debug)]
struct ImportArgs {
    /// The log format. None (and no PATH): your own Claude Code and Codex CLI logs.
    #[arg(value_enum, value_name = "FORMAT")]
    log_format: Option<ImportFormatArg>,

    /// Log files, or directories searched recursively. None: the FORMAT's logs where the
    /// agent keeps them (claude-code, codex), each agent's scenarios in OUT/<format>/.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,

    #[command(flatten)]
    local: LocalArgs,

    /// Directory for the scenario files (`DIR/<name>.toml`); created if missing. Must not
    /// be, or hold, one of the logs.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,

    /// Replace scenarios in DIR that differ from what this import writes (a fitted or
    /// edited scenario of the same trace, say); without it the import refuses.
    #[arg(long)]
    force: bool,

    /// Fit B, ρ and the named terms of every trace as it is imported (as `simulate fit`),
    /// write the good fits into their scenarios (labelled "fitted at import"), and print
    /// a quality table: R², the fitted values, the median residual and how far the
    /// simulated cost is from the measured one. Your first look at whether the simulation
    /// can be trusted on your logs.
    #[arg(long)]
    fit: bool,

    /// What to print: a table for people, or JSON.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ImportFormatArg {
    /// Claude Code transcripts.
    ClaudeCode,
    /// Codex CLI rollouts.
    Codex,
    /// Claude Code's OpenTelemetry events, from an OpenTelemetry Collector's file exporter.
    Otel,
    /// mini-swe-agent trajectories (`*.traj.json`).
    MiniSweAgent,
    /// ATIF trajectories (Harbor's Agent Trajectory Interchange Format).
    Atif,
    /// Claude Code's /context output pasted into a text file: writes
    /// DIR/<name>-parts.toml, its [[base.part]] tables (system prompt, system tools, each
    /// MCP server, memory files, skills) with their tokens, for `simulate suggest --context`.
    Context,
    /// SWE-agent trajectories (`*.traj`).
    SweAgent,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Root directory for results; files go to DIR/<scenario name>/. `--out -` writes no
    /// files (as --no-write).
    #[arg(long, value_name = "DIR", default_value = "out")]
    out: PathBuf,

    /// Write no files: only print the results (table, JSON or CSV) on stdout.
    #[arg(long)]
    no_write: bool,

    /// Compare the edits of this file instead of the scenario's own: its [[edit]] tables,
    /// and any [[base.part]] tables (named parts of B the scenario takes as its own, for
    /// `base = { drop | defer = NAME }`); one set of edits runs against any scenario or
    /// imported session.
    #[arg(long, value_name = "EDITS.toml")]
    edits: Option<PathBuf>,

    /// Override the scenario's base tokens B (tokens every call reads: system prompt, tools).
    #[arg(long, value_name = "N", value_parser = base_tokens, allow_negative_numbers = true)]
    base: Option<f64>,

    /// Override the scenario's bytes per token ρ (how bytes convert to estimated tokens;
    /// 0.01 to 1000).
    #[arg(long, value_name = "R", value_parser = bytes_per_token, allow_negative_numbers = true)]
    bpt: Option<f64>,

    /// What to print on stdout: a table for people, the whole report as JSON, or the
    /// summary (one row per edit, as summary.csv) as CSV.
    #[arg(long, value_enum, default_value_t = RunFormatArg::Table)]
    format: RunFormatArg,

    /// Do not draw the SVG charts and the HTML report.
    #[arg(long)]
    no_charts: bool,

    /// Write ledger.csv however many rows it has. By default it is left out, with a
    /// warning, above 10,000,000 rows (one per call of every run: a 2.5-million-call trace
    /// with 3 edits), gigabytes nobody reads whole.
    #[arg(long)]
    ledger_csv: bool,

    /// Swept base tokens: a list `20000,30000,40000` or a range `FROM:TO:STEPS`
    /// (overrides [sweep] base_tokens).
    #[arg(long, value_name = "VALUES", allow_hyphen_values = true)]
    sweep_base: Option<String>,

    /// Swept bytes per token: a list `2.5,3.3,4.0` or a range `FROM:TO:STEPS`, e.g.
    /// `2.5:4.0:16` (overrides [sweep] bytes_per_token).
    #[arg(long, value_name = "VALUES", allow_hyphen_values = true)]
    sweep_bpt: Option<String>,

    /// Swept cache read price (× base input price), as a list or FROM:TO:STEPS; needs [cache].
    #[arg(long, value_name = "VALUES", allow_hyphen_values = true)]
    sweep_cache_read: Option<String>,

    /// Swept retry rate (extra attempts per call), as a list or FROM:TO:STEPS.
    #[arg(long, value_name = "VALUES", allow_hyphen_values = true)]
    sweep_retry: Option<String>,

    /// Swept re-fetch rate: the share of the results an edit removes (clears, caps,
    /// summarises, deduplicates) that the agent fetches again, as a list or FROM:TO:STEPS,
    /// each from 0 to 1 (overrides [sweep] refetch; default 0,0.1,0.25,0.5 where an edit
    /// removes results; docs/model.md §11).
    #[arg(long, value_name = "VALUES", allow_hyphen_values = true)]
    sweep_refetch: Option<String>,

    /// Evaluate every sweep point by replaying each run call by call, instead of the
    /// closed form where it holds (slower; a cross-check of the closed form).
    #[arg(long)]
    replay: bool,
}

#[derive(Args, Debug)]
struct LedgerArgs {
    /// The trace: lines of number<TAB>label<TAB>bytes (and optional columns a # header declares).
    #[arg(value_name = "RUN.tsv")]
    trace: PathBuf,

    /// Base tokens B every call reads (assumed; default 30000).
    #[arg(long, value_name = "N", value_parser = base_tokens, allow_negative_numbers = true)]
    base: Option<f64>,

    /// Bytes per estimated token ρ (assumed; 0.01 to 1000; default 3.3).
    #[arg(long, value_name = "R", value_parser = bytes_per_token, allow_negative_numbers = true)]
    bpt: Option<f64>,

    /// What to print: a table for people, or JSON.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum GroupByArg {
    User,
    Account,
    Team,
    Project,
    Model,
}

impl From<GroupByArg> for crate::history::GroupBy {
    fn from(g: GroupByArg) -> crate::history::GroupBy {
        match g {
            GroupByArg::User => crate::history::GroupBy::User,
            GroupByArg::Account => crate::history::GroupBy::Account,
            GroupByArg::Team => crate::history::GroupBy::Team,
            GroupByArg::Project => crate::history::GroupBy::Project,
            GroupByArg::Model => crate::history::GroupBy::Model,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum FormatArg {
    Table,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum RunFormatArg {
    Table,
    Json,
    Csv,
}

impl From<RunFormatArg> for RunFormat {
    fn from(f: RunFormatArg) -> RunFormat {
        match f {
            RunFormatArg::Table => RunFormat::Table,
            RunFormatArg::Json => RunFormat::Json,
            RunFormatArg::Csv => RunFormat::Csv,
        }
    }
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Table => Format::Table,
            FormatArg::Json => Format::Json,
        }
    }
}

/// A number for an assumption flag, checked against its range.
fn assumption(s: &str, what: Assumption) -> Result<f64, String> {
    let x = s
        .trim()
        .parse::<f64>()
        .map_err(|_| format!("`{s}` is not a number"))?;
    what.check(x)
}

fn base_tokens(s: &str) -> Result<f64, String> {
    assumption(s, Assumption::BaseTokens)
}

fn bytes_per_token(s: &str) -> Result<f64, String> {
    assumption(s, Assumption::BytesPerToken)
}

/// What `simulate` alone prints: where to start, for someone with agent logs and for
/// someone with a scenario.
pub const START: &str = "\
simulate: which change to an LLM agent's context saves the most, and does the answer hold?

You have Claude Code or Codex CLI logs on this machine:
  simulate suggest
      Reads your logs where the agents keep them (~/.claude/projects, ~/.config/claude/
      projects, CLAUDE_CONFIG_DIR, ~/.codex/sessions, CODEX_HOME), imports and fits them
      into a cache folder, and ranks the edits found there by the dollars they save, each
      with the setting of your agent that makes it real. --last 30d, --since 2026-11-01,
      --project NAME narrow it.
  simulate import --out sessions --fit
      The same logs as scenario files you keep (or `simulate import claude-code DIR --out
      sessions` for logs elsewhere); then `simulate suggest sessions`.

You have a scenario file (or want to see one):
  simulate scenarios/merge.toml
      Compares the scenario's edits, sweeps the assumptions, writes out/merge/.

Everything else: simulate --help, and simulate COMMAND --help.
";

/// Parses the process arguments; prints help or a usage error and exits (code 2) itself.
pub fn parse() -> Result<Command, Located> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 1 {
        // No argument at all: not a slip to scold, a newcomer to point somewhere.
        eprint!("{START}");
        std::process::exit(2);
    }
    match Cli::try_parse_from(&args) {
        Ok(cli) => from_args(cli),
        // `simulate imprt claude-code …` fails in clap on its second word; the first
        // is the mistake to name.
        Err(e) => match args.get(1).and_then(|a| misspelt(std::path::Path::new(a))) {
            Some(located) if e.use_stderr() => Err(located),
            _ => e.exit(),
        },
    }
}

/// Parses an argument list (the first item is the program name).
pub fn parse_from<I, T>(args: I) -> Result<Result<Command, Located>, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Cli::try_parse_from(args).map(from_args)
}

fn from_args(cli: Cli) -> Result<Command, Located> {
    match cli.command {
        Some(Sub::Fit(f)) => {
            return Ok(Command::Fit(crate::command::fit::FitConfig {
                scenario: f.scenario,
                format: f.format.into(),
                write: f.write,
                force: f.force,
            }));
        }
        Some(Sub::Import(i)) => {
            if matches!(i.log_format, Some(ImportFormatArg::Context)) {
                return import_context(i);
            }
            // `context` was taken above: it reads /context text, not a log.
            let format = i.log_format.and_then(|f| match f {
                ImportFormatArg::Context => None,
                ImportFormatArg::ClaudeCode => Some(crate::import::Format::ClaudeCode),
                ImportFormatArg::Codex => Some(crate::import::Format::Codex),
                ImportFormatArg::Otel => Some(crate::import::Format::Otel),
                ImportFormatArg::MiniSweAgent => Some(crate::import::Format::MiniSweAgent),
                ImportFormatArg::Atif => Some(crate::import::Format::Atif),
                ImportFormatArg::SweAgent => Some(crate::import::Format::SweAgent),
            });
            if i.paths.is_empty() {
                use crate::import::Format;
                if let Some(f) = format.filter(|f| !matches!(f, Format::ClaudeCode | Format::Codex))
                {
                    return Err(Located::new(
                        "command line",
                        format!(
                            "give the {} logs' files or folders: only Claude Code's and Codex CLI's logs have a place simulate knows",
                            f.reader().product()
                        ),
                    ));
                }
                let local = local_config(i.local, false, format)?.unwrap_or_default();
                return Ok(Command::ImportLocal(crate::command::ImportLocalConfig {
                    local,
                    out: i.out,
                    fit: i.fit,
                    force: i.force,
                    output: i.format.into(),
                }));
            }
            local_config(i.local, true, format)?;
            let Some(format) = format else {
                return Err(Located::new(
                    "command line",
                    "give the logs' format before their paths, e.g. `simulate import claude-code DIR --out sessions`",
                ));
            };
            return Ok(Command::Import(crate::command::import::ImportConfig {
                format,
                paths: i.paths,
                out: i.out,
                output: i.format.into(),
                force: i.force,
                fit: i.fit,
            }));
        }
        Some(Sub::Ledger(l)) => {
            // A scenario passed to `ledger` would fail on its first line as a bad trace
            // line: say what to run instead.
            if l.trace.extension().is_some_and(|e| e == "toml") {
                let shown = l.trace.display();
                return Err(Located::new(
                    shown.to_string(),
                    format!(
                        "this is a scenario file, but `simulate ledger` reads a TSV trace (number<TAB>label<TAB>bytes): run `simulate {shown}` for the scenario's ledger.csv and comparison"
                    ),
                ));
            }
            return Ok(Command::Ledger(LedgerConfig {
                trace: l.trace,
                base_tokens: l.base,
                bytes_per_token: l.bpt,
                format: l.format.into(),
            }));
        }
        Some(Sub::History(h)) => {
            return history_config(h).map(Command::History);
        }
        Some(Sub::Suggest(a)) => {
            use crate::command::suggest::Split;
            let split = match (a.shard.as_deref().map(shard).transpose()?, a.merge) {
                (Some(shard), _) => Some(Split::Part {
                    shard,
                    plan: a.plan,
                }),
                (None, merge) if !merge.is_empty() => Some(Split::Merge {
                    parts: merge,
                    plan: a.plan,
                }),
                _ => None,
            };
            let local = local_config(a.local, a.path.is_some() || split.is_some(), None)?;
            if matches!(split, Some(Split::Part { .. })) && a.path.is_none() {
                return Err(Located::new(
                    "command line",
                    "--shard K/N runs a part of a directory's sessions: give the DIR",
                )
                .place("--shard"));
            }
            return Ok(Command::Suggest(crate::command::suggest::SuggestConfig {
                path: a.path.unwrap_or_default(),
                local,
                out_root: (!a.no_write && a.out.as_os_str() != "-").then_some(a.out),
                top: a.top as usize,
                format: a.format.into(),
                jobs: a.jobs.map(|n| n as usize),
                factors: crate::history::Factors::default(),
                max_cost_diff: a.max_cost_diff.map(max_cost_diff).transpose()?,
                context: a.context,
                split,
            }));
        }
        Some(Sub::Telemetry(t)) => {
            return Ok(Command::Telemetry(
                crate::command::telemetry::TelemetryConfig {
                    file: t.file,
                    unit: t.unit,
                    format: t.format.into(),
                },
            ));
        }
        None => {}
    }
    if let Some(located) = cli.scenario.as_deref().and_then(misspelt) {
        return Err(located);
    }
    let r = cli.run;
    let axis = |flag: &str, v: &Option<String>, what| -> Result<Option<AxisOverride>, Located> {
        v.as_deref()
            .map(|v| sweep_values(flag, v, what).map(|a| AxisOverride::new(flag, a)))
            .transpose()
    };
    Ok(Command::Run(RunConfig {
        // clap requires the scenario when there is no subcommand.
        scenario: cli.scenario.unwrap_or_default(),
        out_root: (!r.no_write && r.out.as_os_str() != "-").then_some(r.out),
        edits: r.edits,
        base_tokens: r.base,
        bytes_per_token: r.bpt,
        format: r.format.into(),
        charts: !r.no_charts,
        ledger_csv: r.ledger_csv,
        closed_form: !r.replay,
        sweep: SweepOverrides {
            base_tokens: axis("--sweep-base", &r.sweep_base, Assumption::BaseTokens)?,
            bytes_per_token: axis("--sweep-bpt", &r.sweep_bpt, Assumption::BytesPerToken)?,
            cache_read: axis(
                "--sweep-cache-read",
                &r.sweep_cache_read,
                Assumption::CacheRead,
            )?,
            retry_rate: axis("--sweep-retry", &r.sweep_retry, Assumption::RetryRate)?,
            refetch: axis("--sweep-refetch", &r.sweep_refetch, Assumption::Refetch)?,
        },
    }))
}

/// The subcommand a missing scenario path was probably meant to be (`imprt` → `import`):
/// clap reads any unknown word as the scenario, so its own suggestion never fires.
fn misspelt_subcommand(scenario: &std::path::Path) -> Option<&'static str> {
    let word = scenario.to_str()?;
    const SUBCOMMANDS: [&str; 6] = ["ledger", "fit", "import", "telemetry", "history", "suggest"];
    // The exact name is the subcommand itself: its own usage error is the one to show.
    if scenario.exists() || word.contains(['/', '.']) || SUBCOMMANDS.contains(&word) {
        return None;
    }
    SUBCOMMANDS
        .into_iter()
        .map(|sub| (strsim::jaro_winkler(&word.to_lowercase(), sub), sub))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, sub)| sub)
}

/// The error for a missing scenario path that looks like a misspelt subcommand.
fn misspelt(scenario: &std::path::Path) -> Option<Located> {
    misspelt_subcommand(scenario).map(|sub| {
        Located::new(
            scenario.display().to_string(),
            format!("no such scenario file, and not a subcommand: did you mean `simulate {sub}`? (see `simulate --help`)"),
        )
    })
}

fn history_config(h: HistoryArgs) -> Result<crate::command::history::HistoryConfig, Located> {
    let err = |flag: &str, m: String| Located::new("command line", m).place(flag.to_string());
    let factors = |flag: &str, text: &Option<String>| -> Result<Option<Vec<f64>>, Located> {
        let Some(text) = text else { return Ok(None) };
        let values = number_list(flag, text, "0.5:1.5:11")?;
        crate::history::factors::checked(values, flag)
            .map(Some)
            .map_err(|m| err(flag, m))
    };
    let base = factors("--base-factors", &h.base_factors)?;
    let bpt = factors("--bpt-factors", &h.bpt_factors)?;
    let factors = crate::history::Factors::new(base, bpt)
        .map_err(|m| err("--base-factors, --bpt-factors", m))?;
    if let Some(why) = h
        .name
        .as_deref()
        .and_then(crate::history::files::name_refusal)
    {
        return Err(err("--name", why));
    }
    let shard = h.shard.as_deref().map(shard).transpose()?;
    use crate::command::history::HistorySource;
    let local = if h.merge.is_empty() {
        local_config(h.local, h.dir.is_some(), None)?
    } else {
        local_config(h.local, true, None)?
    };
    let source = match (h.dir, h.edits) {
        (dir, Some(edits)) if h.merge.is_empty() => HistorySource::Sessions {
            // No directory: the cache folder of the user's own logs, named at run time.
            dir: dir.unwrap_or_default(),
            edits,
            factors,
            files_from: h.files_from,
            shard,
        },
        _ => HistorySource::Merge(h.merge),
    };
    Ok(crate::command::history::HistoryConfig {
        source,
        name: h.name,
        out_root: (!h.no_write && h.out.as_os_str() != "-").then_some(h.out),
        format: h.format.into(),
        charts: !h.no_charts,
        group_by: h.group_by.map(Into::into),
        max_cost_diff: h.max_cost_diff.map(max_cost_diff).transpose()?,
        verbose: h.verbose,
        local,
    })
}

/// `--max-cost-diff PCT`: a percentage above 0.
fn max_cost_diff(pct: f64) -> Result<f64, Located> {
    if pct.is_finite() && pct > 0.0 && pct <= 1e6 {
        Ok(pct)
    } else {
        Err(Located::new(
            "command line",
            format!("`{pct}` is not a percentage above 0: give how far, in percent, a session's simulated cost may be from its measured cost to be summed, e.g. --max-cost-diff 5"),
        )
        .place("--max-cost-diff"))
    }
}

/// `K/N` with 1 ≤ K ≤ N.
fn shard(text: &str) -> Result<crate::command::history::Shard, Located> {
    let err = || {
        Located::new(
            "command line",
            format!("`{text}` is not a shard: give K/N with 1 ≤ K ≤ N, e.g. --shard 2/8 for the second of eight parts"),
        )
        .place("--shard")
    };
    crate::command::history::Shard::parse(text).ok_or_else(err)
}

/// `a,b,c` or `from:to:steps`, unchecked.
fn number_list(flag: &str, text: &str, example: &str) -> Result<Vec<f64>, Located> {
    let err = |m: String| Located::new("command line", m).place(flag.to_string());
    let number = |s: &str| -> Result<f64, Located> {
        s.trim()
            .parse::<f64>()
            .map_err(|_| err(format!("`{s}` is not a number")))
    };
    if text.contains(':') {
        let parts: Vec<&str> = text.split(':').collect();
        let [from, to, steps] = parts[..] else {
            return Err(err(format!(
                "`{text}`: a range is FROM:TO:STEPS, e.g. {example}"
            )));
        };
        let steps = steps
            .trim()
            .parse::<i64>()
            .map_err(|_| err(format!("steps `{steps}` is not a whole number")))?;
        crate::scenario::range(number(from)?, number(to)?, steps).map_err(err)
    } else {
        // An empty item (`2.5,,4`) is a typo that would change the grid without a word.
        if text.split(',').any(|s| s.trim().is_empty()) {
            return Err(err(format!(
                "`{text}` has an empty item: give the values separated by commas, e.g. 2.5,3.3,4"
            )));
        }
        text.split(',').map(number).collect()
    }
}

/// `a,b,c` or `from:to:steps`.
fn sweep_values(flag: &str, text: &str, what: Assumption) -> Result<Axis, Located> {
    let err = |m: String| Located::new("command line", m).place(flag.to_string());
    let values = number_list(flag, text, "2.5:4.0:16")?;
    crate::scenario::checked_axis(values, what).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_values_take_lists_and_ranges() {
        let base = Assumption::BaseTokens;
        let e = sweep_values("--x", "2.5,,4", Assumption::BytesPerToken).unwrap_err();
        assert!(e.to_string().contains("has an empty item"), "{e}");
        assert_eq!(
            sweep_values("--x", "3,1,2,2", base).unwrap(),
            Axis(vec![1.0, 2.0, 3.0])
        );
        assert_eq!(
            sweep_values("--x", "1:2:3", base).unwrap(),
            Axis(vec![1.0, 1.5, 2.0])
        );
        assert!(sweep_values("--x", "1:2", base).is_err());
        assert!(
            sweep_values("--x", "0,1", base)
                .unwrap_err()
                .message
                .contains("more than 0")
        );
        assert_eq!(
            sweep_values("--x", "0,1", Assumption::RetryRate).unwrap(),
            Axis(vec![0.0, 1.0])
        );
        assert!(
            sweep_values("--x", "1:2:1", base)
                .unwrap_err()
                .message
                .contains("steps")
        );
    }

    #[test]
    fn history_takes_a_directory_or_shards_to_merge_never_both() {
        use crate::command::history::{HistoryConfig, HistorySource, Shard};
        let history = |args: &[&str]| {
            parse_from([&["simulate", "history"], args].concat()).map(|r| match r {
                Ok(Command::History(c)) => Ok(c),
                Ok(_) => panic!("not a history"),
                Err(e) => Err(e),
            })
        };
        let c: HistoryConfig = history(&["d", "--edits", "e.toml", "--shard", "2/8"])
            .unwrap()
            .unwrap();
        assert!(matches!(
            c.source,
            HistorySource::Sessions {
                shard: Some(Shard { index: 2, of: 8 }),
                ..
            }
        ));
        let c = history(&["--merge", "a", "b/", "--group-by", "project"])
            .unwrap()
            .unwrap();
        assert_eq!(
            c.source,
            HistorySource::Merge(vec!["a".into(), "b/".into()])
        );
        assert_eq!(c.group_by, Some(crate::history::GroupBy::Project));
        // A merge takes its edits and factors from the shards.
        for both in [
            &["d", "--merge", "a"][..],
            &["--merge", "a", "--edits", "e.toml"],
            &["--merge", "a", "--bpt-factors", "1"],
            &["--merge", "a", "--shard", "1/2"],
        ] {
            assert!(history(both).is_err(), "{both:?}");
        }
        assert!(
            history(&["d"]).is_err(),
            "--edits is required without --merge"
        );
        for bad in ["0/3", "4/3", "x", "1/0", "1-3"] {
            let e = history(&["d", "--edits", "e.toml", "--shard", bad])
                .unwrap()
                .unwrap_err();
            assert!(e.to_string().contains("is not a shard: give K/N"), "{e}");
        }
    }

    #[test]
    fn the_scenario_and_the_ledger_subcommand_parse() {
        let run = parse_from(["simulate", "s.toml", "--base", "20000"])
            .unwrap()
            .unwrap();
        assert!(matches!(
            run,
            Command::Run(RunConfig {
                base_tokens: Some(20000.0),
                ledger_csv: false,
                ..
            })
        ));
        let run = parse_from(["simulate", "s.toml", "--ledger-csv"])
            .unwrap()
            .unwrap();
        assert!(matches!(
            run,
            Command::Run(RunConfig {
                ledger_csv: true,
                ..
            })
        ));
        let ledger = parse_from(["simulate", "ledger", "t.tsv"])
            .unwrap()
            .unwrap();
        assert!(matches!(
            ledger,
            Command::Ledger(LedgerConfig {
                base_tokens: None,
                ..
            })
        ));
        // A misspelt subcommand is not read as a missing scenario.
        let e = parse_from(["simulate", "imprt"]).unwrap().unwrap_err();
        assert!(
            e.to_string().contains("did you mean `simulate import`"),
            "{e}"
        );
        let e = parse_from(["simulate", "Histroy"]).unwrap().unwrap_err();
        assert!(e.to_string().contains("`simulate history`"), "{e}");
        assert!(parse_from(["simulate", "nosuch.toml"]).unwrap().is_ok());
        assert!(misspelt_subcommand(std::path::Path::new("telemetry")).is_none());
        // A leading minus reaches the range check, which says what is valid.
        let e = parse_from(["simulate", "s.toml", "--base", "-1"]).unwrap_err();
        assert!(
            e.to_string().contains("-1 is out of range for base tokens"),
            "{e}"
        );
        let import = parse_from([
            "simulate",
            "import",
            "claude-code",
            "a.jsonl",
            "dir",
            "--out",
            "o",
            "--format",
            "json",
        ])
        .unwrap()
        .unwrap();
        assert!(matches!(
            import,
            Command::Import(crate::command::import::ImportConfig {
                format: crate::import::Format::ClaudeCode,
                output: Format::Json,
                ref paths,
                ..
            }) if paths.len() == 2
        ));
        assert!(parse_from(["simulate", "import", "codex", "a.jsonl"]).is_err());
        assert!(parse_from(["simulate", "import", "gemini", "a", "--out", "o"]).is_err());
        assert!(parse_from(["simulate"]).is_err());
        let e = parse_from(["simulate", "ledger", "scenarios/merge.toml"])
            .unwrap()
            .unwrap_err();
        assert!(
            e.message.contains("run `simulate scenarios/merge.toml`"),
            "{e}"
        );
    }
}
