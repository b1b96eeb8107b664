"""Operation traces for chtbench --trace: the text and binary formats of
workloads/trace.h, and conversion between them (scripts/trace-convert)."""
import struct

MAGIC = b"CHTTRACE"
OPS = {"get": 0, "g": 0, "insert": 1, "i": 1, "remove": 2, "r": 2, "update": 3, "u": 3}
NAMES = ["get", "insert", "remove", "update"]
KEY_MAX = 1 << 61


class TraceError(Exception):
    pass


def read(path):
    """[(op_name, key)] from a text or binary trace."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] == MAGIC:
        if len(data) < 24:
            raise TraceError(f"{path}: binary header truncated")
        version, _, count = struct.unpack_from("<IIQ", data, 8)
        if version != 1:
            raise TraceError(f"{path}: binary trace version {version}, expected 1")
        if len(data) != 24 + 8 * count:
            raise TraceError(f"{path}: {len(data) - 24} bytes of entries, expected {8 * count}")
        out = []
        for (e,) in struct.iter_unpack("<Q", data[24:]):
            op = e >> 61
            if op > 3:
                raise TraceError(f"{path}: operation {len(out) + 1} has op code {op}")
            out.append((NAMES[op], (e & (KEY_MAX - 1)) + 1))
        return out
    out = []
    for n, line in enumerate(data.decode("utf-8", "strict").splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        parts = s.split()
        if len(parts) != 2 or parts[0] not in OPS or not parts[1].isdigit() or not 1 <= int(parts[1]) <= KEY_MAX:
            raise TraceError(f"{path} line {n}: expected 'OP KEY' (OP get|insert|remove|update, KEY 1..2^61)")
        out.append((NAMES[OPS[parts[0]]], int(parts[1])))
    return out


def write_text(ops, path):
    with open(path, "w") as f:
        for op, key in ops:
            f.write(f"{op} {key}\n")


def write_binary(ops, path):
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<IIQ", 1, 0, len(ops)))
        f.write(b"".join(struct.pack("<Q", OPS[op] << 61 | (key - 1)) for op, key in ops))


def main(argv=None):
    import argparse
    import sys
    ap = argparse.ArgumentParser(prog="trace-convert", description="Convert chtbench traces between the text "
                                 "('OP KEY' lines) and binary (CHTTRACE) formats; the input format is detected.")
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--to", choices=["text", "binary"], required=True, help="format of the output")
    a = ap.parse_args(argv)
    try:
        ops = read(a.input)
    except (OSError, UnicodeDecodeError, TraceError) as e:
        print(f"trace-convert: {e}", file=sys.stderr)
        return 2
    (write_text if a.to == "text" else write_binary)(ops, a.output)
    print(f"trace-convert: {len(ops)} operations -> {a.output} ({a.to})", file=sys.stderr)
    return 0
