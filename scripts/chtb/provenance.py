"""Which build and host made a row (docs/figures.md "Provenance").

A row's build is its build-context columns (docs/csv.md: version, git_rev, build_type, sanitizer,
compiler, allocator; a build that chooses its allocator at run time, --allocator, may write any of
RUNTIME_ALLOCATORS) plus its host; the sweep directory's runs.json adds the sha256 of the chtbench
binary that wrote each run_id, so a rebuild with uncommitted changes (same git_rev) differs too. Rows
of runs.json-less runs (older sweeps, hand-made CSVs) are judged on the columns alone.
"""
import hashlib
import json
import os
import socket
import subprocess

import pandas as pd

# chtbench --version's line names -> CSV column names
_VERSION_KEYS = {"version": "version", "git": "git_rev", "build": "build_type", "sanitizer": "sanitizer",
                 "compiler": "compiler", "allocator": "allocator"}
BUILD_COLS = tuple(_VERSION_KEYS.values())   # the columns a build fixes: those --version names
RUNS_NAME = "runs.json"
# chtbench --allocator (docs/cli.md "Allocators"): a build whose --version says "system" chooses the
# allocator at run time, so its rows may carry any of these; a -Dallocator=jemalloc build only its own
RUNTIME_ALLOCATORS = ("system", "jemalloc", "mimalloc", "tcmalloc")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def current(chtbench):
    """{column: value} of the build `chtbench` is, plus host and binary_sha256."""
    cur = {"host": socket.gethostname(), "binary_sha256": sha256(chtbench)}
    try:
        out = subprocess.run([chtbench, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    cur["version_text"] = out.strip() or None   # as machine.json's chtbench_version
    for line in out.splitlines():
        k, sep, v = line.partition(":")
        if sep and k.strip() in _VERSION_KEYS:
            cur[_VERSION_KEYS[k.strip()]] = v.strip()
    return cur


def read_runs(out_dir):
    try:
        with open(os.path.join(out_dir, RUNS_NAME)) as f:
            d = json.load(f)
        return d if isinstance(d, dict) else {}
    except (OSError, ValueError):
        return {}


def record_runs(out_dir, run_ids, cur):
    """Adds run_id -> binary sha256 to out_dir/runs.json (atomically: temp file + rename)."""
    runs = read_runs(out_dir)
    for r in run_ids:
        runs[r] = cur["binary_sha256"]
    tmp = os.path.join(out_dir, "." + RUNS_NAME + ".tmp")
    with open(tmp, "w") as f:
        json.dump(runs, f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(tmp, os.path.join(out_dir, RUNS_NAME))


def _col(df, c):
    return df[c].astype(str) if c in df.columns else pd.Series("?", index=df.index)


def build_label(df, runs=None):
    """Per row: 'GIT_REV (build_type, compiler, sanitizer S, allocator[, binary XXXXXXXX])' and, in a
    second Series, the host."""
    lab = (_col(df, "git_rev") + " (" + _col(df, "build_type") + ", " + _col(df, "compiler")
           + ", sanitizer " + _col(df, "sanitizer") + ", " + _col(df, "allocator") + ", v" + _col(df, "version"))
    if runs and "run_id" in df.columns:
        sha = df["run_id"].map(lambda r: runs.get(r, ""))
        lab = lab + sha.map(lambda s: f", binary {s[:12]}" if s else "")
    return lab + ")", _col(df, "host")


def current_label(cur):
    return (f"{cur.get('git_rev', '?')} ({cur.get('build_type', '?')}, {cur.get('compiler', '?')}, sanitizer "
            f"{cur.get('sanitizer', '?')}, {cur.get('allocator', '?')}, v{cur.get('version', '?')}, binary "
            f"{cur['binary_sha256'][:12]})")


def is_current(df, cur, runs, check_host=True):
    """Per row: written by this build on this host (binary checked where runs.json knows the run;
    check_host=False for Slurm sweeps, whose rows come from many nodes)."""
    m = _col(df, "host") == cur["host"] if check_host else pd.Series(True, index=df.index)
    for c in BUILD_COLS:
        if c == "allocator" and cur.get(c) == "system":
            m &= _col(df, c).isin(RUNTIME_ALLOCATORS)
        else:
            m &= _col(df, c) == cur.get(c, "?")
    if runs and "run_id" in df.columns:
        sha = df["run_id"].map(lambda r: runs.get(r, ""))
        m &= (sha == "") | (sha == cur["binary_sha256"])
    return m


def groups(df, runs=None):
    """[(label, host, run ids, rows)] of the distinct builds x hosts in df, oldest first."""
    if df is None or df.empty:
        return []
    lab, host = build_label(df, runs)
    key = lab + " on " + host
    out = []
    for k in dict.fromkeys(key):
        sel = df[key == k]
        out.append((lab[sel.index[0]], host[sel.index[0]],
                    sorted(set(sel["run_id"])) if "run_id" in sel.columns else [], len(sel)))
    return out


def mixed_warning(df, runs=None):
    """One line when df mixes builds or hosts, else None."""
    g = groups(df, runs)
    if len(g) < 2:
        return None
    parts = [f"{lab} on {host}: {n} rows, {len(ids)} run(s)" for lab, host, ids, n in g]
    return (f"the data mixes {len(g)} builds/hosts: " + "; ".join(parts)
            + " (scripts/plot --facet build, --where 'git_rev == \"...\"' or --latest separate them)")


def latest(df, cell_cols):
    """Keeps, per cell (the distinct values of cell_cols), only the rows of its newest run_id (by
    the largest timestamp of its rows)."""
    if "run_id" not in df.columns or "timestamp" not in df.columns or df.empty:
        return df
    cols = [c for c in cell_cols if c in df.columns]
    newest = df.groupby("run_id")["timestamp"].max()
    t = df["run_id"].map(newest)
    if not cols:
        return df[df["run_id"] == newest.idxmax()]
    best = t.groupby([df[c] for c in cols]).transform("max")
    return df[t == best]
