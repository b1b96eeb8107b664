#!/usr/bin/env python3
"""test_lock_plumbing.py - tables and locks write their lock plumbing once (issue 20 point 5).

Usage: test_lock_plumbing.py SOURCE_ROOT
  Fails when a source hand-writes what the shared headers provide:
  - anywhere (tables/, locks/, src/, tests/, examples/, workloads/, include/): a pause
    instruction or its own LD/ST/CAS macros (include/cht_atomic.h, the one place: cht_pause,
    cht_spin_yield, LD/ST/XCHG/FADD/CAS);
  - in tables/ (and the example plugin table): a lock taken by its lock_ops symbol (name it
    in .default_lock) or a struct lock_config built by hand (tables/table_locks.h builds it
    from the run's); a lock=NAME help whose "(default X)", which --list prints, is not the
    .default_lock the registry resolves.

Usage: test_lock_plumbing.py --run CHTBENCH ECHO_PLUGIN [PLUGIN...]
  End to end: every table of --list that takes a lock (lock=NAME) runs under lock-echo
  (tests/lock_echo.c, which prints the lock_config its init gets) and the run's --handoff
  and --waiters must be what its locks see, the defaults (64, 0) without them; a table's
  default lock, shown by --list, must be a lock of --list=locks.
"""
import os
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from checks import check, finish  # noqa: E402 (tests/checks.py)

PAUSE = (re.compile(r"__builtin_ia32_pause|_mm_pause|\"pause\"|\"yield\"|cpu_relax"),
         "a hand-written pause: use cht_pause / cht_spin_yield (include/cht_atomic.h)")
# STR is a stringify macro outside tables/ and locks/, clht's old store macro inside
MACROS = (re.compile(r"#\s*define\s+(LD|LDR|ST|CAS|XCHG|FADD)\s*\("),
          "its own atomics macro: use LD/ST/XCHG/FADD/CAS of include/cht_atomic.h")
MACROS_STR = (re.compile(r"#\s*define\s+(LD|LDR|ST|STR|CAS|XCHG|FADD)\s*\("), MACROS[1])
TABLES = [
    (re.compile(r"extern\s+(\"C\"\s+)?const\s+struct\s+lock_ops"),
     "a lock taken by symbol: name it in .default_lock (the registry resolves it)"),
    (re.compile(r"struct\s+lock_config\s+\w+\s*="),
     "a lock_config built by hand: cht_locks_init / cht_lock_config (tables/table_locks.h)"),
]
SHARED = {"table_locks.h"}      # the one place that builds a table's lock_config
SOURCES = (".c", ".cpp", ".h")


def sources(root, sub):
    return sorted(p for p in (root / sub).rglob("*") if p.suffix in SOURCES and p.is_file())


def static(root):
    bad = 0
    scans = [("tables", [PAUSE, MACROS_STR] + TABLES), ("locks", [PAUSE, MACROS_STR]),
             ("examples", [PAUSE, MACROS] + TABLES)]
    scans += [(sub, [PAUSE, MACROS]) for sub in ("src", "tests", "workloads", "include")]
    files = 0
    for sub, rules in scans:
        found = [p for p in sources(root, sub) if p.name != "cht_atomic.h" or sub != "include"]
        check(found or sub in ("examples", "workloads"), f"sources found under {sub}/")
        for p in found:
            files += 1
            for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1):
                for rx, why in rules:
                    if rx.search(line) and not (p.name in SHARED and "lock_config" in why):
                        check(False, f"{p.relative_to(root)}:{n}: {why}\n     {line.strip()}")
                        bad += 1
    check(bad == 0, f"{files} sources outside include/cht_atomic.h: no hand-written pause or atomics "
                    f"macro; tables take locks through lock_ops and table_locks.h ({bad} found)")

    # the default --list shows (the lock option's help) is the one the registry resolves
    tables = sources(root, "tables") + [p for p in sources(root, "examples") if "plugin-table" in str(p)]
    named = 0
    for p in tables:
        text = p.read_text(errors="replace")
        dl = re.findall(r"\.default_lock\s*=\s*\"([^\"]+)\"", text)
        helps = re.findall(r"\{\s*\"lock\"\s*,\s*\"[^\"]*\(default ([\w-]+)", text)
        if dl or helps:
            named += 1
            check(dl == helps, f"{p.relative_to(root)}: .default_lock {dl} is what its lock=NAME help "
                               f"(--list) says: (default {helps})")
    check(named >= 3, f"tables with a default lock named in their ops: {named} (locked, ck-ht, clht-rtm, ...)")


def run_mode(chtbench, echo, plugins):
    env = {k: v for k, v in os.environ.items() if k != "CHTBENCH_PLUGINS" and not k.startswith("CHTBENCH_TEST_")}
    load = [a for p in [echo] + plugins for a in ("--plugin", p)]

    def run(*args):
        return subprocess.run([chtbench, *load, *args], capture_output=True, text=True, timeout=120, env=env)

    p = run("--list")
    check(p.returncode == 0, f"--list with the echo plugin (exit {p.returncode}: {p.stderr.strip()[-300:]})")
    lock_tables, defaults, table = [], {}, None
    for line in p.stdout.splitlines():
        if line and not line[0].isspace():
            table = line.split()[0]
        elif table and line.split()[:3] == ["lock=NAME", "takes", "a"]:   # not "not taken: ..."
            lock_tables.append(table)
            m = re.search(r"\(default ([\w-]+)", line)
            if m:
                defaults[table] = m.group(1)
    locks = {line.split()[0] for line in run("--list=locks").stdout.splitlines() if line.strip()}
    check("lock-echo" in locks, "--list=locks lists the plugin's lock-echo")
    want_tables = {"locked", "clht-lb", "clht-rtm", "cuckoo", "cuckoo-filter"}
    check(want_tables <= set(lock_tables), f"--list: tables that take a lock: {' '.join(lock_tables)}")
    check(defaults.get("locked") == "pthread-mutex" and "clht-rtm" in defaults,
          f"--list shows the default locks: {defaults}")
    for t, lk in sorted(defaults.items()):
        check(lk in locks, f"{t}: its default lock {lk} is a lock of --list=locks")

    def echoed(p):
        lines = [l for l in p.stderr.splitlines() if l.startswith("lock-echo: ")]
        return lines[-1] if lines else "(no line from lock-echo)"

    run_args = ["-n", "2", "-i", "1K", "--ops", "500", "-u", "50"]
    for t in lock_tables:
        p = run("-t", f"{t}:lock=lock-echo", *run_args, "--handoff", "7", "--waiters", "3")
        got = echoed(p)
        check(p.returncode == 0 and re.fullmatch(r"lock-echo: handoff_bound=7 waiter_threshold=3 "
                                                 r"numa_nodes=[1-9]\d* max_threads=2", got),
              f"{t}: --handoff 7 --waiters 3 reach its locks with 2 threads: {got} "
              f"(exit {p.returncode}{': ' + p.stderr.strip()[-200:] if p.returncode else ''})")
    for t in ["locked", "clht-lb"]:
        p = run("-t", f"{t}:lock=lock-echo", *run_args)
        got = echoed(p)
        check(p.returncode == 0 and re.fullmatch(r"lock-echo: handoff_bound=64 waiter_threshold=0 "
                                                 r"numa_nodes=[1-9]\d* max_threads=2", got),
              f"{t}: without --handoff/--waiters its locks get the defaults: {got} (exit {p.returncode})")


if len(sys.argv) >= 4 and sys.argv[1] == "--run":
    run_mode(sys.argv[2], sys.argv[3], sys.argv[4:])
elif len(sys.argv) == 2:
    static(pathlib.Path(sys.argv[1]))
else:
    sys.exit(__doc__)
finish()
