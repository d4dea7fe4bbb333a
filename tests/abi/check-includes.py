#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that the #include graph follows the layering of docs/design.md.

Layers, by path:
  platform  libaccel/platform/, libaccel/uapi/: kernel interfaces only;
            includes nothing of libaccel (no core, no public header).
  core      libaccel/*.c, *.h: the object model; includes the public
            headers, the platform and itself, never a backend's private
            header nor the compiler module's headers.
  backend   libaccel/backends/NAME/: includes backend.h, the platform, its
            own folder and the shared GEM layer (backends/gem/); the CPU
            backend also the compiler module's interface (compiler-stub/
            accelc*.h). Never another core header nor a public header
            directly (backend.h brings what a backend may use).
  client    icd/, tools/, rdma/: the public headers and their own folder.
Client libraries live outside libaccel/.

Usage: check-includes.py SOURCE_DIR | --self-test
Prints every violation as file:line and exits 1 when there is one that
KNOWN_VIOLATIONS does not list, or when a listed one no longer exists (so
the list only shrinks).
"""

import os
import re
import sys

# Each entry: "path: included-name" (or "path: <location>"). Remove an
# entry in the change that removes the violation. Empty: every include
# keeps to the layering.
KNOWN_VIOLATIONS = set()

SCANNED = ("libaccel", "icd", "tools", "rdma")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(rel):
    """The layer of a file, from its path relative to the source dir."""
    parts = rel.split("/")
    if parts[0] == "libaccel":
        if len(parts) > 2 and parts[1] in ("platform", "uapi"):
            return ("platform", None)
        if len(parts) > 3 and parts[1] == "backends":
            return ("backend", parts[2])
        if len(parts) > 2 and parts[1] == "rdma":
            return ("client", "rdma")
        if len(parts) == 2:
            if parts[1] == "backend.h":
                return ("backend-api", None)
            return ("core", None)
        return ("core", None)
    if parts[0] in ("icd", "tools", "rdma"):
        return ("client", parts[0])
    if parts[0] == "compiler-stub":
        return ("compiler", None)
    if parts[0] == "include":
        return ("public", None)
    return ("other", None)


def resolve(src, rel, kind, name):
    """Path (relative to src) of a quoted include, or None if not ours."""
    if kind == "<":
        if name.startswith("libaccel/"):
            return "include/" + name
        return None
    here = os.path.dirname(rel)
    for base in (here, "libaccel", "include", "compiler-stub"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(src, cand)):
            return cand
    return None


def allowed(frm, to):
    flayer, fname = frm
    tlayer, tname = to
    if flayer == "platform":
        return tlayer == "platform"
    if flayer == "core":
        return tlayer in ("core", "backend-api", "platform", "public")
    if flayer == "backend-api":
        return tlayer in ("core", "platform")
    if flayer == "backend":
        if tlayer in ("backend-api", "platform"):
            return True
        if tlayer == "backend":
            return tname in (fname, "gem")
        if tlayer == "compiler":
            return fname == "cpu"
        return False
    if flayer == "client":
        if tlayer == "public":
            return True
        return tlayer == "client" and tname == fname
    return True


def scan(src):
    found = {}
    for top in SCANNED:
        root = os.path.join(src, top)
        for dirpath, dirnames, files in os.walk(root):
            dirnames.sort()
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, src)
                frm = layer_of(rel)
                if frm[0] == "client" and rel.startswith("libaccel/"):
                    found.setdefault(rel + ": <location>", rel + ":1")
                with open(path, encoding="utf-8") as fh:
                    for no, line in enumerate(fh, 1):
                        m = INCLUDE_RE.match(line)
                        if not m:
                            continue
                        target = resolve(src, rel, m.group(1), m.group(2))
                        if target is None:
                            continue
                        if not allowed(frm, layer_of(target)):
                            key = "%s: %s" % (rel, m.group(2))
                            found.setdefault(key, "%s:%d" % (rel, no))
    return found


def self_test():
    """The scan must see each kind of break on a small fixture tree."""
    import tempfile
    files = {
        "libaccel/accel-private.h": "",
        "libaccel/backend.h": '#include "accel-private.h"\n',
        "libaccel/platform/p.c": '#include "accel-private.h"\n',
        "libaccel/backends/x/x.c": '#include "backend.h"\n'
                                    '#include "accel-private.h"\n'
                                    '#include "../y/y-private.h"\n',
        "libaccel/backends/y/y-private.h": "",
        "icd/i.c": '#include "backend.h"\n#include <libaccel/a.h>\n',
        "include/libaccel/a.h": "",
        "libaccel/rdma/r.c": "",
    }
    want = {
        "libaccel/platform/p.c: accel-private.h",
        "libaccel/backends/x/x.c: accel-private.h",
        "libaccel/backends/x/x.c: ../y/y-private.h",
        "icd/i.c: backend.h",
        "libaccel/rdma/r.c: <location>",
    }
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(name)),
                        exist_ok=True)
            with open(os.path.join(d, name), "w") as fh:
                fh.write(text)
        got = set(scan(d))
    if got != want:
        print("self-test: expected %s, got %s" % (sorted(want), sorted(got)))
        return 1
    print("self-test: %d violations found as expected" % len(want))
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = scan(sys.argv[1])
    bad = 0
    for key in sorted(found):
        where = found[key]
        what = key.split(": ", 1)[1]
        if key in KNOWN_VIOLATIONS:
            print("known:   %s includes %s" % (where, what))
        else:
            print("NEW:     %s includes %s (breaks the layering)"
                  % (where, what))
            bad += 1
    for key in sorted(KNOWN_VIOLATIONS - set(found)):
        print("STALE:   %s is listed but gone: drop it from "
              "KNOWN_VIOLATIONS" % key)
        bad += 1
    print("%d known violations left, %d problems"
          % (len(KNOWN_VIOLATIONS & set(found)), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
