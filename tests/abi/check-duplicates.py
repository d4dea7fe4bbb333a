#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that two source folders share no block of code.

The DRM backend (libaccel/backends/drm/) and the accel-node backend
(libaccel/backends/accel/) both drive GEM nodes: what they have in common
belongs in libaccel/backends/gem/. This scan reports every run of
MIN_LINES or more consecutive lines of a file in one folder that stands
again in a file of the other, compared by shape:
  - comments, blank lines, lone punctuation and #include lines are
    dropped, and white space does not count;
  - a name that is not called and not an ALL_CAPS macro is just "a name"
    (variables and fields may differ), a called function keeps its name
    but for a folder prefix given with --prefix (drm_x and accelnode_x
    are the same call), literals stay;
  - designated initializer lines (".op = fn,") are dropped: an ops table
    is each backend's own declaration, not shared logic.

Usage: check-duplicates.py [--min-lines N] [--prefix P]... DIR_A DIR_B
       check-duplicates.py --self-test
Prints each shared run as a:first-last ~ b:first-last and exits 1 if
there is one.
"""

import os
import re
import sys
import tempfile

MIN_LINES = 6
COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
TOKEN_RE = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|'
                      r"[A-Za-z_]\w*|\d[\w.]*|->|\S")
PUNCT_RE = re.compile(r"^[{}()\[\];,]*$")
DESIGNATED_RE = re.compile(r"^\.\s*[A-Za-z_]\w*\s*=")
KEYWORDS = set("""auto bool break case char const continue default do double
    else enum extern false float for goto if inline int long NULL register
    restrict return short signed sizeof static struct switch true typedef
    union unsigned void volatile while _Atomic _Bool _Thread_local
    int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
    size_t ssize_t intptr_t uintptr_t off_t""".split())


def shape(line, prefixes):
    toks = TOKEN_RE.findall(line)
    out = []
    for k, tok in enumerate(toks):
        if not (tok[0].isalpha() or tok[0] == "_"):
            out.append(tok)
        elif tok in KEYWORDS or tok.isupper():
            out.append(tok)
        elif k + 1 < len(toks) and toks[k + 1] == "(":
            for p in prefixes:
                if tok.startswith(p):
                    tok = "<prefix>" + tok[len(p):]
                    break
            out.append(tok)
        else:
            out.append("<name>")
    return " ".join(out)


def code_lines(path, prefixes):
    """[(line number, shape)] of the lines that count."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    # Blank out comments, keeping their newlines (line numbers hold).
    text = COMMENT_RE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out = []
    for no, line in enumerate(text.split("\n"), 1):
        folded = " ".join(line.split())
        if not folded or PUNCT_RE.match(folded):
            continue
        if re.match(r"#\s*include\b", folded) or DESIGNATED_RE.match(folded):
            continue
        out.append((no, shape(folded, prefixes)))
    return out


def sources(folder):
    files = []
    for dirpath, dirnames, names in os.walk(folder):
        dirnames.sort()
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                files.append(os.path.join(dirpath, name))
    return files


def shared_runs(a_lines, b_lines, min_lines):
    """Maximal runs of >= min_lines equal lines: (ai, bi, length)."""
    index = {}
    for j, (_, text) in enumerate(b_lines):
        index.setdefault(text, []).append(j)
    runs = []
    for i, (_, text) in enumerate(a_lines):
        for j in index.get(text, ()):
            # Only where a run starts (the lines before differ).
            if i and j and a_lines[i - 1][1] == b_lines[j - 1][1]:
                continue
            n = 0
            while (i + n < len(a_lines) and j + n < len(b_lines) and
                   a_lines[i + n][1] == b_lines[j + n][1]):
                n += 1
            if n >= min_lines:
                runs.append((i, j, n))
    return runs


def scan(dir_a, dir_b, min_lines, prefixes=()):
    found = []
    b_files = [(p, code_lines(p, prefixes)) for p in sources(dir_b)]
    for pa in sources(dir_a):
        la = code_lines(pa, prefixes)
        for pb, lb in b_files:
            for i, j, n in shared_runs(la, lb, min_lines):
                found.append("%s:%d-%d ~ %s:%d-%d (%d lines)" % (
                    pa, la[i][0], la[i + n - 1][0],
                    pb, lb[j][0], lb[j + n - 1][0], n))
    return found


def self_test():
    body = "".join("\tx%d = a_get(y, %d);\n" % (k, k)
                   for k in range(MIN_LINES))
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, "a")
        b = os.path.join(tmp, "b")
        os.makedirs(a)
        os.makedirs(b)
        with open(os.path.join(a, "one.c"), "w") as fh:
            fh.write("int one(void)\n{\n" + body + "}\n")
        # The same block renamed (variables, prefix), re-indented,
        # commented and spread out: found.
        same = body.replace("\t", "    ").replace("x", "z")
        same = same.replace("a_get", "b_get").replace(";\n", ";\n\n", 2)
        with open(os.path.join(b, "two.c"), "w") as fh:
            fh.write("/* two */\nint two(void)\n{\n" + same +
                     "\t/* end */\n}\n")
        # One line short of a block, or other literals, or another
        # call: not found.
        with open(os.path.join(b, "three.c"), "w") as fh:
            fh.write("".join(body.splitlines(True)[1:]))
            fh.write(body.replace(", ", ", 1"))
            fh.write(body.replace("a_get", "a_put"))
        # Ops tables: not found.
        table = "".join("\t.op%d = f%d,\n" % (k, k) for k in range(9))
        with open(os.path.join(a, "ops.c"), "w") as fh:
            fh.write("const struct ops x = {\n" + table + "};\n")
        with open(os.path.join(b, "ops.c"), "w") as fh:
            fh.write("const struct ops y = {\n" + table + "};\n")
        found = scan(a, b, MIN_LINES, ("a_", "b_"))
        if len(found) != 1 or "two.c" not in found[0]:
            print("self-test: expected one run in two.c, got %r" % found)
            return 1
    print("self-test passed")
    return 0


def main(argv):
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    min_lines = MIN_LINES
    prefixes = []
    while len(args) > 2 and args[0] in ("--min-lines", "--prefix"):
        if args[0] == "--min-lines":
            min_lines = int(args[1])
        else:
            prefixes.append(args[1])
        args = args[2:]
    if len(args) != 2:
        print(__doc__.split("Usage: ")[1].split("\n\n")[0], file=sys.stderr)
        return 2
    found = scan(args[0], args[1], min_lines, tuple(prefixes))
    for line in found:
        print(line)
    if found:
        print("%d shared block(s) of %d or more lines: move them into one "
              "place both use" % (len(found), min_lines))
        return 1
    print("no shared block of %d or more lines" % min_lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
