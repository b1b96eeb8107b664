"""The aggregated CSV of a sweep (summary*.csv beside results*.csv): one row per cell and build,
with the median of the throughput over its repetitions and speedup = T(n)/T(1).

chtbench's own `speedup` column is empty in every multi-thread row of a sweep: each cell is its own
invocation, so no 1-thread run is in the same process. Here T(n) is the cell's median throughput
(mops, or acq_per_s for lock benches) and T(1) the median of the cell of the same sweep with the same
other parameters and threads = 1, from the same build and host. Without such a cell, speedup is
empty and speedup_note says why.
"""
import pandas as pd

from . import config, provenance


def _threads(sweep, cell):
    v = cell.get("threads")
    if v is None:
        for i, a in enumerate(sweep.base):
            if a in ("--threads", "-n") and i + 1 < len(sweep.base):
                v = sweep.base[i + 1]
    return v


def summarize(sweep, df, runs=None):
    metric = "acq_per_s" if sweep.bench else "mops"
    lab, host = provenance.build_label(df, runs)
    axes = list(dict.fromkeys(k for c in sweep.cells for k in c))
    rows, seen = [], set()
    for i, c in enumerate(sweep.cells):
        key = config.match_key(sweep, c)
        ident = tuple(sorted(key.items()))
        if ident in seen:   # cells with equal parameters share rows
            continue
        seen.add(ident)
        m = config.match_mask(df, key)
        sub = df[m]
        if sub.empty:
            continue
        for (b, h), g in sub.groupby([lab[m], host[m]], sort=False):
            v = pd.to_numeric(g[metric], errors="coerce").dropna() if metric in g.columns else pd.Series([], dtype=float)
            r = {"cell": i + 1}
            r.update({k: c.get(k, "") for k in axes})
            r.update(build=b, host=h, reps=len(g), metric=metric,
                     median=v.median() if len(v) else float("nan"),
                     min=v.min() if len(v) else float("nan"), max=v.max() if len(v) else float("nan"))
            r["_key"] = tuple(sorted((k, x) for k, x in key.items() if k != "threads"))
            r["_threads"] = _threads(sweep, c)
            rows.append(r)
    one = {}
    for r in rows:
        if str(r["_threads"]) == "1":
            one[(r["_key"], r["build"], r["host"])] = r["median"]
    other_build = {(r["_key"]) for r in rows if str(r["_threads"]) == "1"}
    for r in rows:
        t = r["_threads"]
        r["speedup"], r["speedup_note"] = float("nan"), ""
        if t is None:
            r["speedup_note"] = "chtbench's default thread count: no threads value to compare"
        elif not str(t).isdigit():
            r["speedup_note"] = f"threads={t} is a list in one invocation: see chtbench's own speedup column"
        elif (r["_key"], r["build"], r["host"]) in one:
            base = one[(r["_key"], r["build"], r["host"])]
            if base and base == base:
                r["speedup"] = r["median"] / base
            else:
                r["speedup_note"] = "the 1-thread cell has no throughput"
        elif r["_key"] in other_build:
            r["speedup_note"] = "the 1-thread cell with these parameters is from another build or host"
        else:
            r["speedup_note"] = "no 1-thread cell with these parameters in this sweep"
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=["cell"] + axes + ["build", "host", "reps", "metric", "median", "min",
                                                       "max", "speedup", "speedup_note"])
    return out.drop(columns=["_key", "_threads"])
