#!/usr/bin/python3
"""test_allocator.py - --allocator (docs/cli.md "Allocators").

- every allocator installed here serves the run: the CSV's allocator column (what the process found
  serving malloc) equals it, and jemalloc's statistics columns are filled exactly under jemalloc;
- a missing library (CHTBENCH_TEST_ALLOCATOR_DIR=/nonexistent), a bad name and two spoofs (a
  "libjemalloc.so.2" that is really mimalloc/tcmalloc, one that exports a mallctl but no malloc) are
  each one line on stderr, exit 2 and no CSV;
- a sweep's allocator axis is matched on the allocator column and its rows count as this build's
  (--resume reruns none of them).

usage: test_allocator.py CHTBENCH SOURCE_ROOT
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types

BIN, ROOT = sys.argv[1], sys.argv[2]
from checks import check, finish  # noqa: E402 (tests/checks.py)

LIBS = {"jemalloc": ("libjemalloc.so.2", "libjemalloc2"), "mimalloc": ("libmimalloc.so.2", "libmimalloc2.0"),
        "tcmalloc": ("libtcmalloc_minimal.so.4", "libtcmalloc-minimal4")}
DIRS = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu", "/usr/local/lib", "/usr/lib64", "/usr/lib"]


def run(*args, env=None):
    e = dict(os.environ, **(env or {}))
    e.pop("LD_PRELOAD", None)
    e.pop("CHTBENCH_ALLOCATOR_REEXEC", None)
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120, env=e)


def find(lib):
    return next((os.path.join(d, lib) for d in DIRS if os.path.isfile(os.path.join(d, lib))), None)


version = run("--version").stdout
if "sanitizer: none" not in version:
    print("skip: a sanitizer build owns malloc (--allocator other than system is refused there)")
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="chtbench-alloc-")
installed = [a for a, (lib, _) in LIBS.items() if find(lib)]
print("installed:", ", ".join(installed) or "none")

# ---- each installed allocator serves the run, as the process itself finds ----
for a in ["system"] + installed:
    out = os.path.join(tmp, a + ".csv")
    p = run("--allocator", a, "-t", "chain", "-u", "50", "-i", "1K", "-d", "20", "--csv", out)
    rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
    check(p.returncode == 0 and len(rows) == 1 and rows[0]["allocator"] == a,
          f"--allocator {a}: exit 0, the row's allocator column is {a} "
          f"(got {p.returncode}, {[r['allocator'] for r in rows]}, {p.stderr.strip()[:200]})")
    if rows:   # the jemalloc statistics are in the --json record (table schema 8)
        js = run("--allocator", a, "-t", "chain", "-u", "50", "-i", "1K", "-d", "20", "--json")
        rec = json.loads(js.stdout.splitlines()[0]) if js.returncode == 0 and js.stdout else {}
        je = rec.get("jemalloc_allocated_after_run_bytes", "missing")
        je = "" if je is None else str(je)
        check((je != "") == (a == "jemalloc"), f"--allocator {a}: jemalloc statistics {'filled' if a == 'jemalloc' else 'empty'} ({je!r})")
    check(f"allocator: {a}\n" in run("--allocator", a, "--version").stdout, f"--allocator {a} --version says {a}")


def refused(what, args, env, line):
    """one line on stderr (== line, or containing it when line is a tuple of parts), exit 2, no CSV"""
    out = os.path.join(tmp, "never.csv")
    p = run(*args, "-t", "chain", "-i", "1K", "-d", "20", "--csv", out, env=env)
    lines = p.stderr.splitlines()
    ok = len(lines) == 1 and (lines[0] == line if isinstance(line, str) else all(s in lines[0] for s in line))
    check(p.returncode == 2 and ok and not os.path.exists(out),
          f"{what}: exit 2, one line, no CSV (got {p.returncode}, {p.stderr.strip()[:300]!r})")


# ---- not installed: the hook points the search at a directory without it ----
for a, (lib, pkg) in LIBS.items():
    refused(f"--allocator {a} not installed", ["--allocator", a], {"CHTBENCH_TEST_ALLOCATOR_DIR": "/nonexistent"},
            f"chtbench: --allocator {a}: {lib} not found in /nonexistent (install {pkg})")
refused("--allocator jemaloc", ["--allocator", "jemaloc"], None,
        "chtbench: --allocator: expected system|jemalloc|mimalloc|tcmalloc (got 'jemaloc') (did you mean 'jemalloc'?)")

# ---- spoofs: the file is named libjemalloc.so.2, but jemalloc does not serve malloc ----
other = next((a for a in ("mimalloc", "tcmalloc") if a in installed), None)
if other:
    d = os.path.join(tmp, "spoof-" + other)
    os.mkdir(d)
    shutil.copy(find(LIBS[other][0]), os.path.join(d, "libjemalloc.so.2"))
    refused(f"libjemalloc.so.2 that is {other}", ["--allocator", "jemalloc"], {"CHTBENCH_TEST_ALLOCATOR_DIR": d},
            (f"--allocator jemalloc: re-executed with LD_PRELOAD={d}/libjemalloc.so.2, but malloc is served by "
             f"{other}: that file does not provide jemalloc",))
else:
    check(False, "mimalloc or tcmalloc installed for the spoof check (scripts/install-deps installs both)")
cc = shutil.which("cc") or shutil.which("gcc")
d = os.path.join(tmp, "spoof-mallctl")
os.mkdir(d)
with open(os.path.join(d, "f.c"), "w") as f:   # answers like jemalloc, but malloc stays libc's
    f.write('#include <stddef.h>\nstatic const char *v = "5.3.0";\n'
            'int mallctl(const char *n, void *o, size_t *l, void *nw, size_t nl) { *(const char **)o = v; return 0; }\n')
built = cc and subprocess.run([cc, "-shared", "-fPIC", "-o", os.path.join(d, "libjemalloc.so.2"),
                               os.path.join(d, "f.c")], capture_output=True).returncode == 0
check(built, "a C compiler builds the mallctl-only library")
if built:
    refused("libjemalloc.so.2 with a mallctl but no malloc", ["--allocator", "jemalloc"],
            {"CHTBENCH_TEST_ALLOCATOR_DIR": d}, ("but malloc is served by system: that file does not provide jemalloc",))

# ---- sweeps: an allocator axis is matched on the column; such rows are this build's ----
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from chtb import binary, config, provenance  # noqa: E402
binary.export(BIN)   # match_key reads the columns of the binary under test, not build/chtbench's
import pandas as pd  # noqa: E402
sweep = types.SimpleNamespace(bench=None)
check(config.match_key(sweep, {"table": "chain", "allocator": "mimalloc"}) ==
      {"table": "chain", "options": "-", "allocator": "mimalloc"}, "sweep: the allocator axis is matched on its column")
cur = {"host": "h", "allocator": "system", "version": "v", "git_rev": "g", "build_type": "release",
       "sanitizer": "none", "compiler": "gcc"}
df = pd.DataFrame([dict(cur, allocator=a) for a in ("system", "tcmalloc", "libfoo.so")])
check(list(provenance.is_current(df, cur, {})) == [True, True, False],
      "sweep: rows of run-time allocators are this build's, an unknown malloc is not")
check(list(provenance.is_current(df, dict(cur, allocator="jemalloc"), {})) == [False, False, False],
      "sweep: a -Dallocator=jemalloc build owns only jemalloc rows")

# ... and end to end: a sweep over two allocators, then --resume finds every cell complete
two = ["system"] + installed[:1]
with open(os.path.join(tmp, "a.toml"), "w") as f:
    f.write('[sweep]\nbase = ["--initial", "1K", "--update", "50"]\nreps = 1\nduration = 20\n[sweep.axes]\n'
            f'table = ["chain"]\nallocator = {two!r}\n'.replace("'", '"'))
sw = [os.path.join(ROOT, "scripts", "sweep"), os.path.join(tmp, "a.toml"), "--out", os.path.join(tmp, "sw"),
      "--chtbench", BIN]
p1 = subprocess.run(sw, capture_output=True, text=True, timeout=120)
p2 = subprocess.run(sw + ["--resume"], capture_output=True, text=True, timeout=120)
got = sorted(r["allocator"] for r in csv.DictReader(open(os.path.join(tmp, "sw", "results.csv")))) \
    if p1.returncode == 0 else []
check(p1.returncode == 0 and got == sorted(two) and p2.returncode == 0 and
      f"{len(two)} of {len(two)} cells already complete" in p2.stdout + p2.stderr,
      f"sweep: an allocator axis runs each allocator ({got}) and --resume reuses them "
      f"({(p1.stderr + p2.stderr).strip()[-300:]!r})")

shutil.rmtree(tmp, ignore_errors=True)
finish()
