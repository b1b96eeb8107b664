#!/usr/bin/env python3
"""The Go maps plugin (plugins/go) is built but not loaded by default (loading it starts the Go runtime,
whose threads and reserved address space would be in every process): without --plugin no go-* table is
listed; with --plugin PATH (or CHTBENCH_PLUGINS) go-syncmap and go-xsync are listed as the plugin's and
run with exact counts and the final check.

    test_go_plugin.py CHTBENCH PATH/libcht_go.so
"""
import csv
import os
import subprocess
import sys
import tempfile

from checks import check, finish  # noqa: E402 (tests/checks.py)

BIN, SO = sys.argv[1], os.path.abspath(sys.argv[2])
env = {k: v for k, v in os.environ.items() if k != "CHTBENCH_PLUGINS"}
p = subprocess.run([BIN, "--list"], capture_output=True, text=True, env=env)
check(p.returncode == 0 and not any(x.startswith("go-") for x in p.stdout.splitlines()),
      "without --plugin: no go-* table listed (not a default plugin)")
p = subprocess.run([BIN, "--plugin", SO, "--list"], capture_output=True, text=True, env=env)
lines = [x for x in p.stdout.splitlines() if x.startswith("go-")]
check(p.returncode == 0 and [x.split()[0] for x in lines] == ["go-syncmap", "go-xsync"] and
      all(x.endswith(f"(plugin go, {os.path.realpath(SO)})") for x in lines),
      f"--plugin: go-syncmap and go-xsync listed as the plugin's ({lines})")
out = os.path.join(tempfile.mkdtemp(prefix="go-plugin-"), "go.csv")
p = subprocess.run([BIN, "-t", "go-syncmap,go-xsync", "-n", "2", "--ops", "20000", "-i", "4K", "-u", "50",
                    "--csv", out], capture_output=True, text=True, env=dict(env, CHTBENCH_PLUGINS=SO))
rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
check(p.returncode == 0 and len(rows) == 2 and all(r["outcome"] == "ok" and r["total_ops"] == "40000" and
                                                   r["plugin"] == "go" for r in rows),
      f"CHTBENCH_PLUGINS: 2 threads, -u 50: 40000 ops each, final check ok ({p.returncode}: {p.stderr.strip()[-300:]})")
finish()
