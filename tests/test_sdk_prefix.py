#!/usr/bin/env python3
"""test_sdk_prefix.py - the installed SDK's headers put no unprefixed macro into a plugin's namespace
(issue 51 point 8): every macro they define, as the compiler sees it after including them all, is
CHT_-prefixed (or cht_). The macros of the system headers they include are subtracted first, so a
macro counts only where the SDK defines it. A planted header defining LD proves the check can fail.

Usage: test_sdk_prefix.py CC HEADER...   (the headers meson installs under include/chtbench)
"""
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish  # noqa: E402 (tests/checks.py)

CC, HEADERS = sys.argv[1], sys.argv[2:]


def macros(source, include_dirs):
    """the names of the macros defined after preprocessing source (text)"""
    args = [CC, "-E", "-dM", "-x", "c", "-std=gnu11", "-"] + [f"-I{d}" for d in include_dirs]
    p = subprocess.run(args, input=source, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return {m.group(1) for m in re.finditer(r"^#define ([A-Za-z_][A-Za-z_0-9]*)", p.stdout, re.M)}


def sdk_macros(headers):
    """the macros the headers themselves define (not those of the system headers they include)"""
    dirs = sorted({os.path.dirname(os.path.abspath(h)) for h in headers})
    names = {os.path.basename(h) for h in headers}
    system = set()
    for h in headers:
        for inc in re.findall(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', open(h, encoding="utf-8").read(), re.M):
            if os.path.basename(inc) not in names:
                system.add(inc)
    base = macros("".join(f"#include <{s}>\n" for s in sorted(system)), dirs)
    everything = macros("".join(f'#include "{os.path.basename(h)}"\n' for h in headers), dirs)
    return everything - base


def unprefixed(found):
    return sorted(n for n in found if not (n.startswith("CHT_") or n.startswith("cht_")))


check(len(HEADERS) >= 5 and all(os.path.exists(h) for h in HEADERS), f"the SDK's headers are given ({len(HEADERS)})")
found = sdk_macros(HEADERS)
check({"CHT_LD", "CHT_ST", "CHT_CAS", "CHT_XCHG", "CHT_FADD", "CHT_ABI_VERSION"} <= found,
      f"the SDK's own macros are seen ({len(found)}: CHT_LD, CHT_CAS, CHT_ABI_VERSION among them)")
bad = unprefixed(found)
check(not bad, f"every macro the SDK defines is CHT_-prefixed (unprefixed: {bad})")

# the check itself: a header that defines the old short names is caught, its system include's macros are not
with tempfile.TemporaryDirectory() as d:
    planted = os.path.join(d, "old_atomic.h")
    with open(planted, "w") as f:
        f.write("#include <stdint.h>\n#define LD(p, mo) __atomic_load_n((p), __ATOMIC_##mo)\n#define CHT_OK 1\n")
    caught = unprefixed(sdk_macros([planted]))
    check(caught == ["LD"], f"a planted header defining LD is caught, <stdint.h>'s macros are not ({caught})")
finish()
