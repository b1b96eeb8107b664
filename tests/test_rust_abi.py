#!/usr/bin/env python3
"""The Rust plugin's hand-written ABI mirror (plugins/rust/src/abi.rs) claims the
CHT_ABI_VERSION of include/cht.h: the two numbers must agree (build.rs refuses to
build the crate otherwise; this test says so without cargo), and every member of
every shared struct (cht.h, lock.h, cht_plugin.h) must appear in the mirror,
in the header's order (tests/test_rust_plugin.c checks sizes and offsets); and the
members tests/test_abi_layout.c pins are every member the headers declare, in order.

    test_rust_abi.py SOURCE_ROOT
"""
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
header = "".join(open(f"{root}/include/{h}").read() for h in ("cht.h", "lock.h", "cht_plugin.h"))
mirror = open(f"{root}/plugins/rust/src/abi.rs").read()
fails = []

hv = re.search(r"#define\s+CHT_ABI_VERSION\s+(\d+)", header)
rv = re.search(r"pub const CHT_ABI_VERSION: c_uint = (\d+);", mirror)
if not hv or not rv:
    fails.append("CHT_ABI_VERSION not found in include/cht.h or plugins/rust/src/abi.rs")
elif hv.group(1) != rv.group(1):
    fails.append(f"CHT_ABI_VERSION: include/cht.h {hv.group(1)}, plugins/rust/src/abi.rs {rv.group(1)}")


def c_members(name):
    body = re.search(r"struct %s \{(.*?)\n\};" % name, header, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    body = re.sub(r"\[[^]]*\]", "", body)                  # "state[2]": the name, not the length
    out = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        fn = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)      # function pointer member
        if fn:
            out.append(fn.group(1))
            continue
        for part in decl.split(","):                       # "uint64_t a, b, c"
            out.append(re.findall(r"\w+", part)[-1])
    return out


def rust_members(name):
    body = re.search(r"pub struct %s \{(.*?)\n\}" % name, mirror, re.S).group(1)
    return re.findall(r"^\s*pub (\w+):", body, re.M)


for s in ["cht_option", "cht_option_spec", "cht_config", "cht_stats", "cht_pipe_op", "cht_ops", "lock_config",
          "lock_stats", "lock_ops", "cht_abi_sizes", "cht_plugin"]:
    c, r = c_members(s), rust_members(s)
    if c != r:
        fails.append(f"struct {s}: include/ has {c}, plugins/rust/src/abi.rs has {r}")

# tests/test_abi_layout.c pins, for this CHT_ABI_VERSION, every member the headers declare, in order
# (a member added where the struct had padding changes no size: only this list notices it).
pinsrc = open(f"{root}/tests/test_abi_layout.c").read()
block = re.search(r"#(?:el)?if CHT_ABI_VERSION == %s\n(.*?)\n#(?:elif|endif)" % (hv.group(1) if hv else "?"),
                  pinsrc, re.S)
if not block:
    fails.append(f"tests/test_abi_layout.c pins no layout for CHT_ABI_VERSION {hv.group(1) if hv else '?'}")
else:
    pinned = re.findall(r"PIN\((\w+), (\w+),", block.group(1))
    for s in dict.fromkeys(x for x, _ in pinned):
        c, t = c_members(s), [m for x, m in pinned if x == s]
        if c != t:
            fails.append(f"struct {s}: include/ has {c}, tests/test_abi_layout.c pins {t}")
    missing = {"cht_option", "cht_option_spec", "cht_config", "cht_stats", "cht_pipe_op", "cht_ops", "lock_config",
               "lock_stats", "lock_ops", "cht_abi_sizes", "cht_plugin"} - {x for x, _ in pinned}
    if missing:
        fails.append(f"tests/test_abi_layout.c pins no member of {sorted(missing)}")

for f in fails:
    print("FAIL", f)
print("ok" if not fails else f"{len(fails)} failures")
sys.exit(1 if fails else 0)
