#!/usr/bin/env python3
"""test_lock_plumbing.py - tables and locks write their lock plumbing once (issue 20 point 5).

Fails when a file under tables/ or locks/ hand-writes what the shared headers provide:
  - a pause instruction or its own LD/ST/CAS macros (include/cht_atomic.h: cht_pause,
    cht_spin_yield, LD/ST/XCHG/FADD/CAS);
  - in tables/: a lock taken by its lock_ops symbol (name it in .default_lock) or a
    struct lock_config built by hand (tables/table_locks.h builds it from the run's).
Usage: test_lock_plumbing.py SOURCE_ROOT
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
BOTH = [
    (re.compile(r"__builtin_ia32_pause|_mm_pause|\"pause\"|\"yield\"|cpu_relax"),
     "a hand-written pause: use cht_pause / cht_spin_yield (include/cht_atomic.h)"),
    (re.compile(r"#\s*define\s+(LD|LDR|ST|STR|CAS|XCHG|FADD)\s*\("),
     "its own atomics macro: use LD/ST/XCHG/FADD/CAS of include/cht_atomic.h"),
]
TABLES = [
    (re.compile(r"extern\s+(\"C\"\s+)?const\s+struct\s+lock_ops"),
     "a lock taken by symbol: name it in .default_lock (the registry resolves it)"),
    (re.compile(r"struct\s+lock_config\s+\w+\s*="),
     "a lock_config built by hand: cht_locks_init / cht_lock_config (tables/table_locks.h)"),
]
SHARED = {"table_locks.h"}      # the one place that builds a table's lock_config
bad = checked = 0
for sub, rules in (("tables", BOTH + TABLES), ("locks", BOTH)):
    files = sorted(p for p in (root / sub).iterdir() if p.suffix in (".c", ".cpp", ".h"))
    if not files:
        print(f"FAIL no sources under {root / sub}")
        sys.exit(1)
    for p in files:
        checked += 1
        for n, line in enumerate(p.read_text().splitlines(), 1):
            for rx, why in rules:
                if rx.search(line) and not (p.name in SHARED and "lock_config" in why):
                    print(f"FAIL {p.relative_to(root)}:{n}: {why}\n     {line.strip()}")
                    bad += 1
print(f"{'FAIL' if bad else 'ok'}: {checked} files of tables/ and locks/, {bad} hand-written lock plumbing")
sys.exit(1 if bad else 0)
