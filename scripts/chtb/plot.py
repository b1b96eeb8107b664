"""Plots of chtbench CSVs: medians with min-max (or IQR) error bars, one line (or bar group) per
series, one panel per facet, PNG + PDF (TrueType fonts embedded: pdf.fonttype 42) + SVG, each
double-column (OUT.*, 7 in) and single-column (OUT-1col.*, 3.5 in); colours, markers and series
labels from chtb.style.

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

from . import style  # noqa: E402

matplotlib.rcParams["pdf.fonttype"] = 42
matplotlib.rcParams["ps.fonttype"] = 42

# axis labels with units (docs/csv.md); a column not here is labelled with its name
LABELS = {
    "threads": "threads", "mops": "throughput (Mops/s)", "update": "update ratio (%)",
    "initial": "initial size i (keys)", "range": "key range r", "dist": "key distribution",
    "pin": "thread pinning", "table": "table", "table_spec": "table", "lock": "lock",
    "acq_per_s": "acquisitions/s", "macq_per_s": "acquisitions (M/s)",
    "write_pct": "write ratio (%)", "speedup": "speedup over 1 thread",
    "bytes_per_key": "table bytes per key", "duration_ms": "duration (ms)",
    "rss_delta_mb": "RSS after prefill − before create (MB)", "table_mb": "table bytes after prefill (MB)",
    "abort_rate": "transaction abort rate (%)", "tx_begins": "transactions started",
    "max_share": "largest per-thread share", "workload": "YCSB workload",
    "interval_mops": "throughput per interval (Mops/s)", "t": "time (ms)", "t_ms": "time (ms)",
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


def _tick(v, col=None):
    """1000000 -> $10^{6}$ (sizes read better as powers of ten), Zipf specs in words, anything else
    as is."""
    t = str(v)
    if t.isdigit() and len(t) >= 4 and t.strip("0") == "1":
        return f"$10^{{{len(t) - 1}}}$"
    if col == "dist":
        return style.dist_words(t)
    return t


def _plain(v, _pos=None):
    """A log-axis tick as a plain number: 0.2, 5, 1,000 (never 10^-1 or 2e+03)."""
    if v <= 0:
        return ""
    if v >= 1:
        return f"{v:,.0f}"
    return f"{v:.6f}".rstrip("0").rstrip(".")


def _log_ticks(axis, lo, hi):
    """Labelled ticks a reader can read values from: 1-2-3-5-7 under one decade, 1-2-5 per decade up
    to three decades, every decade (with unlabelled 2..9 minors) over more."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    decades = math.log10(hi / lo) if lo > 0 and hi > 0 else 99
    if decades < 1:   # under one decade 1-2-5 may leave a single label
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0, 7.0)))
    elif decades <= 3:
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    else:
        axis.set_major_locator(LogLocator(base=10))
    axis.set_minor_locator(LogLocator(base=10, subs=tuple(range(2, 10))))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_formatter(NullFormatter())


# Sizes for a paper: NAME.* is double-column (7 in wide), NAME-1col.* single-column (3.5 in); the
# figure is drawn at print size, so text stays at these point sizes (>= 7 pt) when printed.
SIZES = {"": 7.0, "-1col": 3.5}
RC = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 7, "ytick.labelsize": 7,
      "legend.fontsize": 7, "legend.title_fontsize": 7, "figure.titlesize": 8, "font.family": "DejaVu Sans",
      "axes.linewidth": 0.6, "grid.linewidth": 0.4, "lines.linewidth": 1.1, "lines.markersize": 4,
      "xtick.major.width": 0.6, "ytick.major.width": 0.6, "hatch.linewidth": 0.5, "pdf.fonttype": 42, "ps.fonttype": 42}
HATCH = {"o": "", "s": "////", "D": "...", "^": "xxx", "v": "\\\\\\\\", "P": "+++", "X": "xx", "<": "---",
         ">": "|||", "h": "///", "*": "\\\\\\", "p": ".."}


def _ylabel(agg, fac, ylabel):
    ys = agg.attrs.get("y", [])
    if agg.attrs.get("facet") != "metric" and not (isinstance(agg.attrs.get("facet"), list)
                                                   and "metric" in agg.attrs["facet"]):
        return ylabel or (label(ys[0]) if len(ys) == 1 else "value")
    if ylabel:
        return ylabel
    units = {label(y).rsplit("(", 1)[-1] for y in ys if "(" in label(y)}
    words = [style.metric_words(y) for y in ys]
    if all(words) and len(units) == 1:
        stat = {w[0] for w in words}   # a statistic all panels share is named here, not in the titles
        return (stat.pop() + " " if len(stat) == 1 else "") + "latency (" + units.pop()
    return label(fac.split(" ", 1)[0])


def draw(agg, out_base, kind="line", xlabel=None, ylabel=None, logx=False, logy=False, title=None,
         err="minmax", ylim0=False, labels=None):
    """Writes out_base.{png,pdf,svg} (7 in wide) and out_base-1col.{png,pdf,svg} (3.5 in); returns
    the paths, the double-column PNG and PDF first."""
    paths = []
    with matplotlib.rc_context(RC):
        for suffix, width in SIZES.items():
            fig = _draw_one(agg, width, kind, xlabel, ylabel, logx, logy, title, err, ylim0, labels)
            os.makedirs(os.path.dirname(os.path.abspath(out_base)), exist_ok=True)
            for ext in ("png", "pdf", "svg"):
                p = f"{out_base}{suffix}.{ext}"
                fig.savefig(p, dpi=200 if ext == "png" else None, bbox_inches="tight", pad_inches=0.03,
                            metadata={"Date": None} if ext == "svg" else None)
                paths.append(p)
            plt.close(fig)
    return paths


def _draw_one(agg, width, kind, xlabel, ylabel, logx, logy, title, err, ylim0, labels):
    import textwrap
    facets = list(dict.fromkeys(agg["facet"]))
    n = len(facets)
    cols = min(n, 3 if width >= 7 else 1 if n <= 2 else 2)   # single column: two panels stack
    rows = math.ceil(n / cols)
    xs, numeric = _ordered(agg["x"])
    series = list(dict.fromkeys(agg["series"]))
    look = style.styles(series)
    names = style.series_labels(series, labels)
    ys = agg.attrs.get("y", [])
    xcol = agg.attrs.get("x", "x")
    titles = style.panel_titles(facets, agg.attrs.get("facet"), ys)
    # room: panels, then the legend below them, the title above
    ncol = max(1, min(len(series), 4 if width >= 7 else 2))
    leg_rows = math.ceil(len(series) / ncol) if any(series) else 0
    panel_w = width / cols
    panel_h = min(2.3 if cols > 1 else 2.8, max(1.55, 0.72 * panel_w))
    wrap = int(width * 15)
    title_lines = textwrap.wrap(title.split("\n")[0], wrap) + textwrap.wrap(
        title.split("\n", 1)[1], wrap) if title and "\n" in title else (textwrap.wrap(title, wrap) if title else [])
    top_in = 0.14 * len(title_lines) + (0.05 if title_lines else 0)
    has_title = isinstance(agg.attrs.get("series"), str)   # the legend title takes a row too
    leg_in = 0.16 * (leg_rows + has_title) + 0.12 if leg_rows else 0
    height = rows * panel_h + top_in + leg_in + 0.35
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), squeeze=False)
    handles = {}
    for k, fac in enumerate(facets):
        ax = axes[k // cols][k % cols]
        sub = agg[agg["facet"] == fac]
        w = 0.8 / max(1, len(series))
        for j, s in enumerate(series):
            d = sub[sub["series"] == s]
            if d.empty:
                continue
            d = d.set_index("x").reindex([v for v in xs if v in set(d["x"])])
            lo, hi = (d["min"], d["max"]) if err == "minmax" else (d["q1"], d["q3"])
            yerr = [(d["median"] - lo).clip(lower=0), (hi - d["median"]).clip(lower=0)]
            colour, marker, filled, ls = look[s]
            if kind == "bar":
                pos = [xs.index(v) + (j - (len(series) - 1) / 2) * w for v in d.index]
                # the hatch (from the series' marker) keeps bars apart in greyscale: white lines on
                # a filled bar, coloured ones on a hollow variant
                h = ax.bar(pos, d["median"], width=w, yerr=yerr, capsize=1.5, color=colour if filled else "white",
                           edgecolor="white" if filled else colour, linewidth=0.5, hatch=HATCH.get(marker, ""),
                           label=names[s] or None, error_kw={"elinewidth": 0.6, "capthick": 0.6, "ecolor": "#333"})
            else:
                xv = pd.to_numeric(pd.Series(d.index), errors="coerce") if numeric else \
                    [xs.index(v) for v in d.index]
                # about a dozen marks per line: a timeline's 30 points would bury the lines
                h = ax.errorbar(xv, d["median"], yerr=yerr, marker=marker, capsize=1.5, color=colour, ls=ls,
                                markevery=max(1, len(d) // 12), errorevery=max(1, len(d) // 12),
                                markerfacecolor=colour if filled else "white", markeredgewidth=0.8,
                                elinewidth=0.6, label=names[s] or None)
            handles.setdefault(s, h)
        if kind == "bar" or not numeric:
            ax.set_xticks(range(len(xs)))
            ticks = [_tick(v, xcol) for v in xs]
            # rotate when the labels would not fit side by side (7 pt: about 0.06 in per character)
            tilt = max(len(t) for t in ticks) * 0.06 > 0.85 * (panel_w - 0.55) / len(xs)
            ax.set_xticklabels(ticks, rotation=30 if tilt else 0, ha="right" if tilt else "center",
                               rotation_mode="anchor" if tilt else "default")
        elif logx:
            ax.set_xscale("log", base=2 if xcol == "threads" else 10)
            if xcol != "threads":
                vals = pd.to_numeric(pd.Series(xs), errors="coerce")
                _log_ticks(ax.xaxis, vals.min(), vals.max())
        if numeric and kind != "bar" and xcol == "threads":
            ax.set_xticks([float(v) for v in xs])
            ax.set_xticklabels([str(v) for v in xs])
            ax.minorticks_off() if not logy else None
        if logy:
            ax.set_yscale("log")
            vals = pd.concat([sub["min"], sub["max"], sub["median"]])
            vals = vals[vals > 0]
            if len(vals):
                _log_ticks(ax.yaxis, vals.min(), vals.max())
        elif ylim0:
            ax.set_ylim(bottom=0)
        # labels wrap to the panel (8 pt: about 0.07 in per character)
        ax.set_xlabel("\n".join(textwrap.wrap(xlabel or label(xcol), max(16, int((panel_w - 0.4) / 0.07)))))
        ax.set_ylabel("\n".join(textwrap.wrap(_ylabel(agg, fac, ylabel), max(16, int((panel_h - 0.2) / 0.07)))))
        if fac:
            ax.set_title(titles.get(fac, fac))
        ax.grid(True, alpha=0.35)
        ax.spines[["top", "right"]].set_visible(False)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    if title_lines:
        fig.suptitle("\n".join(title_lines), y=1 - 0.04 / height)
    fig.tight_layout(rect=[0, leg_in / height, 1, 1], h_pad=1.0, w_pad=0.8)   # it makes room for the suptitle
    if any(handles):
        leg_title = agg.attrs.get("series")
        fig.legend([handles[s] for s in handles], [names[s] for s in handles], loc="lower center",
                   bbox_to_anchor=(0.5, 0.0), ncol=ncol, frameon=False, columnspacing=1.2, handletextpad=0.4,
                   title=label(leg_title) if isinstance(leg_title, str) else None)
    return fig


def plot_spec(df, spec, out_base, title=None, labels=None):
    """Draws a figure's [plot] table from a DataFrame; returns (aggregate, paths)."""
    df = derive(relabel(df, spec.get("relabel")), spec.get("derive"))
    agg = aggregate(df, spec["x"], spec["y"], spec.get("series"), spec.get("facet"), spec.get("where"))
    if agg.empty:
        raise ValueError("nothing to plot: no numeric values in the selected rows")
    paths = draw(agg, out_base, kind=spec.get("kind", "line"), xlabel=spec.get("xlabel"),
                 ylabel=spec.get("ylabel"), logx=spec.get("logx", False), logy=spec.get("logy", False),
                 title=title, err=spec.get("err", "minmax"), ylim0=spec.get("ylim0", True), labels=labels)
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
