#!/usr/bin/env python3
"""test_cli.py - the chtbench binary as a user meets it.

Usage errors (one line naming the flag, exit 2, no CSV written), --list,
reproducible --ops runs, exact accounting, CSV append-safety under parallel
writers, --print-pinning, size syntax, uneven op splits, allocation failure.
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

BIN = sys.argv[1]
from checks import check, finish  # noqa: E402 (tests/checks.py)


def run(*args, timeout=120):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout)


def records(*args):
    p = run(*args, "--json")
    assert p.returncode == 0, (args, p.returncode, p.stderr)
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


tmp = tempfile.mkdtemp(prefix="chtbench-cli-")
csv_path = os.path.join(tmp, "bad.csv")

# ---- usage errors: (args, flag the message must name) ----
BAD = [
    (["-t", "nosuch"], "--table"),
    (["-t", "locked:nosuch=1"], "--table"),
    (["-t", "locked:lock=nosuch"], "--table"),
    (["-t", "locked:hash=foo"], "--table"),
    (["-t", "locked:lock"], "--table"),
    (["-t", "noop", "-n", "0"], "--threads"),
    (["-t", "noop", "-n", "-1"], "--threads"),
    (["-t", "noop", "-n", "1,,2"], "--threads"),
    (["-t", "noop", "-n", "4-2"], "--threads"),
    (["-t", "noop", "-n", "abc"], "--threads"),
    (["-t", "noop", "-u", "101"], "--update"),
    (["-t", "noop", "-u", "-5"], "--update"),
    (["-t", "noop", "--insert", "60", "--remove", "50"], "--insert/--remove"),
    (["-t", "noop", "-u", "10", "--insert", "20"], "--insert"),
    (["-t", "noop", "-i", "1000", "-r", "999"], "--range"),
    (["-t", "noop", "-i", "0"], "--initial"),
    (["-t", "noop", "-i", "1Q"], "--initial"),
    (["-t", "noop", "--dist", "zipf:0"], "--dist"),
    (["-t", "noop", "--dist", "zipf:-1"], "--dist"),
    (["-t", "noop", "--dist", "zipf"], "--dist"),
    (["-t", "noop", "--dist", "pareto"], "--dist"),
    (["-t", "noop", "-d", "0"], "--duration"),
    (["-t", "noop", "-d", "10", "--ops", "10"], "--ops"),
    (["-t", "noop", "-R", "0"], "--reps"),
    (["-t", "noop", "--density", "0"], "--density"),
    (["-t", "noop", "--prefill", "some"], "--prefill"),
    (["-t", "noop", "-p", "scattered"], "--pin"),
    (["-t", "noop", "-p", "list:0,x"], "--pin"),
    (["-t", "noop", "-p", "list:9999"], "--pin"),
    (["-t", "noop", "--mem", "far"], "--mem"),
    (["--print-pinning", "--topology", "pack:2 core:0"], "--topology"),
    (["--print-pinning", "--topology", "/no/such/topology.xml"], "--topology"),
    (["-t", "noop", "--topology", "pack:2 core:8 pu:2"], "--topology"),
    (["-t", "noop", "--csv", "/no/such/dir/x.csv"], "--csv"),
    (["-t", "noop", "--csv", tmp], "--csv"),
    (["--bogus"], "--bogus"),
    (["-t"], "-t"),
    ([], "--table"),
]
for args, flag in BAD:
    extra = [] if "--csv" in args else ["--csv", csv_path]
    p = run(*args, *extra, "-d", "10") if "-d" not in args and "--ops" not in args and "--print-pinning" not in args and args else run(*args, *extra)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and flag in lines[0] and p.stdout == "",
          f"usage error {' '.join(args) or '(none)'} -> exit {p.returncode}, stderr {lines!r}")
check(not os.path.exists(csv_path), "no CSV file was created by any invalid invocation")

# ---- usage errors, exact message (issue 13 point 14): (args, the one stderr line) ----
exact_csv = os.path.join(tmp, "exact.csv")
EXACT = [
    (["--json=1"], "chtbench: --json: takes no value (got '--json=1')"),
    (["--print-pinning=1"], "chtbench: --print-pinning: takes no value (got '--print-pinning=1')"),
    (["--lat=5", "-t", "noop"], "chtbench: ambiguous option '--lat' (could be --latency, --latency-csv)"),
    (["-t", "noop", "--bogus=3"], "chtbench: unknown option '--bogus' (see --help)"),
    (["-t", "noop", "--latency", "5"],
     "chtbench: unexpected argument '5' (write --latency=5: the value of --latency follows '=')"),
    (["--bench", "mutex", "-r", "1000", "--lock", "tas"],
     "chtbench: --range: not used with --bench mutex (only with table runs)"),
    (["--bench", "mutex", "--lock", "tas", "-u", "10", "--insert", "20"],
     "chtbench: --update: not used with --bench mutex (only with table runs)"),
    (["-t", "clht-lb,,locked"],
     "chtbench: --table: empty element in 'clht-lb,,locked' (expected NAME or NAME:key=val,..., comma separated)"),
    (["-t", "locked,"],
     "chtbench: --table: empty element in 'locked,' (expected NAME or NAME:key=val,..., comma separated)"),
    (["-t", "locked:"], "chtbench: --table locked: expected key=val after ':'"),
    (["-t", "locked:lock=mcs,lock=tas"], "chtbench: --table locked: option 'lock' given twice (each key at most once)"),
    (["-t", "cuckoo:ways=4,hashes=2,ways=2"],
     "chtbench: --table cuckoo: option 'ways' given twice (each key at most once)"),
    (["-t", "noop", "--counters", "ipc,,cache"],
     "chtbench: --counters: empty element in 'ipc,,cache' (expected groups cache, tlb, ipc or PAPI event names, comma separated)"),
    (["-t", "noop", "--counters", "ipc,PAPI_TOT_INS"], "chtbench: --counters: event PAPI_TOT_INS named twice in 'ipc,PAPI_TOT_INS'"),
    (["-t", "noop", "--counters", "cache,tlb,ipc,PAPI_BR_MSP,PAPI_BR_INS"],
     "chtbench: --counters: 'cache,tlb,ipc,PAPI_BR_MSP,PAPI_BR_INS' names more than 8 events (at most 8 per run)"),
    (["--list", "junk"], "chtbench: --list: expected --list, --list=tables or --list=locks (got 'junk')"),
    (["--print-pinning", "--topology", "pack:64 core:64 pu:16"],
     "chtbench: --topology: 'pack:64 core:64 pu:16' describes 65536 PUs; at most 16384 (hwloc's time to build a "
     "synthetic topology grows quadratically: 20 s at 65536 PUs)"),
]
papi = "papi" in run("--version").stdout.split()
for args, want in EXACT:
    if "--counters" in args and not papi:
        want = "chtbench: --counters: this chtbench was built without PAPI (install libpapi-dev and rebuild with -Dpapi=enabled)"
    p = run(*args, "-d", "10", "--csv", exact_csv) if args[0] not in ("--list", "--print-pinning") else run(*args)
    check(p.returncode == 2 and p.stderr.splitlines() == [want] and p.stdout == "",
          f"exact usage error {' '.join(args)} -> exit {p.returncode}, stderr {p.stderr.strip()!r}")
check(not os.path.exists(exact_csv), "no CSV file was created by the exact-message cases")
if papi:
    # groups combine with each other: 'ipc' is not 'unknown' next to 'cache'
    p = run("-t", "noop", "--counters", "ipc,cache", "--ops", "100", "-i", "100", "--json")
    check(p.returncode == 0 and "unknown" not in p.stderr and len(p.stdout.splitlines()) == 1,
          f"--counters ipc,cache is accepted (exit {p.returncode}: {p.stderr.strip()[:160]})")
p = run("--list", "locks")
check(p.returncode == 0 and p.stdout.split()[0] == "pthread-mutex" and "locked" not in p.stdout.split(),
      "--list locks (with a space) lists locks")
p = run("--list", "tables")
check(p.returncode == 0 and "locked" in p.stdout.split() and "pthread-mutex" not in p.stdout.split(),
      "--list tables lists tables")

# ---- --list names every table first on its line ----
p = run("--list")
heads = [l for l in p.stdout.splitlines() if l.strip() and not l.startswith(" ")]
names = [l.split()[0] for l in heads]
check(p.returncode == 0 and "noop" in names and "null" not in names and "locked" in names, f"--list names tables: {names}")
# a plugin's table (the Rust plugin, loaded by default) ends with " (plugin NAME, PATH)" after it
check(all(re.sub(r" \(plugin \S+, .*\)$", "", l.rstrip()).endswith("available") or "unavailable:" in l for l in heads),
      "--list gives availability on every table's line")
# under each table, indented: whether it takes lock=, then its options (key=, help) from its cht_option_spec
detail, cur = {}, None
for l in p.stdout.splitlines():
    if l.startswith(" "):
        detail[cur].append(l.split(None, 1))
    elif l.strip():
        cur = l.split()[0]
        detail[cur] = []
check(detail.get("locked", [[""]])[0][0] == "lock=NAME" and detail["locked"][0][1].startswith("takes a lock: ") and
      [k for k, _ in detail["locked"][1:]] == ["hash=", "impl="],
      f"--list: locked takes lock= and has options hash=, impl= ({detail.get('locked')})")
check([k for k, _ in detail.get("cuckoo", [])] == ["lock=NAME", "hashes=", "max_hashes=", "index=", "ways=", "resize=",
                                                    "prefetch=", "away=", "hash="] and
      detail["cuckoo"][4][1].startswith("1..8 slots per bucket"), f"--list: cuckoo's options ({detail.get('cuckoo')})")
check(detail.get("noop") == [["lock=NAME", "not taken: this table has no lock to choose"]] and
      [k for k, _ in detail.get("hopscotch", [])] == ["lock=NAME", "hash=", "h=", "segments="] and
      detail["hopscotch"][0][1].startswith("not taken"), f"--list: noop and hopscotch take no lock= ({detail.get('hopscotch')})")
# sources are cited by author, title and venue, not by the seed files' numbers
locks_out = run("--list=locks").stdout
check(not any(s in p.stdout + locks_out for s in ["thesis 000", "(000 ", "003 ", "002 ", "seed 0"]),
      "--list and --list=locks cite no seed file numbers")
check('David, Guerraoui, Trigonakis, "Asynchronized Concurrency: The Secret to Scaling Concurrent Search Data '
      'Structures", ASPLOS\'15' in p.stdout and
      'tas            test-and-set spinlock (thesis "Concurrent Hashing on Multi-core Systems" (Hunan Univ., 2017) '
      'alg. 5.1)' in locks_out and 'Calciu et al., "NUMA-aware reader-writer locks", PPoPP\'13, fig. 3' in locks_out,
      "--list cites CLHT's paper, --list=locks the thesis and Calciu et al. by title and venue")
p = run("--list=locks")
check(p.returncode == 0 and "pthread-mutex" in p.stdout.split(), "--list=locks lists pthread-mutex")
p = run("--version")
check(p.returncode == 0 and "hwloc" in p.stdout and "features:" in p.stdout, "--version reports features")

# ---- exact accounting and reproducibility ----
for table in ["locked", "noop"]:
    a = records("-t", table, "-n", "1", "--ops", "200000", "--seed", "7", "-i", "4096", "-u", "40")
    b = records("-t", table, "-n", "1", "--ops", "200000", "--seed", "7", "-i", "4096", "-u", "40")
    keys = ["get_suc", "get_fail", "ins_suc", "ins_fail", "rem_suc", "rem_fail", "final_size"]
    check([a[0][k] for k in keys] == [b[0][k] for k in keys], f"{table}: same seed, --ops, 1 thread -> same counters")
    r = a[0]
    check(r["total_ops"] == 200000 and sum(r[k] for k in keys[:6]) == 200000, f"{table}: --ops 200000 -> 200000 ops")
    check(r["final_size"] == 4096 + r["ins_suc"] - r["rem_suc"] and r["size_ok"] == 1,
          f"{table}: final size = i + ins_suc - rem_suc")
c = records("-t", "locked", "-n", "1", "--ops", "200000", "--seed", "8", "-i", "4096", "-u", "40")
check(c[0]["get_suc"] != a[0]["get_suc"] or c[0]["ins_suc"] != a[0]["ins_suc"], "a different seed gives a different run")

# ---- uneven split and the thesis' default split ----
r = records("-t", "noop", "-n", "2", "--ops", "100000", "--insert", "30", "--remove", "10")[0]
check(r["update"] == 40 and r["insert"] == 30 and r["remove"] == 10, "--insert 30 --remove 10 -> update 40")
ins = (r["ins_suc"] + r["ins_fail"]) / r["total_ops"]
rem = (r["rem_suc"] + r["rem_fail"]) / r["total_ops"]
check(abs(ins - 0.30) < 0.01 and abs(rem - 0.10) < 0.01, f"op mix follows the split: insert {ins:.3f}, remove {rem:.3f}")
r = records("-t", "noop", "-n", "1", "--ops", "100000", "-u", "0")[0]
check(r["get_fail"] == 100000 and r["ins_suc"] == 0, "u=0 -> only gets")

# ---- HTM columns: present for tables under an elided lock, empty for the others ----
r = records("-t", "clht-rtm:lock=mcs,clht-lb", "-n", "1", "--ops", "2000", "-i", "1000")
check(r[0]["tx_begins"] == 0 and r[0]["tx_fallbacks"] == 0 and r[1]["tx_begins"] is None,
      "tx_* columns: 0 for clht-rtm under a non-RTM lock, null for clht-lb")

# ---- sizes ----
for spec, val in [("2^10", 1024), ("1K", 1024), ("1000", 1000), ("3M", 3 << 20)]:
    r = records("-t", "noop", "--ops", "10", "-i", spec)[0]
    check(r["initial"] == val and r["range"] == 2 * val, f"--initial {spec} -> {val}, range 2i")

# ---- reps, thread lists, CSV ----
csv_ok = os.path.join(tmp, "ok.csv")
p = run("-t", "noop,locked:lock=pthread-spin", "-n", "1-2", "-R", "2", "-d", "20", "-i", "1000", "--csv", csv_ok)
check(p.returncode == 0, f"a 2x2x2 run succeeds (exit {p.returncode}: {p.stderr.strip()})")
rows = list(csv.DictReader(open(csv_ok)))
check(len(rows) == 8, f"2 tables x 2 thread counts x 2 reps -> 8 rows (got {len(rows)})")
check([r["table"] for r in rows] == ["noop"] * 4 + ["locked"] * 4 and rows[4]["options"] == "lock=pthread-spin",
      "rows carry table and options")
check(all(r["size_ok"] == "1" for r in rows), "every row passed its size check")
lines = open(csv_ok).read().splitlines()
check(lines[0].startswith("schema,run_id,timestamp,host,table,options,threads"), "CSV header starts with the schema columns")

# parallel writers: 6 processes append to one file at once
par = os.path.join(tmp, "par.csv")
with ThreadPoolExecutor(6) as ex:
    procs = list(ex.map(lambda i: run("-t", "noop", "-n", "1", "-R", "5", "-d", "5", "-i", "100",
                                      "--seed", str(i), "--csv", par), range(6)))
check(all(p.returncode == 0 for p in procs), "6 parallel runs succeed")
text = open(par).read().splitlines()
header = text[0]
ncol = len(header.split(","))
check(sum(1 for l in text if l == header) == 1, "parallel writers: exactly one header")
check(len(text) == 31 and all(len(next(csv.reader([l]))) == ncol for l in text),
      f"parallel writers: 30 whole rows of {ncol} fields (got {len(text) - 1} rows)")

# ---- pinning plans through the CLI ----
p = run("--print-pinning", "--topology", "pack:2 core:8 pu:2", "-n", "24", "-p", "compact")
plan = [l.split() for l in p.stdout.splitlines() if not l.startswith("#")]
check(p.returncode == 0 and len(plan) == 24, "--print-pinning prints one line per thread")
check(all(r[3] == "0" for r in plan[:16]) and all(r[3] == "1" for r in plan[16:]) and
      len({r[2] for r in plan[16:]}) == 4, "compact 24 on E5-2630: 16 on socket 0, 8 on 4 cores of socket 1")
p = run("--print-pinning", "-n", "2")
check(p.returncode == 0 and [l.split()[1:] for l in p.stdout.splitlines() if not l.startswith("#")] ==
      [["-"] * 4] * 2, "default pinning prints '-' columns")

# ---- oversubscription warns, runs, stays exact ----
p = run("-t", "locked", "-n", "16", "--ops", "20000", "-i", "64", "-u", "50", "--json")
r = json.loads(p.stdout.splitlines()[0]) if p.returncode == 0 else {}
check(p.returncode == 0 and "oversubscribed" in p.stderr and r.get("size_ok") == 1 and r.get("total_ops") == 320000,
      "16 threads on a small machine: warning, exact counts")

# ---- --pin list: a repeated CPU and a short list (it wraps around) are named in the warning ----
p = run("-t", "noop", "-n", "2", "-p", "list:0,0", "--ops", "1000", "-i", "100", "--json")
r = json.loads(p.stdout.splitlines()[0]) if p.returncode == 0 else {}
check(p.returncode == 0 and "chtbench: warning: the --pin list names CPU 0 twice (threads 0 and 1 share it): "
      "oversubscribed" in p.stderr.splitlines() and r.get("oversubscribed") == 1,
      f"-p list:0,0 -n 2: the warning names the repeated CPU (got {p.stderr.strip()[:200]!r})")
p = run("-t", "noop", "-n", "3", "-p", "list:0", "--ops", "1000", "-i", "100", "--json")
r = json.loads(p.stdout.splitlines()[0]) if p.returncode == 0 else {}
check(p.returncode == 0 and "chtbench: warning: 3 threads on the 1 CPU of the --pin list (it wraps around: threads 0 "
      "and 1 share CPU 0): oversubscribed" in p.stderr.splitlines() and r.get("oversubscribed") == 1 and
      r.get("total_ops") == 3000, f"-n 3 -p list:0 wraps around (got exit {p.returncode}, {p.stderr.strip()[:200]!r})")
p = run("--print-pinning", "--topology", "pack:1 core:4 pu:1", "-n", "5", "-p", "list:1,3")
plan = [l.split()[1] for l in p.stdout.splitlines() if not l.startswith("#")]
check(p.returncode == 0 and plan == ["1", "3", "1", "3", "1"] and "(oversubscribed)" in p.stdout,
      f"--print-pinning -n 5 -p list:1,3: thread k on entry k mod 2 (got {plan})")

# ---- noop: pandas must not read any value chtbench writes as NaN ----
pandas_check = r"""
import csv, sys
import pandas as pd
from pandas._libs.parsers import STR_NA_VALUES
path, names = sys.argv[1], sys.argv[2:]
bad = [n for n in names if n in STR_NA_VALUES]
rows = list(csv.DictReader(open(path)))
# every non-empty cell; an empty cell is "not measured" (docs/csv.md) except in 'options'
cells = [(k, v) for r in rows for k, v in r.items() if v != "" and v in STR_NA_VALUES]
df = pd.read_csv(path)
groups = sorted(df.groupby("table").size().index)
print(f"names {bad} cells {cells} groups {groups}")
sys.exit(0 if not bad and not cells and groups == ["locked", "noop"] and len(df) == len(rows) else 1)
"""
na_csv = os.path.join(tmp, "na.csv")
p = run("-t", "null,locked", "-n", "1,2", "--ops", "2000", "-i", "1000", "-p", "compact", "--dist", "zipf:0.9",
        "--csv", na_csv)
rows = list(csv.DictReader(open(na_csv))) if p.returncode == 0 else []
check(p.returncode == 0 and [r["table"] for r in rows] == ["noop", "noop", "locked", "locked"],
      f"-t null is an alias of noop and the CSV says noop (got exit {p.returncode}, {[r['table'] for r in rows]})")
names = [l.split()[0] for l in run("--list").stdout.splitlines() + run("--list=locks").stdout.splitlines()
         if l.strip()]
names += ["default", "compact", "balanced", "list", "local", "interleave", "uniform", "single", "parallel",
          "mutex", "rwlock"]
p = subprocess.run(["/usr/bin/python3", "-c", pandas_check, na_csv, *names], capture_output=True, text=True)
check(p.returncode == 0, f"pandas (/usr/bin/python3) reads every table, lock and policy name as itself, groupby('table') "
      f"keeps noop: {(p.stdout + p.stderr).strip()[-300:]}")
lb_csv = os.path.join(tmp, "na-lockbench.csv")
p = run("--bench", "rwlock", "--lock", "pthread-rwlock,c-rw-np", "-d", "5", "-p", "balanced", "--csv", lb_csv)
bad = [(k, v) for r in (csv.DictReader(open(lb_csv)) if p.returncode == 0 else []) for k, v in r.items()
       if v in ("NA", "N/A", "n/a", "nan", "NaN", "null", "NULL", "None", "#N/A", "<NA>")]
check(p.returncode == 0 and not bad, f"lock-bench CSV: no cell is a pandas NA string (exit {p.returncode}, {bad})")

# ---- allocation failure is a clean error ----
bad_csv = os.path.join(tmp, "oom.csv")
import resource
p = subprocess.run([BIN, "-t", "locked", "-i", "256M", "-d", "10", "--csv", bad_csv], capture_output=True, text=True,
                   timeout=120, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)))
check(p.returncode == 1 and ("cannot create" in p.stderr or "needs about" in p.stderr) and
      len(p.stderr.strip().splitlines()) == 1,
      f"--initial 256M under a 1 GiB address space: one-line error, exit 1 (got {p.returncode}: {p.stderr.strip()[:120]})")
check(not os.path.exists(bad_csv), "--initial 256M under a 1 GiB address space: no CSV row")

# ---- sizes the run cannot do are usage errors naming the flag (exit 2, nothing written) ----
mem = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
huge = 1 << 41   # 2^41 keys x 16 bytes = 32 TiB
if mem < 16 * huge:
    SIZES = [
        (["-t", "locked", "-i", "2^41"], "chtbench: --initial: 2199023255552 keys need at least 32.0 TiB (16 bytes a key) "
         "but this machine has "),
        (["-t", "locked", "--density", "1e-9"], "chtbench: --density: 1e-09 with --initial 1048576 asks for 1.05e+15 "
         "slots, at least 7.5 PiB (8 bytes a slot), but this machine has "),
        (["-t", "locked", "-i", "2^61", "--density", "0.1"], "chtbench: --initial: 2305843009213693952 keys need at least "
         "32.0 EiB (16 bytes a key) but this machine has "),
        (["-t", "noop,clht-lb", "-i", "2^41"], "chtbench: --initial: 2199023255552 keys need at least 32.0 TiB "),
    ]
else:
    SIZES = []
SIZES += [
    (["-t", "noop", "-i", "1T"], "chtbench: --initial: 1099511627776 keys would take hours to prefill "
     "(at most 2^38 = 274877906944)"),
    (["-t", "null", "-i", "2^39", "-r", "2^40"], "chtbench: --initial: 549755813888 keys would take hours to prefill "
     "(at most 2^38 = 274877906944)"),
]
size_csv = os.path.join(tmp, "sizes.csv")
for args, want in SIZES:
    p = run(*args, "-d", "10", "--csv", size_csv, timeout=20)
    lines = p.stderr.splitlines()
    check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith(want) and p.stdout == "",
          f"{' '.join(args)}: exit {p.returncode}, stderr {p.stderr.strip()!r}")
check(not os.path.exists(size_csv), "oversized runs wrote no CSV file")
p = run("-t", "noop", "-i", "1", "--density", "1e-9", "--ops", "10", "--json")
check(p.returncode == 0, f"noop stores nothing: --density 1e-9 is no memory problem (exit {p.returncode})")

# ---- the README and docs stand alone: every link resolves inside the repository ----
import re
root = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
outside = []
for doc in ["README.md"] + ["docs/" + f for f in sorted(os.listdir(os.path.join(root, "docs"))) if f.endswith(".md")]:
    text = open(os.path.join(root, doc)).read()
    for target in re.findall(r"\]\(([^)#\s]+)", text) + re.findall(r"`(\.\./[^`]*)`", text):
        if re.match(r"[a-z]+://", target):
            continue
        path = os.path.realpath(os.path.join(root, os.path.dirname(doc), target))
        if not path.startswith(root + os.sep) or not os.path.exists(path):
            outside.append(f"{doc}: {target}")
check(not outside and os.path.exists(os.path.join(root, "docs", "design.md")),
      f"README and docs link only files inside the repository (bad: {outside})")

finish()
