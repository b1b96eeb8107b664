#!/usr/bin/env python3
"""test_schema.py - `chtbench --schema` is the one declaration of every results file's columns.

Usage: test_schema.py BIN docs/csv.md
Checks: --schema prints every schema with the versions --version reports; --schema NAME prints
the same list; each declaration is complete (type, meaning, unique names); the headers chtbench
writes (table, latency, timeline, lock CSV) and the --json record's fields are the declared ones
in order; the table CSV has at most 100 columns; docs/csv.md's column tables equal the text
generated from --schema (and a doc with one meaning changed or a column dropped is caught);
scripts/chtb matches sweep cells through the declared flags, each one a chtbench flag.
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

BIN, DOC = os.path.abspath(sys.argv[1]), sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from checks import check, finish  # noqa: E402 (tests/checks.py)
from chtb import config, schema  # noqa: E402

NAMES = ["table", "latency", "timeline", "table-counters", "lock", "memory", "occupancy"]
TYPES = {"int", "float", "text", "0/1", "object"}


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)


p = run("--schema")
check(p.returncode == 0 and p.stderr == "", f"--schema: exit 0, nothing on stderr ({p.stderr.strip()[:200]})")
try:
    every = json.loads(p.stdout)
except ValueError:
    every = {}
check(list(every) == NAMES, f"--schema lists the schemas {NAMES} (got {list(every)})")
m = re.search(r"csv schema: (\d+) \(latency (\d+), timeline (\d+), table-counters (\d+), lock-bench (\d+)\)",
              run("--version").stdout)
check(m and [int(x) for x in m.groups()] == [every.get(n, {}).get("version") for n in NAMES[:5]],
      "the versions of --schema are those --version reports")

for name, s in every.items():
    cols = s["columns"]
    one = run("--schema", name)
    check(one.returncode == 0 and json.loads(one.stdout) == cols, f"--schema {name} prints the same list")
    check(cols and cols[0]["name"] == "schema" and f"({s['version']})" in cols[0]["meaning"],
          f"{name}: the first column is `schema`, its meaning names version {s['version']}")
    bad = [c["name"] for c in cols if c["type"] not in TYPES or not c["meaning"].strip() or
           not re.fullmatch(r"[a-z][a-z0-9_]*", c["name"]) or set(c) != {"name", "column", "type", "unit", "flag",
                                                                        "meaning"}]
    check(not bad, f"{name}: every column has a name, a type of {sorted(TYPES)} and a meaning (bad: {bad[:5]})")
    names = [c["name"] for c in cols]
    check(len(names) == len(set(names)), f"{name}: column names are unique")
    pos = [c["column"] for c in cols if c["column"] is not None]
    check(pos == list(range(1, len(pos) + 1)), f"{name}: CSV positions are 1..{len(pos)} in order")

p = run("--schema", "nope")
check(p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1 and "table" in p.stderr,
      "--schema nope: exit 2, one line naming the schemas")

# ---- the files chtbench writes carry exactly the declared columns ----
tmp = tempfile.mkdtemp(prefix="chtbench-schema-")
f = {k: os.path.join(tmp, k + ".csv") for k in ("table", "latency", "timeline", "table-counters", "lock")}
p = run("-t", "locked", "-i", "1K", "--ops", "20000", "-u", "20", "--latency=4", "--timeline", "5",
        "--csv", f["table"], "--latency-csv", f["latency"], "--timeline-csv", f["timeline"], "--json")
check(p.returncode == 0, f"a table run with every side file: exit 0 ({p.stderr.strip()[-200:]})")
c = run("-t", "cuckoo", "-i", "1K", "--ops", "1000", "--table-counters-csv", f["table-counters"])
check(c.returncode == 0, "a table run with --table-counters-csv: exit 0")
q = run("--bench", "mutex", "--lock", "tas", "-d", "10", "--csv", f["lock"])
check(q.returncode == 0, "a lock bench: exit 0")


def header(path):
    with open(path) as fh:
        return next(csv.reader(fh), [])


for k in f:
    got = header(f[k]) if os.path.exists(f[k]) else []
    want = [c["name"] for c in every.get(k, {}).get("columns", []) if c["column"] is not None]
    check(got == want, f"{k} CSV header == the declared columns ({len(got)} vs {len(want)}; first difference "
                       f"{next(((i, a, b) for i, (a, b) in enumerate(zip(got, want)) if a != b), None)})")
rec = next((json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")), {})
check(list(rec) == [c["name"] for c in every["table"]["columns"]],
      "the --json record has every declared field in order, the JSON-only ones included")
ncsv = len(header(f["table"]))
check(0 < ncsv <= 100, f"the table CSV has at most 100 columns ({ncsv})")
with open(f["table"]) as fh:
    row = next(csv.DictReader(fh), {})
check(all(row.get(f"lat_{s}_{q}_ns") for s in ("get_suc", "ins_suc") for q in ("p50", "p99", "p999")),
      "the table row carries p50/p99/p99.9 of the latency classes with samples")
with open(f["latency"]) as fh:
    lat = list(csv.DictReader(fh))
check(len(lat) == 8 and all(r["run_id"] == row.get("run_id") and r["rep"] == row.get("rep") for r in lat),
      "--latency-csv: one row per class, joined to the table row by run_id + rep")
p = run("-t", "locked", "-i", "1K", "--ops", "100", "--csv", f["latency"])
check(p.returncode == 2 and "latency" in p.stderr and "foreign" not in p.stderr,
      f"a latency file given as --csv is refused and named as one ({p.stderr.strip()[:160]})")

# ---- docs/csv.md is generated from --schema ----
with open(DOC, encoding="utf-8") as fh:
    doc = fh.read()
try:
    gen = schema.render_doc(doc, every)
except ValueError as e:
    gen = f"(no block: {e})"
check(gen == doc, "docs/csv.md's column tables equal scripts/chtb/schema.py's text from --schema "
                  "(else: scripts/chtb/schema.py --update docs/csv.md)")
r = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "chtb",
                                                 "schema.py"), "--chtbench", BIN, "--check", DOC],
                   capture_output=True, text=True)
check(r.returncode == 0, f"scripts/chtb/schema.py --check docs/csv.md: exit 0 ({r.stderr.strip()[:200]})")
# the comparison can fail: a changed meaning, a dropped column, an extra documented column
line = next(l for l in doc.splitlines() if l.startswith("| 28 | mops |"))
for what, broken in [("a changed meaning", doc.replace(line, line.replace("10^6", "10^3"))),
                     ("a dropped column", doc.replace(line + "\n", "")),
                     ("an extra column", doc.replace(line + "\n", line + "\n| 28b | mops_x | float |  | x |\n"))]:
    path = os.path.join(tmp, "csv.md")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(broken)
    r = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts",
                                                     "chtb", "schema.py"), "--chtbench", BIN, "--check", path],
                       capture_output=True, text=True)
    check(broken != doc and r.returncode == 1 and "--update" in r.stderr, f"--check catches {what} in the doc")

# ---- scripts/chtb reads the columns from the schema ----
schema.use(BIN)
flags = set(re.findall(r"--([a-z][a-z0-9-]*)", run("--help").stdout))
for bench in (False, True):
    cols = config.flag_columns(bench)
    check(cols and set(cols) <= flags, f"{'lock' if bench else 'table'} schema: the declared flags "
                                       f"{sorted(cols)} are chtbench flags")
sw = config.from_dict({"sweep": {"base": [], "axes": {"table": ["null:x=1"], "initial": ["1M"], "pin": ["list:0"],
                                                      "value-size": ["1K"], "verify": ["off"]}}}, ncpu=1)
check(config.match_key(sw, sw.cells[0]) == {"table": "noop", "options": "x=1", "initial": 1 << 20, "pin": "list",
                                            "value_size": 1024},
      "match_key: table/options, sizes, pin policy through the declarations; a flag no column records is not matched")
for k in f:
    os.unlink(f[k])
os.unlink(os.path.join(tmp, "csv.md"))
os.rmdir(tmp)
finish()
