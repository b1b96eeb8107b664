"""scripts/sweep CONFIG.toml [--out DIR] [--resume] [--dry-run] [--scale S] [--slurm ...]

Runs every cell of a sweep config (chtb.config) as one chtbench invocation with --reps R.
chtbench writes each cell's rows with its own locked writer (--csv) into a staging file
DIR/.cells/cell-N.csv; when the cell has finished, its rows are appended to DIR/results.csv in one
write() under flock, the same discipline as chtbench's writer. A cell killed halfway (Ctrl-C, node
reboot) therefore leaves no row in results.csv, and --resume, which counts each cell's rows there
(matched on the cell's parameters, docs/csv.md column names, and its rep numbers), reruns exactly
the cells that are not complete.
"""
import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import time

import pandas as pd

from . import config, machine, provenance, speedup

CSV_NAME = "results.csv"
LAST_RUN = {}   # {"ran": cells run} of the last run(), for scripts/figure's page


def read_csv(path):
    """A chtbench CSV, every column as text ('' = not measured); None if absent or empty."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def cell_rows(df, sweep, cell):
    """The rows of df belonging to this cell."""
    if df is None:
        return None
    return df[config.match_mask(df, config.match_key(sweep, cell))]


def complete_cells(df, sweep):
    """Indexes of cells whose reps 0..R-1 are all in df (cells with equal parameters share rows)."""
    done = set()
    if df is None:
        return done
    groups = {}
    for i, c in enumerate(sweep.cells):
        groups.setdefault(tuple(sorted(config.match_key(sweep, c).items())), []).append(i)
    reps = pd.to_numeric(df["rep"], errors="coerce") if "rep" in df.columns else None
    for key, idx in groups.items():
        m = config.match_mask(df, dict(key))
        if reps is None:
            continue
        got = reps[m]
        if all((got == r).sum() >= len(idx) for r in range(sweep.reps)):
            done.update(idx)
    return done


def append_rows(dest, part):
    """Appends the rows of CSV `part` to `dest` in one write() under an exclusive flock, with the
    header only into an empty file. Refuses (ValueError) a part whose header differs."""
    with open(part, "rb") as f:
        data = f.read()
    if not data:
        return 0
    header, _, rows = data.partition(b"\n")
    fd = os.open(dest, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size:
            with open(dest, "rb") as f:
                have = f.readline().rstrip(b"\n")
            if have != header:
                raise ValueError(f"{dest}: its header differs from {part}'s (another chtbench schema); "
                                 "write to another --out (scripts/figure: --rerun)")
            blob = rows
        else:
            blob = data
        if blob:
            os.write(fd, blob)
        return rows.count(b"\n")
    finally:
        os.close(fd)


# --- time estimates --------------------------------------------------------------------------

def requested_s(sweep, cell):
    """Seconds of timed phases (and explicit --warmup) this cell asks for."""
    d = cell.get("duration")
    if d is None:
        d = _base_flag(sweep.base, "--duration", "-d")
    if d is None and _base_flag(sweep.base, "--ops", None) is not None:
        d = 1000   # unknown: --ops; count a second per rep
    w = cell.get("warmup", _base_flag(sweep.base, "--warmup", None))   # an explicit warm-up runs every rep
    return sweep.reps * (int(d if d is not None else 1000) + int(w or 0)) / 1000.0


def _base_flag(base, long, short):
    for i, a in enumerate(base):
        if (a == long or (short and a == short)) and i + 1 < len(base):
            return base[i + 1]
        if a.startswith(long + "="):
            return a.split("=", 1)[1]
    return None


# prefill + teardown cost per key relative to the others (measured: urcu's rculfhash, growing
# by resizes under RCU, took ~10x clht-lb's time per rep at i = 1M)
PREFILL_FACTOR = {"urcu": 10.0, "tbb": 1.3}


def overhead_guess(sweep, cell):
    """Start-up plus, per rep, table creation, prefill and teardown (about 500 ns a key, measured on
    a loaded 2-core VM; PREFILL_FACTOR for slow tables): used until measured overheads are known."""
    if sweep.bench:
        return 0.05 + 0.01 * sweep.reps
    init = cell.get("initial", _base_flag(sweep.base, "--initial", "-i") or "1M")
    try:
        keys = config.parse_size(init)
    except ValueError:
        keys = 1 << 20
    table = str(cell.get("table", _base_flag(sweep.base, "--table", "-t") or "")).split(":")[0]
    per_rep = 0.02 + keys * 500e-9 * PREFILL_FACTOR.get(table, 1.0)
    return 0.1 + sweep.reps * per_rep


def estimate_s(sweep):
    return sum(requested_s(sweep, c) + overhead_guess(sweep, c) for c in sweep.cells)


def fmt_s(s):
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def describe(cell):
    return " ".join(f"{k}={v}" for k, v in cell.items() if k != "duration")


# --- running ---------------------------------------------------------------------------------

def emit(stream, text):
    """stream.write + flush; when the reader went away (`scripts/sweep ... | head`) the rest goes to
    /dev/null: a sweep is not stopped, or ended with a traceback, by a closed log pipe."""
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        except (OSError, ValueError, AttributeError):
            pass


class Progress:
    """A bar (cells done/total, elapsed, ETA) and a line per finished cell on a terminal; only the
    lines otherwise."""

    def __init__(self, sweep, todo, stream=sys.stdout):
        self.sweep, self.todo, self.stream = sweep, list(todo), stream
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.done = 0
        self.overheads = []
        self.cell_start = None
        self.total = len(sweep.cells)
        self.skipped = self.total - len(self.todo)

    def eta(self):
        left = self.todo[self.done:]
        if self.overheads:
            ov = sum(self.overheads) / len(self.overheads)
            t = sum(requested_s(self.sweep, c) + ov for c in left)
        else:
            t = sum(requested_s(self.sweep, c) + overhead_guess(self.sweep, c) for c in left)
        if left and self.cell_start is not None:   # the running cell's time so far
            t -= min(time.monotonic() - self.cell_start, requested_s(self.sweep, left[0]))
        return max(0.0, t)

    def cell_started(self):
        self.cell_start = time.monotonic()

    def bar(self):
        if not self.tty:
            return
        n = self.skipped + self.done
        width = 30
        fill = int(width * n / self.total)
        line = (f"[{'#' * fill}{'-' * (width - fill)}] {n}/{self.total} cells  "
                f"elapsed {fmt_s(time.monotonic() - self.start)}  ETA {fmt_s(self.eta())}")
        self.stream.write("\r\033[K" + line)
        self.stream.flush()

    def cell_done(self, cell, took, line):
        self.done += 1
        self.overheads.append(max(0.0, took - requested_s(self.sweep, cell)))
        if self.tty:
            self.stream.write("\r\033[K" + line + "\n")
            self.bar()
        else:   # a log (CI, nohup): one line per cell, no bar
            emit(self.stream, line + "\n")

    def close(self):
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _cell_summary(sweep, part, cell, idx, total, took, rc):
    df = read_csv(part)
    metric = "acq_per_s" if sweep.bench else "mops"
    text = "no rows"
    if df is not None and metric in df.columns:
        v = pd.to_numeric(df[metric], errors="coerce").dropna()
        if sweep.bench:
            v = v / 1e6
        unit = "Macq/s" if sweep.bench else "Mops/s"
        if len(v):
            text = f"median {v.median():.3g} {unit} (min {v.min():.3g}, max {v.max():.3g})"
    status = "" if rc == 0 else f"  FAILED (exit {rc})"
    return f"cell {idx + 1}/{total} {describe(cell)}: {text}  {took:.1f} s{status}"


class Interrupted(Exception):
    pass


def run_cell(sweep, cell, chtbench, part, tick=None, side_parts=None):
    """Runs one cell into `part`; returns (rc, stderr). tick() is called every half second while it
    runs. side_parts {flag: path}: side files of the cell (--timeline-csv PATH), staged like `part`.
    SIGINT/SIGTERM to us: the cell is stopped (SIGTERM to its own session, it does not see the
    terminal's Ctrl-C), `part` (and side parts) removed, Interrupted raised."""
    side_parts = side_parts or {}
    for p in [part] + list(side_parts.values()):
        if os.path.exists(p):
            os.unlink(p)
    cmd = [chtbench] + sweep.args(cell) + ["--csv", part]
    for flag, p in side_parts.items():
        cmd += [flag, p]
    errf = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf, text=True, start_new_session=True)
    try:
        while True:
            try:
                proc.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                if tick:
                    tick()
        errf.seek(0)
        err = errf.read()
        errf.close()
    except KeyboardInterrupt:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for p in [part] + list(side_parts.values()):
            if os.path.exists(p):
                os.unlink(p)
        raise Interrupted()
    return proc.returncode, err


def _on_term(signum, frame):
    raise KeyboardInterrupt()


# --- checking every cell before the first runs ---------------------------------------------------

_HELP = {}


def _help(chtbench):
    if chtbench not in _HELP:
        try:
            _HELP[chtbench] = subprocess.run([chtbench, "--help"], capture_output=True, text=True,
                                             timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired):
            _HELP[chtbench] = ""
    return _HELP[chtbench]


def known_flags(chtbench):
    """chtbench's long flags (without dashes), from --help; empty when it cannot be read."""
    import re
    return set(re.findall(r"--([a-z][a-z0-9-]*)", _help(chtbench)))


def validate(sweep, chtbench, stream=sys.stderr, side_flags=()):
    """None, or one line naming the first cell (in cell order) that `chtbench --validate` refuses
    and chtbench's error line. Each distinct command line is checked once, several at a time, with
    --csv (and side_flags, e.g. --timeline-csv) naming files in a scratch directory: --validate
    checks that they could be opened but creates nothing."""
    import concurrent.futures
    import shutil
    if "--validate" not in _help(chtbench):
        stream.write(f"sweep: {chtbench} has no --validate (built before it): cells are not checked "
                     "before they run\n")
        return None
    first = {}
    for i, c in enumerate(sweep.cells):
        first.setdefault(tuple(sweep.args(c)), i)

    scratch = tempfile.mkdtemp(prefix="chtb-validate-")
    files = ["--csv", os.path.join(scratch, "cell.csv")]
    for k, f in enumerate(side_flags):
        files += [f, os.path.join(scratch, f"side-{k}.csv")]

    def check(args):
        try:
            r = subprocess.run([chtbench, "--validate"] + list(args) + files, capture_output=True, text=True,
                               timeout=120)
        except subprocess.TimeoutExpired:
            return "chtbench --validate took more than 120 s"
        if r.returncode == 0:
            return None
        lines = [x for x in r.stderr.strip().splitlines() if x.strip()]
        return lines[0] if lines else f"chtbench --validate exited {r.returncode}"

    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(16, 4 * config.ncpus())) as ex:
            errs = dict(zip(first, ex.map(check, list(first))))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    bad = sorted(first[a] for a, e in errs.items() if e)
    if not bad:
        return None
    i = bad[0]
    more = f" ({len(bad) - 1} more cells refused)" if len(bad) > 1 else ""
    return f"cell {i + 1} ({describe(sweep.cells[i])}): {errs[tuple(sweep.args(sweep.cells[i]))]}{more}"


def check_sweep(sweep, chtbench, stream=sys.stderr, side_flags=()):
    """None or the one-line usage error (without the 'sweep: ' prefix) of a sweep: axis/set keys
    that are not chtbench flags, then chtbench --validate of every cell. Writes nothing."""
    try:
        config.check_flags(sweep, known_flags(chtbench), sweep.source or sweep.name)
    except config.ConfigError as e:
        return str(e)
    return validate(sweep, chtbench, stream, side_flags)


# --- provenance: which rows may be reused ---------------------------------------------------------

def plan(sweep, df, cur, runs, reuse_any=False, check_host=True):
    """(done, stale, foreign): indexes of the cells complete in df that need not run; a boolean
    mask of the rows of this sweep's cells to move aside (written by another build or host, and
    not reused); {label: cell count} of the other builds whose rows --reuse-any reuses."""
    done, foreign = set(), {}
    if df is None:
        return done, None, foreign
    here = provenance.is_current(df, cur, runs, check_host)
    done = complete_cells(df[here], sweep)
    ours = pd.Series(False, index=df.index)
    todo_mask = pd.Series(False, index=df.index)
    for i, c in enumerate(sweep.cells):
        m = config.match_mask(df, config.match_key(sweep, c))
        ours |= m
        if i not in done:
            todo_mask |= m
    if reuse_any:
        more = complete_cells(df, sweep) - done
        lab, host = provenance.build_label(df, runs)
        for i in sorted(more):
            m = config.match_mask(df, config.match_key(sweep, sweep.cells[i])) & ~here
            for k in dict.fromkeys(lab[m] + " on " + host[m]):
                foreign[k] = foreign.get(k, 0) + 1
        done |= more
        todo_mask = pd.Series(False, index=df.index)
        for i, c in enumerate(sweep.cells):
            if i not in done:
                todo_mask |= config.match_mask(df, config.match_key(sweep, c))
        return done, todo_mask & ~here, foreign
    return done, ours & ~here, foreign


def move_aside(path, stale, dest):
    """Moves the rows of CSV `path` selected by `stale` (a mask over its rows in file order) to the
    end of CSV `dest` (same header; created with it), under an exclusive flock of `path`; `path` is
    rewritten through a temporary file and rename, so it is never seen half-written. Returns the
    run_ids moved."""
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        header, rows = lines[0], lines[1:]
        if len(rows) != len(stale):
            raise ValueError(f"{path}: changed while being read; run again")
        flags = list(stale)
        moved = [r for r, f in zip(rows, flags) if f]
        kept = [r for r, f in zip(rows, flags) if not f]
        if not moved:
            return set()
        part = dest + ".part"
        with open(part, "wb") as f:
            f.write(b"\n".join([header] + moved) + b"\n")
        append_rows(dest, part)
        os.unlink(part)
        tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
        with open(tmp, "wb") as f:
            f.write(b"\n".join([header] + kept) + b"\n")
        os.replace(tmp, path)
        cols = header.decode().split(",")
        if "run_id" not in cols:
            return set()
        k = cols.index("run_id")
        return {r.decode().split(",")[k] for r in moved}
    finally:
        os.close(fd)


def superseded_name(csv_path):
    d, b = os.path.split(csv_path)
    return os.path.join(d, "superseded-" + b)


def apply_provenance(sweep, out_dir, csv_path, chtbench, reuse_any=False, side=None, stream=sys.stderr,
                     check_host=True):
    """Decides which cells are reused (docs/figures.md "Provenance"), moves other builds' rows of
    the cells that run again to superseded-NAME.csv (and their side rows likewise), warns once.
    Returns (done, cur)."""
    cur = provenance.current(chtbench)
    runs = provenance.read_runs(out_dir)
    df = read_csv(csv_path)
    done, stale, foreign = plan(sweep, df, cur, runs, reuse_any, check_host)
    if foreign:
        stream.write("sweep: --reuse-any: reusing cells written by another build or host: "
                     + "; ".join(f"{n} cell(s) of {k}" for k, n in foreign.items())
                     + f" (this build: {provenance.current_label(cur)} on {cur['host']})\n")
    if stale is not None and stale.any():
        lab, host = provenance.build_label(df[stale], runs)
        which = "; ".join(dict.fromkeys(lab + " on " + host))
        moved = move_aside(csv_path, stale, superseded_name(csv_path))
        for p in (side or {}).values():
            sd = read_csv(p)
            if sd is not None and "run_id" in sd.columns:
                move_aside(p, sd["run_id"].isin(moved), superseded_name(p))
        stream.write(f"sweep: {int(stale.sum())} rows of another build or host ({which}) moved to "
                     f"{superseded_name(csv_path)}; their cells run again with this build "
                     f"({provenance.current_label(cur)} on {cur['host']}); --reuse-any would reuse them\n")
    return done, cur


def _machine_version(out_dir):
    """chtbench_version of out_dir/machine.json, or None."""
    try:
        import json
        with open(os.path.join(out_dir, "machine.json")) as f:
            return json.load(f).get("chtbench_version")
    except (OSError, ValueError, AttributeError):
        return None


def run(sweep, out_dir, chtbench, resume=False, stream=sys.stdout, csv_name=CSV_NAME, side=None,
        reuse_any=False, checked=False, check_host=True):
    """Runs the sweep into out_dir/csv_name; returns an exit code (0 ok, 1 a cell failed, 2 usage,
    130 interrupted). side {flag: csv path}: side files every cell also writes (e.g.
    {"--timeline-csv": path}); each cell's side rows are staged and appended with its main rows.
    Every cell is checked (check_sweep) before anything is written, unless `checked`."""
    side = side or {}
    csv_path = os.path.join(out_dir, csv_name)
    df = read_csv(csv_path)
    if df is not None and not resume:
        print(f"sweep: {csv_path} already has rows; use --resume to complete it or another --out",
              file=sys.stderr)
        return 2
    if not checked:
        err = check_sweep(sweep, chtbench, side_flags=list(side))
        if err:
            print(f"sweep: {err}", file=sys.stderr)
            return 2
    os.makedirs(out_dir, exist_ok=True)
    try:
        done, cur = apply_provenance(sweep, out_dir, csv_path, chtbench, reuse_any, side,
                                     check_host=check_host)
    except ValueError as e:
        print(f"sweep: {e}", file=sys.stderr)
        return 2
    todo = [c for i, c in enumerate(sweep.cells) if i not in done]
    if todo and _machine_version(out_dir) != cur.get("version_text"):
        machine.write(out_dir, chtbench)   # none yet, or another build's: it describes what runs now
    staging = os.path.join(out_dir, ".cells")
    os.makedirs(staging, exist_ok=True)
    prog = Progress(sweep, todo, stream)
    if done:
        emit(stream, f"resume: {len(done)} of {len(sweep.cells)} cells already complete in {csv_path}\n")
    old = signal.signal(signal.SIGTERM, _on_term)
    failed = []
    idx_of = {id(c): i for i, c in enumerate(sweep.cells)}
    try:
        prog.bar()
        for cell in todo:
            i = idx_of[id(cell)]
            part = os.path.join(staging, f"cell-{i:05d}.csv")
            t0 = time.monotonic()
            prog.cell_started()
            side_parts = {f: os.path.join(staging, f"cell-{i:05d}-{f.strip('-')}.csv") for f in side}
            rc, err = run_cell(sweep, cell, chtbench, part, tick=prog.bar, side_parts=side_parts)
            took = time.monotonic() - t0
            if rc == 2:
                prog.close()
                sys.stderr.write(f"sweep: cell {i + 1} ({describe(cell)}) is a usage error:\n{err}")
                sys.stderr.write(f"  command: {sweep.command(chtbench, cell)}\n")
                return 2
            if rc not in (0, 1) or not os.path.exists(part):
                failed.append((i, cell, rc, err))
            else:
                if rc == 1:
                    failed.append((i, cell, rc, err))
                try:
                    pdf = read_csv(part)
                    if pdf is not None and "run_id" in pdf.columns:
                        provenance.record_runs(out_dir, set(pdf["run_id"]), cur)
                    append_rows(csv_path, part)
                    for f, p in side_parts.items():
                        if os.path.exists(p):
                            append_rows(side[f], p)
                except ValueError as e:
                    prog.close()
                    print(f"sweep: {e}", file=sys.stderr)
                    return 2
            line = _cell_summary(sweep, part, cell, i, len(sweep.cells), took, rc)
            for p in [part] + list(side_parts.values()):
                if os.path.exists(p):
                    os.unlink(p)
            prog.cell_done(cell, took, line)
    except (Interrupted, KeyboardInterrupt):
        prog.close()
        for f in os.listdir(staging):   # scratch only: a cell's rows are in the CSV or nowhere
            if f.endswith(".csv"):
                os.unlink(os.path.join(staging, f))
        print(f"sweep: interrupted; {prog.skipped + prog.done}/{len(sweep.cells)} cells complete in "
              f"{csv_path}; rerun with --resume to finish", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, old)
    prog.close()
    for i, cell, rc, err in failed:
        tail = (err or "").strip().splitlines()[-3:]
        print(f"sweep: cell {i + 1} ({describe(cell)}) failed (exit {rc}): {' | '.join(tail)}",
              file=sys.stderr)
    LAST_RUN["ran"] = len(todo)
    summary_path = write_summary(sweep, out_dir, csv_path)
    emit(stream, f"sweep: {len(sweep.cells)} cells ({len(todo)} run, {len(done)} already complete) "
         f"in {fmt_s(time.monotonic() - prog.start)}; rows in {csv_path}"
         + (f", per-cell medians and speedup in {summary_path}" if summary_path else "") + "\n")
    return 1 if failed else 0


def summary_name(csv_path):
    d, b = os.path.split(csv_path)
    return os.path.join(d, "summary" + b[len("results"):] if b.startswith("results") else "summary-" + b)


def write_summary(sweep, out_dir, csv_path):
    """Writes the per-cell aggregate (chtb.speedup) beside the CSV; returns its path or None."""
    df = read_csv(csv_path)
    if df is None:
        return None
    agg = speedup.summarize(sweep, df, provenance.read_runs(out_dir))
    path = summary_name(csv_path)
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    agg.to_csv(tmp, index=False)
    os.replace(tmp, path)
    return path


def dry_run(sweep, chtbench, out_dir, stream=sys.stdout, resume=False, reuse_any=False):
    """Prints the cells and the estimate; 2 (after one line on stderr) when a cell is refused."""
    err = check_sweep(sweep, chtbench)
    if err:
        print(f"sweep: {err}", file=sys.stderr)
        return 2
    df = read_csv(os.path.join(out_dir, CSV_NAME)) if resume else None
    done, stale, _ = plan(sweep, df, provenance.current(chtbench), provenance.read_runs(out_dir), reuse_any) \
        if df is not None else (set(), None, {})
    total = 0.0
    for i, c in enumerate(sweep.cells):
        est = requested_s(sweep, c) + overhead_guess(sweep, c)
        mark = "done" if i in done else f"~{est:.1f} s"
        if i not in done:
            total += est
        emit(stream, f"{i + 1:4d}  {mark:>9}  {sweep.command(chtbench, c)} --csv ...\n")
    if stale is not None and stale.any():
        emit(stream, f"{int(stale.sum())} rows of another build or host would be moved to "
                     f"{superseded_name(os.path.join(out_dir, CSV_NAME))}\n")
    emit(stream, f"{len(sweep.cells)} cells ({len(sweep.cells) - len(done)} to run), "
                 f"{sweep.reps} reps each; estimated wall time {fmt_s(total)}\n")
    return 0
