"""The columns of chtbench's results files, read from `chtbench --schema`.

each mode declares its columns once, beside its result (src/table_columns.c, src/lockbench.c, src/membench.c, src/occupancy.c) (name, type, unit, the flag a sweep cell is matched
against, meaning); chtbench prints the declarations as JSON. The scripts read them from there
instead of keeping their own lists, and docs/csv.md's column tables are generated from them:

    /usr/bin/python3 scripts/chtb/schema.py --markdown [NAME]     print the tables (all, or NAME's)
    /usr/bin/python3 scripts/chtb/schema.py --update docs/csv.md  rewrite the generated blocks
    /usr/bin/python3 scripts/chtb/schema.py --check docs/csv.md   exit 1 when the doc is stale

`--chtbench BIN` picks the binary (default: build/chtbench of this tree, or $CHTBENCH).
"""
import argparse
import functools
import json
import os
import subprocess
import sys

if __package__ in (None, ""):          # run as a file: make `chtb` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "chtb"
from chtb.binary import find as find_chtbench  # noqa: E402


class SchemaError(Exception):
    """chtbench could not be run or printed no schema: the message says which binary."""


_binary = None


def use(chtbench):
    """Later load() calls without a binary read this one's schema (the binary a sweep runs)."""
    global _binary
    _binary = os.path.abspath(chtbench) if chtbench else None


def binary(chtbench=None):
    """The binary whose schema load(chtbench) reads."""
    return find_chtbench(chtbench or _binary)


def load(chtbench=None):
    """{schema name: {"version", "label", "file", "columns": [{name, column, type, unit, flag,
    meaning}, ...]}}; `column` is the CSV position, None for a field only --json carries."""
    return _load(binary(chtbench))


@functools.lru_cache(maxsize=None)     # one `chtbench --schema` per binary and process
def _load(exe):
    try:
        p = subprocess.run([exe, "--schema"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        raise SchemaError(f"cannot run {exe} --schema to read the CSV columns: {e.strerror} "
                          f"(build it, or set CHTBENCH)")
    if p.returncode != 0:
        raise SchemaError(f"{exe} --schema failed (exit {p.returncode}): {p.stderr.strip()[:300]}")
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        raise SchemaError(f"{exe} --schema printed no JSON: {e}")


def columns(name, chtbench=None, csv=True):
    """The column declarations of schema NAME, in file order (csv=False: with the JSON-only fields)."""
    return [c for c in load(chtbench)[name]["columns"] if c["column"] is not None or not csv]


def names(name, chtbench=None):
    """The CSV header of schema NAME, as a list."""
    return [c["name"] for c in columns(name, chtbench)]


# ---- docs/csv.md: the generated column tables ----

BEGIN = "<!-- generated from `chtbench --schema {name}` by scripts/chtb/schema.py --update docs/csv.md: do not edit -->"
END = "<!-- end of generated schema {name} -->"


def _cell(text):
    return text.replace("|", "\\|")


def markdown(name, schemas):
    """The markdown table(s) of one schema: its CSV columns, numbered label1, label2, ...; for a
    schema with JSON-only fields, a second table of those, numbered J1, J2, ..."""
    s = schemas[name]
    out = ["| # | column | type | unit | meaning |", "|---|---|---|---|---|"]
    json_only = []
    for c in s["columns"]:
        if c["column"] is None:
            json_only.append(c)
            continue
        out.append(f"| {s['label']}{c['column']} | {c['name']} | {c['type']} | {_cell(c['unit'])} | "
                   f"{_cell(c['meaning'])} |")
    if json_only:
        out += ["", "Fields of the `--json` record only (the CSV leaves them out; each follows the column "
                "before it in the record):", "", "| # | field | type | unit | meaning |", "|---|---|---|---|---|"]
        for k, c in enumerate(json_only, 1):
            out.append(f"| J{k} | {c['name']} | {c['type']} | {_cell(c['unit'])} | {_cell(c['meaning'])} |")
    return "\n".join(out) + "\n"


def render_doc(text, schemas):
    """text with every schema's generated block replaced by the current tables. Every schema must
    have its block (a ValueError names a missing one): nothing may go undocumented."""
    for name in schemas:
        begin, end = BEGIN.format(name=name), END.format(name=name)
        i = text.find(begin)
        j = text.find(end, i + 1) if i >= 0 else -1
        if i < 0 or j < 0:
            raise ValueError(f"no block for schema '{name}' (a line '{begin}', the table, then '{end}')")
        text = text[:i] + begin + "\n" + markdown(name, schemas) + text[j:]
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(prog="schema.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--chtbench", help="the binary (default: build/chtbench, or $CHTBENCH)")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--markdown", nargs="?", const="", metavar="NAME", help="print the column tables")
    g.add_argument("--update", metavar="DOC", help="rewrite DOC's generated blocks")
    g.add_argument("--check", metavar="DOC", help="exit 1 when DOC's blocks differ from the schema")
    a = ap.parse_args(argv)
    try:
        schemas = load(a.chtbench)
    except SchemaError as e:
        print(f"schema.py: {e}", file=sys.stderr)
        return 2
    if a.markdown is not None:
        if a.markdown and a.markdown not in schemas:
            print(f"schema.py: no schema '{a.markdown}' (have: {', '.join(schemas)})", file=sys.stderr)
            return 2
        for name in [a.markdown] if a.markdown else schemas:
            print(f"{name} (version {schemas[name]['version']}):\n\n{markdown(name, schemas)}")
        return 0
    path = a.update or a.check
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        new = render_doc(text, schemas)
    except ValueError as e:
        print(f"schema.py: {path}: {e}", file=sys.stderr)
        return 1
    if a.update:
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
        return 0
    if new != text:
        print(f"schema.py: {path} differs from `chtbench --schema`: run scripts/chtb/schema.py --update {path}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
