#!/usr/bin/env python3
"""test_table_counters.py - the table-counter channel (issue 51 point 6; include/cht.h cht_stats_counter):
a table's own named counters, reported by its stats() once after each repetition, reach the --json
record (`table_counters`) and the long-form side file (--table-counters-csv, one row per counter and
repetition) with their exact values; a table with none gives {} and no rows; a name the driver cannot
use as a JSON key and CSV cell, or one reported twice, fails the run naming it. The twin plugin of
tests/twins.c reports `faultable_ops` and, with counter=NAME, a counter of any name; twin-nostats has no stats().

Usage: test_table_counters.py CHTBENCH TWINS_PLUGIN
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

from checks import check, finish  # noqa: E402 (tests/checks.py)

BIN, TWINS = sys.argv[1], sys.argv[2]


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)


def records(p):
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]


side = json.loads(run("--schema").stdout)["table-counters"]
names = [c["name"] for c in side["columns"]]
check(names[0] == "schema" and names[-2:] == ["counter", "value"] and "rep" in names and "table" in names,
      f"--schema table-counters: the run key, then counter and value ({names[:3]} ... {names[-2:]})")
table_cols = {c["name"]: c for c in json.loads(run("--schema", "table").stdout)}
check("table_counters" in table_cols and table_cols["table_counters"]["column"] is None,
      "the table schema declares table_counters, a --json field only (no CSV column)")

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "counters.csv")
    p = run("-t", "cuckoo,cuckoo:hashes=3", "-n", "2", "-i", "1K", "--ops", "2000", "--reps", "2", "--json",
            "--table-counters-csv", path)
    recs = records(p)
    check(p.returncode == 0 and len(recs) == 4, f"cuckoo x2 specs x2 reps: exit 0, 4 records ({p.returncode}, {len(recs)})")
    want = [{"hash_functions": 2, "hash_adds": 0}] * 2 + [{"hash_functions": 3, "hash_adds": 0}] * 2
    got = [r.get("table_counters") for r in recs]
    check(got == want, f"--json table_counters are the table's own, exact ({got})")
    rows = list(csv.DictReader(open(path)))
    check(len(rows) == 8, f"--table-counters-csv: one row per counter and repetition (8: {len(rows)})")
    check([(r["options"], r["rep"], r["counter"], r["value"]) for r in rows] ==
          [("-", "0", "hash_functions", "2"), ("-", "0", "hash_adds", "0"),
           ("-", "1", "hash_functions", "2"), ("-", "1", "hash_adds", "0"),
           ("hashes=3", "0", "hash_functions", "3"), ("hashes=3", "0", "hash_adds", "0"),
           ("hashes=3", "1", "hash_functions", "3"), ("hashes=3", "1", "hash_adds", "0")],
          "the rows: each spec's repetitions in order, the counters in the table's order, integers as integers")
    check(all(r["schema"] == str(side["version"]) for r in rows) and
          len({r["run_id"] for r in rows}) == 1 and rows[0]["run_id"] == recs[0]["run_id"],
          "every row carries the schema version from --schema and the records' run_id")

    path2 = os.path.join(d, "none.csv")
    p = run("-t", "clht-lb", "-n", "1", "-i", "1K", "--ops", "1000", "--json", "--table-counters-csv", path2)
    recs = records(p)
    data = list(csv.DictReader(open(path2))) if os.path.exists(path2) else []
    check(p.returncode == 0 and [r.get("table_counters") for r in recs] == [{}] and data == [],
          f"clht-lb reports none: {{}} and no rows ({[r.get('table_counters') for r in recs]}, {len(data)} rows)")

    twin = ["--plugin", TWINS, "-n", "2", "-i", "1K", "--ops", "2000", "--json"]
    p = run(*twin, "-t", "twin:counter=spare_1")
    recs = records(p)
    check(p.returncode == 0 and [r.get("table_counters") for r in recs] == [{"faultable_ops": 0, "spare_1": 1}],
          f"a plugin's counters, in its order ({p.returncode}, {[r.get('table_counters') for r in recs]})")
    path4 = os.path.join(d, "nostats.csv")
    p = run(*twin, "-t", "twin-nostats", "--table-counters-csv", path4)
    rows = list(csv.DictReader(open(path4))) if os.path.exists(path4) else []
    check(p.returncode == 0 and [r.get("table_counters") for r in records(p)] == [None] and rows == [],
          f"a table without stats(): table_counters null, no rows ({p.returncode}, {len(rows)} rows)")
    for name, why in [("Bad-Name", "not 1..47 of [a-z0-9_] starting with a letter"),
                      ("9lives", "not 1..47 of [a-z0-9_] starting with a letter"),
                      ("x" * 48, "not 1..47 of [a-z0-9_] starting with a letter"),
                      ("faultable_ops", "reported twice")]:
        path3 = os.path.join(d, f"refused-{len(name)}.csv")
        p = run(*twin, "-t", f"twin:counter={name}", "--table-counters-csv", path3)
        rows = list(csv.DictReader(open(path3))) if os.path.exists(path3) else []
        check(p.returncode == 1 and f"table counter '{name[:60]}': {why}" in p.stderr and rows == [],
              f"counter {name[:20]!r}: the run fails naming it ({why}), no row ({p.returncode}, "
              f"{p.stderr.strip().splitlines()[-1:] if p.stderr else ''}, {len(rows)} rows)")

listed = run("--list").stdout
if "rs-dashmap" in listed:
    p = run("-t", "rs-dashmap", "-n", "1", "-i", "1K", "--ops", "1000", "--json")
    check([r.get("table_counters") for r in records(p)] == [{"panics": 0}],
          "a Rust map reports through the same channel (panics)")
finish()
