"""How figures and pages look: the bibliography (docs/references.md), one colour and marker per
table and lock across every figure, human series labels and panel titles, number formatting."""
import math
import os
import re

from . import REPO

# --- the bibliography ----------------------------------------------------------------------------

_REFS = None


def references():
    """{key: {short, authors, title, venue, year}} from docs/references.md's table."""
    global _REFS
    if _REFS is None:
        _REFS = {}
        try:
            with open(os.path.join(REPO, "docs", "references.md"), encoding="utf-8") as f:
                for line in f:
                    cells = [c.strip() for c in line.strip().strip("|").split("|")]
                    if len(cells) == 6 and re.fullmatch(r"[a-z][a-z0-9-]*", cells[0]) and cells[0] != "key":
                        _REFS[cells[0]] = dict(zip(("short", "authors", "title", "venue", "year"), cells[1:]))
        except OSError:
            pass
    return _REFS


def citation(source):
    """A figure's `source` ("hotring-fast20, fig. 16") -> (short, full) citations naming the work, or
    the source text itself twice when it names no known work."""
    m = re.match(r"\s*([a-z][a-z0-9-]*)\s*(?:,\s*(.*))?$", source or "")
    ref = references().get(m.group(1)) if m else None
    if not ref:
        return source or "", source or ""
    where = (m.group(2) or "").strip()
    short = ref["short"] + (f", {where}" if where else "")
    full = (f"{ref['authors']}. *{ref['title']}*. {ref['venue']}, {ref['year']}"
            + (f"; {where}" if where else "") + ".")
    return short, full


# --- colours and markers -------------------------------------------------------------------------

# Okabe & Ito's colour-blind-safe palette; markers keep series apart in greyscale
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
MARKERS = ["o", "s", "D", "^", "v", "P", "X", "<", ">", "h", "*", "p"]

BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, BLACK = (OKABE_ITO[0], OKABE_ITO[1], OKABE_ITO[2], OKABE_ITO[3],
                                                       OKABE_ITO[4], OKABE_ITO[5], OKABE_ITO[7])
# One colour and marker per table and lock, in every figure. Names that appear together in a figure
# (the thesis' six tables; HotRing, chaining and CLHT; the seven mutexes; the RTM locks; the RW locks)
# have different colours; no two names share both colour and marker (tests/test_report.py checks).
# Yellow (#F0E442) is left out: too light on white.
PALETTE = {
    # tables
    "clht-lb": (BLUE, "o"), "clht-lf": (SKY, "s"), "cuckoo": (GREEN, "D"), "hopscotch": (VERMILLION, "^"),
    "urcu": (PURPLE, "v"), "tbb": (ORANGE, "P"), "hotring": (VERMILLION, "h"), "chain": (BLACK, "X"),
    "libcuckoo": (GREEN, "X"), "dense": (ORANGE, "<"), "locked": (BLACK, "s"), "clht-rtm": (PURPLE, ">"),
    "cuckoo-filter": (SKY, "<"), "noop": (BLACK, "o"), "noop-line": (BLACK, "*"),
    # mutexes
    "ticket": (BLUE, "s"), "mcs": (ORANGE, "o"), "clh": (GREEN, "^"), "tas": (PURPLE, "p"), "ttas": (SKY, "D"),
    "pthread-mutex": (BLACK, "P"), "waiter": (VERMILLION, "*"), "pthread-spin": (BLACK, "<"),
    "ttas-backoff": (SKY, "*"), "c-bo-mcs": (PURPLE, "s"), "c-tkt-tkt": (SKY, "P"),
    # RTM elision
    "htm-retry": (SKY, "X"), "slr-mcs": (GREEN, "h"), "scm-ttas": (PURPLE, "<"), "slr-scm-mcs": (VERMILLION, ">"),
    # reader-writer locks
    "c-rw-np": (BLUE, "h"), "c-rw-rp": (PURPLE, "D"), "c-rw-rp-opt": (GREEN, "s"), "c-rw-wp": (VERMILLION, "o"),
    "pthread-rwlock": (BLACK, "v"),
}
NAMES = list(PALETTE)

DISPLAY = {
    "clht-lb": "CLHT-LB", "clht-lf": "CLHT-LF", "cuckoo": "cuckoo", "hopscotch": "hopscotch",
    "urcu": "URCU", "tbb": "TBB", "libcuckoo": "libcuckoo", "chain": "chaining",
    "hotring": "HotRing", "dense": "dense", "locked": "locked", "clht-rtm": "CLHT-RTM",
    "cuckoo-filter": "cuckoo filter", "noop": "no-op", "noop-line": "one line an op (noop-line)",
    "ticket": "ticket", "mcs": "MCS", "clh": "CLH", "tas": "TAS", "ttas": "TTAS",
    "pthread-mutex": "pthread mutex", "waiter": "waiter-count", "pthread-rwlock": "pthread rwlock",
    "c-rw-np": "C-RW-NP", "c-rw-rp": "C-RW-RP", "c-rw-rp-opt": "C-RW-RP-opt", "c-rw-wp": "C-RW-WP",
    "htm-retry": "HTM-retry", "slr-mcs": "SLR-MCS", "scm-ttas": "SCM-TTAS", "slr-scm-mcs": "SLR-SCM-MCS",
    "c-bo-mcs": "C-BO-MCS", "c-tkt-tkt": "C-TKT-TKT", "pthread-spin": "pthread spinlock",
    "ttas-backoff": "TTAS+backoff",
}


def _base(series):
    return str(series).split(":", 1)[0].split(" ", 1)[0]


def _opts(series):
    name, _, opts = str(series).split(" ", 1)[0].partition(":")
    return dict(kv.split("=", 1) if "=" in kv else (kv, "") for kv in opts.split(",") if kv)


def style_key(series):
    """The palette name of a series: the lock a table runs under (clht-rtm:lock=mcs -> mcs), else
    the table or lock itself."""
    return _opts(series).get("lock") or _base(series)


LINESTYLES = ["-", "--", ":", "-."]


def styles(series_list):
    """{series: (colour, marker, filled, linestyle)}. A table or lock keeps its colour and marker in
    every figure (PALETTE); a table shown with several option sets (HotRing-s and -r) keeps its
    colour, and its variants after the first are hollow, with another marker and a dashed or dotted
    line."""
    out, seen = {}, {}
    for s in series_list:
        b = style_key(s)
        colour, marker = PALETTE.get(b) or (OKABE_ITO[sum(map(ord, b)) % 7], MARKERS[sum(map(ord, b)) % len(MARKERS)])
        k = seen.get(b, 0)
        seen[b] = k + 1
        if k:
            marker = MARKERS[(MARKERS.index(marker) + 5 * k) % len(MARKERS)]
        out[s] = (colour, marker, k == 0, LINESTYLES[k % len(LINESTYLES)])
    return out


def series_labels(series_list, labels=None):
    """{series: human label}: the figure's `labels` map first, else the table's or lock's display
    name plus only the options that differ between series of the same table in this figure."""
    labels = labels or {}
    out = {}
    by_base = {}
    for s in series_list:
        by_base.setdefault(_base(s), []).append(s)
    for s in series_list:
        if str(s) in labels:
            out[s] = labels[str(s)]
            continue
        b = _base(s)
        name = DISPLAY.get(b, b)
        sib = [_opts(x) for x in by_base[b]]
        mine = _opts(s)
        keys = [k for k in mine if len({o.get(k) for o in sib}) > 1]
        rest = str(s).split(" ", 1)[1] if " " in str(s) else ""
        text = name + (" (" + ", ".join(f"{k}={mine[k]}" for k in keys) + ")" if keys else "")
        out[s] = text + (f" {rest}" if rest else "")
    return out


# --- panel titles and axis labels in words -------------------------------------------------------

_STAT = {"avg": "mean", "p50": "median", "p90": "p90", "p99": "p99", "p999": "p99.9", "min": "min",
         "max": "max", "stdev": "stdev"}
_OP = {"get": "get", "ins": "insert", "rem": "remove", "upd": "update", "put": "put"}


def metric_words(col):
    """lat_get_suc_p99_ns -> ['p99', 'get', 'found']: the parts of a latency column in words."""
    m = re.match(r"lat_([a-z]+)_(suc|fail)_([a-z0-9]+)_(ns|cycles)$", col)
    if not m:
        return None
    op, out, stat, _ = m.groups()
    return [_STAT.get(stat, stat), f"{_OP.get(op, op)} {'success' if out == 'suc' else 'failure'}"]


def value_words(col, v):
    """One facet value in words: threads 1 -> '1 thread', initial 1048576 -> 'i = 2^20'."""
    v = str(v)
    if col == "threads":
        return f"{v} thread" + ("" if v == "1" else "s")
    if col == "update":
        return f"u = {v}%"
    if col == "write_pct":
        return f"{v}% writes"
    if col in ("initial", "range"):
        n = int(v) if v.isdigit() else None
        if n and n & (n - 1) == 0 and n >= 1024:
            return f"{'i' if col == 'initial' else 'r'} = 2^{n.bit_length() - 1}"
        return f"{'i' if col == 'initial' else 'r'} = {v}"
    if col == "dist":
        return dist_words(v)
    if col == "pin":
        return f"{v} pinning"
    return f"{col} {v}"


def dist_words(v):
    m = re.match(r"zipf:([0-9.]+)", str(v))
    if m:
        return f"Zipf θ={m.group(1)}"
    return str(v)


def panel_titles(facets, facet_spec, metrics):
    """{facet string: title in words}. facet_spec is the [plot] facet (a column, a list, or
    'metric'); metric parts that all panels share are left out (they go to the axis label)."""
    cols = facet_spec if isinstance(facet_spec, list) else [facet_spec] if facet_spec else []
    mw = {m: metric_words(m) for m in metrics}
    common = set()
    if metrics and all(mw.values()):
        common = set.intersection(*[set(w) for w in mw.values()])
    out = {}
    for f in facets:
        if not f:
            out[f] = ""
            continue
        parts = []
        if cols and cols[0] != "metric" and len(cols) == 1:
            val = f.split("=", 1)[1] if "=" in f else f
            parts = [value_words(cols[0], val)]
        else:
            vals = f.split(" ", len(cols) - 1) if cols else [f]
            for c, v in zip(cols or ["metric"], vals):
                if c == "metric":
                    w = mw.get(v)
                    parts.append(", ".join(x for x in w if x not in common) if w else label(v))
                else:
                    parts.append(value_words(c, v))
        out[f] = ", ".join(p for p in parts if p)
    return out


# axis labels with units (docs/csv.md); a column not here is labelled with its name
LABELS = {
    "threads": "threads", "mops": "throughput (Mops/s)", "update": "update ratio (%)",
    "initial": "initial size i (keys)", "range": "key range r", "dist": "key distribution",
    "pin": "thread pinning", "table": "table", "table_spec": "table", "lock": "lock",
    "acq_per_s": "acquisitions/s", "macq_per_s": "acquisitions (M/s)",
    "write_pct": "write ratio (%)", "speedup": "speedup over 1 thread",
    "bytes_per_key": "table bytes per key", "duration_ms": "duration (ms)",
    "rss_delta_mb": "RSS after prefill − before create (MB)", "alloc_mb": "allocated for the table, create + build (MB)", "table_mb": "table bytes after prefill (MB)",
    "abort_rate": "transaction abort rate (%)", "tx_begins": "transactions started",
    "max_share": "largest per-thread share", "workload": "YCSB workload",
    "interval_mops": "throughput per interval (Mops/s)", "t": "time (ms)", "t_ms": "time (ms)",
    "ceiling_mops": "miss ceiling (M misses/s)", "ceiling_frac": "share of the miss ceiling (Mops/s ÷ ceiling)",
    "pipeline": "ops in flight per thread W", "mloads_per_s": "loads (M/s)", "bytes": "working set (bytes)",
}


def label(col):
    if col in LABELS:
        return LABELS[col]
    if col.startswith("lat_") and col.endswith("_cycles"):
        return col[4:-7].replace("_", " ") + " (cycles)"
    if col.startswith("lat_") and col.endswith("_ns"):
        return col[4:-3].replace("_", " ") + " (ns)"
    return col



# --- numbers -------------------------------------------------------------------------------------

def fmt_num(v):
    """A measured value for a table: three significant figures, plain digits (1,712 not 1.7e+03);
    whole numbers from 1000 on with thousands separators; scientific only below 0.001."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    v = float(v)
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        return f"{round(v):,}"
    if a < 0.001:
        return f"{v:.2e}"
    digits = max(0, 2 - math.floor(math.log10(a)))
    return f"{v:.{digits}f}"
