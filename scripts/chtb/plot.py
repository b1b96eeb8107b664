"""Plots of chtbench CSVs: medians with min-max (or IQR) error bars, one line (or bar group) per
series, one panel per facet, PNG + PDF (TrueType fonts embedded: pdf.fonttype 42).

scripts/plot CSV [CSV...] [--x threads] [--y mops] [--series table] [--facet update] [--kind line|bar]
             [--logx] [--logy] [--err minmax|iqr] [--where 'update == 10'] [--latest] [--out results/plot]
"""
import argparse
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

matplotlib.rcParams["pdf.fonttype"] = 42
matplotlib.rcParams["ps.fonttype"] = 42

# axis labels with units (docs/csv.md); a column not here is labelled with its name
LABELS = {
    "threads": "threads", "mops": "throughput (Mops/s)", "update": "update ratio (%)",
    "initial": "initial size i (keys)", "range": "key range r", "dist": "key distribution",
    "pin": "thread pinning", "table": "table", "table_spec": "table", "lock": "lock",
    "acq_per_s": "acquisitions/s", "macq_per_s": "throughput (M acquisitions/s)",
    "write_pct": "write ratio (%)", "speedup": "speedup over 1 thread",
    "bytes_per_key": "table bytes per key", "duration_ms": "duration (ms)",
    "rss_delta_mb": "RSS after prefill − before create (MB)", "table_mb": "table bytes after prefill (MB)",
    "abort_rate": "transaction abort rate (%)", "tx_begins": "transactions started",
    "max_share": "largest per-thread share",
}


def label(col):
    if col in LABELS:
        return LABELS[col]
    if col.startswith("lat_") and col.endswith("_cycles"):
        return col[4:-7].replace("_", " ") + " (cycles)"
    if col.startswith("lat_") and col.endswith("_ns"):
        return col[4:-3].replace("_", " ") + " (ns)"
    return col


def load(paths):
    """CSV files -> one DataFrame of text cells ('' = not measured)."""
    for p in paths:
        if not os.path.exists(p):
            raise ValueError(f"no such file: {p}")
        if os.path.isdir(p):
            raise ValueError(f"{p} is a directory, not a CSV file")
    frames = []
    for p in paths:
        if os.path.getsize(p) == 0:
            continue
        try:
            frames.append(pd.read_csv(p, dtype=str, keep_default_na=False))
        except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
            raise ValueError(f"{p} is not a CSV file ({str(e).splitlines()[0][:80]})")
    if not frames:
        raise ValueError(f"no rows in {', '.join(paths)}")
    df = pd.concat(frames, ignore_index=True)
    return add_columns(df)


_SCHEMA = None


def numeric_columns():
    """Column names docs/csv.md types int or float (every CSV of chtbench: table, lock-bench,
    side files), read once; empty when docs/csv.md is not there."""
    global _SCHEMA
    if _SCHEMA is None:
        import re
        from . import REPO
        _SCHEMA = set()
        try:
            with open(os.path.join(REPO, "docs", "csv.md")) as f:
                for line in f:
                    m = re.match(r"\|\s*[A-Z]?[0-9]+(?:-[A-Z]?[0-9]+)?\s*\|\s*([a-z0-9_]+)\s*\|\s*(int|float)\b", line)
                    if m:
                        _SCHEMA.add(m.group(1))
        except OSError:
            pass
    return _SCHEMA


def typed(df):
    """A copy of df with the schema's numeric columns (and derived ones that are all numbers) as
    numbers ('' = NaN), so --where 'threads == 2' compares numbers."""
    out = df.copy()
    num = numeric_columns()
    for c in out.columns:
        if out[c].dtype != object:
            continue
        v = pd.to_numeric(out[c].where(out[c] != ""), errors="coerce")
        if c in num or (c not in num and len(v) and v.notna().sum() == (out[c] != "").sum() > 0):
            out[c] = v
    return out


def select(df, where):
    """The rows of df (text cells kept) for which the pandas query `where` holds over typed(df)."""
    try:
        hit = typed(df).query(where, engine="python")
    except Exception as e:   # a bad expression is a usage error, whatever pandas raises
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ValueError(f"--where: '{where}' is not a valid query ({msg})")
    return df.loc[hit.index]


def add_columns(df):
    """Columns every plot may use besides the CSV's: table_spec (table[:options]), macq_per_s."""
    if "table" in df.columns:
        opts = df["options"] if "options" in df.columns else ""
        df["table_spec"] = df["table"].where((opts == "") | (opts == "-"), df["table"] + ":" + opts)
    if "acq_per_s" in df.columns:
        df["macq_per_s"] = pd.to_numeric(df["acq_per_s"], errors="coerce") / 1e6
    if "git_rev" in df.columns:   # one value per build and host: --facet build, --series build
        from . import provenance
        lab, host = provenance.build_label(df)
        df["build"] = lab + " on " + host
    return df


def derive(df, exprs):
    """Adds {name: pandas expression over numeric columns} (DataFrame.eval)."""
    for name, expr in (exprs or {}).items():
        cols = [c for c in df.columns if c in expr]
        num = df[cols].apply(pd.to_numeric, errors="coerce")
        df[name] = num.eval(expr)
    return df


def relabel(df, rules):
    """{column: [[regex, replacement], ...]} rewrites a text column (e.g. drops an option that a
    figure varies along x from table_spec, so one series spans every x); {column: {from = "other",
    sub = [[regex, replacement], ...]}} makes (or replaces) `column` from another one (e.g. the
    value of a table option as an x: {from = "options", sub = [[".*\\br=([0-9]+).*", "\\1"]]})."""
    import re
    for col, rule in (rules or {}).items():
        src, subs = (rule.get("from", col), rule.get("sub", [])) if isinstance(rule, dict) else (col, rule)
        if src not in df.columns:
            raise ValueError(f"relabel: no column {src}")
        vals = df[src].astype(str)
        for pat, rep in subs:
            vals = vals.map(lambda v, p=re.compile(pat), r=rep: p.sub(r, v))
        df[col] = vals
    return df


def _as_list(v):
    if v is None:
        return []
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _ordered(values):
    """x values in numeric order when they are all numbers, else in order of appearance."""
    uniq = list(dict.fromkeys(values))
    num = pd.to_numeric(pd.Series(uniq), errors="coerce")
    if num.notna().all():
        return [u for _, u in sorted(zip(num, uniq))], True
    return uniq, False


def aggregate(df, x, y, series=None, facet=None, where=None):
    """Long table: facet, series, x, median, min, max, q1, q3, n (y may be a list: then a 'metric'
    column names each y, and is the facet unless another is given)."""
    if where:
        df = select(df, where)
    ys = _as_list(y)
    missing = [c for c in ys + [x] + _as_list(series) + _as_list(facet) if c not in df.columns and c != "metric"]
    if missing:
        raise ValueError(f"no column {missing[0]} in the CSV (columns: {', '.join(df.columns[:12])}, ...)")
    keep = [x] + _as_list(series) + [f for f in _as_list(facet) if f != "metric"]
    long = df[keep + ys].melt(id_vars=keep, value_vars=ys, var_name="metric", value_name="value")
    long["value"] = pd.to_numeric(long["value"], errors="coerce")
    long = long.dropna(subset=["value"])
    if facet is None and len(ys) > 1:
        facet = "metric"
    long["series"] = long[_as_list(series)].astype(str).agg(" ".join, axis=1) if series else ""
    long["facet"] = long[_as_list(facet)].astype(str).agg(" ".join, axis=1) if facet else ""
    if facet and facet != "metric" and not isinstance(facet, list):
        long["facet"] = f"{facet}=" + long["facet"]
    g = long.groupby(["facet", "series", x], sort=False)["value"]
    agg = g.agg(median="median", min="min", max="max", n="count").reset_index()
    agg["q1"] = g.quantile(0.25).values
    agg["q3"] = g.quantile(0.75).values
    agg = agg.rename(columns={x: "x"})
    agg.attrs.update(x=x, y=ys, series=series, facet=facet)
    return agg


def _tick(v):
    """1000000 -> $10^{6}$ (sizes read better as powers of ten), anything else as is."""
    t = str(v)
    if t.isdigit() and len(t) >= 4 and t.strip("0") == "1":
        return f"$10^{{{len(t) - 1}}}$"
    return t


def draw(agg, out_base, kind="line", xlabel=None, ylabel=None, logx=False, logy=False, title=None,
         err="minmax", ylim0=False):
    """Writes out_base.png and out_base.pdf; returns the two paths."""
    facets = list(dict.fromkeys(agg["facet"]))
    n = len(facets)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    xs, numeric = _ordered(agg["x"])
    series = list(dict.fromkeys(agg["series"]))
    cmap = plt.get_cmap("tab10" if len(series) <= 10 else "tab20")
    markers = "osD^v<>phX*"
    handles = {}
    ys = agg.attrs.get("y", [])
    for k, fac in enumerate(facets):
        ax = axes[k // cols][k % cols]
        sub = agg[agg["facet"] == fac]
        width = 0.8 / max(1, len(series))
        for j, s in enumerate(series):
            d = sub[sub["series"] == s]
            if d.empty:
                continue
            d = d.set_index("x").reindex([v for v in xs if v in set(d["x"])])
            lo, hi = (d["min"], d["max"]) if err == "minmax" else (d["q1"], d["q3"])
            yerr = [(d["median"] - lo).clip(lower=0), (hi - d["median"]).clip(lower=0)]
            if kind == "bar":
                pos = [xs.index(v) + (j - (len(series) - 1) / 2) * width for v in d.index]
                h = ax.bar(pos, d["median"], width=width, yerr=yerr, capsize=2, color=cmap(j % cmap.N),
                           label=s or None, error_kw={"elinewidth": 0.8})
            else:
                xv = pd.to_numeric(pd.Series(d.index), errors="coerce") if numeric else \
                    [xs.index(v) for v in d.index]
                h = ax.errorbar(xv, d["median"], yerr=yerr, marker=markers[j % len(markers)], ms=4,
                                capsize=2, lw=1.3, color=cmap(j % cmap.N), label=s or None)
            handles.setdefault(s, h)
        if kind == "bar" or not numeric:
            ax.set_xticks(range(len(xs)))
            ax.set_xticklabels([_tick(v) for v in xs], rotation=30 if len(xs) > 6 else 0)
        elif logx:
            ax.set_xscale("log", base=2 if agg.attrs.get("x") == "threads" else 10)
        if numeric and kind != "bar" and agg.attrs.get("x") == "threads":
            ax.set_xticks([float(v) for v in xs])
            ax.set_xticklabels([str(v) for v in xs])
        if logy:
            ax.set_yscale("log")
        elif ylim0:
            ax.set_ylim(bottom=0)
        ax.set_xlabel(xlabel or label(agg.attrs.get("x", "x")))
        if fac == "" or agg.attrs.get("facet") != "metric":
            ax.set_ylabel(ylabel or (label(ys[0]) if len(ys) == 1 else "value"))
        else:
            ax.set_ylabel(label(fac))
        if fac:
            ax.set_title(fac if agg.attrs.get("facet") != "metric" else label(fac), fontsize=10)
        ax.grid(True, alpha=0.3)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    if title:
        fig.suptitle(title, fontsize=11)
    if any(handles):
        leg_title = agg.attrs.get("series")
        fig.legend([handles[s] for s in handles], list(handles), loc="center left",
                   bbox_to_anchor=(1.0, 0.5), frameon=False,
                   title=label(leg_title) if isinstance(leg_title, str) else None)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out_base)), exist_ok=True)
    paths = []
    for ext in ("png", "pdf"):
        p = f"{out_base}.{ext}"
        fig.savefig(p, dpi=130, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


def plot_spec(df, spec, out_base, title=None):
    """Draws a figure's [plot] table from a DataFrame; returns (aggregate, paths)."""
    df = derive(relabel(df, spec.get("relabel")), spec.get("derive"))
    agg = aggregate(df, spec["x"], spec["y"], spec.get("series"), spec.get("facet"), spec.get("where"))
    if agg.empty:
        raise ValueError("nothing to plot: no numeric values in the selected rows")
    paths = draw(agg, out_base, kind=spec.get("kind", "line"), xlabel=spec.get("xlabel"),
                 ylabel=spec.get("ylabel"), logx=spec.get("logx", False), logy=spec.get("logy", False),
                 title=title, err=spec.get("err", "minmax"), ylim0=spec.get("ylim0", True))
    return agg, paths


def main(argv=None):
    p = argparse.ArgumentParser(prog="plot", description="Plot chtbench CSVs: medians with error bars.")
    p.add_argument("csv", nargs="+")
    p.add_argument("--x", default="threads")
    p.add_argument("--y", action="append", help="column (repeat for several panels); default mops, "
                   "or macq_per_s for lock-bench CSVs")
    p.add_argument("--series", default=None, help="column per line (default table_spec, or lock)")
    p.add_argument("--facet", default=None, help="column per panel")
    p.add_argument("--kind", choices=["line", "bar"], default="line")
    p.add_argument("--err", choices=["minmax", "iqr"], default="minmax")
    p.add_argument("--logx", action="store_true")
    p.add_argument("--logy", action="store_true")
    p.add_argument("--where", help="pandas query selecting rows, e.g. 'update == 10 and threads <= 4' "
                   "(numeric columns of docs/csv.md are numbers)")
    p.add_argument("--latest", action="store_true", help="keep only the newest run (run_id) of each "
                   "(x, series, facet) cell")
    p.add_argument("--title")
    p.add_argument("--out", default=None, help="output path without extension (default: beside the first CSV)")
    a = p.parse_args(argv)
    try:
        df = load(a.csv)
    except (ValueError, OSError) as e:
        print(f"plot: {e}", file=sys.stderr)
        return 2
    bench = "lock" in df.columns and "table" not in df.columns
    y = a.y or (["macq_per_s"] if bench else ["mops"])
    series = a.series or ("lock" if bench else "table_spec")
    from . import provenance
    if a.latest:
        df = provenance.latest(df, [a.x] + _as_list(series) + _as_list(a.facet))
    warn = provenance.mixed_warning(df)
    if warn and a.facet != "build" and series != "build":
        print(f"plot: warning: {warn}", file=sys.stderr)
    out = a.out or os.path.splitext(a.csv[0])[0] + "-" + "-".join(y)[:40]
    try:
        spec = {"x": a.x, "y": y if len(y) > 1 else y[0], "series": series, "facet": a.facet,
                "where": a.where, "kind": a.kind, "err": a.err, "logx": a.logx, "logy": a.logy}
        _, paths = plot_spec(df, spec, out, title=a.title)
    except (ValueError, KeyError) as e:
        print(f"plot: {e}", file=sys.stderr)
        return 2
    for q in paths:
        print(q)
    return 0
