#!/usr/bin/env python3
"""Runs `simulate history` over a folder of sessions as tasks of a Dask distributed
cluster, then merges the shards into one history: the same files, byte for byte, as one
`simulate history` run over the whole folder (docs/scale.md).

    python3 tools/dask_history.py --simulate target/release/simulate \\
        --sessions sessions --edits edits.toml --name team --out out \\
        [--tasks 8] [--workers 2 | --scheduler tcp://scheduler:8786] [--group-by user]

1. Lists the session files (`*.toml`, recursively, paths relative to --sessions, sorted).
2. Splits the list into --tasks parts (round robin), and hands each task its part on
   stdin (`simulate history DIR --files-from -`): no list file to share, and the split
   does not depend on how `--shard K/N` assigns sessions.
3. Each task runs `simulate history` in a scratch folder of its worker and returns its
   `shard.jsonl` (what `--merge` reads), so the workers need to read the sessions (a shared
   volume, or the same path on every node) but not to share an output folder.
4. Writes the shards under OUT/.shards/<k>/<name>/ and runs `simulate history --merge`
   into OUT/<name>/.

Every task runs the same command on the same directory path, as the merge requires for its
result to equal one run's (the shards' header names the directory as given). With
--scheduler, the tasks run on that cluster (the same code on a Kubernetes or batch
deployment of Dask); without it, on a local cluster of --workers processes. Exit status:
that of the first failing task or of the merge, with its stderr.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def session_files(root):
    """Every `*.toml` under root, relative to it, sorted (as `simulate history` orders them)."""
    found = []
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs.sort()
        for name in files:
            if name.endswith(".toml"):
                found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


def split(files, n):
    """`files` in `n` parts, round robin; empty parts left out."""
    parts = [files[k::n] for k in range(n)]
    return [p for p in parts if p]


def run_shard(simulate, sessions, edits, name, extra, files):
    """One task: `simulate history` over `files` (relative to `sessions`) in a scratch
    folder; returns (exit code, shard.jsonl bytes or None, stderr)."""
    with tempfile.TemporaryDirectory(prefix="simulate-shard-") as out:
        cmd = [simulate, "history", sessions, "--edits", edits, "--name", name,
               "--files-from", "-", "--out", out] + list(extra)
        p = subprocess.run(cmd, input="\n".join(files) + "\n", capture_output=True, text=True)
        shard = os.path.join(out, name, "shard.jsonl")
        data = None
        if p.returncode == 0 and os.path.exists(shard):
            with open(shard, "rb") as f:
                data = f.read()
        return p.returncode, data, p.stderr


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--simulate", required=True, help="the simulate binary (the same path on every worker)")
    ap.add_argument("--sessions", required=True, help="the folder of session scenarios")
    ap.add_argument("--edits", required=True, help="the edits file")
    ap.add_argument("--name", required=True, help="the history's name (OUT/NAME/)")
    ap.add_argument("--out", required=True, help="where the merged history goes")
    ap.add_argument("--tasks", type=int, default=8, help="how many parts (tasks); default 8")
    ap.add_argument("--workers", type=int, default=2, help="local cluster size (without --scheduler)")
    ap.add_argument("--scheduler", help="a running Dask scheduler's address, instead of a local cluster")
    ap.add_argument("--group-by", help="passed to the merge (every shard carries the labels)")
    args, extra = ap.parse_known_args(argv)
    if extra and extra[0] == "--":
        extra = extra[1:]

    from dask.distributed import Client, LocalCluster

    files = session_files(args.sessions)
    if not files:
        sys.exit(f"error: {args.sessions}: no *.toml session found")
    parts = split(files, max(1, args.tasks))
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        futures = [client.submit(run_shard, args.simulate, args.sessions, args.edits, args.name,
                                 extra, part, key=f"simulate-history-shard-{k}", pure=False)
                   for k, part in enumerate(parts, 1)]
        results = client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

    shard_dirs = []
    for k, (code, data, stderr) in enumerate(results, 1):
        if code != 0 or data is None:
            sys.stderr.write(stderr)
            sys.exit(code or 1)
        folder = os.path.join(args.out, ".shards", str(k), args.name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "shard.jsonl"), "wb") as f:
            f.write(data)
        shard_dirs.append(folder)
    cmd = [args.simulate, "history", "--merge"] + shard_dirs + ["--name", args.name, "--out", args.out]
    if args.group_by:
        cmd += ["--group-by", args.group_by]
    p = subprocess.run(cmd)
    sys.exit(p.returncode)


if __name__ == "__main__":
    main()
