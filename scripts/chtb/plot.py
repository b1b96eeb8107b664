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
import numpy as np  # noqa: E402

from . import REPO, provenance, style  # noqa: E402

matplotlib.rcParams["pdf.fonttype"] = 42
matplotlib.rcParams["ps.fonttype"] = 42

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
        if not pd.api.types.is_string_dtype(out[c]):   # text: object (pandas < 3) or str (pandas 3)
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


def as_list(v):
    """A spec value that may be one name or a list of them, as a list (None: empty)."""
    if v is None:
        return []
    return list(v) if isinstance(v, (list, tuple)) else [v]


def ordered(values):
    """x values in numeric order when they are all numbers (numeric: True); else in order of
    appearance, except that text and numbers mixed (`single`, 1, 4, 16) put the text first and the
    numbers in numeric order (categories, evenly spaced)."""
    uniq = list(dict.fromkeys(values))
    num = pd.to_numeric(pd.Series(uniq, dtype=object), errors="coerce")
    if num.notna().all():
        return [u for _, u in sorted(zip(num, uniq))], True
    if num.notna().any():
        text = [u for u, n in zip(uniq, num) if n != n]
        return text + [u for n, u in sorted(((n, u) for u, n in zip(uniq, num) if n == n), key=lambda p: p[0])], False
    return uniq, False


def pick_best(df, best, x, series=None, facet=None):
    """The rows of df at the best value of column best["over"] per (series, facet, x): the value
    whose median of best["by"] is highest (lowest with best["minimize"]), e.g. the best --pipeline W
    per table and key range. Returns (rows, chosen: DataFrame of the grouping columns and `over`)."""
    over, by = best["over"], best["by"]
    keys = [x] + as_list(series) + [f for f in as_list(facet) if f != "metric"]
    for c in keys + [over, by]:
        if c not in df.columns:
            raise ValueError(f"best: no column {c} in the CSV")
    v = pd.to_numeric(df[by], errors="coerce")
    med = v.groupby([df[k] for k in keys + [over]], sort=False).median().dropna()
    if med.empty:
        return df.iloc[:0], pd.DataFrame(columns=keys + [over])
    pick = med.groupby(level=list(range(len(keys))), sort=False)
    chosen = pd.DataFrame(list((pick.idxmin() if best.get("minimize") else pick.idxmax()).values),
                          columns=keys + [over])
    hit = pd.MultiIndex.from_frame(df[keys + [over]]).isin(pd.MultiIndex.from_frame(chosen))
    return df[hit], chosen


def aggregate(df, x, y, series=None, facet=None, where=None, best=None):
    """Long table: facet, series, x, median, min, max, q1, q3, n (y may be a list: then a 'metric'
    column names each y, and is the facet unless another is given; with a facet column given too,
    the facet is (metric, that column): one row of panels per y, attrs["grid"]). best = {over, by}:
    only the rows at the best value of `over` per point (pick_best), which attrs["best"] records."""
    if where:
        df = select(df, where)
    ys = as_list(y)
    missing = [c for c in ys + [x] + as_list(series) + as_list(facet) if c not in df.columns and c != "metric"]
    if missing:
        raise ValueError(f"no column {missing[0]} in the CSV (columns: {', '.join(df.columns[:12])}, ...)")
    chosen = None
    if best:
        df, chosen = pick_best(df, dict({"by": ys[0]}, **best), x, series, facet)
    keep = [x] + as_list(series) + [f for f in as_list(facet) if f != "metric"]
    long = df[keep + ys].melt(id_vars=keep, value_vars=ys, var_name="metric", value_name="value")
    long["value"] = pd.to_numeric(long["value"], errors="coerce")
    long = long.dropna(subset=["value"])
    grid = isinstance(facet, str) and facet != "metric" and len(ys) > 1
    if facet is None and len(ys) > 1:
        facet = "metric"
    long["series"] = long[as_list(series)].astype(str).agg(" ".join, axis=1) if series else ""
    if grid:   # "metric VALUE": one row of panels per y, one column per value of the facet column
        long["facet"] = long["metric"] + " " + facet + "=" + long[facet].astype(str)
    else:
        long["facet"] = long[as_list(facet)].astype(str).agg(" ".join, axis=1) if facet else ""
    if facet and facet != "metric" and not isinstance(facet, list) and not grid:
        long["facet"] = f"{facet}=" + long["facet"]
    g = long.groupby(["facet", "series", x], sort=False)["value"]
    agg = g.agg(median="median", min="min", max="max", n="count").reset_index()
    agg["q1"] = g.quantile(0.25).values
    agg["q3"] = g.quantile(0.75).values
    agg = agg.rename(columns={x: "x"})
    agg.attrs.update(x=x, y=ys, series=series, facet=facet, grid=grid)
    if chosen is not None:
        c = chosen.rename(columns={x: "x"})
        c["series"] = c[as_list(series)].astype(str).agg(" ".join, axis=1) if series else ""
        agg.attrs["best"] = {"over": best["over"], "by": best.get("by", ys[0]), "chosen": c}
    return agg


def metric_of(agg, fac):
    """The y column a panel shows."""
    ys = agg.attrs.get("y", [])
    if len(ys) == 1:
        return ys[0]
    return fac.split(" ", 1)[0] if fac else ys[0]


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
FORMATS = ("png", "pdf", "svg")   # what draw() writes of each size (tests of layout alone may narrow it)
RC = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 7, "ytick.labelsize": 7,
      "legend.fontsize": 7, "legend.title_fontsize": 7, "figure.titlesize": 8, "font.family": "DejaVu Sans",
      "axes.linewidth": 0.6, "grid.linewidth": 0.4, "lines.linewidth": 1.1, "lines.markersize": 4,
      "xtick.major.width": 0.6, "ytick.major.width": 0.6, "hatch.linewidth": 0.5, "pdf.fonttype": 42, "ps.fonttype": 42}
HATCH = {"o": "", "s": "////", "D": "...", "^": "xxx", "v": "\\\\\\\\", "P": "+++", "X": "xx", "<": "---",
         ">": "|||", "h": "///", "*": "\\\\\\", "p": ".."}


def _ylabel(agg, fac, ylabel):
    ys = agg.attrs.get("y", [])
    if isinstance(ylabel, list):   # one label per y, in the order of y
        m = metric_of(agg, fac)
        return ylabel[ys.index(m)] if m in ys and ys.index(m) < len(ylabel) else style.label(m)
    if agg.attrs.get("grid"):
        return style.label(metric_of(agg, fac))
    if agg.attrs.get("facet") != "metric" and not (isinstance(agg.attrs.get("facet"), list)
                                                   and "metric" in agg.attrs["facet"]):
        return ylabel or (style.label(ys[0]) if len(ys) == 1 else "value")
    if ylabel:
        return ylabel
    units = {style.label(y).rsplit("(", 1)[-1] for y in ys if "(" in style.label(y)}
    words = [style.metric_words(y) for y in ys]
    if all(words) and len(units) == 1:
        stat = {w[0] for w in words}   # a statistic all panels share is named here, not in the titles
        return (stat.pop() + " " if len(stat) == 1 else "") + "latency (" + units.pop()
    return style.label(fac.split(" ", 1)[0])


class Part:
    """One block of panels of a figure: its aggregate (aggregate()), how to draw it (kind, xlabel,
    ylabel, logx, logy, err, ylim0), its name (A, B, ...: prefixed to its first panels' titles when a
    figure has several) and the reference curves drawn into its panels: [{label, on, curve}] with
    `on` the y column whose panels get it and `curve` a frame of x, median, min, max."""

    def __init__(self, agg, name="", kind="line", xlabel=None, ylabel=None, logx=False, logy=False,
                 err="minmax", ylim0=False, refs=()):
        self.agg, self.name, self.kind, self.xlabel, self.ylabel = agg, name, kind, xlabel, ylabel
        self.logx, self.logy, self.err, self.ylim0, self.refs = logx, logy, err, ylim0, list(refs)

    def layout(self, width):
        """(rows, cols, {facet: (row, col)}): a grid figure (several y and a facet column) has one
        row of panels per y (wrapped over two columns at single-column width), others flow over 3
        columns (1 or 2 at single-column width)."""
        facets = list(dict.fromkeys(self.agg["facet"]))
        if self.agg.attrs.get("grid"):
            ys = [y for y in self.agg.attrs["y"] if any(f.split(" ", 1)[0] == y for f in facets)]
            per = {y: [f for f in facets if f.split(" ", 1)[0] == y] for y in ys}
            cols = min(max(len(v) for v in per.values()), 5 if width >= 7 else 2)
            pos, r0 = {}, 0
            for y in ys:
                for k, f in enumerate(per[y]):
                    pos[f] = (r0 + k // cols, k % cols)
                r0 += math.ceil(len(per[y]) / cols)
            return r0, cols, pos
        n = len(facets)
        cols = min(n, 3 if width >= 7 else 1 if n <= 2 else 2)   # single column: two panels stack
        return math.ceil(n / cols), cols, {f: (k // cols, k % cols) for k, f in enumerate(facets)}


def draw(agg, out_base, kind="line", xlabel=None, ylabel=None, logx=False, logy=False, title=None,
         err="minmax", ylim0=False, labels=None, parts=None):
    """Writes out_base.{png,pdf,svg} (7 in wide) and out_base-1col.{png,pdf,svg} (3.5 in); returns
    the paths, the double-column PNG and PDF first. parts: [Part, ...] drawn one block under the
    other (then agg and the drawing keys are not used)."""
    parts = parts or [Part(agg, kind=kind, xlabel=xlabel, ylabel=ylabel, logx=logx, logy=logy, err=err,
                           ylim0=ylim0)]
    paths = []
    with matplotlib.rc_context(RC):
        for suffix, width in SIZES.items():
            fig = draw_parts(parts, width, title, labels)
            os.makedirs(os.path.dirname(os.path.abspath(out_base)), exist_ok=True)
            for ext in FORMATS:
                p = f"{out_base}{suffix}.{ext}"
                fig.savefig(p, dpi=200 if ext == "png" else None, bbox_inches="tight", pad_inches=0.03,
                            metadata={"Date": None} if ext == "svg" else None)
                paths.append(p)
            plt.close(fig)
    return paths


def draw_one(agg, width, kind, xlabel, ylabel, logx, logy, title, err, ylim0, labels):
    """One block of panels (the figure of a single [plot])."""
    return draw_parts([Part(agg, kind=kind, xlabel=xlabel, ylabel=ylabel, logx=logx, logy=logy, err=err,
                             ylim0=ylim0)], width, title, labels)


REF_STYLE = [("#444444", "--"), ("#888888", ":"), ("#444444", "-.")]


def draw_parts(parts, width, title, labels):
    """One matplotlib figure of parts (each its own block of panels) with one legend below them."""
    import textwrap
    series = list(dict.fromkeys(s for p in parts for s in p.agg["series"]))
    look = style.styles(series)
    names = style.series_labels(series, labels)
    refs = list(dict.fromkeys(r["label"] for p in parts for r in p.refs))
    # room: panels, then the legend below them, the title above
    n_leg = len(series) + len(refs)
    ncol = max(1, min(n_leg, 4 if width >= 7 else 2))
    leg_rows = math.ceil(n_leg / ncol) if any(series) or refs else 0
    shapes = [p.layout(width) for p in parts]
    # one grid for all parts: each part's panels split its columns evenly where the counts divide
    # (3 and 2 panels: 6 columns); where they do not (5 and 2: 10) tight_layout would put its one gap
    # width between every pair of the many columns and have no room left for the panels, so the
    # grid has the most panels' columns and the other parts' panels take them as evenly as they can
    span = math.lcm(*[c for _, c, _ in shapes])
    if span > 6:
        span = max(c for _, c, _ in shapes)
    heights = []
    for (rows, cols, _) in shapes:
        panel_w = width / cols
        heights += [min(2.3 if cols > 1 else 2.8, max(1.55, 0.72 * panel_w))] * rows
    wrap = int(width * 15)
    title_lines = textwrap.wrap(title.split("\n")[0], wrap) + textwrap.wrap(
        title.split("\n", 1)[1], wrap) if title and "\n" in title else (textwrap.wrap(title, wrap) if title else [])
    top_in = 0.14 * len(title_lines) + (0.05 if title_lines else 0)
    has_title = any(isinstance(p.agg.attrs.get("series"), str) for p in parts)   # the legend title takes a row
    leg_in = 0.16 * (leg_rows + has_title) + 0.12 if leg_rows else 0
    height = sum(heights) + top_in + leg_in + 0.35
    fig = plt.figure(figsize=(width, height))
    gs = fig.add_gridspec(len(heights), span, height_ratios=heights)
    handles = {}
    row0 = 0
    shared = []   # (a grid's last row's first panel, its panels, its x label): one label under the grid
    for p, (rows, cols, pos) in zip(parts, shapes):
        panel_w, panel_h = width / cols, heights[row0]
        grid = p.agg.attrs.get("grid")
        last, every = None, []
        for fac, (r, c) in pos.items():
            ax = fig.add_subplot(gs[row0 + r, round(c * span / cols):round((c + 1) * span / cols)])
            # a grid's rows share their y label (first column) and its panels one x label (below)
            _draw_panel(ax, p, fac, look, names, handles, panel_w, panel_h, labels=(not grid, not grid or c == 0))
            if p.name and len(parts) > 1 and (r, c) == min(pos.values()):   # the part's first panel
                t = ax.get_title()
                ax.set_title("")
                ax.set_title(f"{p.name}: {t}" if t else p.name, loc="left")
            every.append(ax)
            if r == rows - 1 and c == min(c_ for r_, c_ in pos.values() if r_ == r):
                last = ax
        if grid and last is not None:
            text = "\n".join(textwrap.wrap(p.xlabel or style.label(p.agg.attrs.get("x", "x")),
                                           max(16, int((width - 0.3) / 0.07))))
            # tight_layout sees as many lines as the label has, under the last row's first panel
            last.set_xlabel("\n".join(["."] * (text.count("\n") + 1)))
            shared.append((last, every, text))
        row0 += rows
    if title_lines:
        fig.suptitle("\n".join(title_lines), y=1 - 0.04 / height)
    fig.tight_layout(rect=[0, leg_in / height, 1, 1], h_pad=1.0, w_pad=0.8)   # it makes room for the suptitle
    for last, every, text in shared:
        a, boxes = last.get_position(), [ax.get_position() for ax in every]
        # the label's x is in that panel's axes fraction: the middle of the grid's columns
        mid = (min(b.x0 for b in boxes) + max(b.x1 for b in boxes)) / 2
        last.set_xlabel(text, x=(mid - a.x0) / a.width, ha="center")
    if any(handles):
        leg_title = parts[0].agg.attrs.get("series")
        keys = [s for s in series if s in handles] + [("ref", r) for r in refs if ("ref", r) in handles]
        fig.legend([handles[k] for k in keys], [names[k] if k in names else k[1] for k in keys],
                   loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, frameon=False, columnspacing=1.2,
                   handletextpad=0.4, title=style.label(leg_title) if isinstance(leg_title, str) else None)
    return fig


def _draw_panel(ax, part, fac, look, names, handles, panel_w, panel_h, labels=(True, True)):
    """One panel: the part's series at facet `fac`, and the reference curves on its y."""
    agg, kind, err = part.agg, part.kind, part.err
    sub = agg[agg["facet"] == fac]
    xs, numeric = ordered(agg["x"])
    series = list(dict.fromkeys(agg["series"]))
    xcol = agg.attrs.get("x", "x")
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
    metric = metric_of(agg, fac)
    for k, ref in enumerate(part.refs):
        if ref["on"] != metric or not numeric or kind == "bar":
            continue   # a reference curve needs a numeric x axis (plot_figure refuses the rest)
        c = ref["curve"].sort_values("x")
        colour, ls = REF_STYLE[k % len(REF_STYLE)]
        h = ax.errorbar(c["x"], c["median"], yerr=[(c["median"] - c["min"]).clip(lower=0),
                                                   (c["max"] - c["median"]).clip(lower=0)],
                        color=colour, ls=ls, marker="", capsize=1.5, elinewidth=0.6, lw=1.0)
        handles.setdefault(("ref", ref["label"]), h)
    _axes(ax, part, sub, fac, xs, numeric, xcol, panel_w, panel_h, labels)


def _axes(ax, part, sub, fac, xs, numeric, xcol, panel_w, panel_h, labels=(True, True)):
    """Ticks, scales, labels (labels: whether to write the x and the y label) and the title of one
    panel."""
    import textwrap
    agg, kind = part.agg, part.kind
    if kind == "bar" or not numeric:
        ax.set_xticks(range(len(xs)))
        ticks = [_tick(v, xcol) for v in xs]
        # rotate when the labels would not fit side by side (7 pt: about 0.06 in per character), by 30
        # degrees where that leaves each label 0.2 in along the axis, else upright (0.1 in a label)
        room = 0.85 * (panel_w - 0.55) / len(xs)
        tilt = max(len(t) for t in ticks) * 0.06 > room
        if tilt and room < 0.2:
            ax.set_xticklabels(ticks, rotation=90, ha="center")
        else:
            ax.set_xticklabels(ticks, rotation=30 if tilt else 0, ha="right" if tilt else "center",
                               rotation_mode="anchor" if tilt else "default")
    elif part.logx:
        ax.set_xscale("log", base=2 if xcol == "threads" else 10)
        if xcol != "threads":
            vals = pd.to_numeric(pd.Series(xs + [x for r in part.refs for x in r["curve"]["x"]]),
                                 errors="coerce")
            _log_ticks(ax.xaxis, vals.min(), vals.max())
            if xcol in ("initial", "range") and math.log10(vals.max() / vals.min()) > 3:
                from matplotlib.ticker import FuncFormatter   # key counts: 10^3 .. 10^8, not 100,000,000
                ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"$10^{{{round(math.log10(v))}}}$"
                                                           if v > 0 else ""))
    if numeric and kind != "bar" and xcol == "threads":
        ax.set_xticks([float(v) for v in xs])
        ax.set_xticklabels([str(v) for v in xs])
        ax.minorticks_off() if not part.logy else None
    if part.logy:
        ax.set_yscale("log")
        # plain values: pandas 3's concat compares the parts' attrs, and attrs["best"] holds a DataFrame
        vals = pd.Series(np.concatenate([sub[c].to_numpy(dtype=float) for c in ("min", "max", "median")]))
        vals = vals[vals > 0]
        if len(vals):
            _log_ticks(ax.yaxis, vals.min(), vals.max())
    elif part.ylim0:
        ax.set_ylim(bottom=0)
    # labels wrap to the panel (8 pt: about 0.07 in per character)
    if labels[0]:
        ax.set_xlabel("\n".join(textwrap.wrap(part.xlabel or style.label(xcol), max(16, int((panel_w - 0.4) / 0.07)))))
    if labels[1]:
        ax.set_ylabel("\n".join(textwrap.wrap(_ylabel(agg, fac, part.ylabel), max(16, int((panel_h - 0.2) / 0.07)))))
    if fac:
        titles = style.panel_titles([fac], agg.attrs.get("facet"), agg.attrs.get("y", []))
        ax.set_title(titles.get(fac, fac))
    ax.grid(True, alpha=0.35)
    ax.spines[["top", "right"]].set_visible(False)


# the keys of [plot] that only its first part has: the others are blocks of their own
PART_ONLY = ("name", "title", "below")


def parts_of(spec):
    """[(name, title, spec)] of a [plot] table: the table itself (part A) and each [[plot.below]]
    block (B, C, ...), which takes every key of [plot] it does not set (facet = "" for none)."""
    shared = {k: v for k, v in spec.items() if k not in PART_ONLY}
    below = spec.get("below", [])
    out = [(spec.get("name", "A" if below else ""), spec.get("title", ""), shared)]
    for i, b in enumerate(below):
        s = dict(shared, **{k: v for k, v in b.items() if k not in PART_ONLY})
        out.append((b.get("name", chr(ord("B") + i)), b.get("title", ""), s))
    for _, _, s in out:
        if s.get("facet") == "":
            s["facet"] = None
    return out


def part_spec(spec, name=None):
    """The spec of part `name` of a [plot] table (the first part when name is None)."""
    parts = parts_of(spec)
    if name is None:
        return parts[0][2]
    for n, _, s in parts:
        if n == name:
            return s
    raise ValueError(f"no plot part '{name}' (parts: {', '.join(n for n, _, _ in parts)})")


def aggregate_spec(df, spec):
    """The aggregate of one part's spec over df (relabel and derive applied first)."""
    df = derive(relabel(df, spec.get("relabel")), spec.get("derive"))
    return aggregate(df, spec["x"], spec["y"], spec.get("series"), spec.get("facet"), spec.get("where"),
                     spec.get("best"))


def plot_figure(df, spec, out_base, title=None, labels=None, references=None):
    """Draws a figure's [plot] table (its parts one under the other) from a DataFrame; returns
    ([(name, title, aggregate), ...], paths). references: {name: {label, on, curve}} for the parts'
    `reference = [NAME, ...]` lists."""
    parts, drawn = [], []
    for name, ptitle, s in parts_of(spec):
        agg = aggregate_spec(df.copy(), s)
        if agg.empty:
            raise ValueError("nothing to plot" + (f" in part {name}" if name else "")
                             + ": no numeric values in the selected rows")
        refs = []
        for r in s.get("reference", []):
            if r not in (references or {}):
                raise ValueError(f"part {name or 'A'}: no reference '{r}' (a [[reference]] of that name)")
            ref = references[r]
            if ref["on"] not in agg.attrs["y"]:
                raise ValueError(f"reference '{r}': on = '{ref['on']}' is not a y of part {name or 'A'}")
            if not ordered(agg["x"])[1] or s.get("kind") == "bar":
                raise ValueError(f"reference '{r}': part {name or 'A'} needs a numeric x and lines")
            refs.append(ref)
        parts.append((name, ptitle, agg))
        drawn.append(Part(agg, name=name, kind=s.get("kind", "line"), xlabel=s.get("xlabel"),
                          ylabel=s.get("ylabel"), logx=s.get("logx", False), logy=s.get("logy", False),
                          err=s.get("err", "minmax"), ylim0=s.get("ylim0", True), refs=refs))
    paths = draw(None, out_base, title=title, labels=labels, parts=drawn)
    return parts, paths


def plot_spec(df, spec, out_base, title=None, labels=None):
    """Draws a figure's [plot] table from a DataFrame; returns (the first part's aggregate, paths)."""
    parts, paths = plot_figure(df, spec, out_base, title=title, labels=labels)
    return parts[0][2], paths


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
    if a.latest:
        df = provenance.latest(df, [a.x] + as_list(series) + as_list(a.facet))
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
