#!/usr/bin/python3
"""scripts/chtb in layers (issue 51.7): every module of the package parsed with `ast`, and

- no import cycle among its modules, counting imports inside functions (a lazy import only hides a
  cycle at load time: the modules still need each other), and every import goes down the numbered
  layers of scripts/chtb/__init__.py's docstring, which name every module;
- no private name (`_name`) of a chtb module used by another module: neither `from chtb.X import _name`
  nor `X._name` where X is bound to a chtb module, in the package, in scripts/'s thin executables and
  in tests/*.py (a helper two modules share is public, in the lower one);
- scripts/chtb/binary.py is the one module that names $CHTBENCH or joins a path ending in chtbench.
First a self-test: the checks catch a cycle and private names in a package written to a temporary dir.

Usage: test_py_layers.py SOURCE_ROOT [PACKAGE_DIR]   (PACKAGE_DIR: another copy of scripts/chtb to
check, e.g. an old commit's, with SOURCE_ROOT's scripts/ and tests/ as the users.)
Prints each problem on its own line; exit 1 if there is one.
"""
import ast
import glob
import os
import re
import sys
import tempfile

PKG = "chtb"
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
    print(("ok    " if cond else "FAIL  ") + what, flush=True)


def parse(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


def module_names(pkg_dir):
    """{module name: path}; the package's __init__ is named 'chtb'."""
    out = {}
    for p in sorted(glob.glob(os.path.join(pkg_dir, "*.py"))):
        stem = os.path.basename(p)[:-3]
        out[PKG if stem == "__init__" else f"{PKG}.{stem}"] = p
    return out


def resolve(node, me, modules):
    """The chtb modules an import statement of module `me` loads: [(module, name or None, alias)].
    `from . import x` is module chtb.x when that is a module, else the name x of chtb (__init__)."""
    if isinstance(node, ast.Import):
        return [(a.name, None, a.asname or a.name.split(".")[0]) for a in node.names
                if a.name == PKG or a.name.startswith(PKG + ".")]
    if node.level:
        base = me if me == PKG else me.rsplit(".", 1)[0]   # the package the relative import starts from
        for _ in range(node.level - 1):
            base = base.rsplit(".", 1)[0]
        src = base + ("." + node.module if node.module else "")
    else:
        src = node.module or ""
    if not (src == PKG or src.startswith(PKG + ".")):
        return []
    out = []
    for a in node.names:
        sub = f"{src}.{a.name}"
        out.append((sub, None, a.asname or a.name) if sub in modules else (src, a.name, a.asname or a.name))
    return out


def imports(tree, me, modules):
    """[(module, name or None, line, alias)] of every chtb import anywhere in tree (functions too)."""
    return [(mod, name, node.lineno, alias) for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom)) for mod, name, alias in resolve(node, me, modules)]


def is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def cycles(graph):
    """Every strongly connected component of more than one module (or a module importing itself)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def private_uses(path, tree, me, modules):
    """'path:line: what' for every private name of another chtb module this file takes or reads."""
    bad, bound = [], {}
    for mod, name, line, alias in imports(tree, me, modules):
        if name is not None and is_private(name) and mod != me:
            bad.append(f"{path}:{line}: from {mod} import {name}")
        if name is None:
            # `from . import plot` binds chtb.plot; `import chtb.plot` binds chtb (walked down below)
            bound[alias] = mod if alias != PKG else PKG
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            chain, v = [node.attr], node.value
            while isinstance(v, ast.Attribute):
                chain.append(v.attr)
                v = v.value
            if not isinstance(v, ast.Name) or v.id not in bound:
                continue
            mod = bound[v.id]
            for part in reversed(chain[1:]):    # chtb.plot._x: walk down to the module named
                if f"{mod}.{part}" in modules:
                    mod = f"{mod}.{part}"
            if mod != me and mod in modules:
                bad.append(f"{path}:{node.lineno}: {mod}.{node.attr}")
    return bad


def graph_of(modules, pkg_dir):
    """({module: modules it imports}, {(a, b): line of a's first import of b}, private uses)."""
    graph, where, bad = {}, {}, []
    for me, path in modules.items():
        tree = parse(path)
        rel = os.path.relpath(path, os.path.dirname(pkg_dir))
        for mod, _, line, _ in imports(tree, me, modules):
            if mod != me and mod in modules:
                graph.setdefault(me, set()).add(mod)
                where.setdefault((me, mod), line)
        bad += private_uses(rel, tree, me, modules)
    return graph, where, bad


def declared_layers(init_path):
    """{module: layer} from the package docstring's numbered list ("  1 binary (...), provenance ...")."""
    doc = ast.get_docstring(parse(init_path)) or ""
    layers, num, text = {}, None, {}
    for line in doc.splitlines():
        m = re.match(r"^  (\d+) (.*)", line)
        if m:
            num = int(m.group(1))
            text[num] = m.group(2)
        elif num is not None and line.startswith("    "):
            text[num] += " " + line.strip()
        else:
            num = None
    for n, t in text.items():
        while re.search(r"\([^()]*\)", t):           # drop the descriptions, innermost parentheses first
            t = re.sub(r"\([^()]*\)", "", t)
        for name in t.split(","):
            layers[f"{PKG}.{name.strip()}"] = n
    return layers


def self_test():
    """The checks catch what they are for, on a package built here: a cycle held apart by an import
    inside a function, a chain of three, and private names taken both ways."""
    files = {"__init__.py": "X = 1\n",
             "a.py": "from . import b\n",
             "b.py": "def f():\n    from . import a\n    return a\n",
             "c.py": "import chtb.d\n", "d.py": "from .e import g\n", "e.py": "from chtb import c\ng = 1\n",
             "f.py": "from . import X, b\nfrom .b import _h\n\ndef k():\n    return b._h + b.f + X\n",
             "g.py": "import chtb.b\nchtb.b._i = 2\n"}
    with tempfile.TemporaryDirectory() as tmp:
        pkg = os.path.join(tmp, PKG)
        os.mkdir(pkg)
        for name, text in files.items():
            with open(os.path.join(pkg, name), "w") as f:
                f.write(text)
        graph, _, bad = graph_of(module_names(pkg), pkg)
    got = cycles(graph)
    check(got == [["chtb.a", "chtb.b"], ["chtb.c", "chtb.d", "chtb.e"]],
          f"self-test: a cycle through an import in a function and one of three modules found ({got})")
    want = ["chtb/f.py:2: from chtb.b import _h", "chtb/f.py:5: chtb.b._h", "chtb/g.py:2: chtb.b._i"]
    check(sorted(bad) == want, f"self-test: private names from another module found, public ones not ({bad})")


def main():
    if len(sys.argv) not in (2, 3):
        print(f"usage: {sys.argv[0]} SOURCE_ROOT [PACKAGE_DIR]", file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    pkg_dir = os.path.abspath(sys.argv[2]) if len(sys.argv) == 3 else os.path.join(root, "scripts", PKG)
    self_test()
    modules = module_names(pkg_dir)
    check(len(modules) >= 10, f"{len(modules)} modules in {pkg_dir}")
    graph, where, bad = graph_of(modules, pkg_dir)
    init = modules[PKG]
    layers = declared_layers(init)
    check(set(layers) == set(modules) - {PKG},
          f"chtb/__init__.py's layers name every module once (missing {sorted(set(modules) - {PKG} - set(layers))}, "
          f"unknown {sorted(set(layers) - set(modules))})")
    up = sorted(f"{a} (layer {layers[a]}) -> {b} (layer {layers[b]}, line {where[(a, b)]})"
                for a, bs in graph.items() for b in bs if a in layers and b in layers and layers[b] >= layers[a])
    check(not up, f"every import goes to a lower layer than the importer's ({'; '.join(up) or 'none else'})")
    for comp in cycles(graph):
        edges = sorted(f"{a} -> {b} (line {where[(a, b)]})" for a in comp for b in graph.get(a, ()) if b in comp)
        check(False, f"import cycle among {', '.join(comp)}: " + "; ".join(edges))
    check(not cycles(graph), f"no import cycle among the {len(modules)} modules (imports in functions counted)")
    users = [p for p in glob.glob(os.path.join(root, "tests", "*.py")) + glob.glob(os.path.join(root, "scripts", "*"))
             if os.path.isfile(p) and (p.endswith(".py") or open(p, "rb").read(64).startswith(b"#!/usr/bin/python3")
                                       or open(p, "rb").read(64).startswith(b"#!/usr/bin/env python3"))]
    for p in sorted(users):
        bad += private_uses(os.path.relpath(p, root), parse(p), "__main__", modules)
    for b in bad:
        check(False, f"private name of another module used: {b}")
    check(not bad, f"no private name of a chtb module used outside it ({len(users)} scripts and tests read too)")
    # one place finds the binary: only binary.py reads $CHTBENCH or joins a path ending in chtbench
    finders = []
    for me, path in modules.items():
        for node in ast.walk(parse(path)):
            if me == f"{PKG}.binary":
                continue
            if isinstance(node, ast.Constant) and node.value == "CHTBENCH":
                finders.append(f"{os.path.basename(path)}:{node.lineno}: 'CHTBENCH'")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
                    and node.args and isinstance(node.args[-1], ast.Constant) and node.args[-1].value == "chtbench"):
                finders.append(f"{os.path.basename(path)}:{node.lineno}: a path to chtbench")
    check(f"{PKG}.binary" in modules and not finders,
          f"only binary.py reads $CHTBENCH or joins a path to chtbench ({', '.join(finders) or 'none elsewhere'})")
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
