#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that every public function documents the errnos it can return.

Usage: check-errno-docs.py [--explain FUNCTION] INCLUDE_DIR SOURCE_DIR...
       check-errno-docs.py --self-test FIXTURE_DIR

For every function the public headers (INCLUDE_DIR/libaccel/*.h) declare
with an int result, the negative errno constants (-EINVAL, ...) that its
definition can return are collected by a static scan of the C sources
(and private headers' static inline functions) under the SOURCE_DIRs, and
each must appear in the @return part of the
function's doc comment in the header.

What the scan counts as "can return", in the function and, transitively,
in every function it calls whose result it can return (static helpers of
the same file first, then non-static functions of any scanned file):
- an errno constant written in a return statement (`return -EINVAL;`,
  `return r < 0 ? r : -EIO;`), directly or through an object-like macro
  defined as one (`#define FAILED (-ECANCELED)`);
- an errno constant assigned to a variable that a return statement of the
  function returns (`r = -ENOMEM; ... return r;`);
- the result of a call that is returned (`return helper(x);`) or assigned
  to such a variable (`r = helper(x);`); a call through a member
  (`dev->ops->execute(...)`) stands for every function an initializer of
  the scanned sources assigns to that member (`.execute = cpu_execute,`).
An errno compared rather than returned (`r == -ENOENT ? -EOPNOTSUPP : r`)
does not count. Not followed: function pointers held otherwise, errnos
computed at run time (-errno, a kernel's or a fence's status), values
passed through out-parameters. So what is reported can be returned by a
path the scan sees; what is missed is beyond a static text scan.

A call's errno can be filtered by the caller (`if (r == -ENOENT) return
-EINVAL;`); the scan does not see that and would report -ENOENT. Such
cases go in EXCEPTIONS below with the reason, reviewed like code; one the
scan no longer needs is reported as stale.

--self-test runs the check on FIXTURE_DIR/include and FIXTURE_DIR/src and
requires exactly the problems FIXTURE_DIR/expected.txt lists (function,
errno, then the call path below the function): the check itself can fail.
"""

import os
import re
import sys

ERRNO_RE = re.compile(r"-\s*\(?\s*(E[A-Z0-9]{2,})\b")
IDENT_RE = re.compile(r"\b([A-Za-z_]\w*)\b")
CALL_RE = re.compile(r"(?<![\w.>-])(-?)\s*([A-Za-z_]\w*)\s*\(")
OP_CALL_RE = re.compile(r"(?:->|\.)\s*([A-Za-z_]\w*)\s*\(")
# `.member = function,` in an initializer (backend ops tables)
OP_INIT_RE = re.compile(r"\.\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*[,}]")
# an errno compared, not returned: r == -ENOENT ? ... / -EINTR != r
COMPARED_RE = re.compile(r"(?:[=!]=\s*-\s*\(?\s*E[A-Z0-9]{2,}\b|"
                         r"-\s*E[A-Z0-9]{2,}\s*\)?\s*[=!]=)")
KEYWORDS = {
    "if", "while", "for", "switch", "return", "sizeof", "defined",
    "_Alignof", "alignof", "__builtin_expect", "_likely_", "_unlikely_",
    "offsetof", "__typeof__", "typeof",
}

# (function, errno): the caller filters the callee's errno out; the scan
# cannot see it. Each entry says why.
EXCEPTIONS = {
    # An attachment's record is made for one byte (buffer-attach.c
    # record_new): never above the device's allocation limit.
    ("accel_kernel_set_arg_buffer", "E2BIG"),
    ("accel_queue_write", "E2BIG"),
    ("accel_queue_read", "E2BIG"),
    ("accel_queue_copy", "E2BIG"),
    ("accel_queue_fill", "E2BIG"),
    # A sub-buffer is never larger than its parent, which is within the
    # device's allocation limit (new, user-pointer and import check it).
    ("accel_buffer_new_sub", "E2BIG"),
    # register_host() maps the whole buffer: never out of range.
    ("accel_buffer_register_rdma", "ERANGE"),
    # -ENOENT of accel_fence_dup_sync_file() (no kernel fence kept) is
    # handled: the export then goes through a device.
    ("accel_fence_export_sync_file", "ENOENT"),
    # The CPU device allocates from a heap of a constant, short name.
    ("accel_buffer_new", "ENAMETOOLONG"),
    # The device's own built-in kernels are within its limits.
    ("accel_program_new_built_in", "E2BIG"),
    # The marker's fence is waited for with ACCEL_TIMEOUT_INFINITE.
    ("accel_queue_finish", "ETIME"),
}


def strip_comments_strings(text):
    """Blank comments, string and char literals (keep newlines)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def join_continuations(text):
    return re.sub(r"\\\n", " ", text)


class Func:
    def __init__(self, name, path, static, body):
        self.name = name
        self.path = path
        self.static = static
        self.body = body


def parse_sources(paths):
    """Function definitions and errno macros of the C sources."""
    funcs = []
    macros = {}
    ops = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
        text = strip_comments_strings(join_continuations(raw))
        for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(.*)$",
                             text, flags=re.M):
            em = re.fullmatch(r"\(?\s*-\s*(E[A-Z0-9]{2,})\s*\)?",
                              m.group(2).strip())
            if em:
                macros[m.group(1)] = em.group(1)
        for m in OP_INIT_RE.finditer(text):
            ops.setdefault(m.group(1), []).append((path, m.group(2)))
        # Preprocessor lines are not code for the brace scan.
        code = re.sub(r"^[ \t]*#.*$", lambda m: " " * len(m.group(0)),
                      text, flags=re.M)
        depth = 0
        start = 0      # where the current top-level declaration began
        body_start = None
        header = ""
        for i, c in enumerate(code):
            if c == "{":
                if depth == 0:
                    header = code[start:i]
                    body_start = i
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    fm = re.search(r"([A-Za-z_]\w*)\s*\(([^()]|\([^()]*\))*\)"
                                   r"\s*$", header, flags=re.S)
                    if fm and "=" not in header:
                        funcs.append(Func(fm.group(1), path,
                                          re.search(r"\bstatic\b", header)
                                          is not None,
                                          code[body_start:i + 1]))
                    start = i + 1
            elif c == ";" and depth == 0:
                start = i + 1
    return funcs, macros, ops


def statements(body):
    # Braces end statements too (`if (x) { r = -E; }`).
    return [s.strip() for s in re.split(r"[;{}]", body) if s.strip()]


def expr_errnos(expr, macros):
    expr = COMPARED_RE.sub(" ", expr)
    found = set(ERRNO_RE.findall(expr))
    for ident in IDENT_RE.findall(expr):
        if ident in macros:
            found.add(macros[ident])
    return found


def expr_calls(expr):
    """Functions called in @expr, but not negated ones (-pthread_create())
    whose positive error numbers the scan does not follow; calls through
    a member (ops->execute(...)) as "->member"."""
    calls = {m.group(2) for m in CALL_RE.finditer(expr)
             if not m.group(1) and m.group(2) not in KEYWORDS}
    calls |= {"->" + m.group(1) for m in OP_CALL_RE.finditer(expr)}
    return calls


class Scanner:
    def __init__(self, funcs, macros, ops):
        self.macros = macros
        self.ops = ops
        self.static = {}
        self.inline = {}
        self.glob = {}
        for f in funcs:
            if f.static and f.path.endswith(".h"):
                # static inline in a private header: any includer's
                self.inline.setdefault(f.name, f)
            elif f.static:
                self.static[(f.path, f.name)] = f
            else:
                self.glob.setdefault(f.name, f)
        self.memo = {}
        self.why = {}

    def resolve_all(self, path, name):
        """A direct call's function, or every function some initializer
        puts in that member for a call through it."""
        if name.startswith("->"):
            return [self.resolve(p, n) for p, n in
                    self.ops.get(name[2:], [])]
        return [self.resolve(path, name)]

    def resolve(self, path, name):
        return (self.static.get((path, name)) or self.inline.get(name) or
                self.glob.get(name))

    def direct(self, f):
        """(errnos, callees) that @f itself can return."""
        stmts = statements(f.body)
        returned = set()
        sources = []
        for s in stmts:
            m = re.match(r"(?:.*\belse\b\s*|.*\)\s*)?\breturn\b(.*)$", s,
                         flags=re.S)
            if m:
                sources.append(m.group(1))
                returned |= set(IDENT_RE.findall(m.group(1)))
        for s in stmts:
            # `v = expr` (not ==, <=, >=, !=), possibly after if (...)
            for m in re.finditer(r"(?<![=<>!])\b(\w+)\s*=(?!=)(.*)$", s,
                                 flags=re.S):
                if m.group(1) in returned:
                    sources.append(m.group(2))
        errnos, callees = set(), set()
        for e in sources:
            errnos |= expr_errnos(e, self.macros)
            callees |= expr_calls(e)
        return errnos, callees

    def errnos(self, f, stack=()):
        key = (f.path, f.name)
        if key in self.memo:
            return self.memo[key]
        if key in stack:
            return set()
        errnos, callees = self.direct(f)
        result = {e: [f.name] for e in errnos}
        for name in sorted(callees):
            for g in self.resolve_all(f.path, name):
                if not g or g is f:
                    continue
                for e, path in self.errnos(g, stack + (key,)).items():
                    result.setdefault(e, [f.name] + path)
        self.memo[key] = result
        return result


def parse_headers(include_dir):
    """{function: (header, documented errnos or None)} of the int
    functions. A @return may say "the common errors" (a header's
    "Common errors:" comment) or "as accel_other()"."""
    decls = {}
    refs = {}
    hdir = os.path.join(include_dir, "libaccel")
    for name in sorted(os.listdir(hdir)):
        if not name.endswith(".h"):
            continue
        path = os.path.join(hdir, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        common = set()
        for m in re.finditer(r"/\*(?:(?!\*/).)*?Common errors:((?:(?!\*/).)*)"
                             r"\*/", text, flags=re.S):
            common |= set(ERRNO_RE.findall(m.group(1)))
        for m in re.finditer(r"(/\*\*(?:(?!\*/).)*\*/)?\s*\n"
                             r"(int)\s+(accel_\w+)\s*\(", text, flags=re.S):
            doc = m.group(1) or ""
            ret = doc.find("@return")
            if ret < 0:
                decls[m.group(3)] = (name, None)
                continue
            doc = re.sub(r"\s*\n\s*\*\s*", " ", doc[ret:])
            listed = set(ERRNO_RE.findall(doc))
            if re.search(r"\bthe common errors\b", doc):
                if not common:
                    sys.exit(f"{name}: {m.group(3)} refers to common "
                             f"errors, the header has none")
                listed |= common
            am = re.search(r"@return as (accel_\w+)\(\)", doc)
            if am:
                refs[m.group(3)] = am.group(1)
            decls[m.group(3)] = (name, listed)
    for name, other in refs.items():
        if other not in decls or decls[other][1] is None:
            sys.exit(f"{name}: @return as {other}(), which has no @return")
        decls[name] = (decls[name][0], decls[name][1] | decls[other][1])
    return decls


def source_paths(dirs):
    paths = []
    for d in dirs:
        for root, _, files in os.walk(d):
            paths += [os.path.join(root, f) for f in sorted(files)
                      if f.endswith((".c", ".h"))]
    return sorted(paths)


def check(include_dir, src_dirs, exceptions, explain=None):
    """Problems as (message, function, errno or None, call path)."""
    funcs, macros, ops = parse_sources(source_paths(src_dirs))
    scanner = Scanner(funcs, macros, ops)
    decls = parse_headers(include_dir)
    if not decls:
        sys.exit(f"{include_dir}: no int accel_* declarations found")

    problems = []
    used = set()
    for name, (header, listed) in sorted(decls.items()):
        f = scanner.glob.get(name)
        if not f:
            problems.append((f"{header}: {name}: no definition in the "
                             f"scanned sources", name, None, []))
            continue
        found = scanner.errnos(f)
        if explain == name:
            for e, path in sorted(found.items()):
                print(f"{name}: -{e} via {' -> '.join(path)}")
            print(f"{name}: documented {sorted(listed or [])}")
        for e, path in sorted(found.items()):
            if (name, e) in exceptions:
                used.add((name, e))
                continue
            if listed is not None and e in listed:
                continue
            where = " -> ".join(path)
            if listed is None:
                msg = (f"{header}: {name} has no @return doc; it can "
                       f"return -{e} ({where})")
            else:
                msg = (f"{header}: {name} can return -{e} ({where}), "
                       f"not listed in its @return doc")
            problems.append((msg, name, e, path))
    for name, e in sorted(set(exceptions) - used):
        problems.append((f"EXCEPTIONS: ({name}, {e}) is stale: the scan "
                         f"no longer finds -{e} in {name}", name, e, []))
    return len(decls), problems


def self_test(fixture):
    """The check must report exactly the fixture's expected problems."""
    _, problems = check(os.path.join(fixture, "include"),
                        [os.path.join(fixture, "src")], set())
    with open(os.path.join(fixture, "expected.txt"), encoding="utf-8") as f:
        expected = [line.split() for line in f if line.strip()]
    ok = True
    got = {(name, e): path for _, name, e, path in problems}
    for name, errno, *via in expected:
        path = got.pop((name, errno.lstrip("-")), None)
        if path is None:
            print(f"self-test: missed {errno} of {name}")
            ok = False
        elif path[1:] != via:
            print(f"self-test: {errno} of {name} found via {path}, "
                  f"expected {[name] + via}")
            ok = False
    for (name, e) in got:
        print(f"self-test: unexpected report: -{e} of {name}")
        ok = False
    print(f"self-test: {len(expected)} expected problems, "
          f"{'all found' if ok else 'MISMATCH'}")
    return 0 if ok else 1


def main(argv):
    explain = None
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) > 2 and argv[1] == "--explain":
        explain = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) < 3:
        sys.exit(__doc__)
    n, problems = check(argv[1], argv[2:], EXCEPTIONS, explain)
    for msg, *_ in problems:
        print(msg)
    print(f"{n} functions checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
