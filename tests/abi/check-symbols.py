#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that a shared library exports exactly the symbols of its map.

Usage: check-symbols.py NM LIBRARY MAPFILE [CC HEADER -I<dir>...]

Every `global:` symbol of every version node in MAPFILE must be exported,
defined, with that node's version; nothing else may be exported. Wildcards
in `global:` sections are rejected: an explicit list is the point.

With CC and HEADER(s), the headers are preprocessed and every accel_*
function they declare must be in the map too (a public function left out
of the map would silently be local).
"""

import re
import subprocess
import sys


def parse_map(path):
    """Return {symbol: version} from a GNU ld version script."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"#[^\n]*", "", text)

    symbols = {}
    # NODE { global: a; b; local: *; } [PARENT];
    for m in re.finditer(r"([A-Za-z0-9_.]+)\s*\{(.*?)\}\s*[A-Za-z0-9_.]*\s*;",
                         text, flags=re.S):
        version, body = m.group(1), m.group(2)
        section = "global"
        for tok in re.split(r";", body):
            tok = tok.strip()
            while True:
                sm = re.match(r"(global|local)\s*:\s*", tok)
                if not sm:
                    break
                section = sm.group(1)
                tok = tok[sm.end():].strip()
            if not tok or section != "global":
                continue
            if any(c in tok for c in "*?["):
                sys.exit(f"{path}: wildcard '{tok}' in {version} global:")
            if tok in symbols:
                sys.exit(f"{path}: {tok} listed twice")
            symbols[tok] = version
    if not symbols:
        sys.exit(f"{path}: no global symbols found")
    return symbols


def exported(nm, lib):
    """Return ({symbol: version}, {version node names}) defined in lib."""
    out = subprocess.run([nm, "-D", "--defined-only", "--with-symbol-versions",
                          lib], check=True, capture_output=True,
                         text=True).stdout
    symbols, nodes = {}, set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, name = parts[1], parts[2]
        sym, _, version = name.partition("@")
        version = version.lstrip("@")
        if kind == "A" and version in ("", sym):
            nodes.add(sym)      # the version node's own marker symbol
            continue
        symbols[sym] = version or "(unversioned)"
    return symbols, nodes


def declared(cc, args):
    """Return the accel_* functions declared by the headers in args."""
    headers = [a for a in args if not a.startswith("-")]
    flags = [a for a in args if a.startswith("-")]
    src = "".join(f"#include \"{h}\"\n" for h in headers)
    out = subprocess.run([cc, "-E", "-P", *flags, "-x", "c", "-"],
                         input=src, check=True, capture_output=True,
                         text=True).stdout
    # `(*accel_x_fn)(` is a function pointer type, not a function.
    return set(re.findall(r"(?<![\w*])(accel_[A-Za-z0-9_]+)\s*\(", out))


def main():
    if len(sys.argv) < 4 or len(sys.argv) == 5:
        sys.exit(__doc__)
    nm, lib, mapfile = sys.argv[1:4]
    want = parse_map(mapfile)
    have, nodes = exported(nm, lib)

    errors = []
    if len(sys.argv) > 5:
        for sym in sorted(declared(sys.argv[4], sys.argv[5:]) - set(want)):
            errors.append(f"not in map: {sym} (declared in a public header)")
    for sym in sorted(set(want) - set(have)):
        errors.append(f"missing: {sym} (in {mapfile}, not defined in {lib})")
    for sym in sorted(set(have) - set(want)):
        errors.append(f"unexpected export: {sym}@{have[sym]}")
    for sym in sorted(set(want) & set(have)):
        if have[sym] != want[sym]:
            errors.append(f"wrong version: {sym}@{have[sym]}, "
                          f"map says {want[sym]}")
    for node in sorted(set(want.values()) - nodes):
        errors.append(f"version node {node} not present in {lib}")

    if errors:
        print("\n".join(errors))
        print(f"FAIL: {len(errors)} problem(s) with {lib}")
        return 1
    print(f"OK: {len(have)} symbols, versions {', '.join(sorted(nodes))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
