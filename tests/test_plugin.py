#!/usr/bin/python3
"""Plugins and the SDK (docs/plugins.md, issue 21).

Installs this build into a temporary prefix (meson install --destdir), builds the installed examples
(share/chtbench/examples) against it with only PKG_CONFIG_PATH pointing there, and checks with the
installed chtbench:
- --list / --list=locks show the plugin entries with "(plugin NAME, PATH)"; --version names the files;
- a plugin table, a plugin lock inside built-in tables (locked, clht-lb) and a built-in lock inside the
  plugin table count exactly what the built-in `locked` counts for the same single-thread op stream, and
  pass the size check with 2 threads; every row names its plugins and their files' sha256 (hashlib's);
- options of plugin tables are validated like built-ins'; CHTBENCH_PLUGINS loads the same way;
- the -DBROKEN build of the example table (one insert in 100000 dropped) fails the final check;
- the installed scripts run from share/chtbench/scripts and find the installed binary (sweep --dry-run);
- every refusal (missing file, not an ELF, no cht_plugin, another ABI version, a name that exists, a
  NULL required member, pipe_start without pipe_step, a bad name, an abbreviated --plugin) is one exact line, exit 2, no CSV file.

usage: test_plugin.py BUILD_DIR SOURCE_ROOT MESON
"""
import csv
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

BUILD, SRC, MESON = sys.argv[1], sys.argv[2], sys.argv[3]
failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures += 1


tmp = tempfile.mkdtemp(prefix="chtb-plugin-")
dest = os.path.join(tmp, "dest")
p = subprocess.run([MESON, "install", "-C", BUILD, "--destdir", dest, "--no-rebuild", "--quiet"],
                   capture_output=True, text=True)
check(p.returncode == 0, f"meson install --destdir (rc {p.returncode}: {p.stderr.strip()[-300:]})")
pcs = glob.glob(os.path.join(dest, "**", "pkgconfig", "chtbench.pc"), recursive=True)
check(len(pcs) == 1, f"one chtbench.pc installed ({pcs})")
pcdir = os.path.dirname(pcs[0])
prefix = os.path.normpath(os.path.join(pcdir, "..", "..", ".."))
if not glob.glob(os.path.join(prefix, "bin", "chtbench")):
    prefix = os.path.normpath(os.path.join(pcdir, "..", ".."))   # lib/pkgconfig without a multiarch dir
BIN = os.path.join(prefix, "bin", "chtbench")
# the schema versions as the installed chtbench declares them (`chtbench --schema`)
VERSIONS = {k: str(v["version"]) for k, v in json.loads(subprocess.run([BIN, "--schema"], capture_output=True, text=True).stdout).items()}
SHARE = os.path.join(prefix, "share", "chtbench")
for h in ("cht.h", "cht_plugin.h", "lock.h", "cht_hash.h", "cht_atomic.h", "table_support.h", "table_locks.h"):
    check(os.path.isfile(os.path.join(prefix, "include", "chtbench", h)), f"include/chtbench/{h} installed")
check(os.access(BIN, os.X_OK), "bin/chtbench installed")
for s in ("sweep", "figure", "plot", "report", "perfcheck", "trace-convert"):
    check(os.access(os.path.join(SHARE, "scripts", s), os.X_OK), f"share/chtbench/scripts/{s} executable")
check(os.path.isfile(os.path.join(SHARE, "scripts", "chtb", "__init__.py")), "the chtb package beside them")
check(os.path.isfile(os.path.join(SHARE, "docs", "plugins.md")), "share/chtbench/docs/plugins.md installed")
# The Rust maps plugin, where this build has it, is installed beside the binary and the installed
# binary loads that copy (not the build directory's).
if os.path.isfile(os.path.join(BUILD, "plugins", "libcht_rust.so")):
    rs = glob.glob(os.path.join(prefix, "lib*", "**", "chtbench", "plugins", "libcht_rust.so"), recursive=True)
    p = subprocess.run([BIN, "--list"], capture_output=True, text=True)
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("rs-dashmap ")), "")
    check(len(rs) == 1 and line.endswith(f"(plugin rust, {os.path.realpath(rs[0])})"),
          f"the installed chtbench loads the installed Rust plugin ({rs}, {line[-120:]!r})")

# Only PKG_CONFIG_PATH points at the SDK; a build dir configured before pkgconfig.relocatable was the
# default has an absolute prefix in its .pc: then the sysroot maps it into the destdir. No $CHTBENCH
# (an out-of-tree build's, say): the installed scripts must find the installed binary by themselves.
env = {k: v for k, v in os.environ.items() if k != "CHTBENCH" and not k.startswith(("PKG_CONFIG", "CHTBENCH_"))}
env["PKG_CONFIG_PATH"] = pcdir
if "${pcfiledir}" not in open(pcs[0]).read():
    env["PKG_CONFIG_SYSROOT_DIR"] = dest
p = subprocess.run(["pkg-config", "--cflags", "chtbench"], capture_output=True, text=True, env=env)
cflags = p.stdout.split()
check(p.returncode == 0 and os.path.realpath(cflags[0][2:]) == os.path.realpath(os.path.join(prefix, "include",
                                                                                                  "chtbench")),
      f"pkg-config --cflags chtbench names the installed headers ({p.stdout.strip()})")

# The examples, from the installed copy: two meson builds at once; the broken table and the refused
# plugins are single cc calls, all in parallel.
ex = os.path.join(tmp, "ex")
shutil.copytree(os.path.join(SHARE, "examples"), ex)
CC = os.environ.get("CC") or shutil.which("cc") or "gcc"
procs = {}
for name in ("plugin-table", "plugin-lock"):
    procs[name] = subprocess.Popen(f"'{MESON}' setup build >/dev/null && ninja -C build >/dev/null",
                                   shell=True, cwd=os.path.join(ex, name), env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

BAD = r'''
#include <cht_plugin.h>
static bool get(void *t, cht_key_t k, cht_val_t *v) { (void)t; (void)k; (void)v; return false; }
static bool put(void *t, cht_key_t k, cht_val_t v) { (void)t; (void)k; (void)v; return false; }
static bool rm(void *t, cht_key_t k) { (void)t; (void)k; return false; }
static size_t sz(void *t) { (void)t; return 0; }
static void *mk(const struct cht_config *c, char *e, size_t n) { (void)c; (void)e; (void)n; return &mk; }
static void rel(void *t) { (void)t; }
static void init(void *l, const struct lock_config *c) { (void)l; (void)c; }
static void op(void *l, void *c) { (void)l; (void)c; }
static void pst(void *t, struct cht_pipe_op *o, unsigned n) { (void)t; (void)o; (void)n; }
static const struct cht_ops table = { .name = TNAME, .summary = "s", .create = mk, .destroy = rel, .get = get,
    .insert = put, .remove = rm, .size = SIZE, .pipe_start = PSTART };
static const struct lock_ops lock = { .name = LNAME, .summary = "s", .lock_size = 8, .init = init,
    .destroy = rel, .lock = op, .unlock = UNLOCK, .read_lock = op, .read_unlock = op };
static const struct cht_ops *const tables[] = { &table, NULL };
static const struct lock_ops *const locks[] = { &lock, NULL };
static const struct cht_plugin desc = { ABI, PNAME, tables, locks, SIZES };
#ifndef NO_SYMBOL
CHT_PLUGIN_EXPORT const struct cht_plugin *cht_plugin(void) { return &desc; }
#else
const struct cht_plugin *not_the_symbol(void) { return &desc; }
#endif
'''
with open(os.path.join(tmp, "bad.c"), "w") as f:
    f.write(BAD)
GOOD = {"TNAME": '"tiny"', "LNAME": '"tiny-lock"', "SIZE": "sz", "UNLOCK": "op", "ABI": "CHT_ABI_VERSION",
        "PNAME": '"tiny"', "PSTART": "NULL", "SIZES": "CHT_ABI_SIZES"}
# sizes as a plugin built against version 3's headers with version 4's number would give: cht_pipe_op
# before result was added (40 bytes), everything else as now
OLD_PIPE = ("{sizeof(struct cht_ops),sizeof(struct cht_config),sizeof(struct cht_stats),40,sizeof(struct cht_option),"
            "sizeof(struct cht_option_spec),sizeof(struct lock_ops),sizeof(struct lock_config),"
            "sizeof(struct lock_stats)}")
variants = {
    "good": {},
    "nosym": {"NO_SYMBOL": "1"},
    "abi": {"ABI": "CHT_ABI_VERSION + 1"},
    "abi3": {"ABI": "3"},
    "oldpipe": {"SIZES": OLD_PIPE},
    "nosizes": {"SIZES": "{0}"},
    "duptable": {"TNAME": '"clht-lb"'},
    "duplock": {"LNAME": '"ttas"'},
    "nullsize": {"SIZE": "NULL"},
    "nullunlock": {"UNLOCK": "NULL"},
    "halfpipe": {"PSTART": "pst"},
    "badname": {"TNAME": '"a:b"'},
    "dupplugin": {"PNAME": '"example-table"', "TNAME": '"tiny2"', "LNAME": '"tiny2-lock"'},
}
for v, over in variants.items():
    defs = dict(GOOD, **over)
    procs[v] = subprocess.Popen([CC, "-shared", "-fPIC", "-O0", *cflags, *[f"-D{k}={d}" for k, d in defs.items()],
                                 "-o", os.path.join(tmp, f"{v}.so"), os.path.join(tmp, "bad.c")],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
procs["broken"] = subprocess.Popen([CC, "-shared", "-fPIC", "-O2", "-DBROKEN", *cflags, "-o",
                                    os.path.join(tmp, "broken.so"), os.path.join(ex, "plugin-table", "striped.c")],
                                   env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
# The 40-line lock of docs/plugins.md, as printed there (the installed copy), builds against the SDK and loads.
doc = open(os.path.join(SHARE, "docs", "plugins.md")).read()
doc_c = doc.split("## A plugin in 40 lines", 1)[1].split("```c\n", 1)[1].split("```", 1)[0]
with open(os.path.join(tmp, "tas.c"), "w") as f:
    f.write(doc_c)
procs["docs-tas"] = subprocess.Popen([CC, "-O2", "-shared", "-fPIC", *cflags, os.path.join(tmp, "tas.c"), "-o",
                                      os.path.join(tmp, "libmy-tas.so")],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
# An installed script still works from share/chtbench/scripts and finds the installed binary.
procs["sweep"] = subprocess.Popen([os.path.join(SHARE, "scripts", "sweep"), os.path.join(SRC, "tests", "figures",
                                  "tiny.toml"), "--dry-run", "--out", os.path.join(tmp, "sweep")], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
outs = {}
for name, pr in procs.items():
    out = outs[name] = pr.communicate()[0]
    if name == "sweep":
        cells = [x.split() for x in out.splitlines() if x.split()[1:2] and x.split()[1].startswith("~")]
        check(pr.returncode == 0 and len(cells) == 4 and all(c[3] == BIN for c in cells),
              f"share/chtbench/scripts/sweep --dry-run: 4 cells run by the installed chtbench ({out.strip()[-300:]})")
        continue
    check(pr.returncode == 0, f"build {name} against the installed SDK ({out.strip()[-400:]})")

TAB = os.path.join(ex, "plugin-table", "build", "libex-striped.so")
LCK = os.path.join(ex, "plugin-lock", "build", "libex-ttas.so")


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(*args, extra_env=None):
    e = dict(env)
    e.update(extra_env or {})
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=e)


# --list, --list=locks, --version
p = run("--plugin", TAB, "--plugin=" + LCK, "--list")
line = [x for x in p.stdout.splitlines() if x.startswith("ex-striped ")]
check(p.returncode == 0 and len(line) == 1 and line[0].endswith(f"available (plugin example-table, {TAB})"),
      f"--list: ex-striped ... (plugin example-table, PATH) ({line})")
check(any(x.split()[:2] == ["stripes=", "1..65536"] for x in p.stdout.splitlines()), "--list: its options")
p = run("--plugin", TAB, "--plugin", LCK, "--list=locks")
line = [x for x in p.stdout.splitlines() if x.startswith("ex-ttas ")]
check(p.returncode == 0 and len(line) == 1 and line[0].endswith(f"(plugin example-lock, {LCK})"),
      f"--list=locks: ex-ttas ... (plugin example-lock, PATH) ({line})")
p = run("--plugin", TAB, "--version")
check(f"plugin: example-table {TAB} sha256 {sha(TAB)}" in p.stdout.splitlines(), "--version names the plugin file")

p = run("--plugin", os.path.join(tmp, "libmy-tas.so"), "--list=locks")
check(p.returncode == 0 and any(x.startswith("my-tas ") for x in p.stdout.splitlines()),
      f"docs/plugins.md's lock loads: my-tas in --list=locks ({p.stderr.strip()[-200:]})")

# Exact counts: one thread, a fixed op stream: every correct table counts what `locked` counts.
csvp = os.path.join(tmp, "run.csv")
specs = ["locked", "ex-striped", "ex-striped:lock=ttas,stripes=4", "locked:lock=ex-ttas", "clht-lb:lock=ex-ttas",
         "ex-striped:lock=ex-ttas"]
p = run("--plugin", TAB, "--plugin", LCK, "-t", ",".join(specs), "-n", "1", "--ops", "30000", "-i", "2K",
        "-u", "40", "--seed", "5", "--csv", csvp)
rows = list(csv.DictReader(open(csvp))) if os.path.exists(csvp) else []
check(p.returncode == 0 and len(rows) == len(specs), f"{len(specs)} single-thread runs pass (rc {p.returncode}, "
      f"{len(rows)} rows; {p.stderr.strip()[-300:]})")
if len(rows) == len(specs):
    keys = ("get_suc", "get_fail", "ins_suc", "ins_fail", "rem_suc", "rem_fail", "final_size", "total_ops")
    base = [rows[0][k] for k in keys]
    check(base[-1] == "30000" and rows[0]["prefilled"] == "2048", f"locked ran 30000 ops on 2048 keys ({base})")
    for r, spec in zip(rows[1:], specs[1:]):
        check([r[k] for k in keys] == base and r["size_ok"] == "1" and r["outcome"] == "ok",
              f"{spec}: the same counts as locked ({[r[k] for k in keys]})")
    want = [("", ""), ("example-table", sha(TAB)), ("example-table", sha(TAB)), ("example-lock", sha(LCK)),
            ("example-lock", sha(LCK)), ("example-table;example-lock", sha(TAB) + ";" + sha(LCK))]
    got = [(r["plugin"], r["plugin_sha256"]) for r in rows]
    check(got == want, f"plugin, plugin_sha256 per row (table's, then its lock's) ({got})")
    check(rows[0]["schema"] == VERSIONS["table"], f"table CSV schema {VERSIONS['table']} (--schema)")

# Two threads: the size check and the final check hold.
p = run("--plugin", TAB, "--plugin", LCK, "-t", "ex-striped:lock=ex-ttas,ex-striped:lock=mcs", "-n", "2",
        "--ops", "30000", "-i", "4K", "-u", "50", "--json")
recs = [__import__("json").loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
check(p.returncode == 0 and len(recs) == 2 and all(r["outcome"] == "ok" and r["size_ok"] == 1 and
                                                   r["final_size"] == r["expected_size"] for r in recs),
      f"2 threads: size and final check ok ({[(r['table'], r['options'], r['outcome']) for r in recs]})")
check([(r["plugin"], r["plugin_sha256"]) for r in recs] == [("example-table;example-lock", sha(TAB) + ";" + sha(LCK)),
                                                           ("example-table", sha(TAB))],
      "JSON records name the plugins too")
p = run("--plugin", TAB, "-t", "ex-striped:lock=clh", "-n", "2", "--ops", "10", "--validate", "--csv", csvp + ".v")
check(p.returncode == 0 and p.stdout == "" and p.stderr == "" and not os.path.exists(csvp + ".v"),
      f"--validate with a plugin table: exit 0, silent, no file ({p.returncode}: {p.stderr.strip()})")

# A lock bench of the plugin lock: the lock-bench CSV names it.
lockcsv = os.path.join(tmp, "lock.csv")
p = run("--plugin", LCK, "--bench", "mutex", "--lock", "ex-ttas", "-n", "2", "-d", "30", "--csv", lockcsv)
lr = list(csv.DictReader(open(lockcsv))) if os.path.exists(lockcsv) else []
check(p.returncode == 0 and len(lr) == 1 and lr[0]["schema"] == VERSIONS["lock"] and lr[0]["invariant_ok"] == "1" and
      lr[0]["plugin"] == "example-lock" and lr[0]["plugin_sha256"] == sha(LCK),
      f"--bench mutex --lock ex-ttas: invariant ok, plugin and sha256 in the row ({p.stderr.strip()[-200:]})")

# Options of a plugin table are validated like a built-in's; names are suggested.
for args, msg in [
    (["-t", "ex-striped:stripes=3"], "chtbench: --table ex-striped: option stripes=3: expected a power of two"),
    (["-t", "ex-striped:strips=4"],
     "chtbench: --table ex-striped: unknown option 'strips' (did you mean 'stripes'?); valid: lock, stripes, hash"),
    (["-t", "ex-stripd"], "chtbench: --table: unknown table 'ex-stripd' (did you mean 'ex-striped'?); see --list"),
    (["-t", "locked:lock=ex-tas"],
     "chtbench: --table locked: unknown lock 'ex-tas' (did you mean 'ex-ttas'?); see --list=locks"),
]:
    p = run("--plugin", TAB, "--plugin", LCK, *args, "--ops", "10", "-i", "64", "--csv", csvp + ".x")
    check(p.returncode == 2 and p.stderr.strip() == msg and not os.path.exists(csvp + ".x"),
          f"{' '.join(args)}: '{msg}' (got {p.returncode}: {p.stderr.strip()})")

# CHTBENCH_PLUGINS, and the same file twice (loaded once)
p = run("--plugin", TAB, "--list=locks", extra_env={"CHTBENCH_PLUGINS": f"{LCK}::{TAB}"})
check(p.returncode == 0 and f"(plugin example-lock, {LCK})" in p.stdout, "CHTBENCH_PLUGINS=A::B loads them")

# The deliberately broken table: one insert in 100000 is dropped, the prefill of 100K keys loses one.
BRK = os.path.join(tmp, "broken.so")
p = run("--plugin", BRK, "-t", "ex-striped", "-n", "1", "-i", "100K", "--ops", "1000", "--json")
recs = [__import__("json").loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
check(p.returncode == 1 and len(recs) == 1 and recs[0]["outcome"] == "mismatch" and
      recs[0]["final_size"] == recs[0]["expected_size"] - 1,
      f"-DBROKEN: the run fails its check, one key short ({[(r['outcome'], r['final_size'], r['expected_size']) for r in recs]})")

# Refusals: one exact line, exit 2, no results file.
T = lambda v: os.path.join(tmp, v + ".so")  # noqa: E731
missing = os.path.join(tmp, "missing.so")
notelf = os.path.join(tmp, "notelf.so")
with open(notelf, "w") as f:
    f.write("this is not an ELF object, only text long enough to have a header to read\n" * 4)
ABI_NOW = int([x for x in run("--version").stdout.splitlines() if x.startswith("plugin abi:")][0].split()[-1])
REQ_T = "(required: summary, create, destroy, get, insert, remove, size)"
REQ_L = "(required: summary, init, destroy, lock, unlock, read_lock, read_unlock)"
refusals = [
    (["--plugin", missing], f"chtbench: --plugin {missing}: cannot open: No such file or directory"),
    (["--plugin", notelf], f"chtbench: --plugin {notelf}: not a loadable shared object: {notelf}: invalid ELF header"),
    (["--plugin", T("nosym")], f"chtbench: --plugin {T('nosym')}: no symbol cht_plugin (a plugin exports const "
                               "struct cht_plugin *cht_plugin(void); docs/plugins.md)"),
    (["--plugin", T("abi")], f"chtbench: --plugin {T('abi')}: built against CHT_ABI_VERSION {ABI_NOW + 1}, this "
                             f"chtbench has {ABI_NOW} (rebuild the plugin against this chtbench's headers)"),
    (["--plugin", T("abi3")], f"chtbench: --plugin {T('abi3')}: built against CHT_ABI_VERSION 3, this "
                              f"chtbench has {ABI_NOW} (rebuild the plugin against this chtbench's headers)"),
    (["--plugin", T("oldpipe")], f"chtbench: --plugin {T('oldpipe')}: struct cht_pipe_op is 40 bytes in the plugin, "
                                 f"48 in this chtbench (built against other headers than this CHT_ABI_VERSION "
                                 f"{ABI_NOW}'s: rebuild the plugin against this chtbench's headers)"),
    (["--plugin", T("nosizes")], f"chtbench: --plugin {T('nosizes')}: cht_plugin.sizes.cht_ops is 0: set .sizes = "
                                 "CHT_ABI_SIZES in the plugin's struct cht_plugin (include/cht_plugin.h)"),
    (["--plugin", T("duptable")], f"chtbench: --plugin {T('duptable')}: table 'clht-lb' already exists (built in)"),
    (["--plugin", T("duplock")], f"chtbench: --plugin {T('duplock')}: lock 'ttas' already exists (built in)"),
    (["--plugin", TAB, "--plugin", T("dupplugin")],
     f"chtbench: --plugin {T('dupplugin')}: plugin name 'example-table' is already loaded from {TAB}"),
    (["--plugin", T("nullsize")], f"chtbench: --plugin {T('nullsize')}: table 'tiny': required member size is NULL "
                                  + REQ_T),
    (["--plugin", T("nullunlock")], f"chtbench: --plugin {T('nullunlock')}: lock 'tiny-lock': required member "
                                    "unlock is NULL " + REQ_L),
    (["--plugin", T("halfpipe")], f"chtbench: --plugin {T('halfpipe')}: table 'tiny': pipe_start is set but "
                                  "pipe_step is NULL (--pipeline needs both or neither)"),
    (["--plugin", T("badname")], f"chtbench: --plugin {T('badname')}: a table's name is 'a:b' (expected 1..64 "
                                 "letters, digits, '-', '_' or '.')"),
    (["--plugin", T("good"), "--plugin", T("good")], None),
    (["--plug=" + T("good")], "chtbench: --plugin: write --plugin PATH or --plugin=PATH in full (an abbreviation "
                              f"is not loaded; got '{T('good')}')"),
    (["--plugin"], "chtbench: --plugin: needs a value: the path of a plugin (a shared object, docs/plugins.md)"),
]
for args, msg in refusals:
    out = csvp + ".refused"
    common = ["-t", "noop", "--ops", "10", "-i", "64", "--csv", out]
    p = run(*(common + args if args == ["--plugin"] else args + common))   # a bare --plugin: last
    if msg is None:   # accepted: the same file twice is loaded once
        check(p.returncode == 0 and os.path.exists(out), f"{' '.join(args)}: accepted (got {p.returncode}: "
              f"{p.stderr.strip()[-200:]})")
        os.unlink(out) if os.path.exists(out) else None
        continue
    check(p.returncode == 2 and p.stderr.strip() == msg and not os.path.exists(out),
          f"refused with exit 2, no CSV: {msg}" + ("" if p.stderr.strip() == msg else
                                                  f" (got {p.returncode}: {p.stderr.strip()})"))
p = run("-t", "noop", "--ops", "10", "--csv", csvp + ".env", extra_env={"CHTBENCH_PLUGINS": missing})
msg = f"chtbench: CHTBENCH_PLUGINS: {missing}: cannot open: No such file or directory"
check(p.returncode == 2 and p.stderr.strip() == msg and not os.path.exists(csvp + ".env"),
      f"refused from the environment: {msg} (got {p.stderr.strip()})")

# a table without stats() has no size to build the ceiling's chase at: --ceiling-slices says so and slices
# nothing (tiny refuses every insert: its one prefill key makes the run's outcome "full", exit 3)
p = run("--plugin", T("good"), "-t", "tiny", "-i", "1", "-r", "64", "-u", "0", "-d", "40", "--ceiling-slices", "10",
        "--json")
recs = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
check(p.returncode == 3 and len(recs) == 1 and recs[0]["ceiling_slice_ms"] is None and recs[0]["ceiling_mops"] is None
      and "chtbench: note: --ceiling-slices: tiny reports no size (no stats()): its runs were not sliced and have no "
      "ceiling" in p.stderr, f"--ceiling-slices on a table without stats(): a note, no slices, no ceiling "
      f"(rc={p.returncode}: {p.stderr.strip()[-300:]})")

shutil.rmtree(tmp, ignore_errors=True)
print(f"{failures} failed")
sys.exit(1 if failures else 0)
