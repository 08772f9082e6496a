#!/usr/bin/env python3
"""Checks the include rules of the source tree.

1. A program includes only its own headers and core's public ones: a
   quoted include of a file under orchestrator/, agent/ (its harness and
   tracer libraries are programs of their own), plugins/ or core/ must
   resolve, as the compiler resolves it with that program's include
   path, to a header inside the same program or core/include/; no
   include climbs out with "..".
2. Folders include each other one way: no two folders (orchestrator/job
   and orchestrator/store, agent and agent/check) include from each
   other, directly or round a longer loop, so the folder map reads as
   layers.
3. No project header can be taken for a system header: its name as a
   program includes it ("cmd.h", "store/store.h", "benchfarm/err.h") is
   not the name of a header on the compiler's system include path, so an
   include path that reaches it cannot shadow <sched.h> or <err.h>.

Usage: ci/include-check.py [DIR] (DIR: the tree to check, by default
this repository). Exits 1 naming each file, line and include that breaks
a rule, 2 when it cannot run.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) > 1:
    ROOT = os.path.abspath(sys.argv[1])
if not os.path.isdir(ROOT):
    print("include-check: %s: not a directory" % ROOT, file=sys.stderr)
    sys.exit(2)

# program: (folder, its include path as the Makefile gives it)
PROGRAMS = {
    "core": ("core", ["core/include"]),
    "orchestrator": ("orchestrator", ["orchestrator", "core/include"]),
    "agent": ("agent", ["agent", "core/include"]),
    "harness": ("agent/harness", ["agent/harness/include", "agent/harness", "core/include"]),
    "tracer": ("agent/tracer", ["agent/tracer/include", "agent/tracer", "core/include"]),
    "plugins": ("plugins", ["plugins", "core/include"]),
}

ALL_ROOTS = sorted({r for _, roots in PROGRAMS.values() for r in roots})
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def program_of(path):
    best = None
    for name, (folder, _) in PROGRAMS.items():
        if path.startswith(folder + "/"):
            if best is None or len(folder) > len(PROGRAMS[best][0]):
                best = name
    return best


def tracked_sources():
    """The files git tracks when ROOT is a checkout's top, else every file."""
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=ROOT,
                         capture_output=True, text=True)
    if top.returncode == 0 and os.path.realpath(top.stdout.strip()) == \
            os.path.realpath(ROOT):
        out = subprocess.run(["git", "ls-files", "*.c", "*.h"], cwd=ROOT,
                             capture_output=True, text=True)
        if out.returncode == 0:
            return out.stdout.split()
    paths = []
    for top in ("core", "orchestrator", "agent", "plugins"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            paths += [os.path.relpath(os.path.join(d, f), ROOT)
                      for f in files if f.endswith((".c", ".h"))]
    return sorted(paths)


def system_dirs():
    cc = os.environ.get("CC", "cc")
    try:
        out = subprocess.run([cc, "-xc", "-E", "-v", "/dev/null"],
                             capture_output=True, text=True).stderr
    except OSError as e:
        print("include-check: cannot run %s: %s" % (cc, e), file=sys.stderr)
        sys.exit(2)
    dirs, inside = [], False
    for line in out.splitlines():
        if line.startswith("#include <...> search starts here:"):
            inside = True
        elif line.startswith("End of search list."):
            inside = False
        elif inside:
            dirs.append(line.strip())
    if not dirs:
        print("include-check: %s printed no system include path" % cc,
              file=sys.stderr)
        sys.exit(2)
    return dirs


def resolve(src, inc, roots):
    here = os.path.dirname(src)
    for d in [here] + roots:
        cand = os.path.normpath(os.path.join(d, inc))
        if os.path.isfile(os.path.join(ROOT, cand)):
            return cand
    return None


def folder_cycles(edges):
    """The strongly connected groups of two or more folders (Tarjan)."""
    index, low, stack, on, groups = {}, {}, [], set(), []
    nodes = sorted(set(edges) | {b for a in edges for b in edges[a]})

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in nodes:
        if v not in index:
            visit(v)
    return groups


def main():
    errors = []
    edges = {}  # folder -> {folder it includes from: first place}
    sources = [p for p in tracked_sources() if program_of(p)]
    for src in sources:
        prog = program_of(src)
        folder, roots = PROGRAMS[prog]
        with open(os.path.join(ROOT, src), encoding="utf-8",
                  errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                where = "%s:%d: \"%s\"" % (src, lineno, inc)
                if ".." in inc.split("/"):
                    errors.append("%s climbs out with '..'; name the header "
                                  "from the program's include path" % where)
                    continue
                got = resolve(src, inc, roots)
                if got is None:
                    other = resolve(src, inc, ALL_ROOTS)
                    if other is not None:
                        errors.append("%s is %s, which is not on %s's include "
                                      "path; move what both need into "
                                      "core/include/" % (where, other, prog))
                    continue  # generated or a system header: the compiler judges
                a, b = os.path.dirname(src), os.path.dirname(got)
                if a != b:
                    edges.setdefault(a, {}).setdefault(b, where)
                if got.startswith("core/include/"):
                    continue
                if program_of(got) != prog:
                    errors.append("%s is %s, a header of %s, not of %s; "
                                  "move what both need into core/include/"
                                  % (where, got, program_of(got) or "no program",
                                     prog))

    for group in folder_cycles(edges):
        inside = set(group)
        how = ["%s/ -> %s/ (%s)" % (a, b, edges[a][b])
               for a in group for b in sorted(edges.get(a, ()))
               if b in inside]
        errors.append("folders %s include each other: %s; move what both "
                      "need into the lower one" %
                      (", ".join(g + "/" for g in group), "; ".join(how)))

    sysdirs = system_dirs()
    for h in (p for p in sources if p.endswith(".h")):
        folder, roots = PROGRAMS[program_of(h)]
        names = set()
        for r in roots:
            if h.startswith(r + "/"):
                names.add(os.path.relpath(h, r))
        for name in sorted(names):
            for d in sysdirs:
                if os.path.isfile(os.path.join(d, name)):
                    errors.append("%s: \"%s\" is also the system header %s; "
                                  "rename the project header"
                                  % (h, name, os.path.join(d, name)))
    for e in errors:
        print("include-check: " + e, file=sys.stderr)
    if errors:
        return 1
    print("include-check: ok (%d files)" % len(sources))
    return 0


if __name__ == "__main__":
    sys.exit(main())
