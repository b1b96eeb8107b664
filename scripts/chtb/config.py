"""Sweep configs (TOML) and their cells.

A sweep config:

    [sweep]
    base = ["--initial", "1M"]   # chtbench arguments shared by every cell
    reps = 3                     # --reps of each cell
    duration = 500               # ms (--duration); leave out to keep chtbench's default or base's --ops

    [axes]                       # the cartesian product of these, first axis slowest
    table = ["clht-lb", "cuckoo"]
    threads = ["pow2:ncpu"]      # values may use ncpu (this machine's usable CPUs), see expand_value
    update = [0, 10]

    [[exclude]]                  # drop every cell matching all of these keys
    table = "cuckoo"
    threads = 2

    [[override]]                 # cells matching `when` ...
    when = { table = "urcu" }
    axes = { threads = [1] }     # ... take these axis values instead (a per-axis override)
    set = { duration = 200 }     # ... and these flags (replacing the base/axis value)

    [scale.quick]                # optional: `--scale quick` replaces reps/duration/axes with these
    reps = 2                     # (and adds its [[scale.quick.exclude]] rules)

Every axis or `set` key is a chtbench long flag without the dashes (`threads` -> `--threads 2`);
`true` gives the bare flag, `false` leaves it out. A cell is one chtbench invocation.
"""
import itertools
import os
import re
import shlex
import tomllib

import pandas as pd

from . import schema


class ConfigError(Exception):
    """A bad config: the message names the file and the key."""


def ncpus():
    return len(os.sched_getaffinity(0))


_NCPU_TERM = re.compile(r"^\s*(\d+)?\s*\*?\s*ncpu\s*$|^\s*(\d+)\s*$")


def _ncpu_int(text, ncpu, where):
    m = _NCPU_TERM.match(text)
    if not m:
        raise ConfigError(f"{where}: '{text}' is not N, ncpu or K*ncpu")
    if m.group(2) is not None:
        return int(m.group(2))
    return int(m.group(1) or 1) * ncpu


# Bounds on what a config may stand for: a typo like "1..100000000*ncpu" must be a one-line
# error, not a list of 10^8 values (or a product of such axes) built in memory.
MAX_AXIS_VALUES = 10000
MAX_CELLS = 100000


def expand_value(value, ncpu, where):
    """A list of the concrete values one axis entry stands for.

    Strings mentioning ncpu: "ncpu", "2*ncpu", "1..ncpu" (every count), "pow2:4*ncpu"
    (1, 2, 4, ... up to the bound, and the bound itself). Anything else stands for itself."""
    if not isinstance(value, str) or "ncpu" not in value:
        return [value]
    if value.startswith("pow2:"):
        hi = _ncpu_int(value[5:], ncpu, where)
        out, v = [], 1
        while v < hi:
            out.append(v)
            v *= 2
        return out + [hi]
    if ".." in value:
        lo, hi = value.split("..", 1)
        lo, hi = _ncpu_int(lo, ncpu, where), _ncpu_int(hi, ncpu, where)
        if hi - lo + 1 > MAX_AXIS_VALUES:
            raise ConfigError(f"{where}: '{value}' stands for {hi - lo + 1} values (at most "
                              f"{MAX_AXIS_VALUES} per axis)")
        return list(range(lo, hi + 1))
    return [_ncpu_int(value, ncpu, where)]


def expand_axis(values, ncpu, where):
    if not isinstance(values, list) or not values:
        raise ConfigError(f"{where}: an axis is a non-empty list of values")
    out = []
    for v in values:
        if isinstance(v, (dict, list)):
            raise ConfigError(f"{where}: axis values are numbers, strings or booleans")
        for x in expand_value(v, ncpu, where):
            if x not in out:
                out.append(x)
        if len(out) > MAX_AXIS_VALUES:
            raise ConfigError(f"{where}: more than {MAX_AXIS_VALUES} values (at most {MAX_AXIS_VALUES} per axis)")
    return out


def _matches(cell, rule):
    return all(k in cell and str(cell[k]) == str(v) for k, v in rule.items())


class Sweep:
    """One sweep: base arguments, cells (dicts of flag -> value) and reps."""

    def __init__(self, base, reps, cells, source="", name="sweep"):
        self.base = list(base)
        self.reps = reps
        self.cells = cells
        self.source = source
        self.name = name

    @property
    def bench(self):
        """'mutex'/'rwlock' for lock-only sweeps, None for table sweeps."""
        for i, a in enumerate(self.base):
            if a == "--bench" and i + 1 < len(self.base):
                return self.base[i + 1]
            if a.startswith("--bench="):
                return a.split("=", 1)[1]
        return None

    def args(self, cell):
        """chtbench arguments of one cell (without --csv)."""
        out, i = [], 0
        while i < len(self.base):   # a flag the cell sets replaces the base's
            a = self.base[i]
            if a.startswith("--") and a[2:].split("=", 1)[0] in cell:
                i += 1 if "=" in a or i + 1 >= len(self.base) or self.base[i + 1].startswith("-") else 2
                continue
            out.append(a)
            i += 1
        for k, v in cell.items():
            if v is False:
                continue
            out.append("--" + k)
            if v is not True:
                out.append(str(v))
        if self.bench != "memory":   # --bench memory has no repetitions (one run per k, docs/cli.md)
            out += ["--reps", str(self.reps)]
        return out

    def command(self, chtbench, cell):
        return " ".join(shlex.quote(a) for a in [chtbench] + self.args(cell))


def from_dict(d, source="<config>", scale=None, ncpu=None, name="sweep"):
    """Builds a Sweep from a parsed TOML document (a figure's [sweep] or a whole sweep file)."""
    ncpu = ncpu or ncpus()
    sw = d.get("sweep", d)
    known = {"base", "reps", "duration", "axes", "exclude", "override", "scale"}
    for k in sw:
        if k not in known and k not in ("sweep",):
            raise ConfigError(f"{source}: unknown key '{k}' (accepted: {', '.join(sorted(known))})")
    sections = {"axes": sw.get("axes", d.get("axes", {})),
                "exclude": sw.get("exclude", d.get("exclude", [])),
                "override": sw.get("override", d.get("override", [])),
                "scale": sw.get("scale", d.get("scale", {}))}
    base = sw.get("base", [])
    if isinstance(base, str):
        base = shlex.split(base)
    if not isinstance(base, list) or not all(isinstance(a, str) for a in base):
        raise ConfigError(f"{source}: base is a list of strings (chtbench arguments)")
    reps = sw.get("reps", 1)
    duration = sw.get("duration")
    axes = dict(sections["axes"])
    if scale is not None:
        sc = sections["scale"].get(scale)
        if sc is None:
            # full is the config as written unless it has a [scale.full] of its own
            if sections["scale"] and scale != "full":
                raise ConfigError(f"{source}: no [scale.{scale}] (has: {', '.join(sections['scale'])})")
        else:
            for k, v in sc.items():
                if k == "reps":
                    reps = v
                elif k == "duration":
                    duration = v
                elif k == "axes":
                    axes.update(v)
                elif k == "exclude":
                    sections["exclude"] = list(sections["exclude"]) + list(v)
                else:
                    raise ConfigError(f"{source}: [scale.{scale}] accepts reps, duration, axes, exclude; "
                                      f"not '{k}'")
    if not isinstance(reps, int) or not 1 <= reps <= 10000:
        raise ConfigError(f"{source}: reps must be an integer 1..10000, not {reps!r}")
    if duration is not None and (not isinstance(duration, int) or duration < 1):
        raise ConfigError(f"{source}: duration must be a positive integer (ms), not {duration!r}")
    if not isinstance(axes, dict) or not axes:
        raise ConfigError(f"{source}: [axes] must name at least one axis")
    names = list(axes)
    values = [expand_axis(axes[n], ncpu, f"{source}: axes.{n}") for n in names]
    total = 1
    for v in values:
        total *= len(v)
    if total > MAX_CELLS:
        raise ConfigError(f"{source}: the axes stand for {total} cells (" + " x ".join(
            f"{n} {len(v)}" for n, v in zip(names, values)) + f"; at most {MAX_CELLS})")
    cells = [dict(zip(names, combo)) for combo in itertools.product(*values)]

    for i, o in enumerate(sections["override"]):
        where = f"{source}: override[{i}]"
        if not isinstance(o, dict) or "when" not in o or not isinstance(o["when"], dict):
            raise ConfigError(f"{where}: needs a table 'when = {{axis = value}}'")
        bad = set(o) - {"when", "axes", "set"}
        if bad:
            raise ConfigError(f"{where}: unknown key {sorted(bad)[0]} (accepted: when, axes, set)")
        if "axes" in o:
            oax = {k: expand_axis(v, ncpu, f"{where}.axes.{k}") for k, v in o["axes"].items()}
            for k in oax:
                if k not in names:
                    raise ConfigError(f"{where}: axes.{k} is not an axis of this sweep")
            hit = [j for j, c in enumerate(cells) if _matches(c, o["when"])]
            if hit:
                seen, new = [], []
                for j in hit:
                    key = {k: v for k, v in cells[j].items() if k not in oax}
                    if key not in seen:
                        seen.append(key)
                per = 1
                for v in oax.values():
                    per *= len(v)
                if len(cells) - len(hit) + len(seen) * per > MAX_CELLS:
                    raise ConfigError(f"{where}: the override makes more than {MAX_CELLS} cells")
                for key in seen:
                    for combo in itertools.product(*[oax.get(n, [key.get(n)]) for n in names]):
                        new.append(dict(zip(names, combo)))
                cells = cells[:hit[0]] + new + [c for j, c in enumerate(cells) if j >= hit[0] and j not in hit]
        for c in cells:
            if _matches(c, o["when"]):
                c.update(o.get("set", {}))

    for i, rule in enumerate(sections["exclude"]):
        if not isinstance(rule, dict) or not rule:
            raise ConfigError(f"{source}: exclude[{i}] must be a table of axis = value")
        cells = [c for c in cells if not _matches(c, rule)]
    if duration is not None:
        for c in cells:
            c.setdefault("duration", duration)
    if not cells:
        raise ConfigError(f"{source}: every cell is excluded")
    return Sweep(base, reps, cells, source=source, name=name)


def load(path, scale=None, ncpu=None):
    try:
        with open(path, "rb") as f:
            d = tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a TOML file (not UTF-8 text)")
    name = os.path.splitext(os.path.basename(path))[0]
    return from_dict(d, source=path, scale=scale, ncpu=ncpu, name=name), d


# --- matching cells to CSV rows --------------------------------------------------------------

_SUFFIX = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(v):
    """chtbench's SIZE: 1000, 64K, 1M, 2^20, 10^6."""
    s = str(v).strip()
    if "^" in s:
        b, e = s.split("^", 1)
        return int(b) ** int(e)
    if s and s[-1].upper() in _SUFFIX:
        return int(s[:-1]) * _SUFFIX[s[-1].upper()]
    return int(s)


def _table_cols(v):
    """The table CSV writes `noop` for its alias `null` and `-` for no options."""
    name, _, opts = str(v).partition(":")
    return {"table": "noop" if name == "null" else name, "options": opts or "-"}


# How a flag's value reads in its column, by the column's declared type; two columns hold less or
# more than the value given (`--table NAME:OPTS` fills table and options; `--pin list:0,1` writes list).
_BY_TYPE = {"int": parse_size, "0/1": int, "float": float, "text": str}
_SPECIAL = {"table": _table_cols, "pin": lambda v: {"pin": str(v).split(":")[0]}}
_FLAG_COLUMNS = {}


def flag_columns(bench, chtbench=None):
    """{flag: function(value) -> {column: normalised value}} of the flags a row records, from the
    columns' declarations (`chtbench --schema`: a column's `flag`); flags not here are not matched.
    bench: True for lock-bench sweeps (the lock schema), False for table sweeps."""
    key = (bench, schema.binary(chtbench))
    if key in _FLAG_COLUMNS:       # match_key runs per cell and row group: build the map once
        return _FLAG_COLUMNS[key]
    try:
        cols = schema.columns("lock" if bench else "table", chtbench)
    except schema.SchemaError as e:     # no usable binary: a one-line error, as for a bad config
        raise ConfigError(str(e))
    out = _FLAG_COLUMNS[key] = {}
    for c in cols:
        if not c["flag"]:
            continue
        if c["name"] in _SPECIAL:
            out[c["flag"]] = _SPECIAL[c["name"]]
        else:
            out[c["flag"]] = (lambda col, conv: lambda v: {col: conv(v)})(c["name"], _BY_TYPE[c["type"]])
    return out


def did_you_mean(word, choices, max_dist=2):
    """The closest of choices within edit distance max_dist (Levenshtein), or None."""
    best, bd = None, max_dist + 1
    for c in choices:
        prev = list(range(len(c) + 1))
        for i, a in enumerate(word, 1):
            cur = [i]
            for j, b in enumerate(c, 1):
                cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a != b)))
            prev = cur
        if prev[-1] < bd:
            best, bd = c, prev[-1]
    return best


def check_flags(sweep, known, source):
    """Every axis or `set` key must be one of chtbench's long flags (`known`, without dashes):
    a ConfigError naming the key, with "did you mean" for a near miss."""
    if not known:
        return
    for c in sweep.cells:
        for k in c:
            if k not in known:
                near = did_you_mean(k, sorted(known))
                hint = f" (did you mean {near}?)" if near else " (chtbench --help lists the flags)"
                raise ConfigError(f"{source}: '{k}' is not a chtbench flag{hint}")


def match_key(sweep, cell):
    """{column: value} a row of this cell must carry (docs/csv.md column names)."""
    cols = flag_columns(bool(sweep.bench))
    key = {}
    for k, v in cell.items():
        f = cols.get(k)
        if f is not None and v is not True and v is not False:
            key.update(f(v))
    return key


def match_mask(df, key):
    """The rows of df (a CSV read as text) that carry key ({column: value}, match_key's): a boolean
    Series; numbers compare by value ('1024' matches 1024), a column df lacks matches no row."""
    m = pd.Series(True, index=df.index)
    for col, want in key.items():
        if col not in df.columns:
            return pd.Series(False, index=df.index)
        if isinstance(want, (int, float)):
            m &= pd.to_numeric(df[col], errors="coerce") == want
        else:
            m &= df[col] == want
    return m
