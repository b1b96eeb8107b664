#!/usr/bin/env python3
"""The Java maps plugin (plugins/java) is built but not loaded by default: without --plugin no jv-* table
is listed; with it jv-chm and jv-nbhm are listed as the plugin's, run with exact counts and the final
check, their JVM options (heap, gc) in the row and the JVM's counters in table_counters; a bad option
value, and a second table asking for another JVM than the process's, are one-line usage errors (exit 2,
no results file); a heap too small for -i is refused by create (exit 1, no results file); a missing jar (CHTBENCH_JAVA_CLASSPATH) and JAVA_TOOL_OPTIONS make the maps
unavailable with the reason.

    test_java_plugin.py CHTBENCH PATH/libcht_java.so
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

from checks import check, finish  # noqa: E402 (tests/checks.py)

BIN, SO = sys.argv[1], os.path.abspath(sys.argv[2])
env = {k: v for k, v in os.environ.items()
       if k not in ("CHTBENCH_PLUGINS", "CHTBENCH_JAVA_CLASSPATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS")}
tmp = tempfile.mkdtemp(prefix="java-plugin-")


def run(args, extra_env=None):
    return subprocess.run([BIN] + args, capture_output=True, text=True, env=dict(env, **(extra_env or {})),
                          timeout=240)


p = run(["--list"])
check(p.returncode == 0 and not any(x.startswith("jv-") for x in p.stdout.splitlines()),
      "without --plugin: no jv-* table listed (not a default plugin)")
p = run(["--plugin", SO, "--list"])
lines = [x for x in p.stdout.splitlines() if x.startswith("jv-")]
check(p.returncode == 0 and [x.split()[0] for x in lines] == ["jv-chm", "jv-nbhm"] and
      all(x.endswith(f"available (plugin java, {os.path.realpath(SO)})") for x in lines),
      f"--plugin: jv-chm and jv-nbhm listed as the plugin's, available ({lines})")

# a run: 2 threads, -u 50, exact op counts, final check, options in the row
out = os.path.join(tmp, "java.csv")
p = run(["-t", "jv-chm:heap=256m,gc=parallel,jv-nbhm:heap=256m,gc=parallel", "-n", "2", "--ops", "20000",
         "-i", "4K", "-u", "50", "--csv", out], {"CHTBENCH_PLUGINS": SO})
rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
check(p.returncode == 0 and [r["table"] for r in rows] == ["jv-chm", "jv-nbhm"] and
      all(r["outcome"] == "ok" and r["total_ops"] == "40000" and r["plugin"] == "java" and
          r["size_ok"] == "1" and r["verify_ok"] == "1" and r["final_size"] == r["expected_size"] and
          int(r["get_suc"]) + int(r["get_fail"]) + int(r["ins_suc"]) + int(r["ins_fail"]) +
          int(r["rem_suc"]) + int(r["rem_fail"]) == 40000 for r in rows),
      f"CHTBENCH_PLUGINS: 2 threads, -u 50: 40000 ops each, sizes and final check ok "
      f"({p.returncode}: {p.stderr.strip()[-300:]})")
check(len(rows) == 2 and all(r["options"] == "heap=256m,gc=parallel" for r in rows),
      f"the JVM's options recorded in the row's options ({[r['options'] for r in rows]})")

# --json: the table counters from the JVM; stats' bytes from its heap
p = run(["--plugin", SO, "-t", "jv-nbhm:gc=serial,heap=128m", "-n", "1", "--ops", "10000", "-i", "20K", "-u", "10",
         "--json"])
recs = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
tc = recs[0].get("table_counters", {}) if len(recs) == 1 else {}
check(p.returncode == 0 and len(recs) == 1 and recs[0]["outcome"] == "ok" and
      sorted(tc) == ["jvm_gc_count", "jvm_gc_ms", "jvm_heap_max_bytes", "jvm_jit_ms"] and
      100 << 20 < tc["jvm_heap_max_bytes"] <= 128 << 20 and tc["jvm_gc_count"] >= 0 and tc["jvm_jit_ms"] >= 0,
      f"--json: table_counters jvm_gc_count, jvm_gc_ms, jvm_jit_ms, jvm_heap_max_bytes within heap=128m ({tc})")
# 20K keys of boxed Long values: at least 8 + 16 bytes a key, and not a megabyte a key
bpk = recs[0].get("bytes_per_key") if len(recs) == 1 else None
check(bpk is not None and 24 <= bpk <= 1000, f"bytes_per_key from the JVM's heap after a full GC ({bpk})")

# bad option values and a clash with the process's JVM: one line, exit 2, no results file
for spec, words in [("jv-chm:heap=12x", ["--table jv-chm", "heap=12x", "16m..1024g"]),
                    ("jv-chm:heap=8m", ["--table jv-chm", "heap=8m", "16m..1024g"]),
                    ("jv-nbhm:gc=zgc", ["--table jv-nbhm", "gc=zgc", "g1|parallel|serial"]),
                    ("jv-chm:heap=256m,jv-nbhm:heap=512m", ["--table jv-nbhm", "heap=256m", "one JVM per process"])]:
    bad = os.path.join(tmp, "bad.csv")
    p = run(["--plugin", SO, "-t", spec, "--ops", "100", "-i", "1K", "--csv", bad])
    err = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(err) == 1 and all(w in err[0] for w in words) and not os.path.exists(bad),
          f"-t {spec}: exit 2, one line naming {words}, no CSV ({p.returncode}: {err})")

# a heap too small for the prefill: create refuses (about 100 bytes a key) before any row, not an
# OutOfMemoryError midway
small = os.path.join(tmp, "small.csv")
p = run(["--plugin", SO, "-t", "jv-chm:heap=64m", "-i", "1M", "--ops", "100", "--csv", small])
err = p.stderr.strip().splitlines()
check(p.returncode == 1 and len(err) == 1 and "heap=64m is too small" in err[0] and "1048576 keys" in err[0] and
      not os.path.exists(small), f"heap=64m, -i 1M: create refuses, one line, exit 1, no CSV ({p.returncode}: {err})")

# the jar missing: unavailable with the reason, in --list and as a run's error
missing = os.path.join(tmp, "no-such.jar")
cp_env = {"CHTBENCH_JAVA_CLASSPATH": missing}
p = run(["--plugin", SO, "--list"], cp_env)
lines = [x for x in p.stdout.splitlines() if x.startswith("jv-")]
check(p.returncode == 0 and len(lines) == 2 and all("unavailable" in x and missing in x for x in lines),
      f"CHTBENCH_JAVA_CLASSPATH to a missing jar: --list says unavailable, naming it ({lines})")
p = run(["--plugin", SO, "-t", "jv-chm", "--ops", "100", "-i", "1K", "--csv", os.path.join(tmp, "none.csv")],
        cp_env)
check(p.returncode == 2 and missing in p.stderr and "No such file" in p.stderr and
      not os.path.exists(os.path.join(tmp, "none.csv")),
      f"... and a run of jv-chm fails with that reason, no CSV ({p.returncode}: {p.stderr.strip()[-200:]})")
p = run(["--plugin", SO, "--list"], {"JAVA_TOOL_OPTIONS": "-Xmx64m"})
lines = [x for x in p.stdout.splitlines() if x.startswith("jv-")]
check(len(lines) == 2 and all("unavailable" in x and "JAVA_TOOL_OPTIONS is set" in x for x in lines),
      f"JAVA_TOOL_OPTIONS set: unavailable, saying the row would not record its flags ({lines})")
finish()
