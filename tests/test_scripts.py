#!/usr/bin/python3
"""Tests of scripts/ (the chtb package): /usr/bin/python3 tests/test_scripts.py CASE [CHTBENCH]

Cases: config (TOML, cartesian product, excludes, overrides, scales), resume (SIGINT mid-sweep, then
--resume: every cell exactly once), machine (machine.json fields), figure (a tiny real figure: PNG,
PDF with TrueType fonts, NAME.md verdict computed from the CSV; a fake rebuild reruns it), figures
(every scripts/figures/*.toml on synthetic rows), validate (every cell checked with chtbench --validate
before anything runs or is written; did you mean; bounded axes; binary configs), provenance (rows of
another build moved to superseded-*.csv, --reuse-any, plot's warning, --latest, typed --where), speedup
(summary.csv's T(n)/T(1) from the rows; a closed stdout), reference (results/reference's pages are
what --replot draws from their CSVs), slurm (a real single-node Slurm cluster on
localhost: munged, slurmctld, slurmd), pyflakes. Exit 77 = skipped (meson), with the reason.
"""
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SCRIPTS = os.path.join(REPO, "scripts")
sys.path.insert(0, SCRIPTS)

import pandas as pd  # noqa: E402

from chtb import binary, config, figure, style, sweep  # noqa: E402

PY = "/usr/bin/python3"
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
    print(("ok    " if cond else "FAIL  ") + what, flush=True)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


SWEEP_TOML = """
[sweep]
base = ["--initial", "4096", "--update", "10"]
reps = 2
duration = 20
[sweep.axes]
table = ["clht-lb", "cuckoo", "locked"]
threads = [1, 2]
update = [0, 10]
[[sweep.exclude]]
table = "locked"
update = 0
[[sweep.exclude]]
table = "cuckoo"
threads = 2
update = 10
[[sweep.override]]
when = { table = "locked" }
axes = { threads = [1] }
set = { initial = "2^10" }
[sweep.scale.quick]
reps = 1
axes = { update = [10] }
"""


def case_config(chtbench, tmp):
    p = os.path.join(tmp, "s.toml")
    write(p, SWEEP_TOML)
    sw, _ = config.load(p, ncpu=2)
    cells = [tuple(c[k] for k in ("table", "threads", "update")) for c in sw.cells]
    want = [("clht-lb", 1, 0), ("clht-lb", 1, 10), ("clht-lb", 2, 0), ("clht-lb", 2, 10),
            ("cuckoo", 1, 0), ("cuckoo", 1, 10), ("cuckoo", 2, 0),
            ("locked", 1, 10)]
    check(cells == want, f"cartesian product minus excludes, locked overridden to threads=1: {cells}")
    locked = sw.cells[-1]
    check(locked.get("initial") == "2^10" and all("initial" not in c for c in sw.cells[:-1]),
          "override 'set' applies to the matching cells only")
    args = sw.args(locked)
    check(args.count("--initial") == 1 and args[args.index("--initial") + 1] == "2^10"
          and args[-2:] == ["--reps", "2"] and "--duration" in args,
          f"a cell's flag replaces the base's: {' '.join(args)}")
    check(config.match_key(sw, locked) == {"table": "locked", "options": "-", "threads": 1, "update": 10,
                                           "initial": 1024, "duration_ms": 20},
          "match key in CSV column names, sizes parsed")
    q, _ = config.load(p, scale="quick", ncpu=2)
    check(q.reps == 1 and {c["update"] for c in q.cells} == {10} and len(q.cells) == 4,
          f"[scale.quick] replaces reps and an axis ({len(q.cells)} cells)")
    full, _ = config.load(p, scale="full", ncpu=2)
    check(full.reps == 2 and [c.get("update") for c in full.cells] == [c.get("update") for c in sw.cells],
          f"--scale full without a [scale.full] is the config as written ({len(full.cells)} cells, reps {full.reps})")
    check(config.expand_value("pow2:4*ncpu", 3, "t") == [1, 2, 4, 8, 12]
          and config.expand_value("1..ncpu", 3, "t") == [1, 2, 3]
          and config.expand_value("2*ncpu", 3, "t") == [6], "ncpu expressions")
    for bad, why in (("[sweep]\nreps = 0\n[sweep.axes]\nthreads=[1]\n", "reps"),
                     ("[sweep]\n[sweep.axes]\n", "axis"),
                     ("[sweep]\nbogus = 1\n[sweep.axes]\nthreads=[1]\n", "unknown key 'bogus'"),
                     ("[sweep]\n[sweep.axes]\nthreads=[1]\n[[sweep.exclude]]\nthreads=1\n", "every cell is excluded"),
                     ("[sweep\n", "not valid TOML")):
        write(p, bad)
        try:
            config.load(p)
            check(False, f"config error '{why}' detected")
        except config.ConfigError as e:
            check(why in str(e), f"config error: {e}")
    r = subprocess.run([PY, os.path.join(SCRIPTS, "sweep"), p], capture_output=True, text=True)
    check(r.returncode == 2 and r.stderr.count("\n") == 1 and "sweep:" in r.stderr,
          f"scripts/sweep on a bad config: exit 2, one line ({r.stderr.strip()})")
    write(p, SWEEP_TOML)
    r = subprocess.run([PY, os.path.join(SCRIPTS, "sweep"), p, "--dry-run", "--out", tmp,
                        "--chtbench", chtbench], capture_output=True, text=True)
    lines = r.stdout.strip().splitlines()
    check(r.returncode == 0 and len(lines) == 9 and re.search(r"8 cells .* estimated wall time \d+:\d\d", lines[-1])
          and not os.path.exists(os.path.join(tmp, "results.csv")),
          f"--dry-run: 8 cells and an estimate, nothing run ({lines[-1] if lines else r.stderr})")


RESUME_TOML = """
[sweep]
base = ["--initial", "2048", "--update", "10"]
reps = 3
duration = 150
[sweep.axes]
table = ["clht-lb", "locked"]
threads = [1, 2]
update = [0, 20]
"""


def counts(csv, sw):
    df = sweep.read_csv(csv)
    return [0 if df is None else len(sweep.cell_rows(df, sw, c)) for c in sw.cells], df


def case_resume(chtbench, tmp):
    p = os.path.join(tmp, "r.toml")
    write(p, RESUME_TOML)
    out = os.path.join(tmp, "out")
    sw, _ = config.load(p)
    csv = os.path.join(out, "results.csv")
    proc = subprocess.Popen([PY, os.path.join(SCRIPTS, "sweep"), p, "--out", out, "--chtbench", chtbench],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # interrupt while a cell is running: a staging file exists and at least 2 cells are merged
    deadline = time.time() + 60
    while time.time() < deadline:
        n, _ = counts(csv, sw)
        staging = os.path.join(out, ".cells")
        running = os.path.isdir(staging) and any(f.endswith(".csv") for f in os.listdir(staging))
        if sum(1 for k in n if k) >= 2 and running:
            time.sleep(0.2)   # inside the cell's first repetitions
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    so, se = proc.communicate(timeout=60)
    n, df = counts(csv, sw)
    check(proc.returncode == 130 and "--resume" in se, f"SIGINT: exit 130, says --resume ({se.strip()})")
    check(0 < sum(1 for k in n if k) < len(sw.cells) and all(k in (0, 3) for k in n),
          f"after SIGINT some cells complete, none partial: rows per cell {n}")
    lines = so.splitlines()
    check(len(lines) == sum(1 for k in n if k) and all(re.match(r"cell \d+/8 table=\S+ threads=\d update=\d+: "
                                                               r"median .* Mops/s", x) for x in lines),
          f"stdout not a terminal: one summary line per finished cell, no bar ({len(lines)} lines)")
    check(not [f for f in os.listdir(os.path.join(out, ".cells")) if f.endswith(".csv")],
          "the interrupted cell's staging file is gone")
    before = set(df["timestamp"] + df["table"] + df["threads"]) if df is not None else set()
    r = subprocess.run([PY, os.path.join(SCRIPTS, "sweep"), p, "--out", out, "--chtbench", chtbench, "--resume"],
                       capture_output=True, text=True, timeout=120)
    n, df = counts(csv, sw)
    check(r.returncode == 0 and n == [3] * len(sw.cells), f"--resume: every cell exactly once (rows per cell {n})")
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    check(last.startswith("sweep: 8 cells (") and last.endswith(f"rows in {csv}, per-cell medians and speedup in "
                                                                 f"{os.path.join(out, 'summary.csv')}"),
          f"a final line with the CSV path: {last}")
    check(len(df) == 3 * len(sw.cells) and set(df["rep"]) == {"0", "1", "2"},
          f"{len(df)} rows in all, reps 0-2")
    after = set(df["timestamp"] + df["table"] + df["threads"])
    check(before <= after, "rows written before the interrupt were kept, not rerun")
    r = subprocess.run([PY, os.path.join(SCRIPTS, "sweep"), p, "--out", out, "--chtbench", chtbench, "--resume",
                        "--dry-run"], capture_output=True, text=True)
    check("(0 to run)" in r.stdout, "a complete sweep: --resume --dry-run has nothing to run")
    r = subprocess.run([PY, os.path.join(SCRIPTS, "sweep"), p, "--out", out, "--chtbench", chtbench],
                       capture_output=True, text=True)
    check(r.returncode == 2 and "--resume" in r.stderr, "without --resume an existing CSV is refused")


def case_machine(chtbench, tmp):
    from chtb import machine
    m = machine.write(tmp, chtbench)
    with open(os.path.join(tmp, "machine.json")) as f:
        j = json.load(f)
    check(j == m, "machine.json is the record returned")
    for k in ("hostname", "cpu_model", "sockets", "cores", "pus", "numa_nodes", "hwloc_xml", "kernel",
              "chtbench_version", "build_options", "git_revision", "thp", "cpu_governor", "written"):
        check(k in j, f"machine.json has {k} = {str(j.get(k))[:60]!r}")
    check(j["hostname"] == socket.gethostname(), "hostname is this host's")
    check(j["pus"] == int(subprocess.check_output(["hwloc-calc", "--number-of", "pu", "all"])), "PU count from hwloc")
    check(j["cores"] >= 1 and j["sockets"] >= 1 and j["numa_nodes"] >= 1, "core/socket/NUMA counts")
    check(j["chtbench_version"].startswith("chtbench ") and "csv schema" in j["chtbench_version"],
          "chtbench --version output")
    check(j["cpu_governor"] is not None or "cpu_governor_note" in j, "governor, or why not readable")
    check(re.fullmatch(r"[0-9a-f]{40}", j["git_revision"] or "") is not None, "git revision")
    xml = open(os.path.join(tmp, j["hwloc_xml"])).read()
    check(xml.lstrip().startswith("<?xml") and "<topology" in xml and 'type="PU"' in xml,
          "hwloc-ls --of xml saved beside it")
    # without hwloc's tools (chtbench links the library only): the counts from the kernel's /sys files
    root = os.path.join(tmp, "sys")   # 2 packages x 4 cores x 2 threads, CPUs 0-15 online, 2 NUMA nodes
    for c in range(16):
        d = os.path.join(root, "cpu", f"cpu{c}", "topology")
        os.makedirs(d)
        for f, v in (("physical_package_id", c // 8), ("die_id", 0), ("core_id", (c % 8) // 2)):
            write(os.path.join(d, f), f"{v}\n")
    write(os.path.join(root, "cpu", "online"), "0-15\n")
    os.makedirs(os.path.join(root, "node"))
    write(os.path.join(root, "node", "online"), "0-1\n")
    got = machine.sysfs_counts(root)
    check(got == {"sockets": 2, "cores": 8, "pus": 16, "numa_nodes": 2}, f"sysfs_counts on a 2x4x2 tree: {got}")
    write(os.path.join(root, "cpu", "online"), "0-3,8\n")
    got = machine.sysfs_counts(root)
    check(got == {"sockets": 2, "cores": 3, "pus": 5, "numa_nodes": 2}, f"sysfs_counts of online CPUs 0-3,8 only: {got}")
    path = os.environ["PATH"]
    os.environ["PATH"] = os.path.join(tmp, "no-tools")
    try:
        bare = machine.collect(chtbench)
    finally:
        os.environ["PATH"] = path
    check(all(bare[k] == j[k] for k in ("sockets", "cores", "pus", "numa_nodes"))
          and bare["pus_source"].startswith("/sys/devices/system (hwloc-calc: ") and "pus_note" not in bare,
          f"no hwloc-calc on PATH: the same counts from /sys ({bare.get('pus_source')})")


def case_figure(chtbench, tmp):
    out = os.path.join(tmp, "fig")
    toml = os.path.join(HERE, "figures", "tiny.toml")
    t0 = time.time()
    r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), toml, "--out", out, "--chtbench", chtbench],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"scripts/figure tiny: exit 0 in {time.time() - t0:.1f} s ({r.stderr.strip()[-300:]})")
    png, pdf, md = (os.path.join(out, "tiny." + e) for e in ("png", "pdf", "md"))
    check(os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(png) > 10000,
          "PNG written")
    data = open(pdf, "rb").read() if os.path.exists(pdf) else b""
    check(data.startswith(b"%PDF") and b"/FontFile2" in data and b"/Type3" not in data,
          "PDF with embedded TrueType fonts (FontFile2, no Type 3)")
    for v in ("tiny.svg", "tiny-1col.png", "tiny-1col.pdf", "tiny-1col.svg"):
        p = os.path.join(out, v)
        head = open(p, "rb").read(400) if os.path.exists(p) else b""
        check(head.startswith({"svg": b"<?xml", "png": b"\x89PNG", "pdf": b"%PDF"}[v.rsplit(".", 1)[1]])
              and (not v.endswith(".svg") or b"<svg" in head), f"{v} written")
    df = pd.read_csv(os.path.join(out, "results-quick.csv"), dtype=str, keep_default_na=False)
    check(len(df) == 8 and sorted(set(df["table"])) == ["clht-lb", "locked"], f"{len(df)} rows: 2 tables x 2 threads x 2 reps")
    df["mops"] = pd.to_numeric(df["mops"])
    med = df.groupby(["threads", "table"])["mops"].median().unstack()
    holds = all(med.loc[t].idxmax() == "clht-lb" for t in med.index)
    text = open(md).read()
    word = "**holds**" if holds else "**does not hold**"
    check(f"clht-lb is the fastest table at every thread count: {word}" in text,
          f"NAME.md verdict computed from the CSV: {word}")
    for t in med.index:
        row = f"| {t} | {style.fmt_num(med.loc[t, 'clht-lb'])} | {style.fmt_num(med.loc[t, 'locked'])} |"
        check(row in text, f"NAME.md medians row {row}")
    check("CLHT is the fastest table" in text and "*Concurrent Hashing on Multi-core Systems*" in text
          and "2017; fig. 3.6." in text and "000_7a5564d72d74d689.txt" not in text,
          "claim and the work cited from docs/references.md, never a source file readers cannot open")
    # the same CSV again: nothing reruns
    stamp = os.path.getmtime(os.path.join(out, "results-quick.csv"))
    r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), toml, "--out", out, "--chtbench", chtbench],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and os.path.getmtime(os.path.join(out, "results-quick.csv")) == stamp,
          "a complete CSV is reused")
    rev = set(df["git_rev"])
    text = open(md).read()
    check(len(rev) == 1 and f"Build: {rev.pop()} (" in text and "## Speedup" in text
          and re.search(r"\| clht-lb \| 1\.00 \| [0-9.]+ \|", text),
          "the page names the build and has a speedup table (T(n)/T(1) per table)")
    # a "rebuild at a new commit": the rows now claim another git_rev, so nothing may be reused
    data = open(os.path.join(out, "results-quick.csv")).read()
    cur_rev = df["git_rev"].iloc[0]
    write(os.path.join(out, "results-quick.csv"), data.replace(cur_rev, "0ldc0mm17000"))
    r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), toml, "--out", out, "--chtbench", chtbench],
                       capture_output=True, text=True, timeout=300)
    new = pd.read_csv(os.path.join(out, "results-quick.csv"), dtype=str, keep_default_na=False)
    old = pd.read_csv(os.path.join(out, "superseded-results-quick.csv"), dtype=str, keep_default_na=False) \
        if os.path.exists(os.path.join(out, "superseded-results-quick.csv")) else pd.DataFrame({"git_rev": []})
    text = open(md).read()
    check(r.returncode == 0 and len(new) == 8 and set(new["git_rev"]) == {cur_rev} and len(old) == 8
          and set(old["git_rev"]) == {"0ldc0mm17000"} and "superseded-results-quick.csv" in r.stderr
          and "0ldc0mm17000" in r.stderr,
          f"after a rebuild every cell ran again, the old rows moved aside ({len(new)} new, {len(old)} moved; "
          f"{r.stderr.strip()[:160]})")
    check(f"Build: {cur_rev} (" in text and "0ldc0mm17000" not in text and "sweep + plot took" in text,
          "the page names the new revision only, and says the sweep ran")
    # verdict logic on a hand-made aggregate: cuckoo faster at one x
    agg = pd.DataFrame({"facet": [""] * 4, "series": ["clht-lb", "cuckoo"] * 2, "x": ["1", "1", "2", "2"],
                        "median": [10.0, 5.0, 8.0, 9.0]})
    ok, detail = figure.check_best(agg, {"expect": ["clht-lb"]})
    check(ok is False and "cuckoo faster at x=2" in detail, f"check_best names the exception: {detail}")
    # a timeline figure (data = "timeline"): each cell's --timeline-csv rows are staged and appended
    # with its main rows; the plot and checks read them
    out = os.path.join(tmp, "figtl")
    toml = os.path.join(HERE, "figures", "tiny-timeline.toml")
    r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), toml, "--out", out, "--chtbench", chtbench],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"scripts/figure tiny-timeline: exit 0 ({r.stderr.strip()[-300:]})")
    main_csv = pd.read_csv(os.path.join(out, "results-quick.csv"), dtype=str, keep_default_na=False)
    tl_path = os.path.join(out, "timeline-quick.csv")
    tl = pd.read_csv(tl_path, dtype=str, keep_default_na=False) if os.path.exists(tl_path) else pd.DataFrame()
    check(len(main_csv) == 4 and len(tl) >= 4 * 5, f"timeline rows beside the main CSV: {len(main_csv)} main, {len(tl)} timeline")
    if len(tl):
        sums = tl.assign(n=pd.to_numeric(tl["interval_ops"])).groupby(["threads", "rep"])["n"].sum()
        tot = main_csv.assign(n=pd.to_numeric(main_csv["total_ops"])).set_index(["threads", "rep"])["n"]
        check(all(sums.get(k) == v for k, v in tot.items()),
              "each (threads, rep)'s timeline rows sum to its total_ops: every rep once, none duplicated")
    check(not [f for f in os.listdir(os.path.join(out, ".cells")) if f.endswith(".csv")],
          "no staged cell or side file left behind")
    text = open(os.path.join(out, "tiny-timeline.md")).read() if os.path.exists(os.path.join(out, "tiny-timeline.md")) else ""
    check("clht-lb keeps at least a tenth of its peak until the end: **holds**" in text,
          "the timeline figure's check computed from the timeline rows")
    stamp = os.path.getmtime(tl_path) if os.path.exists(tl_path) else None
    r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), toml, "--out", out, "--chtbench", chtbench],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and stamp and os.path.getmtime(tl_path) == stamp, "a complete timeline figure is reused")
    # relabel: drop an option varied along x from table_spec; take an option's value as a column
    from chtb import plot
    d = plot.relabel(pd.DataFrame({"options": ["strategy=random,r=25,rehash=0", "ratio=4,r=5"],
                                   "table_spec": ["hotring:strategy=random,r=25,rehash=0", "hotring:ratio=4,r=5"]}),
                     {"R": {"from": "options", "sub": [[r".*\br=([0-9]+).*", r"\1"]]},
                      "table_spec": [[",r=[0-9]+", ""], [",?ratio=[0-9]+,?", ""]]})
    check(list(d["R"]) == ["25", "5"] and list(d["table_spec"]) == ["hotring:strategy=random,rehash=0", "hotring:"],
          f"plot.relabel: {list(d['R'])} {list(d['table_spec'])}")
    r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), "--list"], capture_output=True, text=True)
    check(r.returncode == 0 and len(r.stdout.splitlines()) >= 10 and "BROKEN" not in r.stdout,
          f"scripts/figure --list: {len(r.stdout.splitlines())} figures, none broken")
    figure_replot(chtbench, tmp)
    figure_reference(chtbench, tmp)


def figure_replot(chtbench, tmp):
    """--replot: the page drawn again from a CSV another machine wrote (rows of another build, up to its
    CPU count in its machine.json, more than this machine has), running nothing."""
    out = os.path.join(tmp, "figreplot")
    os.makedirs(out)
    toml = os.path.join(tmp, "tiny-ncpu.toml")
    write(toml, open(os.path.join(HERE, "figures", "tiny.toml")).read().replace("threads = [1, 2]",
                                                                                  'threads = ["1..ncpu"]'))
    src = pd.read_csv(os.path.join(tmp, "fig", "results-quick.csv"), dtype=str, keep_default_na=False)
    one = src[src["threads"] == "1"]
    rows = []
    for n in range(1, 7):   # a 6-CPU machine: clht-lb 10n Mops/s, locked 3n
        r = one.copy()
        r["threads"] = str(n)
        r["git_rev"] = "0ther0ne0000"
        r["mops"] = [str(10 * n if t == "clht-lb" else 3 * n) for t in r["table"]]
        rows.append(r)
    data = pd.concat(rows)
    tables = sorted(set(data["table"]))
    data.to_csv(os.path.join(out, "results-quick.csv"), index=False)
    write(os.path.join(out, "machine.json"), json.dumps({"hostname": "elsewhere", "usable_cpus": 6}))
    stamp = os.path.getmtime(os.path.join(out, "results-quick.csv"))
    fig_py = os.path.join(SCRIPTS, "figure")
    r = subprocess.run([PY, fig_py, toml, "--replot", "--out", out, "--chtbench", chtbench],
                       capture_output=True, text=True, timeout=120)
    text = open(os.path.join(out, "tiny-ncpu.md")).read() if os.path.exists(os.path.join(out, "tiny-ncpu.md")) else ""
    check(r.returncode == 0 and os.path.getmtime(os.path.join(out, "results-quick.csv")) == stamp
          and not os.path.exists(os.path.join(out, "superseded-results-quick.csv")),
          f"--replot: exit 0, nothing ran or moved ({r.stderr.strip()[-200:]})")
    check(tables == ["clht-lb", "locked"] and "| 6 | 60.0 | 18.0 |" in text and "| 5 | 50.0 | 15.0 |" in text
          and "redrawn by `--replot`" in text and "0ther0ne0000" in text,
          "--replot: every thread count up to machine.json's 6 CPUs on the page, the other build named")
    check("clht-lb is the fastest table at every thread count: **holds** (6/6 cases)" in text,
          "--replot: the verdict computed over all six thread counts")
    r = subprocess.run([PY, fig_py, toml, "--replot", "--rerun", "--out", out, "--chtbench", chtbench],
                       capture_output=True, text=True)
    check(r.returncode == 2 and one_line(r) and "--replot runs nothing" in r.stderr, f"--replot --rerun: exit 2 ({r.stderr.strip()})")
    r = subprocess.run([PY, fig_py, toml, "--replot", "--out", os.path.join(tmp, "nothing-here"), "--chtbench", chtbench],
                       capture_output=True, text=True)
    check(r.returncode == 2 and one_line(r) and r.stderr.startswith("figure: --replot: no ")
          and not os.path.exists(os.path.join(tmp, "nothing-here")), f"--replot without a CSV: exit 2, nothing written ({r.stderr.strip()})")


def figure_reference(chtbench, tmp):
    """End to end: a figure of two plot parts (several y with a facet; `best` over W) and a
    [[reference]] curve run with the real --bench memory: what the page says equals what the CSVs
    hold; the reference is reused, rerun when its arguments change, refused before anything runs
    when chtbench refuses it."""
    out = os.path.join(tmp, "figref")
    toml = os.path.join(HERE, "figures", "tiny-reference.toml")
    fig_cmd = [PY, os.path.join(SCRIPTS, "figure"), toml, "--out", out, "--chtbench", chtbench]
    r = subprocess.run(fig_cmd, capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"scripts/figure tiny-reference: exit 0 ({r.stderr.strip()[-300:]})")
    ref_csv = os.path.join(out, "reference-memory-quick.csv")
    ref = pd.read_csv(ref_csv, dtype=str, keep_default_na=False) if os.path.exists(ref_csv) else pd.DataFrame(
        {"run_id": [], "bytes": []})
    check(ref["run_id"].nunique() == 2 and set(ref["bytes"]) == {"65536", "4194304"},
          f"reference rows: {ref['run_id'].nunique()} runs of --bench memory at 64K and 4M")
    text = open(os.path.join(out, "tiny-reference.md")).read() if r.returncode == 0 else ""
    # the reference curve on the page: per size, the k with the highest median over the runs (4 KiB pages)
    if len(ref):
        m = ref[ref["pages"] == "4k"].assign(v=pd.to_numeric(ref["mloads_per_s"]), b=pd.to_numeric(ref["bytes"]))
        med = m.groupby(["b", "k"])["v"].median()
        for b in (65536, 4194304):
            k = med.loc[b].idxmax()
            row = f"| {style.fmt_num(b / 64)} | {k} | {style.fmt_num(med.loc[(b, k)])} |"
            check(row in text, f"reference curve row at {b} bytes: {row}")
    # part B: the W with the highest median mops per size, and its medians
    res = pd.read_csv(os.path.join(out, "results-quick.csv"), dtype=str, keep_default_na=False)
    res["mops"] = pd.to_numeric(res["mops"])
    mw = res.groupby(["initial", "pipeline"])["mops"].median()
    for i in ("1024", "65536"):
        w = mw.loc[i].idxmax()
        check(f"| {i} | {'single' if w == '0' else w} |" in text and
              f"| throughput (Mops/s) | {i} | {style.fmt_num(mw.loc[(i, w)])} |" in text,
              f"part B at i = {i}: best W = {w}, median {style.fmt_num(mw.loc[(i, w)])} Mops/s")
    check("### A" in text and "### B: at the best W" in text and "| total_ops | initial=1024 |" not in text
          and "Grey lines without marks: memory bench, best k" in text,
          "the page has one medians table per part and names the reference curve in the caption")
    # scripts/report shows every table of the Medians section, each under the line above it
    from chtb import report
    page = report.parse_page(text)
    more = [a for a, _, _ in page["medians_more"]]
    html_ = report.medians_html(dict(page, name="tiny-reference"))
    check(page["medians_title"].endswith("— A") and len(more) == 3 and more[0] == "B: at the best W"
          and more[1].startswith("The pipeline chosen") and more[2].startswith("Reference curve: memory bench")
          and html_.count("<table") == 4, f"report: the parts' medians, the chosen W and the reference: {more}")
    # in process (no figure drawn again): reused as it is; other arguments move the rows aside and rerun
    import io
    (rdef, rsw), = figure.references(figure.load(toml), "quick", toml)
    log = io.StringIO()
    rc = figure.run_reference(rdef, rsw, out, "quick", chtbench, stream=log)
    again = pd.read_csv(ref_csv, dtype=str, keep_default_na=False)
    check(rc == 0 and "reference memory: 2 run(s) already in" in log.getvalue()
          and set(again["run_id"]) == set(ref["run_id"]), f"a complete reference is reused ({log.getvalue().strip()})")
    rsw.base[rsw.base.index("64K,4M")] = "64K"
    rc = figure.run_reference(rdef, rsw, out, "quick", chtbench, stream=log)
    new = pd.read_csv(ref_csv, dtype=str, keep_default_na=False)
    old = os.path.join(out, "superseded-reference-memory-quick.csv")
    check(rc == 0 and set(new["bytes"]) == {"65536"} and new["run_id"].nunique() == 2
          and os.path.exists(old) and len(pd.read_csv(old)) == len(ref),
          f"new reference arguments: rerun ({new['run_id'].nunique()} runs), the old rows moved aside")
    # rows of another build: reused with reuse_any, else moved aside and run again
    rev = new["git_rev"].iloc[0]
    write(ref_csv, open(ref_csv).read().replace(rev, "0ldc0mm17000"))
    rc1 = figure.run_reference(rdef, rsw, out, "quick", chtbench, stream=log, reuse_any=True)
    kept = pd.read_csv(ref_csv, dtype=str, keep_default_na=False)
    rc2 = figure.run_reference(rdef, rsw, out, "quick", chtbench, stream=log)
    fresh = pd.read_csv(ref_csv, dtype=str, keep_default_na=False)
    check(rc1 == 0 and set(kept["run_id"]) == set(new["run_id"]) and rc2 == 0 and set(fresh["git_rev"]) == {rev}
          and fresh["run_id"].nunique() == 2 and not set(fresh["run_id"]) & set(new["run_id"]),
          "another build's reference rows: reused with --reuse-any, else run again")
    toml2 = os.path.join(tmp, "tiny-reference.toml")
    # a reference chtbench refuses: one line, exit 2, nothing written
    write(toml2, open(toml).read().replace('"64K,4M"', '"64X"'))
    out3 = os.path.join(tmp, "figref-bad")
    r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), toml2, "--out", out3, "--chtbench", chtbench],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 2 and r.stderr.startswith("figure tiny-reference: reference memory: ")
          and "--size" in r.stderr and len(r.stderr.strip().splitlines()) == 1 and not os.path.exists(out3),
          f"a refused reference: exit 2, nothing written ({r.stderr.strip()[:150]})")


def figure_parts(tmp):
    """Several y with a facet (a grid), plot parts, `best` and reference curves on fixture rows:
    exact medians, the panels drawn where they belong, the refusals."""
    import matplotlib
    from chtb import plot
    rows = []
    for i, (init, w, mops, frac) in enumerate([(1024, 0, 90, .9), (1024, 4, 70, .7), (16777216, 0, 8, .1),
                                               (16777216, 4, 20, .25)]):
        for rep, d in enumerate((-1, 0, 2)):   # medians: mops, frac; min/max one below, two above
            rows.append({"table": "clht-lb", "options": "", "initial": str(init), "pipeline": str(w),
                         "rep": str(rep), "mops": str(mops + d), "ceiling_frac": str(frac + d / 100)})
    df = plot.add_columns(pd.DataFrame(rows))
    agg = plot.aggregate(df.copy(), "pipeline", ["mops", "ceiling_frac"], "table_spec", "initial")
    m = agg.set_index(["facet", "x"])["median"]
    check(agg.attrs["grid"] and sorted(set(agg["facet"])) == ["ceiling_frac initial=1024", "ceiling_frac initial=16777216",
                                                              "mops initial=1024", "mops initial=16777216"]
          and m[("mops initial=16777216", "4")] == 20 and m[("ceiling_frac initial=1024", "0")] == 0.9
          and agg.set_index(["facet", "x"])["max"][("mops initial=1024", "0")] == 92,
          f"several y with a facet: one panel per (y, size), exact medians ({len(agg)} points)")
    best = plot.aggregate(df.copy(), "initial", ["mops", "ceiling_frac"], "table_spec", None,
                          best={"over": "pipeline", "by": "mops"})
    b = best.set_index(["facet", "x"])["median"]
    ch = best.attrs["best"]["chosen"].set_index("x")["pipeline"]
    check(b[("mops", "1024")] == 90 and b[("mops", "16777216")] == 20 and b[("ceiling_frac", "16777216")] == 0.25
          and dict(ch) == {"1024": "0", "16777216": "4"},
          f"best W per size: {dict(ch)}, its medians {list(b)}")
    low = plot.aggregate(df.copy(), "initial", "mops", "table_spec", None,
                         best={"over": "pipeline", "by": "mops", "minimize": True})
    check(list(low["median"]) == [70, 8], f"best with minimize: {list(low['median'])}")
    # a reference: best k per x (median over runs), min and max of that k's runs
    mem = pd.DataFrame([{"bytes": str(b), "pages": p, "k": str(k), "run_id": f"r{r}", "threads": "1",
                         "mloads_per_s": str(k * (2 if p == "thp" else 1) * (100 if b == 65536 else 10) + r)}
                        for b in (65536, 1073741824) for p in ("4k", "thp") for k in (1, 8, 32) for r in range(3)])
    ref = {"name": "memory", "x": "bytes / 64", "y": "mloads_per_s", "where": "pages == '4k'", "best": "k"}
    cur = figure.reference_curve(ref, mem)
    check(list(cur["x"]) == [1024, 16777216] and list(cur["best"]) == [32, 32] and list(cur["median"]) == [3201, 321]
          and list(cur["min"]) == [3200, 320] and list(cur["max"]) == [3202, 322],
          f"reference curve: x = bytes / 64, best k, median/min/max over runs: {cur.to_dict('list')}")
    spec = {"x": "pipeline", "y": ["mops", "ceiling_frac"], "series": "table_spec", "facet": "initial",
            "below": [{"name": "B", "x": "initial", "facet": "", "logx": True,
                       "best": {"over": "pipeline", "by": "mops"}, "reference": ["memory"]}]}
    refs = {"memory": {"label": "memory", "on": "mops", "curve": cur}}
    # (plot_figure drawing files: the end-to-end case 'figure'); here the panels in memory
    parts = [(n, s) for n, _, s in plot.parts_of(spec)]
    check([n for n, _ in parts] == ["A", "B"] and parts[1][1]["facet"] is None and parts[1][1]["y"] == spec["y"],
          "parts_of: part B takes [plot]'s keys it does not set, facet = '' is none")
    drawn = [plot.Part(plot.aggregate_spec(df.copy(), s), name=n, logx=n == "B", refs=[refs["memory"]] if n == "B" else [])
             for n, s in parts]
    with matplotlib.rc_context(plot.RC):
        f = plot.draw_parts(drawn, 7.0, "t", None)
        f.canvas.draw()
    axes = f.axes
    ref_lines = [sum(1 for ln in ax.get_lines() if ln.get_color() == plot.REF_STYLE[0][0] and ln.get_linestyle() == "--")
                 for ax in axes]
    titles = [ax.get_title(loc="left") or ax.get_title() for ax in axes]
    check(len(axes) == 6 and ref_lines == [0, 0, 0, 0, 1, 0]
          and [bool(ax.get_ylabel()) for ax in axes[:4]] == [True, False, True, False]
          and titles[0].startswith("A: i = 2^10") and titles[4].startswith("B: "),
          f"a 2 x 2 grid (y labels in the first column) over part B; the reference only in B's Mops/s panel "
          f"({ref_lines}, {titles})")
    import matplotlib.pyplot as plt
    plt.close(f)
    # the full ceiling figure's shape: five sizes x eight W over part B's two panels. tight_layout finds
    # room (it warns and gives up where the grid has a column per lcm(5, 2)), B's panels split the five
    # columns, no two panels overlap, and W's eight labels stand upright in panels 1.4 in wide
    import warnings
    rows5 = [{"table": "clht-lb", "options": "", "initial": str(1 << (10 + 4 * j)), "pipeline": str(w or "single"),
              "rep": "0", "mops": str(10 + w + j), "ceiling_frac": "0.1"} for j in range(5) for w in (0, 1, 2, 4, 8, 16, 32, 64)]
    df5 = plot.add_columns(pd.DataFrame(rows5))
    drawn5 = [plot.Part(plot.aggregate_spec(df5.copy(), s), name=n, logx=n == "B") for n, s in parts]
    with matplotlib.rc_context(plot.RC), warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        f = plot.draw_parts(drawn5, 7.0, "t", None)
        f.canvas.draw()
    boxes = [ax.get_position() for ax in f.axes]
    overlap = [(i, j) for i, a in enumerate(boxes) for j, b in enumerate(boxes) if i < j
               and a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1]
    tight = [str(w.message)[:60] for w in warned if "tight" in str(w.message).lower()]
    upright = {t.get_rotation() for ax in f.axes[:10] for t in ax.get_xticklabels()}
    # the grid's panels share one x label, centred under all five columns (not one per panel, where
    # the last one ran off the figure); part B keeps a label per panel; "A:" heads the first panel only
    xl = [i for i, ax in enumerate(f.axes) if ax.get_xlabel()]
    box = f.axes[5].xaxis.label.get_window_extent(f.canvas.get_renderer())
    grid_mid = (f.axes[0].get_window_extent().x0 + f.axes[4].get_window_extent().x1) / 2
    check(xl == [5, 10, 11] and abs((box.x0 + box.x1) / 2 - grid_mid) < 2 and "\n" not in f.axes[5].get_xlabel()
          and [ax.get_title(loc="left")[:2] for ax in f.axes[:5]] == ["A:", "", "", "", ""],
          f"one x label under the grid (panels with one: {xl}; centre {(box.x0 + box.x1) / 2:.0f} px, the "
          f"grid's {grid_mid:.0f}), 'A:' on its first panel only")
    check(len(f.axes) == 12 and not tight and not overlap and min(b.width for b in boxes) > 0.06
          and abs(boxes[10].x0 - boxes[0].x0) < 0.05 and upright == {90.0},
          f"5 x 2 grid over 2 panels at 7 in: laid out ({tight}), no overlap ({overlap}), panel widths "
          f"{[round(b.width, 2) for b in boxes]}, W labels at {upright} degrees")
    plt.close(f)
    for bad, want in ((dict(spec, below=[dict(spec["below"][0], reference=["nope"])]), "no reference 'nope'"),
                      (spec, "is not a y of part B")):
        try:
            plot.plot_figure(df.copy(), bad, os.path.join(tmp, "bad"),
                             references={"memory": dict(refs["memory"], on="mops" if bad is not spec else "tx")})
            check(False, f"refused: {want}")
        except ValueError as e:
            check(want in str(e), f"refused: {e}")
    try:
        plot.part_spec(spec, "C")
        check(False, "a check naming no part is refused")
    except ValueError as e:
        check("no plot part 'C'" in str(e), f"a check's unknown part: {e}")
    fig = {"reference": [{"name": "m", "args": ["--bench", "memory"], "on": "mops", "x": "bytes", "y": "k"}]}
    for change, want in (({"colour": 1}, "unknown key 'colour'"), ({"runs": 0}, "runs = 0"),
                         ({"name": "a b"}, "name 'a b'"), ({"args": "--bench memory"}, "args is a list")):
        try:
            figure.references({"reference": [dict(fig["reference"][0], **change)]}, "quick", "f.toml")
            check(False, f"[[reference]] refused: {want}")
        except config.ConfigError as e:
            check(want in str(e), f"[[reference]] refused: {e}")
    del fig["reference"][0]["x"]
    try:
        figure.references(fig, "quick", "f.toml")
        check(False, "[[reference]] without x refused")
    except config.ConfigError as e:
        check("missing 'x'" in str(e), f"[[reference]] refused: {e}")


# --- a single-node Slurm cluster on localhost ------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class LocalSlurm:
    """munged + slurmctld + slurmd with a generated slurm.conf in a temp dir; stop() by pid files."""

    def __init__(self, d):
        self.d = d
        self.conf = os.path.join(d, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.host = socket.gethostname().split(".")[0]

    def start(self):
        d = self.d
        for p in (os.path.dirname(d), d):   # munged wants its socket's directories world-searchable
            os.chmod(p, 0o755)
        for sub in ("state", "spool"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        key = os.path.join(d, "munge.key")
        subprocess.run(["mungekey", "--create", "--keyfile", key], check=True, capture_output=True)
        r = subprocess.run(["munged", f"--key-file={key}", f"--socket={d}/munge.sock", f"--pid-file={d}/munged.pid",
                            f"--log-file={d}/munged.log", f"--seed-file={d}/munged.seed"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return f"munged cannot start: {r.stderr.strip()}"
        ncpu = os.cpu_count()
        write(self.conf, f"""ClusterName=chtbtest
SlurmctldHost={self.host}(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge.sock
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=sched_interval=1
ReturnToService=2
MpiDefault=none
NodeName={self.host} NodeAddr=127.0.0.1 CPUs={ncpu} RealMemory=1000 State=UNKNOWN
PartitionName=chtb Nodes={self.host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE
""")
        for cmd in (["slurmctld"], ["slurmd", "-N", self.host]):
            r = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
            if r.returncode != 0:
                return f"{cmd[0]} cannot start: {r.stderr.strip()}"
        deadline = time.time() + 30
        while time.time() < deadline:
            r = subprocess.run(["sinfo", "-h", "-o", "%t"], env=self.env, capture_output=True, text=True)
            if r.stdout.strip() == "idle":
                return None
            time.sleep(0.5)
        return f"node never became idle (sinfo: {r.stdout.strip()} {r.stderr.strip()})"

    def stop(self):
        for name in ("slurmd", "slurmctld", "munged"):
            pf = os.path.join(self.d, name + ".pid")
            if not os.path.exists(pf):
                continue
            try:
                pid = int(open(pf).read().strip())
                os.kill(pid, signal.SIGTERM)
                for _ in range(100):
                    os.kill(pid, 0)
                    time.sleep(0.1)
            except (ValueError, ProcessLookupError):
                pass


SLURM_TOML = """
title = "slurm test: clht-lb vs locked"
source = "test"
cite = ["cht-thesis-2017, §3.4.2 (fig. 3.6)"]
claim = "CLHT is the fastest table at every thread count."
[sweep]
base = ["--initial", "4096"]
reps = 2
duration = 100
[sweep.axes]
table = ["clht-lb", "locked"]
threads = [1, 2]
[plot]
x = "threads"
y = "mops"
series = "table_spec"
[[check]]
kind = "best"
text = "clht-lb is the fastest table at every thread count"
expect = ["clht-lb"]
"""


def case_slurm(chtbench, tmp):
    if os.geteuid() != 0:
        print("SKIP: not root: slurmctld/slurmd/munged of a throw-away cluster need root here")
        return 77
    for prog in ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"):
        if shutil.which(prog) is None and not os.path.exists(f"/usr/sbin/{prog}"):
            print(f"SKIP: {prog} not installed (scripts/install-deps installs slurm-wlm and munge)")
            return 77
    os.environ["PATH"] += ":/usr/sbin"
    cl = LocalSlurm(os.path.join(tmp, "cluster"))
    os.makedirs(cl.d)
    t0 = time.time()
    try:
        why = cl.start()
        if why:
            print(f"SKIP: {why}")
            return 77
        print(f"cluster up in {time.time() - t0:.1f} s: {cl.host}, slurm.conf {cl.conf}")
        toml = os.path.join(tmp, "slurmfig.toml")
        write(toml, SLURM_TOML)
        out = os.path.join(tmp, "slurmout")
        r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), toml, "--slurm", "--dry-run", "--out", out,
                            "--chtbench", chtbench, "--partition", "chtb", "--time", "00:05:00"],
                           capture_output=True, text=True, env=cl.env)
        check(r.returncode == 0 and "#SBATCH --array=0-3" in r.stdout and "#SBATCH --exclusive" in r.stdout
              and "#SBATCH --mem=0" in r.stdout and "afterok" in r.stdout and not os.path.exists(out),
              "--slurm --dry-run prints the batch scripts and submits nothing")
        r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), toml, "--slurm", "--out", out, "--chtbench", chtbench,
                            "--partition", "chtb", "--time", "00:05:00"], capture_output=True, text=True, env=cl.env)
        print(r.stdout.strip())
        check(r.returncode == 0 and "submitted job array" in r.stdout, f"submitted ({r.stderr.strip()})")
        jobs = json.load(open(os.path.join(out, "slurm", "jobs.json")))
        deadline = time.time() + 150
        while time.time() < deadline:
            q = subprocess.run(["squeue", "-h", "-o", "%i %T %r"], env=cl.env, capture_output=True, text=True)
            if not q.stdout.strip():
                break
            if "DependencyNeverSatisfied" in q.stdout:
                break
            time.sleep(1)
        print(f"jobs done after {time.time() - t0:.1f} s (array {jobs['array']}, merge {jobs['merge']})")
        merge_log = os.path.join(out, "slurm", "merge.out")
        print("merge.out: " + (open(merge_log).read().strip() if os.path.exists(merge_log) else "(none)"))
        check(not q.stdout.strip(), f"queue drained ({q.stdout.strip()})")
        parts = sorted(os.listdir(os.path.join(out, "parts")))
        check([p for p in parts if p.startswith("cell-")] == [f"cell-{i}.csv" for i in range(4)]
              and all(f"machine-{i}.json" in parts for i in range(4)),
              f"a part CSV and machine.json per array task: {parts}")
        csv = os.path.join(out, "results-quick.csv")
        sw = config.from_dict({"sweep": figure.load(toml)["sweep"]}, scale="quick")
        n, df = counts(csv, sw)
        check(n == [2, 2, 2, 2] and len(df) == 8, f"merged CSV holds every cell once (rows per cell {n})")
        check(set(df["host"]) == {socket.gethostname()}, "rows carry their host")
        for e in ("png", "pdf", "md"):
            check(os.path.exists(os.path.join(out, f"slurmfig.{e}")), f"figure slurmfig.{e} drawn by the merge job")
        logs = [open(os.path.join(out, "slurm", f"cell-{i}.out")).read() for i in range(4)]
        check(all(f"cell {i}:" in logs[i] for i in range(4)), "one array task per cell (cell-N.out)")
    finally:
        cl.stop()
        alive = []
        for name in ("slurmd", "slurmctld", "munged"):
            pf = os.path.join(cl.d, name + ".pid")
            if os.path.exists(pf):
                try:
                    os.kill(int(open(pf).read().strip()), 0)
                    alive.append(name)
                except (ValueError, ProcessLookupError):
                    pass
        check(not alive, f"daemons stopped by their pid files ({alive or 'none left'})")
        print(f"slurm test took {time.time() - t0:.1f} s")
    return 0


def header(chtbench, tmp, args):
    csv = os.path.join(tmp, "h.csv")
    if os.path.exists(csv):
        os.unlink(csv)
    subprocess.run([chtbench] + args + ["-d", "1", "--csv", csv], check=True, capture_output=True)
    return pd.read_csv(csv, dtype=str, keep_default_na=False).columns


def case_figures(chtbench, tmp):
    """Every scripts/figures/*.toml (RTM ones included, which this machine may not run) parses, and
    its plot and checks compute on synthetic rows shaped like its quick sweep's."""
    import random
    from chtb import plot
    rnd = random.Random(1)
    heads = {False: header(chtbench, tmp, ["-t", "null", "-i", "16"]),
             True: header(chtbench, tmp, ["--bench", "mutex", "--lock", "tas"])}
    tl = os.path.join(tmp, "tl.csv")
    subprocess.run([chtbench, "-t", "null", "-i", "16", "-d", "3", "--timeline", "1", "--timeline-csv", tl],
                   check=True, capture_output=True)
    heads["timeline"] = pd.read_csv(tl, dtype=str, keep_default_na=False).columns
    # every figure's layout at both widths as PNG; PDF and SVG (fonts, metadata) are case 'figure's
    plot.FORMATS = ("png",)
    for name in figure.names():
        fig = figure.load(figure.figure_path(name))
        sw = config.from_dict({"sweep": fig["sweep"]}, source=name, scale="quick", ncpu=4)
        head = heads["timeline"] if fig.get("data") == "timeline" else heads[sw.bench is not None]
        rows = []
        for cell in sw.cells:
            key = config.match_key(sw, cell)
            for rep in range(sw.reps):
                r = {c: f"{rnd.uniform(1, 100):.3f}" for c in head}
                r.update({k: str(v) for k, v in key.items()}, rep=str(rep), counter_names="",
                         counter_values_per_op="")
                r.setdefault("options", "")
                rows.append(r)
        df = plot.add_columns(pd.DataFrame(rows))
        try:
            refs = {r["name"]: {"label": r["name"], "on": r["on"], "curve": pd.DataFrame(
                {"x": [1e3, 1e6], "median": [2.0, 1.0], "min": [2.0, 1.0], "max": [2.0, 1.0]})}
                for r, _ in figure.references(fig, "quick", name)}
            parts, paths = plot.plot_figure(df.copy(), fig["plot"], os.path.join(tmp, name), title=fig["title"],
                                            references=refs)
            agg = parts[0][2]
            drawn = all(os.path.getsize(p) > 0 for p in paths)
        except (ValueError, KeyError) as e:
            agg, drawn = None, False
            print(f"      {name}: {e}")
        v = figure.verdicts(df, fig, cpus=4)
        v = [x for x in v if not x[2].startswith("not measurable here: the rows have no PAPI")]   # no counters
        check(drawn and v and all(ok is not None for _, ok, _ in v) and len(agg) > 0,
              f"{name}: {len(sw.cells)} quick cells, plot drawn, {len(v)} checks computable "
              + "; ".join(d for _, ok, d in v if ok is None))
    figure_parts(tmp)


def one_line(r):
    return r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def fake_chtbench(tmp, chtbench, log):
    """A chtbench that knows --validate the way the C side does (exactly the command line of a real
    run; exit 2 and chtbench's own error line for a bad one, 0 and no output otherwise): it logs each
    --validate call and checks a command line by letting the real chtbench parse it only when it
    names the misspelt table 'cukoo' (which the real one refuses before doing anything)."""
    path = os.path.join(tmp, "fake-chtbench")
    write(path, f"""#!/bin/sh
if [ "$1" = --help ]; then "{chtbench}" --help; echo "  --validate   check the command line, run nothing"; exit 0; fi
if [ "$1" = --validate ]; then
  shift; echo "$*" >> "{log}"
  case " $* " in *" cukoo "*) exec "{chtbench}" "$@" ;; esac
  exit 0
fi
exec "{chtbench}" "$@"
""")
    os.chmod(path, 0o755)
    return path


def case_validate(chtbench, tmp):
    sw_py = os.path.join(SCRIPTS, "sweep")
    log = os.path.join(tmp, "validate.log")
    fake = fake_chtbench(tmp, chtbench, log)
    p = os.path.join(tmp, "big.toml")
    # 300 cells; the misspelt table is in the last one only
    write(p, '[sweep]\nbase = ["--initial", "1K"]\nduration = 20\n[sweep.axes]\n'
             'table = ["clht-lb", "locked", "cuckoo"]\nthreads = [1, 2, 3, 4, 5]\nupdate = ' + str(list(range(20))) +
             '\n[[sweep.override]]\nwhen = { table = "cuckoo", threads = 5, update = 19 }\nset = { table = "cukoo" }\n')
    out = os.path.join(tmp, "big-out")
    for extra in ([], ["--dry-run"]):
        if os.path.exists(log):
            os.unlink(log)
        t0 = time.time()
        r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", fake] + extra, capture_output=True, text=True)
        took = time.time() - t0
        calls = open(log).read().splitlines() if os.path.exists(log) else []
        check(r.returncode == 2 and one_line(r) and r.stdout == ""
              and r.stderr.startswith("sweep: cell 300 (table=cukoo threads=5 update=19): chtbench: --table: "
                                      "unknown table 'cukoo'"),
              f"sweep {' '.join(extra)}: a typo in cell 300 fails before cell 1, naming the cell and chtbench's "
              f"error, exit 2 in {took:.1f} s ({r.stderr.strip()[:120]})")
        csvs = {c.split("--csv ")[1] for c in calls if "--csv " in c}
        check(len(calls) == 300 and len(set(calls)) == 300 and len(csvs) == 1 and not os.path.exists(csvs.pop()),
              f"each distinct command line validated once, with a scratch --csv: {len(calls)} --validate calls")
        check(not os.path.exists(out), "nothing written: no --out directory")
        check(took < 60, f"300 cells validated in {took:.1f} s")
    # equal command lines are validated once
    write(p, '[sweep]\nbase = ["--initial", "1K"]\nduration = 20\n[sweep.axes]\ntable = ["locked"]\n'
             'threads = [1, 1, 2]\nseed = [1]\n[[sweep.override]]\nwhen = { threads = 2 }\nset = { threads = 1 }\n')
    if os.path.exists(log):
        os.unlink(log)
    r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", fake, "--dry-run"], capture_output=True, text=True)
    calls = open(log).read().splitlines() if os.path.exists(log) else []
    check(r.returncode == 0 and len(calls) == 1, f"2 cells with one command line: 1 --validate call ({len(calls)})")
    # an unknown axis: exit 2, did you mean, nothing written (machine.json, topology.xml, .cells/)
    write(p, '[sweep]\n[sweep.axes]\ntable = ["clht-lb"]\nthredas = [1, 2]\n')
    for bin_ in (chtbench, fake):
        r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", bin_], capture_output=True, text=True)
        check(r.returncode == 2 and one_line(r) and f"{p}: 'thredas' is not a chtbench flag (did you mean threads?)"
              in r.stderr and not os.path.exists(out),
              f"unknown axis: exit 2, did you mean, --out not created ({r.stderr.strip()})")
    # unbounded axes: a one-line error, at once
    nc = len(os.sched_getaffinity(0))
    for axes, needle in (('threads = ["1..100000000*ncpu"]', f"stands for {100000000 * nc} values (at most 10000 per axis)"),
                         ('threads = ["1..100*ncpu"]\nupdate = ["1..100*ncpu"]\nseed = ["1..100*ncpu"]',
                          f"the axes stand for {(100 * nc) ** 3} cells (threads {100 * nc} x update {100 * nc} x "
                          f"seed {100 * nc}; at most 100000)")):
        write(p, '[sweep]\n[sweep.axes]\n' + axes + '\n')
        t0 = time.time()
        r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", chtbench], capture_output=True, text=True)
        check(r.returncode == 2 and one_line(r) and needle in r.stderr and time.time() - t0 < 20,
              f"bounded: exit 2 ({r.stderr.strip()})")
    # a binary file as the config
    binf = os.path.join(tmp, "binary.toml")
    with open(binf, "wb") as f:
        f.write(bytes(range(256)) * 4)
    r = subprocess.run([PY, sw_py, binf, "--chtbench", chtbench], capture_output=True, text=True)
    check(r.returncode == 2 and one_line(r) and f"sweep: {binf}: not a TOML file (not UTF-8 text)" in r.stderr,
          f"sweep on a binary file: exit 2, one line ({r.stderr.strip()})")
    # figure names: did you mean
    r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), "lock-thrashin", "--chtbench", chtbench],
                       capture_output=True, text=True)
    check(r.returncode == 2 and one_line(r) and "figure: no figure 'lock-thrashin' (did you mean lock-thrashing?)"
          in r.stderr, f"figure name typo: {r.stderr.strip()}")
    r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), "zzzzzzz", "--chtbench", chtbench],
                       capture_output=True, text=True)
    check(r.returncode == 2 and one_line(r) and "did you mean" not in r.stderr,
          f"no near figure name, no suggestion: {r.stderr.strip()}")
    # the real chtbench, when it has --validate (issue 19 point 4's C side)
    helptext = subprocess.run([chtbench, "--help"], capture_output=True, text=True).stdout
    if "--validate" in helptext:
        write(p, '[sweep]\nbase = ["--initial", "1K"]\nduration = 20\n[sweep.axes]\n'
                 'table = ["clht-lb", "locked", "cukoo"]\nthreads = [1, 2]\n')
        for extra in ([], ["--dry-run"]):
            r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", chtbench] + extra, capture_output=True,
                               text=True)
            check(r.returncode == 2 and one_line(r) and r.stdout == ""
                  and r.stderr.startswith("sweep: cell 5 (table=cukoo threads=1): chtbench: --table: unknown table "
                                          "'cukoo'") and not os.path.exists(out),
                  f"real chtbench --validate {' '.join(extra)}: cell 5 refused before cell 1 ({r.stderr.strip()[:140]})")
    else:
        print(f"note: {chtbench} has no --validate yet; the fake one stood in")


PROV_TOML = """
[sweep]
base = ["--initial", "1K", "--update", "10"]
reps = 2
duration = 20
[sweep.axes]
table = ["clht-lb", "locked"]
threads = [1, 2]
"""


def case_provenance(chtbench, tmp):
    sw_py = os.path.join(SCRIPTS, "sweep")
    p = os.path.join(tmp, "p.toml")
    write(p, PROV_TOML)
    out = os.path.join(tmp, "out")
    csv = os.path.join(out, "results.csv")
    old_csv = os.path.join(out, "superseded-results.csv")
    r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", chtbench], capture_output=True, text=True)
    df = sweep.read_csv(csv)
    check(r.returncode == 0 and len(df) == 8 and df["git_rev"].nunique() == 1, f"first sweep: {len(df)} rows")
    rev = df["git_rev"].iloc[0]
    runs = json.load(open(os.path.join(out, "runs.json")))
    sha = __import__("hashlib").sha256(open(chtbench, "rb").read()).hexdigest()
    check(set(runs) == set(df["run_id"]) and set(runs.values()) == {sha},
          "runs.json maps each run_id to the binary's sha256")
    # a fake rebuild: clht-lb's rows now claim another revision
    text = open(csv).read().splitlines()
    hdr = text[0].split(",")
    gi, ti = hdr.index("git_rev"), hdr.index("table")
    fixed = [text[0]]
    for line in text[1:]:
        f = line.split(",")
        if f[ti] == "clht-lb":
            f[gi] = "0ldc0mm17000"
        fixed.append(",".join(f))
    write(csv, "\n".join(fixed) + "\n")
    kept = set(df[df["table"] == "locked"]["run_id"])
    mj = os.path.join(out, "machine.json")
    m = json.load(open(mj))
    version = m["chtbench_version"]
    write(mj, json.dumps(dict(m, chtbench_version="chtbench 0.0.1\ngit: 0ldc0mm17000")))
    before = open(csv).read()
    r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", chtbench, "--resume", "--dry-run"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "4 cells (2 to run)" in r.stdout and f"4 rows of another build or host would be "
          f"moved to {old_csv}" in r.stdout and open(csv).read() == before and not os.path.exists(old_csv),
          "--resume --dry-run: the 2 rebuilt cells to run, the rows it would move, nothing changed")
    r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", chtbench, "--resume"], capture_output=True,
                       text=True)
    df = sweep.read_csv(csv)
    old = sweep.read_csv(old_csv)
    check(r.returncode == 0 and len(df) == 8 and set(df["git_rev"]) == {rev}
          and kept == set(df[df["table"] == "locked"]["run_id"]),
          f"--resume after a rebuild: clht-lb's cells ran again, locked's were reused, one git_rev ({set(df['git_rev'])})")
    check(old is not None and len(old) == 4 and set(old["git_rev"]) == {"0ldc0mm17000"}
          and set(old["table"]) == {"clht-lb"} and list(old.columns) == list(df.columns),
          f"the 4 old rows moved to superseded-results.csv ({0 if old is None else len(old)})")
    check(json.load(open(mj))["chtbench_version"] == version,
          "machine.json of the old build rewritten when cells ran with the new one")
    warn = [x for x in r.stderr.splitlines() if "moved to" in x]
    check(len(warn) == 1 and warn[0].startswith("sweep: 4 rows of another build or host (0ldc0mm17000 (")
          and f"moved to {old_csv}; their cells run again with this build ({rev} (" in warn[0],
          f"one line names both revisions: {warn[0] if warn else r.stderr.strip()}")
    # --reuse-any: rows of another build are reused, with a warning naming it
    write(csv, open(csv).read().replace(rev, "0ther0ne0000"))
    stamp = os.path.getmtime(csv)
    r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", chtbench, "--resume", "--reuse-any"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and os.path.getmtime(csv) == stamp and len(sweep.read_csv(old_csv)) == 4
          and "sweep: --reuse-any: reusing cells written by another build or host: 4 cell(s) of 0ther0ne0000 ("
          in r.stderr and f"(this build: {rev} (" in r.stderr,
          f"--reuse-any: nothing ran, a warning names the revisions ({r.stderr.strip()[:160]})")
    r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", chtbench, "--reuse-any"], capture_output=True,
                       text=True)
    check(r.returncode == 2 and r.stderr == "sweep: --reuse-any needs --resume\n", "--reuse-any without --resume")
    # scripts/plot on both files: a warning, --facet build separates, --latest keeps the newest
    plot_py = os.path.join(SCRIPTS, "plot")
    r = subprocess.run([PY, plot_py, csv, old_csv, "--out", os.path.join(tmp, "pl")], capture_output=True, text=True)
    check(r.returncode == 0 and "plot: warning: the data mixes 2 builds/hosts: 0ther0ne0000 (" in r.stderr
          and "0ldc0mm17000 (" in r.stderr, f"plot warns on mixed builds ({r.stderr.strip()[:120]})")
    from chtb import plot
    agg = plot.aggregate(plot.load([csv, old_csv]), "threads", "mops", "table_spec", "build")
    check(agg["facet"].nunique() == 2 and all(f.startswith("build=") for f in agg["facet"]),
          f"--facet build: one panel per build ({agg['facet'].nunique()})")
    r = subprocess.run([PY, plot_py, csv, old_csv, "--latest", "--out", os.path.join(tmp, "pl")],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "warning" not in r.stderr, f"--latest: newest run per cell, no warning ({r.stderr.strip()})")
    both = plot.load([csv, old_csv])
    lat = __import__("chtb.provenance", fromlist=["x"]).latest(both, ["threads", "table_spec"])
    check(len(lat) == 8 and set(lat["git_rev"]) == {"0ther0ne0000"}, f"latest(): {len(lat)} rows, the newer runs")
    # typed --where, missing file, bad query
    sel = plot.select(both, "threads == 2 and table == 'clht-lb'")
    check(len(sel) == 4 and set(sel["threads"]) == {"2"}, f"--where 'threads == 2' compares numbers ({len(sel)} rows)")
    # pandas 3 reads dtype=str as its string dtype, not object: the columns are typed all the same
    sel = plot.select(both.astype("string"), "threads == 2 and table == 'clht-lb'")
    check(len(sel) == 4, f"--where 'threads == 2' compares numbers over string-dtype columns too ({len(sel)} rows)")
    r = subprocess.run([PY, plot_py, csv, "--where", "threads == 2", "--out", os.path.join(tmp, "pl")],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"scripts/plot --where 'threads == 2': exit 0 ({r.stderr.strip()})")
    r = subprocess.run([PY, plot_py, "/nonexistent.csv"], capture_output=True, text=True)
    check(r.returncode == 2 and r.stderr == "plot: no such file: /nonexistent.csv\n", f"missing file: {r.stderr.strip()}")
    r = subprocess.run([PY, plot_py, csv, "--where", "garbage((("], capture_output=True, text=True)
    check(r.returncode == 2 and one_line(r) and r.stderr.startswith("plot: --where: 'garbage(((' is not a valid query"),
          f"bad --where: exit 2, one line ({r.stderr.strip()})")


def case_speedup(chtbench, tmp):
    sw_py = os.path.join(SCRIPTS, "sweep")
    p = os.path.join(tmp, "s.toml")
    write(p, PROV_TOML.replace("threads = [1, 2]", "threads = [1, 2, 3]") + "[[sweep.exclude]]\ntable = \"locked\"\n"
          "threads = 1\n")
    out = os.path.join(tmp, "out")
    r = subprocess.run([PY, sw_py, p, "--out", out, "--chtbench", chtbench], capture_output=True, text=True)
    df = sweep.read_csv(os.path.join(out, "results.csv"))
    sm = pd.read_csv(os.path.join(out, "summary.csv"), dtype={"speedup_note": str}, keep_default_na=False,
                     float_precision="round_trip")
    check(r.returncode == 0 and len(sm) == 5, f"summary.csv: one row per cell ({len(sm)})")
    mops = df.assign(m=pd.to_numeric(df["mops"])).groupby(["table", "threads"])["m"].median()
    for t in (1, 2, 3):
        row = sm[(sm["table"] == "clht-lb") & (sm["threads"] == t)]
        want = mops[("clht-lb", str(t))] / mops[("clht-lb", "1")]
        got = float(row["speedup"].iloc[0]) if len(row) else float("nan")
        check(abs(got - want) <= 1e-12 * want and float(row["median"].iloc[0]) == mops[("clht-lb", str(t))],
              f"clht-lb threads={t}: speedup {got:.6f} = median T({t}) / median T(1) from the rows ({want:.6f})")
    lk = sm[sm["table"] == "locked"]
    check(len(lk) == 2 and (lk["speedup"] == "").all() and
          set(lk["speedup_note"]) == {"no 1-thread cell with these parameters in this sweep"},
          f"no 1-thread cell: speedup empty and the note says why ({list(lk['speedup_note'])})")
    check(set(df["speedup"][df["threads"] != "1"]) == {""},
          "chtbench's own speedup column is empty in multi-thread rows of a sweep (one invocation per cell)")
    # a log reader that goes away (scripts/sweep ... | head -1) neither stops the sweep nor ends it
    # with a traceback
    out2 = os.path.join(tmp, "out2")
    proc = subprocess.Popen([PY, sw_py, p, "--out", out2, "--chtbench", chtbench], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=120)
    d2 = sweep.read_csv(os.path.join(out2, "results.csv"))
    check(proc.returncode == 0 and "Traceback" not in err and d2 is not None and len(d2) == 10,
          f"stdout closed by its reader: exit {proc.returncode}, every cell ran ({0 if d2 is None else len(d2)} rows)")


def case_verdicts(chtbench, tmp):
    """Every figure's checks can fail: on synthetic medians made from the figure's own sweep and plot
    (tests/verdict_witness.py) that contradict the claim each says "does not hold", on medians that
    agree "holds"; checks that need more CPUs say "not testable here", counter checks without counters
    "not measurable here"; the reaction-delay check on hand-made timelines."""
    import verdict_witness as W
    cpus = 8
    n = 0
    for name in figure.names():
        fig = figure.load(figure.figure_path(name))
        df = figure.counter_columns(W.rows(fig, cpus))
        for c in fig.get("check", []):
            n += 1
            what = f"{name}: '{c['text'][:70]}'"
            try:
                agg = figure.check_agg(df, fig, c, cpus)
            except Exception as e:   # noqa: BLE001 - any failure is this check's failure
                check(False, f"{what}: its medians cannot be computed from its own sweep: {e}")
                continue
            for agree in (True, False):
                w = W.witness(agg, c, agree)
                if w is None:
                    check(False, f"{what}: no synthetic data {'agrees with' if agree else 'contradicts'} it "
                          "(its series, facets or x values are not in the figure's sweep)")
                    continue
                ok, detail = figure.CHECKS[c["kind"]](w, c)
                check(ok is agree, f"{what} on data that {'agrees' if agree else 'contradicts'}: "
                      f"{'holds' if ok else 'does not hold' if ok is False else 'not measurable'} ({detail[:90]})")
            if c.get("needs_cpus", 0) > 2:
                v = figure.verdicts(W.rows(fig, 2), dict(fig, check=[c]), cpus=2)[0]
                check(v[1] is None and v[2].startswith(f"not testable here: needs at least {c['needs_cpus']} CPUs"),
                      f"{what} on 2 CPUs: {v[2][:90]}")
    check(n >= 50, f"{n} checks of {len(figure.names())} figures run on synthetic data")
    # counters absent (a VM): the counter checks are "not measurable here", the others are computed
    fig = figure.load(figure.figure_path("fig3.8-update"))
    df = W.rows(fig, cpus).drop(columns=["counter_names", "counter_values_per_op"])
    vs = figure.verdicts(df, fig, cpus=cpus)
    ctr = [v for v, c in zip(vs, fig["check"]) if str(c.get("y", "")).startswith("PAPI_")]
    check(len(ctr) == 3 and all(v[1] is None and v[2].startswith("not measurable here") for v in ctr)
          and all(v[1] is not None for v in vs if v not in ctr),
          f"fig3.8 without counters: {[v[2][:40] for v in ctr]}")
    # the reaction check on hand-made timelines: r dips for 1 interval, s for 3, chain flat
    xs = [float(t) for t in range(100, 6001, 100)]

    def curve(series, dips, level=1.0):
        return [{"facet": "", "series": series, "x": x,
                 "median": level * (0.5 if any(sh < x <= sh + 100 * dips for sh in (2000, 4000)) else 1.0)}
                for x in xs]
    agg = pd.DataFrame(curve("r", 1) + curve("s", 3, 1.2) + curve("chain", 0, 0.8))
    R = figure.check_reaction
    ok, detail = R(agg, {"mode": "faster", "a": "r", "b": "s", "shifts": [2000, 4000]})
    check(ok is True and "r 200 (dip 0.50), s 400 (dip 1.50)" in detail, f"reaction faster: {detail}")
    ok, detail = R(agg, {"mode": "faster", "a": "s", "b": "r", "shifts": [2000, 4000]})
    check(ok is False, f"reaction faster, reversed: {detail}")
    ok, detail = R(agg, {"mode": "within", "among": ["s"], "shifts": [2000, 4000], "within": 300})
    check(ok is False and "s back in 400" in detail, f"reaction within 300 ms: {detail}")
    ok, detail = R(agg, {"mode": "within", "among": ["s"], "shifts": [2000, 4000], "within": 2000})
    check(ok is True, f"reaction within 2 s: {detail}")
    ok, detail = R(agg, {"mode": "flat", "among": ["chain"], "shifts": [2000, 4000], "window": 1000})
    check(ok is True, f"reaction flat (chain): {detail}")
    ok, detail = R(agg, {"mode": "flat", "among": ["r"], "shifts": [2000, 4000], "window": 1000})
    check(ok is False and "r 50%" in detail, f"reaction flat (r dips 50%): {detail}")


def case_pyflakes(chtbench, tmp):
    files = [os.path.join(SCRIPTS, f) for f in ("sweep", "figure", "plot")] + [os.path.join(SCRIPTS, "chtb"), __file__]
    r = subprocess.run([PY, "-m", "pyflakes"] + files, capture_output=True, text=True)
    check(r.returncode == 0, f"pyflakes clean {r.stdout.strip()}")


def case_reference(chtbench, tmp):
    """results/reference/MACHINE/DIR: every committed page is what --replot draws from its committed CSV
    (the verdicts and the medians tables, word for word), planned for that machine's CPU count; a page
    left stale by a change to the checks or the plotting fails here until it is redrawn. The figure and
    the scale are the page's own ("## Reproduce": scripts/figure NAME --scale SCALE), so a folder may
    hold another scale of a figure under another name (ceiling-full/ceiling.md, results-full.csv)."""
    ref = os.path.join(REPO, "results", "reference")
    csvs = sorted(glob.glob(os.path.join(ref, "*", "*", "results-*.csv")))
    check(len(csvs) >= 4, f"{len(csvs)} reference figure folders under results/reference")
    for csv in csvs:
        src = os.path.dirname(csv)
        scale = os.path.basename(csv)[len("results-"):-len(".csv")]
        named = [(m.group(1), md) for md in sorted(glob.glob(os.path.join(src, "*.md")))
                 for m in [re.search(r"^scripts/figure (\S+) --scale " + re.escape(scale) + "$",
                                     open(md).read(), re.M)] if m]
        check(len(named) == 1 and os.path.basename(named[0][1]) == named[0][0] + ".md",
              f"{os.path.relpath(csv, REPO)}: one page NAME.md whose Reproduce line is scripts/figure NAME "
              f"--scale {scale} ({[os.path.basename(md) for _, md in named]})")
        if len(named) != 1:
            continue
        name = named[0][0]
        out = os.path.join(tmp, os.path.basename(os.path.dirname(src)), os.path.basename(src))
        shutil.copytree(src, out)
        r = subprocess.run([PY, os.path.join(SCRIPTS, "figure"), name, "--replot", "--scale", scale, "--out", out,
                            "--chtbench", chtbench], capture_output=True, text=True, timeout=300)
        committed, drawn = (open(os.path.join(d, name + ".md")).read().split("\n## Run")[0] for d in (src, out))
        check(r.returncode == 0 and committed == drawn and "**" in drawn,
              f"{os.path.relpath(src, REPO)}: {name}.md as --replot draws it ({r.stderr.strip()[-200:]})"
              + ("" if committed == drawn else
                 f" (redraw: scripts/figure {name} --replot --scale {scale} --out {os.path.relpath(src, REPO)})"))


CASES = {"verdicts": case_verdicts, "reference": case_reference, "config": case_config, "resume": case_resume, "machine": case_machine, "figure": case_figure,
         "figures": case_figures, "validate": case_validate, "provenance": case_provenance,
         "speedup": case_speedup,
         "slurm": case_slurm, "pyflakes": case_pyflakes}


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in CASES:
        print(f"usage: {sys.argv[0]} {'|'.join(CASES)} [CHTBENCH]", file=sys.stderr)
        return 2
    # the binary under test (meson's argument, else the one chtb finds) is the one every chtb lookup
    # finds, here and in the scripts started without --chtbench: an out-of-tree build works alike
    chtbench = binary.export(sys.argv[2] if len(sys.argv) == 3 else binary.find())
    tmp = tempfile.mkdtemp(prefix="chtb-test-")
    try:
        rc = CASES[sys.argv[1]](chtbench, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if rc == 77:
        return 77
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
