"""scripts/perfcheck: a performance-regression gate for noisy shared machines (docs/perfcheck.md).

Builds a base and a head chtbench (git worktrees in a work directory, the same meson
options), runs a fixed suite (scripts/perfcheck.toml) interleaved base/head per
repetition, decides per cell with a median ratio, its bootstrap CI, a Mann-Whitney U
test and a minimum effect size, re-runs cells that look changed and fails only on a
confirmed regression. Single-thread cells also get instructions (and simulated D1/LL
misses) per operation from valgrind's cachegrind, which scheduling noise cannot touch.
Exit 0: no confirmed regression; 1: confirmed regression (or --fail-on); 2: usage
error, build failure, or a benchmark run that failed.
"""

import argparse
import csv
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from chtb import stats

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = REPO / "scripts" / "perfcheck.toml"
FAIL_ON = ("noisy", "instr")
INSTR_METRICS = ("instr_per_op", "d1_miss_per_op", "ll_miss_per_op")


class UsageError(Exception):
    pass


class BuildError(Exception):
    pass


class RunError(Exception):
    pass


def log(msg):
    print(f"perfcheck: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- configuration

def parse_size(s):
    m = re.fullmatch(r"(\d+)([KMGT]?)", str(s))
    if not m:
        raise UsageError(f"perfcheck.toml: initial size '{s}' is not N, NK, NM, NG or NT")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2)]


def load_suite(config_path, name):
    try:
        with open(config_path, "rb") as f:
            cfg = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise UsageError(f"--config: cannot read {config_path}: {e}")
    except UnicodeDecodeError:
        raise UsageError(f"--config: {config_path} is not a TOML file (not UTF-8 text)")
    suites = cfg.get("suite", {})
    if name not in suites:
        raise UsageError(f"--suite: unknown suite '{name}' (valid: {', '.join(sorted(suites))})")
    return cfg.get("defaults", {}), suites[name]


def make_cells(suite):
    """The suite's cells and the groups (one chtbench invocation per side) that run them."""
    cells, groups = [], []
    args = [str(a) for a in suite.get("args", [])]
    tables = suite.get("tables", [])
    threads = [int(t) for t in suite.get("threads", [1])]
    for ini in suite.get("initial", []) if tables else []:
        parse_size(ini)
        ops = suite.get("ops", {}).get(ini)
        if not ops:
            raise UsageError(f"perfcheck.toml: no ops for initial size '{ini}'")
        for dist in suite.get("dist", ["uniform"]):
            base = ["-i", ini, "-u", str(suite.get("update", 10)), "--dist", dist, "--ops", str(ops)] + args
            gcells = []
            for tb in tables:
                for t in threads:
                    c = {"id": f"{tb} t{t} i{ini} {dist}", "kind": "table", "name": tb, "threads": t,
                         "initial": ini, "dist": dist, "unit": "Mops/s",
                         "args": ["-t", tb, "-n", str(t)] + base,
                         "instr": t == 1 and ini in suite.get("instr_initial", [])}
                    cells.append(c)
                    gcells.append(c)
            groups.append({"args": ["-t", ",".join(tables), "-n", ",".join(map(str, threads))] + base,
                           "cells": gcells})
    locks = suite.get("locks", [])
    if locks:
        bench = suite.get("lock_bench", "mutex")
        lthreads = [int(t) for t in suite.get("lock_threads", [1, 2])]
        dur = str(suite.get("lock_duration_ms", 100))
        gcells = []
        for lk in locks:
            for t in lthreads:
                c = {"id": f"{bench} {lk} t{t}", "kind": "lock", "name": lk, "threads": t,
                     "unit": "Macq/s", "instr": False,
                     "args": ["--bench", bench, "--lock", lk, "-n", str(t), "-d", dur]}
                cells.append(c)
                gcells.append(c)
        groups.append({"args": ["--bench", bench, "--lock", ",".join(locks),
                                "-n", ",".join(map(str, lthreads)), "-d", dur], "cells": gcells})
    if not cells:
        raise UsageError("perfcheck.toml: the suite has no cells")
    return cells, groups


# ---------------------------------------------------------------- building

def sh(cmd, cwd=None, logf=None, env=None):
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if logf:
        with open(logf, "a") as f:
            f.write("$ " + " ".join(map(str, cmd)) + "\n" + r.stdout)
    return r


def opts_key(opts):
    return hashlib.sha1("\0".join(opts).encode()).hexdigest()[:8]


def resolve_rev(rev, flag):
    r = sh(["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"])
    if r.returncode != 0:
        raise UsageError(f"{flag}: '{rev}' is not a revision of {REPO}")
    return r.stdout.strip()


class Builder:
    def __init__(self, workdir, keep):
        self.workdir = Path(workdir)
        self.keep = keep
        self.worktrees = []

    def rev(self, rev, opts, flag):
        sha = resolve_rev(rev, flag)
        src = self.workdir / f"src-{sha[:12]}"
        if not (src / "meson.build").exists():
            log(f"{flag} {rev}: git worktree {src}")
            r = sh(["git", "-C", str(REPO), "worktree", "add", "--detach", "--force", str(src), sha])
            if r.returncode != 0:
                raise BuildError(f"{flag}: git worktree add failed: {r.stdout.strip()}")
            if not self.keep:
                self.worktrees.append(src)
        bdir = self.workdir / f"build-{sha[:12]}-{opts_key(opts)}"
        return self._build(src, bdir, opts, flag, f"{rev} ({sha[:12]})")

    def dir(self, d, opts, flag):
        src = Path(d).resolve()
        if not (src / "meson.build").exists():
            raise UsageError(f"{flag}: {d} is not a chtbench source tree (no meson.build)")
        key = hashlib.sha1(str(src).encode()).hexdigest()[:8]
        bdir = self.workdir / f"build-dir-{key}-{opts_key(opts)}"
        return self._build(src, bdir, opts, flag, f"{src} (working tree)")

    def _build(self, src, bdir, opts, flag, label):
        logf = self.workdir / f"{bdir.name}.log"
        t0 = time.time()
        if not (bdir / "build.ninja").exists():
            r = sh(["meson", "setup", str(bdir), str(src)] + opts, logf=logf)
            if r.returncode != 0:
                raise BuildError(f"{flag}: meson setup failed for {label} (log {logf}):\n"
                                 + r.stdout[-2000:])
        r = sh(["ninja", "-C", str(bdir), "chtbench"], logf=logf)
        if r.returncode != 0:
            raise BuildError(f"{flag}: build failed for {label} (log {logf}):\n" + r.stdout[-3000:])
        log(f"{flag}: built {label} in {time.time() - t0:.0f} s -> {bdir}/chtbench")
        return str(bdir / "chtbench"), label

    def cleanup(self):
        for w in self.worktrees:
            sh(["git", "-C", str(REPO), "worktree", "remove", "--force", str(w)])
        if self.worktrees:
            sh(["git", "-C", str(REPO), "worktree", "prune"])


def parse_env(items, flag):
    env = {}
    for it in items or []:
        if "=" not in it or not it.split("=", 1)[0]:
            raise UsageError(f"{flag}: '{it}' is not NAME=VALUE")
        k, v = it.split("=", 1)
        env[k] = v
    return env


def binary_info(binary, env):
    r = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=env)
    if r.returncode != 0:
        raise BuildError(f"{binary} --version failed: {r.stdout.strip()}")
    info = {}
    for line in r.stdout.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            info[k.strip()] = v.strip()
    return info


# ---------------------------------------------------------------- running

def run_json(side, args):
    cmd = [side["bin"]] + args + ["--json"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=side["env"])
    if r.returncode != 0:
        raise RunError(f"{side['name']}: `{' '.join(cmd)}` exited {r.returncode}: "
                       + (r.stderr.strip().splitlines() or [""])[-1])
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]


def run_group(side, group, samples):
    """One invocation; appends each row's metric to samples[cell_id][side]."""
    rows = run_json(side, group["args"])
    by = {}
    for row in rows:
        if "bench" in row:
            by[(row["lock"], row["threads"])] = row["acq_per_s"] / 1e6
        else:
            if row.get("outcome") not in (None, "ok"):
                raise RunError(f"{side['name']}: {row['table']} t{row['threads']}: outcome {row['outcome']}")
            by[(row["table"], row["threads"])] = row["mops"]
    for c in group["cells"]:
        v = by.get((c["name"], c["threads"]))
        if v is None:
            raise RunError(f"{side['name']}: no row for cell '{c['id']}' in `{' '.join(group['args'])}`")
        samples.setdefault(c["id"], {}).setdefault(side["name"], []).append(float(v))


def run_interleaved(sides, groups, reps, samples, what):
    """reps repetitions; per repetition and group every side runs once, the order of the
    sides alternating between repetitions (A B, B A, A B, ...)."""
    for rep in range(reps):
        t0 = time.time()
        order = sides if rep % 2 == 0 else sides[::-1]
        for g in groups:
            for s in order:
                run_group(s, g, samples)
        log(f"{what}: repetition {rep + 1}/{reps} ({time.time() - t0:.1f} s)")


CG_RE = {"instr": re.compile(r"I\s+refs:\s+([\d,]+)"),
         "d1": re.compile(r"D1\s+misses:\s+([\d,]+)"),
         "ll": re.compile(r"LL misses:\s+([\d,]+)")}


def cachegrind(side, args):
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=/dev/null",
           side["bin"]] + args
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=side["env"])
    if r.returncode != 0:
        raise RunError(f"{side['name']}: `{' '.join(cmd)}` exited {r.returncode}: "
                       + (r.stderr.strip().splitlines() or [""])[-1])
    out = {}
    for k, rx in CG_RE.items():
        m = rx.search(r.stderr)
        if not m:
            raise RunError(f"{side['name']}: cachegrind printed no '{k}' total for `{' '.join(cmd)}`")
        out[k] = int(m.group(1).replace(",", ""))
    return out


def instr_per_op(side, cell, n):
    """Instructions, D1 and LL misses per operation: runs of n and 2n ops per thread
    (1 thread), difference / n, so creation, prefill and exit costs cancel."""
    def args(k):
        a = list(cell["args"])
        a[a.index("--ops") + 1] = str(k)
        return a
    one, two = cachegrind(side, args(n)), cachegrind(side, args(2 * n))
    return {"instr_per_op": (two["instr"] - one["instr"]) / n,
            "d1_miss_per_op": (two["d1"] - one["d1"]) / n,
            "ll_miss_per_op": (two["ll"] - one["ll"]) / n}


# ---------------------------------------------------------------- host identity

def host_identity():
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"host": socket.gethostname(), "cpu_model": cpu, "cpus": os.cpu_count()}


# ---------------------------------------------------------------- decisions and reports

def decide(cells, samples, base_name, threshold, alpha, resamples):
    res = {}
    for c in cells:
        s = samples[c["id"]]
        res[c["id"]] = stats.compare(s[base_name], s["head"], threshold, alpha, resamples)
    return res


def final_verdict(first, second, fresh_base=True):
    """REGRESSION / improved only when an independent re-run (fresh samples of both sides) agrees;
    a re-run against reused (stored) base samples is not independent: 'unconfirmed'."""
    if second is None:
        return first["verdict"]
    if not fresh_base:
        return "unconfirmed"
    if first["verdict"] == stats.REGRESSED and second["verdict"] == stats.REGRESSED:
        return "REGRESSION"
    if first["verdict"] == stats.IMPROVED and second["verdict"] == stats.IMPROVED:
        return "improved"
    return "unconfirmed"


def fmt_p(p):
    return "1" if p >= 0.9995 else (f"{p:.3f}" if p >= 0.001 else f"{p:.1e}")


def markdown(rep):
    a = rep["args"]
    lines = [f"## chtbench perfcheck: {rep['mode_label']}", "",
             f"- host `{rep['host']['host']}`, CPU {rep['host']['cpu_model']}, {rep['host']['cpus']} CPUs; "
             f"suite `{a['suite']}`, {a['reps']} interleaved repetitions per side and cell, "
             f"threshold {a['threshold']:g}%, alpha {a['alpha']:g}, instr/op threshold "
             f"{a['instr_threshold']:g}%; {rep['elapsed_s']:.0f} s",
             f"- base: {rep['base']['label']} (`{rep['base'].get('git', '?')}`); "
             f"head: {rep['head']['label']} (`{rep['head'].get('git', '?')}`)", "",
             f"**{rep['summary']}** (exit {rep['exit_code']})", "",
             "| cell | base median | head median | ratio | 95% CI | p | instr/op Δ | verdict |",
             "|---|---:|---:|---:|---|---:|---:|---|"]
    for c in rep["cells"]:
        d = c["final"]
        ins = c.get("instr")
        if ins:
            dd = ins["delta_pct"]["instr_per_op"]
            istr = f"{dd:+.2f}%" + (" (!)" if abs(dd) > a["instr_threshold"] else "")
        else:
            istr = "—"
        v = c["verdict"]
        if c.get("rerun"):
            v += f" (re-run: ratio {c['rerun']['ratio']:.3f}, p {fmt_p(c['rerun']['p'])})"
        lines.append(f"| {c['id']} | {d['base_median']:.3f} {c['unit']} | {d['head_median']:.3f} | "
                     f"{d['ratio']:.3f} | [{d['ci_lo']:.3f}, {d['ci_hi']:.3f}] | {fmt_p(d['p'])} | {istr} | {v} |")
    ic = [c for c in rep["cells"] if c.get("instr")]
    if ic:
        lines += ["", "Per operation under cachegrind (1 thread, difference of a 2N- and an N-op run; exact, "
                  "blind to contention and memory-level parallelism):", "",
                  "| cell | instr/op base → head | D1 miss/op base → head | LL miss/op base → head |",
                  "|---|---|---|---|"]
        for c in ic:
            b, h = c["instr"]["base"], c["instr"]["head"]
            cols = [f"{b['instr_per_op']:.2f} → {h['instr_per_op']:.2f} "
                    f"({c['instr']['delta_pct']['instr_per_op']:+.2f}%)"]
            cols += [f"{b[m]:.4f} → {h[m]:.4f} ({h[m] - b[m]:+.4f})" for m in INSTR_METRICS[1:]]
            lines.append(f"| {c['id']} | " + " | ".join(cols) + " |")
    if rep.get("notes"):
        lines += [""] + [f"- {n}" for n in rep["notes"]]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- stored baselines

BASELINE_COLS = ["host", "cpu_model", "git_rev", "suite", "cell", "metric", "rep", "value"]


def read_baseline(path, ident):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise UsageError(f"--against: cannot read {path}: {e.strerror}")
    except (UnicodeDecodeError, csv.Error):
        raise UsageError(f"--against: {path} is not a perfcheck baseline (not a CSV text file)")
    if not rows or list(rows[0].keys()) != BASELINE_COLS:
        raise UsageError(f"--against: {path} is not a perfcheck baseline (expected columns "
                         f"{','.join(BASELINE_COLS)})")
    hosts = {(r["host"], r["cpu_model"]) for r in rows}
    if len(hosts) != 1:
        raise UsageError(f"--against: {path} mixes hosts or CPU models: {sorted(hosts)}")
    host, cpu = hosts.pop()
    if host != ident["host"] or cpu != ident["cpu_model"]:
        raise UsageError(f"--against: {path} was recorded on host '{host}' (CPU {cpu}); this is host "
                         f"'{ident['host']}' (CPU {ident['cpu_model']}): a stored baseline is only "
                         "comparable on the machine that recorded it (record one here with --record)")
    samples, instr = {}, {}
    for r in rows:
        if r["metric"] == "throughput":
            samples.setdefault(r["cell"], {}).setdefault("base", []).append(float(r["value"]))
        else:
            instr.setdefault(r["cell"], {})[r["metric"]] = float(r["value"])
    return samples, instr, rows[0]["git_rev"], rows[0]["suite"]


def write_baseline(path, ident, git_rev, suite, samples, instr):
    tmp = str(path) + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(BASELINE_COLS)
        for cell, s in samples.items():
            for i, v in enumerate(s["head"]):
                w.writerow([ident["host"], ident["cpu_model"], git_rev, suite, cell, "throughput", i, repr(v)])
        for cell, m in instr.items():
            for k in INSTR_METRICS:
                w.writerow([ident["host"], ident["cpu_model"], git_rev, suite, cell, k, 0, repr(m[k])])
    os.replace(tmp, path)


# ---------------------------------------------------------------- command line

class Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"perfcheck: {message} (see scripts/perfcheck --help)", file=sys.stderr)
        sys.exit(2)


def parse_args(argv):
    p = Parser(prog="scripts/perfcheck", description=__doc__.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter,
               epilog="docs/perfcheck.md explains the statistics, the modes and what the gate cannot see.")
    g = p.add_argument_group("what to compare")
    g.add_argument("--base", metavar="REV", help="git revision of the baseline (built in a git worktree)")
    g.add_argument("--head", metavar="REV", help="git revision of the candidate (default: --head-dir of this "
                   "repository's working tree)")
    g.add_argument("--head-dir", metavar="DIR", help="a source tree to build as the candidate (uncommitted "
                   "changes included)")
    g.add_argument("--base-bin", metavar="PATH", help="an already-built chtbench as the baseline (no build)")
    g.add_argument("--head-bin", metavar="PATH", help="an already-built chtbench as the candidate (no build)")
    g.add_argument("--record", metavar="CSV", help="stored-baseline mode: run the suite on the head alone and "
                   "write its samples to CSV (e.g. results/baselines/HOST.csv)")
    g.add_argument("--against", metavar="CSV", help="stored-baseline mode: compare the head with a baseline "
                   "written by --record on this host")
    g = p.add_argument_group("suite and decision")
    g.add_argument("--config", metavar="TOML", default=str(DEFAULT_CONFIG), help="suite file (default "
                   "scripts/perfcheck.toml)")
    g.add_argument("--suite", metavar="NAME", default="default", help="suite of the config (default: default)")
    g.add_argument("--reps", metavar="N", type=int, help="repetitions per side and cell (default 9)")
    g.add_argument("--threshold", metavar="PCT", type=float, help="minimum effect size in percent (default 5)")
    g.add_argument("--alpha", metavar="A", type=float, help="Mann-Whitney U significance level (default 0.05)")
    g.add_argument("--instr-threshold", metavar="PCT", type=float, help="instructions/op change reported, "
                   "percent (default 2)")
    g.add_argument("--no-instr", action="store_true", help="skip the valgrind instructions/op metric")
    g.add_argument("--no-confirm", action="store_true", help="no confirming re-run (a one-pass verdict; "
                   "for measuring the gate itself)")
    g.add_argument("--fail-on", metavar="WHAT", default="instr", help="also exit 1 on: noisy (undecidable or "
                   "unconfirmed cells), instr (instructions/op up by more than --instr-threshold: the default, "
                   "the noise-free signal), none; comma separated")
    g = p.add_argument_group("building")
    g.add_argument("--meson-opt", metavar="OPT", action="append", default=[], help="meson setup option for "
                   "both builds (repeatable, e.g. --meson-opt=-Dnative=true)")
    g.add_argument("--head-meson-opt", metavar="OPT", action="append", default=[], help="TEST ONLY: an "
                   "extra meson option for the head build alone (e.g. --head-meson-opt=-Dinject_get_delay=3)")
    g.add_argument("--base-env", metavar="NAME=VALUE", action="append", help="TEST ONLY: environment for the "
                   "base's runs")
    g.add_argument("--head-env", metavar="NAME=VALUE", action="append", help="TEST ONLY: environment for the "
                   "head's runs")
    g.add_argument("--workdir", metavar="DIR", help="keep worktrees and builds in DIR and reuse them on the "
                   "next call (default: a temporary directory, removed at the end)")
    g = p.add_argument_group("output")
    g.add_argument("--markdown", metavar="FILE", help="write the Markdown report to FILE (it is always "
                   "printed on stdout)")
    g.add_argument("--json", metavar="FILE", help="write the JSON report to FILE")
    a = p.parse_args(argv)

    heads = [x for x in ("head", "head_dir", "head_bin") if getattr(a, x)]
    if len(heads) > 1:
        p.error("--head, --head-dir and --head-bin: give at most one")
    bases = [x for x in ("base", "base_bin", "against") if getattr(a, x)]
    if a.record:
        if bases:
            p.error("--record: runs the head alone; --base, --base-bin and --against do not apply")
    elif len(bases) != 1:
        p.error("--base REV (or --base-bin PATH, or --against CSV, or --record CSV) is required, exactly one")
    for f in ("reps",):
        v = getattr(a, f)
        if v is not None and not 3 <= v <= 1000:
            p.error(f"--{f}: {v} is not in 3..1000")
    for f in ("threshold", "instr_threshold"):
        v = getattr(a, f)
        if v is not None and not 0 < v < 100:
            p.error(f"--{f.replace('_', '-')}: {v:g} is not a percentage in (0, 100)")
    if a.alpha is not None and not 0 < a.alpha < 1:
        p.error(f"--alpha: {a.alpha:g} is not in (0, 1)")
    fo = [x for x in a.fail_on.split(",") if x and x != "none"]
    bad = [x for x in fo if x not in FAIL_ON]
    if bad:
        p.error(f"--fail-on: '{bad[0]}' is not one of {', '.join(FAIL_ON)}")
    a.fail_on = fo
    for f in ("base_bin", "head_bin"):
        v = getattr(a, f)
        if v and not (os.path.isfile(v) and os.access(v, os.X_OK)):
            p.error(f"--{f.replace('_', '-')}: {v} is not an executable file")
    for f in ("markdown", "json", "record"):
        v = getattr(a, f)
        if v and not os.path.isdir(os.path.dirname(os.path.abspath(v))):
            p.error(f"--{f}: the directory of {v} does not exist")
    return a


def main(argv=None):
    t_start = time.time()
    try:
        a = parse_args(sys.argv[1:] if argv is None else argv)
        defaults, suite = load_suite(a.config, a.suite)
        cells, groups = make_cells(suite)
        reps = a.reps or int(defaults.get("reps", 9))
        alpha = a.alpha or float(defaults.get("alpha", 0.05))
        need = stats.min_reps(alpha)
        if need is None or reps < need:
            src = "--reps" if a.reps else f"{a.config} [defaults] reps"
            raise UsageError(f"{src}: {reps} repetitions cannot reach --alpha {alpha:g} (the smallest two-sided "
                             f"Mann-Whitney p with {reps} samples per side is {stats.min_p(reps):.3g}); "
                             + (f"use --reps {need} or more" if need else "raise --alpha"))
        thr = (a.threshold or float(defaults.get("threshold", 5.0))) / 100.0
        ithr = a.instr_threshold or float(defaults.get("instr_threshold", 2.0))
        resamples = int(defaults.get("bootstrap", 2000))
        base_env = parse_env(a.base_env, "--base-env")
        head_env = parse_env(a.head_env, "--head-env")
        ident = host_identity()
        for flag, rev in (("--base", a.base), ("--head", a.head)):
            if rev:
                resolve_rev(rev, flag)
        stored = None
        if a.against:
            stored = read_baseline(a.against, ident)
    except UsageError as e:
        print(f"perfcheck: {e}", file=sys.stderr)
        return 2

    keep = bool(a.workdir)
    workdir = a.workdir or tempfile.mkdtemp(prefix="perfcheck-")
    os.makedirs(workdir, exist_ok=True)
    builder = Builder(workdir, keep)
    notes = []
    try:
        opts = list(a.meson_opt)
        # -- the two sides
        if a.head_bin:
            hbin, hlabel = a.head_bin, a.head_bin
        elif a.head:
            hbin, hlabel = builder.rev(a.head, opts + a.head_meson_opt, "--head")
        else:
            hbin, hlabel = builder.dir(a.head_dir or REPO, opts + a.head_meson_opt, "--head-dir")
        sides = []
        benv = dict(os.environ, **base_env)
        henv = dict(os.environ, **head_env)
        if a.base_bin:
            sides.append({"name": "base", "bin": a.base_bin, "label": a.base_bin, "env": benv})
        elif a.base:
            b, bl = builder.rev(a.base, opts, "--base")
            sides.append({"name": "base", "bin": b, "label": bl, "env": benv})
        sides.append({"name": "head", "bin": hbin, "label": hlabel, "env": henv})
        for s in sides:
            s["git"] = binary_info(s["bin"], s["env"]).get("git", "?")
        if base_env or head_env or a.head_meson_opt:
            notes.append(f"TEST-ONLY differences between the sides: head meson options {a.head_meson_opt}, "
                         f"base env {base_env}, head env {head_env}")

        use_instr = not a.no_instr and any(c["instr"] for c in cells)
        if use_instr and not shutil.which("valgrind"):
            use_instr = False
            notes.append("valgrind is not installed: no instructions/op metric (scripts/install-deps installs it)")
        n_instr = int(suite.get("instr_ops", 50000))

        samples = {}
        if stored:
            base_samples, base_instr, base_rev, base_suite = stored
            if base_suite != a.suite:
                raise UsageError(f"--against: {a.against} holds suite '{base_suite}', not '{a.suite}' (--suite)")
            missing = [c["id"] for c in cells if c["id"] not in base_samples]
            if missing:
                raise UsageError(f"--against: {a.against} has no samples for cell '{missing[0]}' (recorded with "
                                 "another perfcheck.toml?)")
            few = min(len(base_samples[c["id"]]["base"]) for c in cells)
            if few < stats.min_reps(alpha):
                raise UsageError(f"--against: {a.against} holds {few} samples per cell; a comparison at --alpha "
                                 f"{alpha:g} needs {stats.min_reps(alpha)} (record it with --reps "
                                 f"{stats.min_reps(alpha)} or more)")
            sides.insert(0, {"name": "base", "label": f"stored baseline {a.against}", "git": base_rev})
            for cid, s in base_samples.items():
                samples[cid] = {"base": list(s["base"])}
            run_sides = [sides[1]]
            notes.append("stored-baseline mode: the base samples were taken earlier, not interleaved with "
                         "the head; drifts of the machine between then and now show as changes. A changed cell "
                         "is re-run (the head only) but stays 'unconfirmed': there are no fresh base samples "
                         "for an independent confirmation")
        else:
            run_sides = sides
        log(f"suite '{a.suite}': {len(cells)} cells in {len(groups)} groups, {reps} repetitions, "
            f"sides {', '.join(s['name'] for s in run_sides)}")
        run_interleaved(run_sides, groups, reps, samples, "pass 1")

        # -- instructions per op (single-thread cells)
        instr = {}
        if use_instr:
            t0 = time.time()
            for c in cells:
                if c["instr"]:
                    instr[c["id"]] = {s["name"]: instr_per_op(s, c, n_instr) for s in run_sides}
                    if stored:
                        instr[c["id"]]["base"] = base_instr.get(c["id"])
            log(f"instructions/op of {len(instr)} cells under cachegrind: {time.time() - t0:.0f} s")

        if a.record:
            write_baseline(a.record, ident, sides[-1]["git"], a.suite, samples,
                           {k: v["head"] for k, v in instr.items()})
            elapsed = time.time() - t_start
            lines = [f"## chtbench perfcheck: recorded baseline {a.record}", "",
                     f"- host `{ident['host']}`, CPU {ident['cpu_model']}; suite `{a.suite}`, {reps} repetitions; "
                     f"head {sides[-1]['label']} (`{sides[-1]['git']}`); {elapsed:.0f} s", "",
                     "| cell | median | min | max |", "|---|---:|---:|---:|"]
            for c in cells:
                v = samples[c["id"]]["head"]
                lines.append(f"| {c['id']} | {stats.median(v):.3f} {c['unit']} | {min(v):.3f} | {max(v):.3f} |")
            md = "\n".join(lines) + "\n"
            print(md, end="")
            if a.markdown:
                Path(a.markdown).write_text(md)
            return 0

        # -- decide, confirm
        first = decide(cells, samples, "base", thr, alpha, resamples)
        flagged = [c for c in cells if first[c["id"]]["verdict"] in (stats.REGRESSED, stats.IMPROVED)]
        second = {}
        if flagged and not a.no_confirm:
            log(f"confirming re-run of {len(flagged)} cells: {', '.join(c['id'] for c in flagged)}")
            rs = {}
            if stored:
                for c in flagged:
                    rs[c["id"]] = {"base": samples[c["id"]]["base"]}
            run_interleaved(run_sides, [{"args": c["args"], "cells": [c]} for c in flagged], reps, rs,
                            "confirming re-run")
            for c in flagged:
                second[c["id"]] = stats.compare(rs[c["id"]]["base"], rs[c["id"]]["head"], thr, alpha,
                                                resamples)
                samples[c["id"]]["rerun_base"] = rs[c["id"]]["base"]
                samples[c["id"]]["rerun_head"] = rs[c["id"]]["head"]

        out_cells = []
        for c in cells:
            cid = c["id"]
            oc = {"id": cid, "kind": c["kind"], "name": c["name"], "threads": c["threads"], "unit": c["unit"],
                  "initial": c.get("initial"), "dist": c.get("dist"),
                  "first": first[cid], "rerun": second.get(cid),
                  "final": first[cid], "verdict": final_verdict(first[cid], second.get(cid), not stored),
                  "samples": samples[cid]}
            if cid in instr and instr[cid].get("base"):
                b, h = instr[cid]["base"], instr[cid]["head"]
                oc["instr"] = {"base": b, "head": h, "n_ops": n_instr,
                               "delta_pct": {m: stats.pct_change(b[m], h[m]) for m in INSTR_METRICS}}
            out_cells.append(oc)

        counts = {}
        for oc in out_cells:
            counts[oc["verdict"]] = counts.get(oc["verdict"], 0) + 1
        instr_up = [oc["id"] for oc in out_cells
                    if oc.get("instr") and oc["instr"]["delta_pct"]["instr_per_op"] > ithr]
        instr_changed = [oc["id"] for oc in out_cells
                         if oc.get("instr") and abs(oc["instr"]["delta_pct"]["instr_per_op"]) > ithr]
        code = 0
        reasons = []
        if counts.get("REGRESSION"):
            code = 1
            reasons.append(f"{counts['REGRESSION']} confirmed regression(s)")
        undecided = counts.get(stats.NOISY, 0) + counts.get("unconfirmed", 0)
        if "noisy" in a.fail_on and undecided:
            code = 1
            reasons.append(f"{undecided} noisy/unconfirmed cell(s) (--fail-on noisy)")
        if "instr" in a.fail_on and instr_up:
            code = 1
            reasons.append(f"instructions/op up by more than {ithr:g}% in {len(instr_up)} cell(s) "
                           "(--fail-on instr)")
        summary = ("FAIL: " + "; ".join(reasons)) if code else "PASS: no confirmed regression"
        summary += " — " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
        if instr_changed:
            summary += f"; instructions/op changed by more than {ithr:g}% in {len(instr_changed)} cell(s)"
        rep = {"tool": "chtbench perfcheck", "mode_label": (f"{sides[0]['label']} → {sides[-1]['label']}"),
               "host": ident, "args": {"suite": a.suite, "reps": reps, "threshold": thr * 100, "alpha": alpha,
                                       "instr_threshold": ithr, "fail_on": a.fail_on,
                                       "confirm": not a.no_confirm, "config": a.config},
               "base": {k: v for k, v in sides[0].items() if k in ("label", "git", "bin")},
               "head": {k: v for k, v in sides[-1].items() if k in ("label", "git", "bin")},
               "cells": out_cells, "counts": counts, "instr_changed": instr_changed, "summary": summary,
               "exit_code": code, "elapsed_s": time.time() - t_start, "notes": notes}
        md = markdown(rep)
        print(md, end="")
        if a.markdown:
            Path(a.markdown).write_text(md)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rep, f, indent=1)
                f.write("\n")
        log(summary)
        return code
    except UsageError as e:
        print(f"perfcheck: {e}", file=sys.stderr)
        return 2
    except (BuildError, RunError) as e:
        print(f"perfcheck: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("perfcheck: interrupted", file=sys.stderr)
        return 2
    finally:
        builder.cleanup()
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)
