"""scripts/figure NAME [--scale quick|full] [--out DIR] [--rerun]   |   scripts/figure --list

scripts/figures/NAME.toml holds one figure of the source documents:

    title = "..."                 # one line: what the figure shows (the work is added from `source`)
    source = "cht-thesis-2017, fig. 3.6"  # the work (its key in docs/references.md), then its figure
    cite = ["cht-thesis-2017, §3.4.2 (fig. 3.6)"]  # where in the work the claim stands (section, figure)
    claim = "..."                 # what the source found, in our words
    requires = ["rtm"]            # optional: what the machine must have (else the page says why skipped)
    counters = true               # optional: the page gets a "counters per op" table (--counters rows)
    data = "timeline"             # optional: plot and check the --timeline-csv side file (rows per
                                  # interval: t_ms, interval_mops, hot_base) instead of the main CSV;
                                  # base must give --timeline MS, the figure adds --timeline-csv
    [sweep] ...                   # a sweep config (chtb.config), with [sweep.scale.quick|full]
    [plot]                        # x, y (a column or a list), series, facet, kind (line|bar), xlabel,
                                  # ylabel, logx, logy, err (minmax|iqr), derive {name = expr}, where,
                                  # best {over, by}, reference [names]; several y and a facet: a grid
    [[plot.below]]                # optional: another block of panels under it (keys it changes)
    [[reference]]                 # optional: another chtbench run's curve (name, args, runs, on, x, y,
                                  # where, best): reference-NAME-SCALE.csv, docs/figures.md
    [[check]]                     # computed verdicts, see CHECKS below
    kind = "best"  ...
    [labels]                      # optional: series name -> label in the figure and its tables

The sweep's CSV (results-SCALE.csv) lives in results/figures/NAME/ with machine.json; cells already
complete there are reused. NAME.png/.pdf/.svg (7 in wide), NAME-1col.png/.pdf/.svg (3.5 in) and NAME.md
go beside it.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time
import tomllib

import pandas as pd

from . import REPO, binary, config, machine, plot, provenance, schema, slurm, style, sweep

FIG_DIR = os.path.join(REPO, "scripts", "figures")


def figure_path(name):
    """scripts/figures/NAME.toml, or NAME itself when it is a path to a .toml file."""
    if name.endswith(".toml"):
        return name
    return os.path.join(FIG_DIR, name + ".toml")


def names():
    return sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(FIG_DIR, "*.toml")))


def load(path):
    try:
        with open(path, "rb") as f:
            d = tomllib.load(f)
    except UnicodeDecodeError:
        raise config.ConfigError(f"{path}: not a TOML file (not UTF-8 text)")
    for k in ("title", "claim", "sweep", "plot"):
        if k not in d:
            raise config.ConfigError(f"{path}: missing '{k}'")
    return d


# --- what this machine can run ---------------------------------------------------------------

def missing_requirement(fig, chtbench):
    """None, or why this machine cannot run the figure."""
    for req in fig.get("requires", []):
        if req == "rtm":
            try:
                out = subprocess.run([chtbench, "--list=locks"], capture_output=True, text=True).stdout
            except OSError as e:
                return f"cannot run {chtbench}: {e}"
            for line in out.splitlines():
                if line.startswith("htm-retry") and "unavailable" in line:
                    return "RTM locks are unavailable: " + line.split("unavailable:", 1)[1].strip()
        elif req.startswith("cpus>="):
            need = int(req.split(">=")[1])
            if config.ncpus() < need:
                return f"needs at least {need} CPUs, this machine has {config.ncpus()}"
        else:
            return f"unknown requirement '{req}'"
    return None


def unavailable(chtbench):
    """{table or lock name: why} for what `chtbench --list` / `--list=locks` call unavailable."""
    out = {}
    for what in ("--list=tables", "--list=locks"):
        try:
            text = subprocess.run([chtbench, what], capture_output=True, text=True).stdout
        except OSError:
            continue
        for line in text.splitlines():
            if "unavailable:" in line:
                out[line.split()[0]] = line.split("unavailable:", 1)[1].strip()
    return out


def drop_unavailable(sw, chtbench):
    """Removes the cells whose table or lock this build/machine cannot run; returns
    ['name: why', ...]. A table naming its lock (clht-rtm:lock=mcs) needs only that lock."""
    bad = unavailable(chtbench)
    keep, dropped = [], []
    for c in sw.cells:
        name, _, opts = str(c.get("table", "")).partition(":")
        lock = dict(kv.split("=", 1) for kv in opts.split(",") if "=" in kv).get("lock") or c.get("lock")
        why = None
        if lock and lock in bad:
            why = f"{lock}: {bad[lock]}"
        elif name in bad and not lock:
            why = f"{name}: {bad[name]}"
        if why:
            if why not in dropped:
                dropped.append(why)
        else:
            keep.append(c)
    sw.cells = keep
    return dropped


# --- reference curves: another benchmark's rows drawn on the figure's axes --------------------

REF_KEYS = {"name", "label", "args", "runs", "on", "x", "y", "where", "best", "scale"}


def references(fig, scale, path):
    """[(ref, sweep)] of the figure's [[reference]] tables: ref with its [reference.scale.SCALE] keys
    applied, sweep a one-cell config.Sweep of its chtbench arguments. ConfigError on a bad table."""
    out, seen = [], set()
    for i, r in enumerate(fig.get("reference", [])):
        where = f"{path}: [[reference]] {i + 1}"
        if not isinstance(r, dict):
            raise config.ConfigError(f"{where}: a table (name, args, on, x, y, ...)")
        bad = sorted(set(r) - REF_KEYS)
        if bad:
            raise config.ConfigError(f"{where}: unknown key '{bad[0]}' (accepted: {', '.join(sorted(REF_KEYS))})")
        r = dict(r, **(r.get("scale", {}).get(scale, {}) if scale else {}))
        for k in ("name", "args", "on", "x", "y"):
            if k not in r:
                raise config.ConfigError(f"{where}: missing '{k}'")
        if not str(r["name"]).replace("-", "").isalnum() or r["name"] in seen:
            raise config.ConfigError(f"{where}: name '{r['name']}' must be letters, digits and '-', once")
        seen.add(r["name"])
        runs = r.get("runs", 1)
        if not isinstance(runs, int) or not 1 <= runs <= 100:
            raise config.ConfigError(f"{where}: runs = {runs!r} (accepted: 1..100)")
        if not isinstance(r["args"], list) or not all(isinstance(a, str) for a in r["args"]):
            raise config.ConfigError(f"{where}: args is a list of strings (chtbench arguments)")
        out.append((dict(r, runs=runs), config.Sweep(r["args"], 1, [{}], source=where, name=f"reference {r['name']}")))
    return out


def reference_csv(out, name, scale):
    return os.path.join(out, f"reference-{name}-{scale}.csv")


def run_reference(ref, rsw, out, scale, chtbench, rerun=False, stream=sys.stdout, reuse_any=False):
    """Runs the reference's chtbench invocation until its CSV holds `runs` runs (run_ids) of this
    build and host with these arguments; rows of another build, host (unless reuse_any) or argument
    list are moved to superseded-reference-NAME-SCALE.csv first (--rerun: all of them). Returns an
    exit code."""
    csv = reference_csv(out, ref["name"], scale)
    meta_path = csv[:-4] + ".json"
    args = rsw.args({})
    try:
        with open(meta_path) as f:
            same_args = json.load(f).get("args") == args
    except (OSError, ValueError):
        same_args = False
    cur = provenance.current(chtbench)
    df = sweep.read_csv(csv)
    if df is not None:
        foreign = ~provenance.is_current(df, cur, provenance.read_runs(out))
        stale = (foreign & (not reuse_any)) | (not same_args) | rerun
        if stale.any():
            sweep.move_aside(csv, stale.values, sweep.superseded_name(csv))
            df = sweep.read_csv(csv)
    with open(meta_path, "w") as f:
        json.dump({"args": args}, f)
        f.write("\n")
    have = df["run_id"].nunique() if df is not None and "run_id" in df.columns else 0
    os.makedirs(os.path.join(out, ".cells"), exist_ok=True)
    part = os.path.join(out, ".cells", f"reference-{ref['name']}.csv")
    for k in range(have, ref["runs"]):
        t0 = time.monotonic()
        try:
            rc, err = sweep.run_cell(rsw, {}, chtbench, part)
        except sweep.Interrupted:
            print(f"figure: reference {ref['name']}: interrupted", file=sys.stderr)
            return 130
        if rc != 0 or not os.path.exists(part):
            tail = " | ".join((err or "").strip().splitlines()[-3:])
            print(f"figure: reference {ref['name']} failed (exit {rc}): {tail}", file=sys.stderr)
            return 2 if rc == 2 else 1
        rows = sweep.read_csv(part)
        if rows is not None and "run_id" in rows.columns:
            provenance.record_runs(out, set(rows["run_id"]), cur)
        sweep.append_rows(csv, part)
        os.unlink(part)
        stream.write(f"reference {ref['name']} run {k + 1}/{ref['runs']}: {time.monotonic() - t0:.1f} s\n")
    if have >= ref["runs"]:
        stream.write(f"reference {ref['name']}: {have} run(s) already in {csv}\n")
    return 0


def reference_curve(ref, rows):
    """The curve of a reference: its rows (text cells) filtered by `where`, x = the expression `x`
    over them, then per x the median, min and max of `y` over the runs; with best = COLUMN (e.g. k,
    the chases in flight) only the value of that column with the highest median counts at each x
    (recorded in the `best` column)."""
    d = plot.select(rows, ref["where"]) if ref.get("where") else rows
    t = plot.typed(d)
    if ref["y"] not in t.columns:
        raise ValueError(f"reference '{ref['name']}': no column {ref['y']} in its rows")
    try:
        t = t.assign(x=t.eval(ref["x"]), value=pd.to_numeric(t[ref["y"]], errors="coerce"))
    except Exception as e:   # a bad expression is a config error, whatever pandas raises
        raise ValueError(f"reference '{ref['name']}': x = '{ref['x']}' cannot be computed ({e})")
    t = t.dropna(subset=["x", "value"])
    keys = ["x"] + ([ref["best"]] if ref.get("best") else [])
    g = t.groupby(keys)["value"].agg(median="median", min="min", max="max", n="count").reset_index()
    if ref.get("best"):
        g = g.loc[g.groupby("x")["median"].idxmax()].rename(columns={ref["best"]: "best"})
    if g.empty:
        raise ValueError(f"reference '{ref['name']}': no rows left (where = {ref.get('where')!r})")
    return g.sort_values("x").reset_index(drop=True)


def load_references(fig, out, scale, path="figure"):
    """{name: {label, on, curve}} from results/figures/NAME/reference-*-SCALE.csv, for plot.plot_figure;
    only the rows of runs of the current arguments (the CSV keeps nothing else)."""
    refs = {}
    for ref, _ in references(fig, scale, path):
        rows = sweep.read_csv(reference_csv(out, ref["name"], scale))
        if rows is None:
            raise ValueError(f"no rows of reference '{ref['name']}' ({os.path.basename(reference_csv(out, ref['name'], scale))})")
        refs[ref["name"]] = {"label": ref.get("label", ref["name"]), "on": ref["on"],
                             "curve": reference_curve(ref, rows), "best": ref.get("best"), "x_expr": ref["x"]}
    return refs


# --- computed verdicts ----------------------------------------------------------------------

def _x_order(agg):
    xs, _ = plot.ordered(agg["x"])
    return xs


def pick_x(agg, at):
    """The x values a check's `at_x` names (all, max, min, one or a list of values), in x order."""
    xs = _x_order(agg)
    if at in (None, "all"):
        return xs
    if at == "max":
        return [xs[-1]]
    if at == "min":
        return [xs[0]]
    at = at if isinstance(at, list) else [at]
    return [x for x in xs if any(_same_x(x, a) for a in at)]


def _same_x(x, a):
    """x == a, as numbers when both are (16 == "16" == 16.0), else as text."""
    try:
        return float(x) == float(a)
    except (TypeError, ValueError):
        return str(x) == str(a)


def _where(fac, x=None):
    parts = [fac] if fac else []
    if x is not None:
        parts.append(f"x={x}")
    return ", ".join(parts)


def check_best(agg, c):
    """The best series (max median, or min with minimize) is one of `expect` in every (facet, x) of
    `at_x` (all, max, min, or values); holds when that is true in at least `share` of them."""
    expect = set(c["expect"])
    groups, bad = 0, []
    for fac in dict.fromkeys(agg["facet"]):
        sub = agg[agg["facet"] == fac]
        for x in pick_x(sub, c.get("at_x")):
            d = sub[sub["x"] == x]
            if d.empty:
                continue
            row = d.loc[d["median"].idxmin() if c.get("minimize") else d["median"].idxmax()]
            groups += 1
            if row["series"] not in expect:
                bad.append(f"{row['series']} {'lower' if c.get('minimize') else 'faster'} at "
                           f"{_where(fac, x)}")
    share = c.get("share", 1.0)
    ok = groups > 0 and (groups - len(bad)) / groups >= share
    return ok, f"{groups - len(bad)}/{groups} cases" + (f"; {'; '.join(bad[:6])}" if bad else "")


def check_peak_at(agg, c):
    """Each series (of `among`, default all) peaks at x == `at` (value, min or max); with negate:
    anywhere else."""
    want_series = set(c.get("among", [])) or None
    n, bad = 0, []
    for (fac, s), d in agg.groupby(["facet", "series"], sort=False):
        if want_series and s not in want_series:
            continue
        xs = _x_order(d)
        at = c["at"]
        target = xs[-1] if at == "max" else xs[0] if at == "min" else at
        peak = d.loc[d["median"].idxmax(), "x"]
        hit = str(peak) == str(target)
        if c.get("negate"):
            hit = not hit
        n += 1
        if not hit:
            bad.append(f"{s} peaks at x={peak}" + (f" ({fac})" if fac else ""))
    ok = n > 0 and (n - len(bad)) / n >= c.get("share", 1.0)
    return ok, f"{n - len(bad)}/{n} series" + (f"; {'; '.join(bad[:6])}" if bad else "")


def check_compare(agg, c):
    """Median at facet `a` is lower (or higher) than at facet `b`, per series and x."""
    n, bad = 0, []
    A = agg[agg["facet"] == c["a"]].set_index(["series", "x"])["median"]
    B = agg[agg["facet"] == c["b"]].set_index(["series", "x"])["median"]
    ratios = []
    for key in A.index.intersection(B.index):
        n += 1
        r = A[key] / B[key] if B[key] else float("nan")
        ratios.append(r)
        good = A[key] < B[key] if c.get("expect", "lower") == "lower" else A[key] > B[key]
        if not good:
            bad.append(f"{key[0]} at x={key[1]} ({r:.2f}x)")
    ok = n > 0 and (n - len(bad)) / n >= c.get("share", 1.0)
    rs = pd.Series(ratios).dropna()
    rng = f"; {c['a']} / {c['b']} = {rs.min():.2f}..{rs.max():.2f}" if len(rs) else ""
    return ok, f"{n - len(bad)}/{n} cases{rng}" + (f"; not: {'; '.join(bad[:6])}" if bad else "")


def _series_stat(d, stat):
    xs = _x_order(d)
    m = d.set_index("x")["median"]
    if stat == "last_over_first":
        return m[xs[-1]] / m[xs[0]] if m[xs[0]] else float("nan")
    if stat == "spread":
        return m.max() / m.min() if m.min() else float("inf")
    raise ValueError(f"unknown stat {stat}")


def check_rank(agg, c):
    """Per facet, the series in `expect` has the highest (or lowest) `stat`: last_over_first
    (median at the last x over the first) or spread (max/min median over x), both over the x values
    all series have."""
    n, bad, notes = 0, [], []
    for fac, sub in agg.groupby("facet", sort=False):
        # over the x values every series has (a series missing a point would look flatter)
        common = set.intersection(*[set(d["x"]) for _, d in sub.groupby("series", sort=False)])
        sub = sub[sub["x"].isin(common)]
        if sub["x"].nunique() < 2:
            continue
        stats = {s: _series_stat(d, c["stat"]) for s, d in sub.groupby("series", sort=False)}
        stats = {s: v for s, v in stats.items() if pd.notna(v)}
        if not stats:
            continue
        best = (min if c.get("lowest") else max)(stats, key=stats.get)
        n += 1
        notes.append((f"{fac}: " if fac else "") + ", ".join(f"{s} {v:.2f}" for s, v in stats.items()))
        if best not in set(c["expect"]):
            bad.append(f"{best} ranks first" + (f" at {fac}" if fac else ""))
    ok = n > 0 and (n - len(bad)) / n >= c.get("share", 1.0)
    return ok, f"{c['stat']}: " + " | ".join(notes[:4]) + (f"; {'; '.join(bad)}" if bad else "")


def check_drop(agg, c):
    """For each series of `among`: median at x=`at` (default max) over the series' peak is below
    `below` (it collapsed) or at least `above` (it held up)."""
    n, bad, notes = 0, [], []
    for (fac, s), d in agg.groupby(["facet", "series"], sort=False):
        if s not in set(c["among"]):
            continue
        xs = _x_order(d)
        at = xs[-1] if c.get("at", "max") == "max" else c["at"]
        m = d.set_index("x")["median"]
        if at not in m.index:
            continue
        r = m[at] / m.max()
        n += 1
        notes.append(f"{s} {r:.2f}" + (f" ({fac})" if fac else ""))
        if ("below" in c and not r < c["below"]) or ("above" in c and not r >= c["above"]):
            bad.append(s)
    ok = n > 0 and not bad
    return ok, f"value at x={c.get('at', 'max')} / peak: " + ", ".join(notes)


def check_ratio(agg, c):
    """Series `num` over series `den`, per facet and x, is below `below` (or at least `above`)."""
    n, bad, rs = 0, [], []
    for fac, sub in agg.groupby("facet", sort=False):
        m = sub.set_index(["series", "x"])["median"]
        for x in pick_x(sub, c.get("at_x")):
            if (c["num"], x) not in m.index or (c["den"], x) not in m.index:
                continue
            r = m[(c["num"], x)] / m[(c["den"], x)]
            n += 1
            rs.append(r)
            if ("below" in c and not r < c["below"]) or ("above" in c and not r >= c["above"]):
                bad.append(f"{r:.2f} at {_where(fac, x)}")
    ok = n > 0 and not bad
    rng = f"{min(rs):.3g}..{max(rs):.3g}" if rs else "no data"
    return ok, f"{c['num']} / {c['den']} = {rng}" + (f"; not at: {'; '.join(bad[:6])}" if bad else "")


def check_trend(agg, c):
    """For each series of `among` (default all), its `stat` over x (last_over_first: median at the last
    x over the first; spread: max/min) is `below` / at least `above` a bound. Fewer than two x values
    in a series: not testable."""
    n, bad, notes, thin = 0, [], [], []
    among = set(c.get("among", [])) or None
    for (fac, s), d in agg.groupby(["facet", "series"], sort=False):
        if among and s not in among:
            continue
        if d["x"].nunique() < 2:
            thin.append(s)
            continue
        v = _series_stat(d, c.get("stat", "last_over_first"))
        n += 1
        notes.append(f"{s} {v:.2f}" + (f" ({fac})" if fac else ""))
        if not (v == v) or ("below" in c and not v < c["below"]) or ("above" in c and not v >= c["above"]):
            bad.append(s)
    if not n and thin:
        return None, "not testable here: fewer than two x values " + _x_range_words(c) + " for " + ", ".join(thin)
    ok = n > 0 and (n - len(bad)) / n >= c.get("share", 1.0)
    return ok, f"{c.get('stat', 'last_over_first')}: " + ", ".join(notes[:8]) + (f"; not: {', '.join(bad[:6])}" if bad else "")


def check_value(agg, c):
    """Every median of the series of `among` (default all) is `below` / at least `above` a bound, at
    every (facet, x) of `at_x`."""
    n, bad, vals = 0, [], []
    among = set(c.get("among", [])) or None
    for fac, sub in agg.groupby("facet", sort=False):
        for x in pick_x(sub, c.get("at_x")):
            for _, r in sub[sub["x"] == x].iterrows():
                if among and r["series"] not in among:
                    continue
                v = r["median"]
                n += 1
                vals.append(v)
                if not (v == v) or ("below" in c and not v < c["below"]) or ("above" in c and not v >= c["above"]):
                    bad.append(f"{r['series']} {v:.3g} at {_where(fac, x)}")
    ok = n > 0 and not bad
    rng = f"{min(vals):.3g}..{max(vals):.3g}" if vals else "no data"
    return ok, f"{n} values, {rng}" + (f"; not: {'; '.join(bad[:6])}" if bad else "")


def _reaction(d, shift, nxt, tol, pre_n):
    """For one series' medians d (x -> median, x numeric and sorted): (pre level, delay, dip area,
    noise, post values) around the shift at x = shift. The pre level is the median of the `pre_n`
    intervals ending at the shift; the delay is the end of the first interval after the shift whose
    median is back at (1 - tol) x the pre level, minus the shift (inf when none is before `nxt`); the
    dip area is the lost throughput until then, in intervals x the fraction below the pre level; the
    noise is the largest relative deviation of the pre intervals from their median."""
    pre = d[(d.index <= shift)].tail(pre_n)
    post = d[(d.index > shift) & (d.index <= nxt)]
    if pre.empty or post.empty:
        return None
    level = float(pre.median())
    if not level:
        return None
    noise = float((pre / level - 1).abs().max())
    delay, area = float("inf"), 0.0
    for x, v in post.items():
        if v >= (1 - tol) * level:
            delay = x - shift
            break
        area += 1 - v / level
    return level, delay, area, noise, post


def check_reaction(agg, c):
    """Throughput over time around hotspot shifts (timeline figures; x = time, numeric). `shifts`:
    the x values at which the hot set moves; `tol` (default 0.1): "back" means within tol below the
    pre-shift level (median of the `pre` = 3 intervals ending at the shift); each shift's window runs
    to the next shift or the end. `mode`:
    - within: every series of `among` is back within `within` x-units of every shift;
    - faster: series `a` reacts faster than `b` at every shift: a smaller delay, or at an equal delay
      (the timeline's resolution) a smaller dip (lost throughput until back);
    - flat: every interval of every series of `among` in the `window` after each shift stays within
      max(tol, the pre-shift intervals' own spread) of the pre-shift level (unaffected by the shift)."""
    tol, pre_n, mode = c.get("tol", 0.1), c.get("pre", 3), c["mode"]
    shifts = sorted(float(s) for s in c["shifts"])
    n, bad, notes = 0, [], []
    for fac, sub in agg.groupby("facet", sort=False):
        sub = sub.assign(xn=pd.to_numeric(sub["x"], errors="coerce")).dropna(subset=["xn"])
        end = sub["xn"].max()
        series = [c["a"], c["b"]] if mode == "faster" else (c.get("among") or list(dict.fromkeys(sub["series"])))
        curves = {s: sub[sub["series"] == s].set_index("xn")["median"].sort_index() for s in series}
        for i, sh in enumerate(shifts):
            nxt = shifts[i + 1] if i + 1 < len(shifts) else end
            where = (f"{fac}, " if fac else "") + f"shift at {sh:g}"
            res = {s: _reaction(curves[s], sh, nxt, tol, pre_n) for s in series if not curves[s].empty}
            if any(r is None for r in res.values()) or len(res) < len(series):
                continue
            n += 1
            if mode == "within":
                for s, (lvl, delay, area, _, _) in res.items():
                    notes.append(f"{s} back in {delay:g}" if delay < float("inf") else f"{s} not back by {nxt - sh:g}")
                    if not delay <= c["within"]:
                        bad.append(f"{s} ({where})")
            elif mode == "faster":
                (_, da, aa, _, _), (_, db, ab, _, _) = res[c["a"]], res[c["b"]]
                notes.append(f"{where}: {c['a']} {da:g} (dip {aa:.2f}), {c['b']} {db:g} (dip {ab:.2f})")
                if not (da < db or (da == db and aa < ab)):
                    bad.append(where)
            elif mode == "flat":
                for s, (lvl, _, _, noise, post) in res.items():
                    win = post[post.index <= sh + c.get("window", nxt - sh)]
                    dev = float((win / lvl - 1).abs().max())
                    lim = max(tol, noise)
                    notes.append(f"{s} {dev:.0%} (limit {lim:.0%})")
                    if not dev <= lim:
                        bad.append(f"{s} ({where})")
            else:
                raise ValueError(f"reaction: unknown mode '{mode}' (within, faster, flat)")
    ok = n > 0 and not bad
    return ok, f"{n} shift(s); " + "; ".join(notes[:8]) + (f"; not: {', '.join(bad[:6])}" if bad else "")


CHECKS = {"best": check_best, "peak_at": check_peak_at, "compare": check_compare, "rank": check_rank,
          "drop": check_drop, "ratio": check_ratio, "trend": check_trend, "value": check_value,
          "reaction": check_reaction}


def _x_range_words(c):
    lo, hi = c.get("min_x"), c.get("max_x")
    if lo is None and hi is None:
        return "in the data"
    hi = "the CPU count" if hi == "ncpu" else hi
    if lo is None:
        return f"up to {hi}"
    return f"from {lo}" + (f" up to {hi}" if hi is not None else "")


def counter_columns(df):
    """The --counters rows' events as numeric columns named by event (PAPI_L1_DCM, ...)."""
    if "counter_names" not in df.columns or "counter_values_per_op" not in df.columns:
        return df
    df = df.copy()
    for i, (names, vals) in enumerate(zip(df["counter_names"], df["counter_values_per_op"])):
        if not names:
            continue
        for name, v in zip(str(names).split(";"), str(vals).split(";")):
            if name not in df.columns:
                df[name] = float("nan")
            df.iloc[i, df.columns.get_loc(name)] = float(v) if v not in ("", None) else float("nan")
    return df


def _restrict_x(agg, c, cpus):
    """The rows of agg whose x is within [min_x, max_x] (max_x may be "ncpu": the machine's CPUs)."""
    lo, hi = c.get("min_x"), c.get("max_x")
    if lo is None and hi is None:
        return agg
    hi = cpus if hi == "ncpu" else hi
    xn = pd.to_numeric(agg["x"], errors="coerce")
    keep = xn.notna()
    if lo is not None:
        keep &= xn >= float(lo)
    if hi is not None:
        keep &= xn <= float(hi)
    return agg[keep]


def verdicts(df, fig, cpus=None):
    """[(text, holds or None, detail)] for the figure's [[check]] tables. `cpus`: the CPUs of the
    machine the rows come from (machine.json's usable_cpus; default this machine's), for checks with
    `needs_cpus` or `max_x = "ncpu"`. None = not measurable or not testable here (the detail says why)."""
    out = []
    cpus = cpus or config.ncpus()
    df = counter_columns(df)
    for c in fig.get("check", []):
        out.append((c["text"],) + _one_verdict(df, fig, c, cpus))
    return out


def _one_verdict(df, fig, c, cpus):
    if c.get("needs_cpus") and cpus < c["needs_cpus"]:
        return None, (f"not testable here: needs at least {c['needs_cpus']} CPUs, this machine has {cpus} (the "
                      f"check reads {c.get('x', fig['plot']['x'])} {_x_range_words(c)})")
    try:
        agg = check_agg(df, fig, c, cpus)
    except Untestable as e:
        return None, str(e)
    except (KeyError, ValueError, ZeroDivisionError) as e:
        return None, f"could not be computed: {e}"
    try:
        return CHECKS[c["kind"]](agg, c)
    except (KeyError, ValueError, ZeroDivisionError) as e:
        return None, f"could not be computed: {e}"


class Untestable(Exception):
    """The check cannot be computed from these rows on this machine (the message says why)."""


def check_agg(df, fig, c, cpus):
    """The medians a check works on: the figure's plot spec (of its part `part`, default the first) with
    the check's overrides (x, y, series, facet, where, best, derive), aggregated over the rows (df after counter_columns) and restricted to
    [min_x, max_x]. Raises Untestable when the counters it needs are absent or no x is left."""
    spec = dict(plot.part_spec(fig["plot"], c.get("part")))
    for k in ("x", "y", "series", "facet", "where", "best"):
        if k in c:
            spec[k] = c[k]
    if spec.get("facet") == "":
        spec["facet"] = None
    spec["derive"] = {**(spec.get("derive") or {}), **(c.get("derive") or {})}
    ys = plot.as_list(spec["y"])
    ctr = [y for y in ys if y.startswith("PAPI_")]
    if ctr and (ctr[0] not in df.columns or pd.to_numeric(df[ctr[0]], errors="coerce").isna().all()):
        raise Untestable(f"not measurable here: the rows have no {ctr[0]} counts (PAPI exposes no such event on "
                         "this machine; virtual machines usually hide the PMU), counter_values_per_op is empty")
    d = plot.derive(plot.relabel(df.copy(), spec.get("relabel")), spec.get("derive"))
    agg = plot.aggregate(d, spec["x"], spec["y"], spec.get("series"), spec.get("facet"), spec.get("where"),
                         spec.get("best"))
    agg = _restrict_x(agg, c, cpus)
    if agg.empty:
        raise Untestable(f"not testable here: no data {_x_range_words(c)} (x = {spec['x']}, {cpus} CPUs)")
    return agg


# --- the page --------------------------------------------------------------------------------

def md_table(frame):
    """A DataFrame as a Markdown table (index included)."""
    frame = frame.reset_index()
    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v) for v in row) + " |")
    return "\n".join(lines)


def _fmt(v):
    if isinstance(v, float):
        return style.fmt_num(v)
    return str(v)


def caption(fig, df):
    """The caption under the image: the work, and what the marks and error bars are."""
    _, full = style.citation(fig.get("source", ""))
    reps = pd.to_numeric(df["rep"], errors="coerce").max() + 1 if "rep" in df.columns else None
    over = f"{reps:.0f} repetitions" if reps == reps and reps else "the repetitions"
    bars = "from the smallest to the largest value" if fig["plot"].get("err", "minmax") == "minmax" \
        else "over the interquartile range (25th to 75th percentile)"
    kind = "Bars" if fig["plot"].get("kind") == "bar" else "Marks"
    refs = [r.get("label", r.get("name", "")) for r in fig.get("reference", []) if isinstance(r, dict)]
    more = (f" Grey lines without marks: {'; '.join(refs)} (medians over its runs, error bars from the smallest "
            "to the largest)." if refs else "")
    return (f"**Figure.** {fig['title']}, after {full.rstrip('.')}. {kind} are medians over {over} of each "
            f"cell; error bars run {bars}.{more}")


def medians_table(agg, labels=None, xlabel=None):
    t = agg.copy()
    t["series"] = t["series"].map(style.series_labels(list(dict.fromkeys(t["series"])), labels))
    t["facet"] = t["facet"].map(style.panel_titles(list(dict.fromkeys(t["facet"])), agg.attrs.get("facet"),
                                                   agg.attrs.get("y", [])))
    idx = ["facet", "x"] if (t["facet"] != "").any() else ["x"]
    if agg.attrs.get("grid"):   # panel titles name the facet's value only: the y goes first
        t["y"] = agg["facet"].str.split(" ", n=1).str[0].map(style.label)
        idx = ["y"] + idx
    piv = t.pivot_table(index=idx, columns="series", values="median", sort=False)
    piv.columns.name = None
    xname = agg.attrs.get("x", "x")
    if xname == "dist":
        piv = piv.rename(index=style.dist_words, level="x")
    return piv.rename_axis(index={"x": xlabel or style.label(xname), "facet": "panel"})


def counters_section(df, fig):
    """Counters per op (from --counters rows), or why not measurable here."""
    if "counter_names" not in df.columns or (df["counter_names"] == "").all():
        x = fig["plot"]["x"]
        t = df[[x, "table_spec"]].drop_duplicates()
        t["misses"] = "not measurable here"
        piv = t.pivot(index=x, columns="table_spec", values="misses")
        piv = piv.reindex(index=plot.ordered(list(piv.index))[0],
                          columns=list(dict.fromkeys(df["table_spec"])))
        piv.columns.name = None
        return ("Cache misses per operation (PAPI_L1_DCM, PAPI_L2_DCM, PAPI_L3_TCM):\n\n" + md_table(piv)
                + "\n\nPAPI exposes no cache events on this machine (`papi_avail` lists none; virtual "
                "machines usually hide the PMU), so chtbench left `counter_values_per_op` empty.")
    rows = []
    for _, r in df[df["counter_names"] != ""].iterrows():
        for n, v in zip(r["counter_names"].split(";"), r["counter_values_per_op"].split(";")):
            rows.append({"series": r.get("table_spec", r.get("table")), "x": r[fig["plot"]["x"]],
                         "event": n, "value": float(v) if v else float("nan")})
    c = pd.DataFrame(rows)
    piv = c.pivot_table(index=["event", "x"], columns="series", values="value", aggfunc="median", sort=False)
    piv.columns.name = None
    piv = piv.rename_axis(index={"x": fig["plot"]["x"]})
    return "Counters per operation (medians over reps; PAPI):\n\n" + md_table(piv)


def speedup_section(summary):
    """Speedup T(n)/T(1) per cell from the aggregated CSV (chtb.speedup), or why there is none."""
    if summary is None or summary.empty:
        return "No rows."
    have = summary[summary["speedup"].notna()]
    notes = [n for n in dict.fromkeys(summary["speedup_note"]) if n]
    lines = []
    if "threads" in summary.columns and not have.empty:
        params = [c for c in summary.columns[1:summary.columns.get_loc("build")] if c not in ("threads", "duration")]
        params = [c for c in params if summary[c].astype(str).nunique() > 1] or params[:1]
        t = summary.copy()
        t["threads"] = pd.to_numeric(t["threads"], errors="coerce")
        idx = params + (["build"] if t["build"].nunique() > 1 else [])
        piv = t.pivot_table(index=idx, columns="threads", values="speedup", aggfunc="first", sort=False)
        piv.columns = [f"{int(c)} thread" + ("s" if int(c) != 1 else "") for c in piv.columns]
        lines += ["Speedup over 1 thread, T(n)/T(1) of the cell medians (same other parameters, build and "
                  f"host; `{summary['metric'].iloc[0]}`; {len(have)} of {len(summary)} cells):", "",
                  md_table(piv), ""]
    if notes:
        lines.append("No speedup " + ("for the other cells" if not have.empty else "here") + ": "
                     + "; ".join(notes) + ".")
    return "\n".join(lines).rstrip()


def build_section(df, runs=None):
    """Which build(s) and host(s) made the rows; a warning when there are several."""
    g = provenance.groups(df, runs)
    if len(g) == 1:
        lab, host, ids, n = g[0]
        return [f"Build: {lab} on host {host} ({len(ids)} chtbench run(s))."]
    return [f"**Warning: the data mixes {len(g)} builds/hosts** (reused with `--reuse-any`):", ""] + \
        [f"- {lab} on {host}: {n} rows, {len(ids)} run(s)" for lab, host, ids, n in g]


def medians_sections(parts, fig, refs=None):
    """The page's medians: one table per part of the plot (titled by the part when there are
    several), the value of `best.over` chosen per point, and each reference curve's points."""
    if not isinstance(parts, list):   # one aggregate (callers from before plot parts)
        parts = [("", "", parts)]
    specs = {n: s for n, _, s in plot.parts_of(fig["plot"])}
    ylabel = fig["plot"].get("ylabel")
    first = parts[0][2]
    what = ylabel if isinstance(ylabel, str) and len(parts) == 1 else (
        style.label(first.attrs["y"][0]) if len(first.attrs["y"]) == 1 and len(parts) == 1 else "values")
    lines = [f"## Medians ({what})", ""]
    for name, title, agg in parts:
        spec = specs.get(name, fig["plot"])
        if len(parts) > 1:
            lines += [f"### {name}" + (f": {title}" if title else ""), ""]
        lines += [md_table(medians_table(agg, fig.get("labels"), spec.get("xlabel"))), ""]
        best = agg.attrs.get("best")
        if best is not None and not best["chosen"].empty:
            ch = best["chosen"]
            ch = ch.assign(series=ch["series"].map(style.series_labels(list(dict.fromkeys(ch["series"])),
                                                                      fig.get("labels"))))
            piv = ch.pivot_table(index="x", columns="series", values=best["over"], aggfunc="first", sort=False)
            piv = piv.reindex(plot.ordered(list(piv.index))[0])
            piv.columns.name = None
            lines += [f"The {best['over']} chosen per point (the highest median {best['by']}):", "",
                      md_table(piv.rename_axis(index=spec.get("xlabel") or style.label(agg.attrs["x"]))), ""]
    for ref in (refs or {}).values():
        c = ref["curve"].rename(columns={"best": ref.get("best") or "best", "x": f"x = {ref.get('x_expr', 'x')}"})
        lines += [f"Reference curve: {ref['label']} (on {style.label(ref['on'])}; medians, min and max over its runs):",
                  "", md_table(c.set_index(c.columns[0])), ""]
    return lines


def write_page(path, name, fig, scale, agg=None, df=None, m=None, skipped=None, wall=None, csv=None,
               dropped=(), summary=None, runs=None, refs=None, replot=False):
    short, full = style.citation(fig.get("source", ""))
    lines = [f"# {fig['title']}", "", f"After {full}", "",
             "## Claim (source)", "", fig["claim"].strip(), ""]
    lines += ["## Reproduce", "", "```sh", f"scripts/figure {name} --scale {scale}", "```", ""]
    if skipped:
        lines += ["## Result", "", f"**Skipped on this machine**: {skipped}.", "",
                  "The sweep, plot and checks are defined in "
                  f"`scripts/figures/{name}.toml`; on a machine that has what it needs, the command above "
                  "draws the figure and computes the verdict.", ""]
    else:
        lines += ["## Verdict on this machine (computed from the CSV)", ""]
        for text, ok, detail in verdicts(df, fig, cpus=(m or {}).get("usable_cpus")):
            word = "**holds**" if ok else ("**does not hold**" if ok is False else "**not measurable here**")
            lines.append(f"- {text}: {word} ({detail})")
        lines += ["", f"![{name}]({name}.png)", "", caption(fig, df), ""] + medians_sections(agg, fig, refs)
        if fig.get("counters"):
            lines += ["## Counters", "", counters_section(df, fig), ""]
        if summary is not None:
            lines += ["## Speedup", "", speedup_section(summary), ""]
        reps = pd.to_numeric(df["rep"], errors="coerce").max() + 1 if "rep" in df.columns else "?"
        lines += ["## Run", "", f"Scale `{scale}`: {len(df)} rows, {reps} reps per cell; CSV "
                  f"`{os.path.basename(csv)}`" + (f"; sweep + plot took {wall:.0f} s" if wall else
                                                 " (redrawn by `--replot` from the CSV as it stands)" if replot
                                                 else " (reused: every cell was already complete)") + ".",
                  "Error bars: min–max over repetitions." if fig["plot"].get("err", "minmax") == "minmax"
                  else "Error bars: interquartile range.", ""]
        lines += build_section(df, runs) + [""]
        if dropped:
            lines += ["Left out (this build or machine cannot run them): " + "; ".join(dropped) + ".", ""]
        if m:
            lines += [f"Machine: {machine.summary(m)} (machine.json).", ""]
    if fig.get("notes"):
        lines += ["## Notes", "", fig["notes"].strip(), ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def figure_title(fig):
    """The image's title: what it shows, then the work it reproduces (short form)."""
    short, _ = style.citation(fig.get("source", ""))
    return fig["title"] + (f"\nafter {short}" if short else "")


def no_such_figure(name):
    near = config.did_you_mean(name, names())
    return (f"figure: no figure '{name}'" + (f" (did you mean {near}?)" if near else "")
            + " (scripts/figure --list names them)")


def make(name, scale="quick", out=None, chtbench=None, rerun=False, stream=sys.stdout, reuse_any=False,
         check_host=True, replot=False):
    """Runs (or reuses) the sweep of figure NAME, draws it, writes NAME.md; returns an exit code.
    replot: runs nothing and draws the page again from the CSV in `out` as it stands (rows of any build
    or host), its cells planned for the CPU count in out/machine.json (the machine that ran them)."""
    path = figure_path(name)
    name = os.path.splitext(os.path.basename(path))[0]
    if not os.path.exists(path):
        print(no_such_figure(name), file=sys.stderr)
        return 2
    out = os.path.abspath(out or os.path.join(REPO, "results", "figures", name))
    csv = os.path.join(out, f"results-{scale}.csv")
    ncpu = None
    if replot:
        if not os.path.exists(csv):
            print(f"figure: --replot: no {csv} to draw from (run the figure first, or name its folder with --out)",
                  file=sys.stderr)
            return 2
        ncpu = (read_machine(out) or {}).get("usable_cpus")
        if not ncpu:
            print(f"figure {name}: --replot: no machine.json with usable_cpus in {out}: the cells are planned "
                  f"for this machine's {config.ncpus()} CPUs", file=sys.stderr)
    try:
        fig = load(path)
        sw = config.from_dict({"sweep": fig["sweep"]}, source=path, scale=scale, ncpu=ncpu, name=name)
        refs = references(fig, scale, path)
    except (config.ConfigError, tomllib.TOMLDecodeError) as e:
        print(f"figure: {e}", file=sys.stderr)
        return 2
    chtbench = binary.find(chtbench)
    schema.use(chtbench)   # cells are matched to rows by the columns this binary declares
    if fig.get("data") not in (None, "results", "timeline"):
        print(f"figure: {path}: data = '{fig['data']}' (accepted: results, timeline)", file=sys.stderr)
        return 2
    if replot:
        return draw(name, fig, sw, out, scale, csv, replot=True, stream=stream)
    why = missing_requirement(fig, chtbench)
    dropped = [] if why else drop_unavailable(sw, chtbench)
    if not why and sw.cells:   # every cell checked before anything is written or run
        err = sweep.check_sweep(sw, chtbench, side_flags=["--timeline-csv"] if fig.get("data") == "timeline" else [])
        for ref, rsw in ([] if err else refs):
            err = sweep.check_sweep(rsw, chtbench)
            err = err and f"reference {ref['name']}: {err.split(': ', 1)[1] if err.startswith('cell ') else err}"
            if err:
                break
        if err:
            print(f"figure {name}: {err}", file=sys.stderr)
            return 2
    os.makedirs(out, exist_ok=True)
    page = os.path.join(out, name + ".md")
    if why:
        write_page(page, name, fig, scale, skipped=why)
        print(f"figure {name}: skipped: {why}; wrote {page}", file=stream)
        return 0
    if not sw.cells:
        write_page(page, name, fig, scale, skipped="; ".join(dropped))
        print(f"figure {name}: skipped: {'; '.join(dropped)}; wrote {page}", file=stream)
        return 0
    t0 = time.monotonic()
    side = {}
    if fig.get("data") == "timeline":
        side = {"--timeline-csv": os.path.join(out, f"timeline-{scale}.csv")}
    if rerun:
        for p in [csv] + list(side.values()):
            if os.path.exists(p):
                os.unlink(p)
    rc = sweep.run(sw, out, chtbench, resume=True, stream=stream, csv_name=os.path.basename(csv), side=side,
                   reuse_any=reuse_any, checked=True, check_host=check_host)
    if rc in (2, 130):
        return rc
    reused = sweep.LAST_RUN.get("ran") == 0
    for ref, rsw in refs:
        rr = run_reference(ref, rsw, out, scale, chtbench, rerun=rerun, stream=stream, reuse_any=reuse_any)
        if rr in (2, 130):
            return rr
        rc = rc or rr
    rc2 = draw(name, fig, sw, out, scale, csv, dropped=dropped, wall=None if reused else time.monotonic() - t0,
               stream=stream)
    return rc2 if rc2 else rc


def read_machine(out):
    """out/machine.json as a dict, or None."""
    try:
        with open(os.path.join(out, "machine.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def draw(name, fig, sw, out, scale, csv, dropped=(), wall=None, replot=False, stream=sys.stdout):
    """finish() over the rows of the CSV (or the timeline CSV beside it) that belong to the sweep's cells."""
    path = os.path.join(out, f"timeline-{scale}.csv") if fig.get("data") == "timeline" else csv
    df = plot.add_columns(sweep.read_csv(path))
    # only this sweep's cells (a CSV may hold rows of an older config)
    keep = pd.Series(False, index=df.index)
    for cell in sw.cells:
        keep |= config.match_mask(df, config.match_key(sw, cell))
    return finish(name, fig, df[keep], out, scale, csv, dropped=dropped, wall=wall, replot=replot, stream=stream)


def finish(name, fig, df, out, scale, csv, dropped=(), wall=None, replot=False, stream=sys.stdout):
    """Draws figure NAME from its rows (df) into out/ and writes NAME.md; returns an exit code.
    make() calls it after the sweep; tests call it with synthetic rows."""
    t0 = time.monotonic()
    try:
        refs = load_references(fig, out, scale, name)
        parts, paths = plot.plot_figure(df.copy(), fig["plot"], os.path.join(out, name), title=figure_title(fig),
                                        labels=fig.get("labels"), references=refs)
    except (ValueError, KeyError, config.ConfigError) as e:
        print(f"figure {name}: cannot plot: {e}", file=sys.stderr)
        return 1
    m = read_machine(out)
    runs = provenance.read_runs(out)
    warn = provenance.mixed_warning(df, runs)
    if warn:
        print(f"figure {name}: warning: {warn}", file=sys.stderr)
    summ = sweep.read_csv(sweep.summary_name(csv))
    if summ is not None:
        summ["speedup"] = pd.to_numeric(summ["speedup"], errors="coerce")
    page = os.path.join(out, name + ".md")
    write_page(page, name, fig, scale, agg=parts, df=df, m=m, wall=wall, csv=csv, dropped=dropped, summary=summ,
               runs=runs, refs=refs, replot=replot)
    print(f"figure {name}: {', '.join(paths)}, {page} ({(wall or 0) + time.monotonic() - t0:.0f} s)", file=stream)
    return 0


def list_figures(chtbench, stream=sys.stdout):
    for n in names():
        try:
            fig = load(figure_path(n))
            sw = config.from_dict({"sweep": fig["sweep"]}, source=n, scale="quick")
            est = sweep.fmt_s(sweep.estimate_s(sw))
            why = missing_requirement(fig, chtbench)
            tail = f"skipped here: {why}" if why else f"quick: {len(sw.cells)} cells, ~{est}"
            short, _ = style.citation(fig.get("source", ""))   # the work named, not its key
            stream.write(f"{n:28s} {short:44s} {tail}\n")
        except (config.ConfigError, tomllib.TOMLDecodeError, KeyError) as e:
            stream.write(f"{n:24s} BROKEN: {e}\n")


def main(argv=None):
    p = argparse.ArgumentParser(prog="figure", description="Reproduce one figure of the source documents.")
    p.add_argument("name", nargs="?", help="figure name (scripts/figures/NAME.toml)")
    p.add_argument("--list", action="store_true", help="list the figures")
    p.add_argument("--scale", choices=["quick", "full"], default="quick")
    p.add_argument("--out", help="output directory (default results/figures/NAME)")
    p.add_argument("--chtbench", help="chtbench binary (default build/chtbench)")
    p.add_argument("--rerun", action="store_true", help="discard this scale's CSV and run the sweep again")
    p.add_argument("--reuse-any", action="store_true", help="reuse cells written by another build or host "
                   "(warns, naming them; by default they run again and their rows move to superseded-*.csv)")
    p.add_argument("--replot", action="store_true", help="run nothing: draw the page again from the CSV in --out "
                   "as it stands (rows of any build or host, e.g. copied from another machine), its cells planned "
                   "for the CPU count in that folder's machine.json")
    p.add_argument("--slurm", action="store_true", help="run the sweep as a Slurm job array (docs/cluster.md)")
    p.add_argument("--partition", help="Slurm partition (with --slurm)")
    p.add_argument("--time", help="Slurm time limit per cell (with --slurm)")
    p.add_argument("--dry-run", action="store_true", help="with --slurm: print the batch scripts")
    a = p.parse_args(argv)
    chtbench = binary.find(a.chtbench)
    if (a.partition or a.time or a.dry_run) and not a.slurm:
        print("figure: --partition, --time and --dry-run need --slurm", file=sys.stderr)
        return 2
    if a.replot and (a.rerun or a.slurm or a.reuse_any):
        print("figure: --replot runs nothing: it takes no --rerun, --reuse-any or --slurm", file=sys.stderr)
        return 2
    if a.list:
        list_figures(chtbench)
        return 0
    if not a.name:
        print("figure: name a figure (scripts/figure --list)", file=sys.stderr)
        return 2
    if not os.access(chtbench, os.X_OK):
        print(f"figure: --chtbench: {chtbench} is not an executable (meson setup build && ninja -C build)",
              file=sys.stderr)
        return 2
    if a.slurm:
        path = os.path.abspath(figure_path(a.name))
        if not os.path.exists(path):
            print(no_such_figure(a.name), file=sys.stderr)
            return 2
        try:
            fig = load(path)
            sw = config.from_dict({"sweep": fig["sweep"]}, source=path, scale=a.scale, name=a.name)
        except (OSError, config.ConfigError, tomllib.TOMLDecodeError) as e:
            print(f"figure: {e}", file=sys.stderr)
            return 2
        name = os.path.splitext(os.path.basename(path))[0]
        out = os.path.abspath(a.out or os.path.join(REPO, "results", "figures", name))
        err = sweep.check_sweep(sw, chtbench, side_flags=["--timeline-csv"] if fig.get("data") == "timeline" else [])
        if err:
            print(f"figure {name}: {err}", file=sys.stderr)
            return 2
        return slurm.submit(sw, out, chtbench, config_path=path, scale=a.scale, partition=a.partition,
                            time_limit=a.time, dry=a.dry_run, figure=name)
    return make(a.name, a.scale, a.out, chtbench, a.rerun, reuse_any=a.reuse_any, replot=a.replot)

