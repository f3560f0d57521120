#!/usr/bin/env python3
"""Side by side: the engine's `bench model` JSON and scripts/gpu/anchor.py's (PyTorch eager), as a markdown table.

Usage: python3 scripts/gpu/compare.py engine.json anchor.json [--title T]

A row for each metric that both files have (a key at the top level, or else in a nested object); the last
column is engine / eager, so above 1 means the engine is faster (or, for MFU, uses the GPU/CPU better).
"""

import argparse
import json

ROWS = [("matmul_peak_gflops", "matmul peak GFLOP/s")]
ROWS += [("prefill_tokens_per_s", "prefill tokens/s"), ("prefill_mfu", "prefill MFU")]
for b in (1, 16, 64):
    ROWS += [(f"decode_b{b}_tokens_per_s", f"decode b{b} tokens/s"), (f"decode_b{b}_mfu", f"decode b{b} MFU")]
for b in (1, 16, 64):
    ROWS += [(f"generate_b{b}_tokens_per_s", f"generate b{b} tokens/s")]
for part in ("lora", "full"):
    ROWS += [(f"train_{part}_tokens_per_s", f"train {part} tokens/s"), (f"train_{part}_mfu", f"train {part} MFU")]
CONTEXT = ("preset", "dtype", "device_name", "impl", "engine", "torch_version")


def find(obj, key):
    """The value of key at the top level of obj, or else the first one found in its nested objects."""
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        for v in obj.values():
            found = find(v, key)
            if found is not None:
                return found
    return None


def fmt(key, v):
    if key.endswith("_mfu"):
        return f"{100 * v:.2f}%"
    return f"{v:,.2f}" if abs(v) < 10 else f"{v:,.1f}"  # cpu decode rates can be a token or two a second


def table(engine, eager, title=None):
    lines = [f"### {title}", ""] if title else []
    for key in CONTEXT:
        a, b = find(engine, key), find(eager, key)
        if a is not None or b is not None:
            lines.append(f"- {key}: engine `{a if a is not None else '-'}`, eager `{b if b is not None else '-'}`")
    if len(lines) > (2 if title else 0):
        lines.append("")
    lines += ["| metric | engine | PyTorch eager | engine / eager |", "|---|---:|---:|---:|"]
    for key, label in ROWS:
        a, b = find(engine, key), find(eager, key)
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            continue
        ratio = f"{a / b:.2f}x" if b else "n/a"
        lines.append(f"| {label} | {fmt(key, a)} | {fmt(key, b)} | {ratio} |")
    notes = find(eager, "notes") or []
    if notes:
        lines += [""] + [f"- eager note: {n}" for n in notes]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("engine", help="the engine's bench JSON")
    p.add_argument("anchor", help="anchor.py's JSON")
    p.add_argument("--title", help="a heading above the table")
    args = p.parse_args()
    with open(args.engine) as f:
        engine = json.load(f)
    with open(args.anchor) as f:
        eager = json.load(f)
    print(table(engine, eager, args.title))


if __name__ == "__main__":
    main()
