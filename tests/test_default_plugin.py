#!/usr/bin/env python3
"""Plugins built with chtbench are loaded by default (meson passes CHTBENCH_DEFAULT_PLUGINS; src/plugin.c):
a plugin's tables (default: the Rust plugin's rs-*) are listed and run like built-in ones without --plugin;
--plugin with the same file is a no-op; a default plugin that is missing is skipped without a word; one that
is there but cannot be loaded is an error (exit 2, one line naming it).

    test_default_plugin.py CHTBENCH PATH/libcht_rust.so

Moves the built plugin aside for a moment (restored in every case): run alone (is_parallel: false)."""
import csv
import io
import os
import subprocess
import sys

chtbench, so = sys.argv[1], os.path.abspath(sys.argv[2])
failures = 0
PLUGIN = sys.argv[3] if len(sys.argv) > 3 else "rust"
RS = sys.argv[4].split(",") if len(sys.argv) > 4 else ["rs-dashmap", "rs-papaya", "rs-scc", "rs-std-mutex", "rs-flurry",
                                                      "rs-contrie", "rs-scc-index"]


def check(cond, msg):
    global failures
    print(("ok: " if cond else "FAIL: ") + msg)
    failures += not cond


def run(*args):
    env = dict(os.environ, RUST_BACKTRACE="0")
    env.pop("CHTBENCH_PLUGINS", None)
    return subprocess.run([chtbench, *args], capture_output=True, text=True, timeout=300, env=env)


def listed():
    p = run("--list")
    return p, {l.split()[0]: l for l in p.stdout.splitlines() if l and not l[0].isspace()}


p, names = listed()
check(p.returncode == 0 and all(t in names for t in RS), f"--list shows {RS} without --plugin")
check(all(f"(plugin {PLUGIN}, {so})" in names.get(t, "") for t in RS), f"each marked (plugin {PLUGIN}, PATH)")
p = run("--version")
check(any(l.startswith(f"plugin: {PLUGIN} {so} sha256 ") for l in p.stdout.splitlines()), "--version names the file")
p = run("--plugin", so, "-t", ",".join(RS), "-n", "2", "-i", "1K", "-d", "30", "--csv", "-")
rows = list(csv.DictReader(io.StringIO(p.stdout)))
check(p.returncode == 0 and [r["table"] for r in rows] == RS and all(r["plugin"] == PLUGIN for r in rows),
      f"--plugin with the default file again: a no-op; 2-thread rows for every {PLUGIN} table, plugin column {PLUGIN} "
      f"(rc {p.returncode}, {p.stderr.strip()[:300]})")

aside = so + ".aside"
os.rename(so, aside)
try:
    p, names = listed()
    check(p.returncode == 0 and not any(t in names for t in RS) and p.stderr == "",
          f"default plugin missing: skipped without a word (rc {p.returncode}, stderr {p.stderr!r})")
    with open(so, "w") as f:
        f.write("not a shared object\n")
    p = run("-t", "clht-lb", "-d", "10", "-i", "1K")
    err = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(err) == 1 and err[0].startswith(f"chtbench: default plugin {so}: not a loadable "
                                                                    "shared object"),
          f"default plugin broken: exit 2, one line naming it (rc {p.returncode}, {err})")
finally:
    os.replace(aside, so)
p, names = listed()
check(all(t in names for t in RS), "restored")
print(f"{failures} failures" if failures else "all ok")
sys.exit(1 if failures else 0)
