"""verdict_witness.py - synthetic data for every figure's checks (tests/test_scripts.py case 'verdicts').

For each scripts/figures/*.toml, synthetic rows are made from the figure's own sweep (its cells at full
scale, as on a machine with CPUS CPUs; the columns its plot and checks read; a timeline figure gets one
row per 100 ms interval), run through the figure's own pipeline (relabel, derive, where, aggregate,
min_x/max_x) to the medians each check works on. Then, per check kind, the medians are set to agree with
the claim (the check must say holds) and to contradict it (it must say does not hold). A check whose
series, facets or x values are missing from its figure's data cannot be given both and fails the test.
"""
import copy
import re

import pandas as pd

from chtb import config, figure, plot

HI, LO, BASE = 2.0, 0.5, 1.0


def _flag_pairs(base):
    """--flag value pairs of a sweep's base list ({flag: value}; bare flags -> True)."""
    out, i = {}, 0
    while i < len(base):
        f = str(base[i])
        if f.startswith("--"):
            k, eq, v = f[2:].partition("=")
            if eq:
                out[k] = v
            elif i + 1 < len(base) and not str(base[i + 1]).startswith("--"):
                out[k] = base[i + 1]
                i += 1
            else:
                out[k] = True
        i += 1
    return out


def _columns_read(fig):
    """The y columns and derive inputs the plot and the checks read."""
    ys = set(plot.as_list(fig["plot"]["y"]))
    exprs = dict(fig["plot"].get("derive") or {})
    for c in fig.get("check", []):
        ys |= set(plot.as_list(c.get("y", [])))
        exprs.update(c.get("derive") or {})
    derived = set(exprs)
    for e in exprs.values():
        ys |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", e))
    return sorted(ys - derived), derived


def rows(fig, cpus):
    """Synthetic rows of the figure's sweep (full scale, `cpus` CPUs), every read column 1.0."""
    sw = config.from_dict({"sweep": copy.deepcopy(fig["sweep"])}, source="synthetic", scale=None, ncpu=cpus)
    cols = config.flag_columns(bool(sw.bench))
    base = {}
    for k, v in _flag_pairs(fig["sweep"].get("base", [])).items():
        if k in cols and v is not True:
            base.update(cols[k](v))
    ys, _ = _columns_read(fig)
    ctrs = [y for y in ys if y.startswith("PAPI_")]
    out = []
    for cell in sw.cells:
        r = dict(base)
        r.update(config.match_key(sw, cell))
        r.setdefault("options", "-")
        r["rep"] = 0
        for y in ys:
            if not y.startswith("PAPI_") and y not in r:
                r[y] = BASE
        r.update(acq_per_s=1e6, mops=BASE)
        if ctrs:
            r["counter_names"] = ";".join(ctrs)
            r["counter_values_per_op"] = ";".join("1" for _ in ctrs)
        if fig.get("data") == "timeline":
            dur = int(cell.get("duration", fig["sweep"].get("duration", 1000)))
            for t in range(100, dur + 1, 100):
                out.append(dict(r, t_ms=t + 1, interval_mops=BASE, interval_ops=1000, hot_base=0))
        else:
            out.append(r)
    df = pd.DataFrame(out)
    for c in df.columns:   # text columns as the CSV reader gives them
        if df[c].dtype == object:
            df[c] = df[c].astype(str)
    return plot.add_columns(df)


def _xs(sub):
    return plot.ordered(sub["x"])[0]


def _series(sub, c, key="among"):
    return [s for s in dict.fromkeys(sub["series"]) if not c.get(key) or s in set(c[key])]


def witness(agg, c, agree):
    """A copy of agg whose medians agree with (or contradict) check c; None when it cannot be made."""
    a = agg.copy().reset_index(drop=True)
    k = c["kind"]
    made = False
    med = [BASE] * len(a)
    where = {(f, s, str(x)): i for i, (f, s, x) in enumerate(zip(a["facet"], a["series"], a["x"]))}

    def put(fac, s, x, v):
        nonlocal made
        i = where.get((fac, s, str(x)))
        if i is not None:
            med[i] = v
            made = True

    for fac, sub in agg.groupby("facet", sort=False):
        xs = _xs(sub)
        if k == "best":
            good = HI if not c.get("minimize") else LO
            for x in figure.pick_x(sub, c.get("at_x")):
                here = list(sub[sub["x"] == x]["series"])
                exp = [s for s in here if s in set(c["expect"])]
                other = [s for s in here if s not in set(c["expect"])]
                if agree and exp:
                    put(fac, exp[0], x, good)
                elif not agree and other:
                    put(fac, other[0], x, good)
        elif k == "peak_at":
            for s in _series(sub, c):
                sx = _xs(sub[sub["series"] == s])
                target = sx[-1] if c["at"] == "max" else sx[0] if c["at"] == "min" else c["at"]
                others = [x for x in sx if str(x) != str(target)]
                hit = [x for x in sx if str(x) == str(target)]
                if agree != bool(c.get("negate")):
                    if hit:
                        put(fac, s, hit[0], HI)
                elif others:
                    put(fac, s, others[len(others) // 2], HI)
        elif k == "compare":
            if fac in (c["a"], c["b"]):
                want_a_low = c.get("expect", "lower") == "lower"
                low_fac = c["a"] if want_a_low == agree else c["b"]
                for s in dict.fromkeys(sub["series"]):
                    for x in xs:
                        put(fac, s, x, LO if fac == low_fac else HI)
        elif k == "rank":
            ss = list(dict.fromkeys(sub["series"]))
            exp = [s for s in ss if s in set(c["expect"])]
            other = [s for s in ss if s not in set(c["expect"])]
            if c["stat"] == "spread":   # max/min: only a larger spread can be made, so move the others
                v = HI
                pick = (other if agree else exp) if c.get("lowest") else (exp[:1] if agree else other[:1])
            else:
                v = LO if c.get("lowest") else HI
                pick = exp[:1] if agree else other[:1]
            for s in pick:
                put(fac, s, _xs(sub[sub["series"] == s])[-1], v)
        elif k == "drop":
            for s in _series(sub, c):
                sx = _xs(sub[sub["series"] == s])
                at = sx[-1] if c.get("at", "max") == "max" else c["at"]
                if "below" in c:
                    put(fac, s, at, c["below"] * 0.5 if agree else BASE)
                else:
                    put(fac, s, at, BASE if agree else c["above"] * 0.5)
                if len(sx) > 1 and at != sx[0]:
                    put(fac, s, sx[0], BASE)
        elif k == "ratio":
            if "above" in c and "below" in c:   # a band: its middle agrees, below it contradicts
                v = (c["above"] + c["below"]) / 2 if agree else c["above"] * LO
            else:
                up = "above" in c
                v = c.get("above", c.get("below")) * (HI if up == agree else LO)
            for x in xs:
                put(fac, c["num"], x, v)
        elif k in ("trend", "value"):
            bound = c.get("above", c.get("below"))
            up = "above" in c
            for s in _series(sub, c):
                sx = _xs(sub[sub["series"] == s])
                if k == "value":
                    for x in sx:
                        put(fac, s, x, bound * (HI if up == agree else LO))
                elif c.get("stat", "last_over_first") == "spread":
                    if up == agree:   # a spread of 2 x bound
                        put(fac, s, sx[-1], bound * HI)
                    else:
                        put(fac, s, sx[-1], BASE)
                else:
                    put(fac, s, sx[-1], bound * (HI if up == agree else LO))
        elif k == "reaction":
            made |= _reaction_witness(put, fac, sub, c, agree)
        else:
            raise ValueError(f"no witness for check kind {k}")
    a["median"] = med
    return a if made else None


def _reaction_witness(put, fac, sub, c, agree):
    """Timeline medians around each shift: a dip of `n` intervals to LO right after it."""
    times = sorted(set(sub["x"]), key=float)
    shifts = sorted(float(s) for s in c["shifts"])

    def dip(s, n):
        hit = False
        for i, sh in enumerate(shifts):
            nxt = shifts[i + 1] if i + 1 < len(shifts) else float(times[-1]) + 1
            after = [t for t in times if sh < float(t) <= nxt]
            for t in after[:n]:
                if s in set(sub[sub["x"] == t]["series"]):
                    put(fac, s, t, LO)
                    hit = True
        return hit

    mode = c["mode"]
    if mode == "faster":
        fast, slow = (c["a"], c["b"]) if agree else (c["b"], c["a"])
        return dip(fast, 1) & dip(slow, 3)
    hit = False
    for s in _series(sub, c):
        if mode == "within":
            hit |= dip(s, 1 if agree else 10 ** 6)
        elif mode == "flat":
            hit |= True if agree else dip(s, 1)
    return hit
