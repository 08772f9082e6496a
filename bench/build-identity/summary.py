#!/usr/bin/env python3
"""What bench/build-identity/record.sh recorded, as BENCHMARKS.md quotes it.

Usage: summary.py WORKDIR

Reads WORKDIR/{warm,a,b}.db (the stores), *-detect.json, *-backfill.json,
*-journal-DEVICE.jsonl, *.time and cache.json (benchfarm cache list --json)
and prints: the commits and their builds (code identity from the stores'
runs.build_id; bytes identity of the shipped files from the build cache),
every alert with whether its two commits are one build and whether its
commit changed the build, the environment shifts, and device time.
"""
import glob
import hashlib
import json
import os
import sqlite3
import sys

W = sys.argv[1]
STORES = ["warm", "a", "b"]


def short(c):
    return c[:8] if c else "-"


def load(path):
    with open(path) as f:
        return json.load(f)


def runs_of(store):
    db = sqlite3.connect("file:%s/%s.db?mode=ro" % (W, store), uri=True)
    rows = db.execute(
        "SELECT id, patch_commit, build_id, measured_by, started_at,"
        " finished_at, status, (SELECT count(*) FROM samples s"
        " WHERE s.run_id = runs.id) FROM runs WHERE kind = 'run'"
        " ORDER BY id").fetchall()
    db.close()
    return rows


def tree_digest(root):
    """sha256 over the files under root (paths and contents), and of
    out/snappy_benchmark alone."""
    h = hashlib.sha256()
    for dp, dns, fns in sorted(os.walk(root)):
        dns.sort()
        for fn in sorted(fns):
            p = os.path.join(dp, fn)
            h.update(os.path.relpath(p, root).encode() + b"\0")
            with open(p, "rb") as f:
                h.update(f.read())
    with open(os.path.join(root, "snappy_benchmark"), "rb") as f:
        b = hashlib.sha256(f.read()).hexdigest()
    return h.hexdigest(), b


commits = [r["commit"] for r in load("%s/b-backfill.json" % W)]
n = len(commits)
parent = {commits[i]: commits[i - 1] for i in range(1, n)}

# Code identity: the build each store recorded per commit.
code = {}
for store in STORES:
    code[store] = {r[1]: r[2] for r in runs_of(store) if r[2]}
for store in STORES[1:]:
    for c in commits:
        if code[store].get(c) != code["b"].get(c):
            print("NOTE: %s records %s as build %s, b as %s" %
                  (store, short(c), code[store].get(c), code["b"].get(c)))
build = code["b"]
failed = [c for c in commits if c not in build]
for c in failed:
    build[c] = "failed:" + c
ids = {}
for c in commits:
    ids.setdefault(build[c], "B%d" % (len(ids) + 1))

# Bytes identity, from the build cache (one entry per commit).
art = {}
binary = {}
cache = load("%s/cache.json" % W)
entries = cache["entries"] if isinstance(cache, dict) else cache
for e in entries:
    out = os.path.join(e["path"], "out")
    if e.get("commit") in build and os.path.isdir(out):
        art[e["commit"]], binary[e["commit"]] = tree_digest(out)

print("commits: %d (%s..%s)" % (n, short(commits[0]), short(commits[-1])))
print("distinct builds, code identity: %d" %
      len(set(v for v in build.values() if not v.startswith("failed:"))))
if len(art) == n:
    print("distinct builds, bytes of the shipped files: %d; of the binary: %d"
          % (len(set(art.values())), len(set(binary.values()))))
    split = {}
    for c in commits:
        split.setdefault(build[c], set()).add(binary[c])
    print("code builds whose commits' binaries differ in bytes: %d" %
          sum(1 for v in split.values() if len(v) > 1))
else:
    print("bytes identity: %d of %d commits in the build cache" %
          (len(art), n))
if failed:
    print("commits that failed (no build, no point): %s" %
          " ".join(short(c) for c in failed))
changes = [c for c in commits[1:] if build[c] != build[parent[c]]]
print("build changes (a commit whose build differs from its parent's): %d"
      % len(changes))
print()
print("%-3s %-8s %-4s %-6s %-8s %s" % ("#", "commit", "code", "change",
                                        "binary", "(a) recorded as"))
a_runs = {r[1]: r for r in runs_of("a")}
a_by_id = {r[0]: r[1] for r in runs_of("a")}
for i, c in enumerate(commits):
    r = a_runs.get(c)
    if not r:
        rec = "-"
    elif r[6] != "complete":
        rec = r[6]
    elif r[3]:
        rec = "= " + short(a_by_id.get(r[3]))
    else:
        rec = "measured"
    print("%-3d %-8s %-4s %-6s %-8s %s" % (
        i + 1, short(c), ids[build[c]],
        "yes" if c in changes else ("" if i else "first"),
        binary.get(c, "?")[:8], rec))


def series_name(x):
    return "%s %s %s" % (x.get("suite"), x.get("benchmark"), x.get("metric"))


# Each build change's size in (b), every commit measured: the median of
# the points of the commits of the build before it (the consecutive ones
# up to its parent) against those of its own build from it on.
def median(v):
    v = sorted(v)
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


alerted = {}
for store in STORES:
    for a in load("%s/%s-detect.json" % (W, store)).get("alerts", []):
        alerted.setdefault((store, a.get("commit_hi")), []).append(
            "%s %s" % (a.get("benchmark"), a.get("metric")))
hist = load("%s/b-history.json" % W)
print()
print("build changes in (b): each series' change of level (medians of the"
      " commits of the two builds next to it), and the alerts there")
for c in changes:
    i = commits.index(c)
    lo = i - 1
    while lo > 0 and build[commits[lo - 1]] == build[commits[i - 1]]:
        lo -= 1
    hi = i
    while hi + 1 < n and build[commits[hi + 1]] == build[c]:
        hi += 1
    before, after = set(commits[lo:i]), set(commits[i:hi + 1])
    sizes = []
    for se in hist["series"]:
        b = [p["value"] for p in se["points"] if p["commit"] in before]
        f = [p["value"] for p in se["points"] if p["commit"] in after]
        if b and f:
            sizes.append("%s %s %+.1f%%" % (
                se["benchmark"], se["metric"].replace("_time", ""),
                100 * (median(f) / median(b) - 1)))
    print("  %s (%s -> %s, %d and %d commits): %s" % (
        short(c), ids[build[commits[i - 1]]], ids[build[c]], len(before),
        len(after), ", ".join(sizes)))
    for store in STORES:
        print("    (%s) alerts here: %s" % (
            store, ", ".join(alerted.get((store, c), [])) or "none"))

print()
for store in STORES:
    d = load("%s/%s-detect.json" % (W, store))
    alerts = d.get("alerts", [])
    print("(%s) detect: %d alerts" % (store, len(alerts)))
    bad = 0
    for a in alerts:
        lo, hi = a.get("commit_lo"), a.get("commit_hi")
        same = build.get(lo) == build.get(hi)
        bad += same
        print("  %s %s..%s %s %+.1f%%: %s; %s" % (
            series_name(a), short(lo), short(hi), a.get("direction"),
            100 * (a.get("size") or 0),
            "BETWEEN IDENTICAL BUILDS" if same else
            "%s -> %s" % (ids.get(build.get(lo)), ids.get(build.get(hi))),
            "its commit changed the build" if hi in changes else
            "ITS COMMIT DID NOT CHANGE THE BUILD"))
    print("  code alerts between identical builds: %d" % bad)
    shifts = d.get("environment_shifts", [])
    print("  environment shifts: %d" % len(shifts))
    for s in shifts:
        lo, hi = s.get("commit_lo"), s.get("commit_hi")
        ev = s.get("evidence") or {}
        checks = ["%s %s->%s%s" % (k.get("check"), k.get("before"),
                                   k.get("after"),
                                   " (changed)" if k.get("changed") else "")
                  for k in ev.get("checks", [])]
        print("    %s..%s (%s, %s): %s; devices %s, gap %s s; checks: %s" % (
            short(lo), short(hi), ids.get(build.get(lo)),
            "one build" if build.get(lo) == build.get(hi) else "TWO BUILDS",
            ", ".join("%s %s %s" % (x.get("benchmark"), x.get("metric"),
                                    x.get("direction"))
                      for x in s.get("series", [])),
            ev.get("devices"), ev.get("gap_s"), "; ".join(checks) or "none"))

print()
print("device time (runs: finished_at - started_at, whole seconds, every"
      " build cached; journal: the agents' benchmark processes, start to end;"
      " backfill: the command's wall time)")
tot = {}
for store in STORES:
    rs = runs_of(store)
    measured = [r for r in rs if not r[3]]
    run_s = sum(r[5] - r[4] for r in rs)
    jn = 0
    js = 0.0
    for p in glob.glob("%s/%s-journal-*.jsonl" % (W, store)):
        with open(p) as f:
            for line in f:
                j = json.loads(line)
                jn += 1
                js += j["end"] - j["start"]
    t0, t1 = (float(x) for x in open("%s/%s.time" % (W, store)).read().split())
    tot[store] = (run_s, js, t1 - t0)
    print("  (%s) %d runs, %d measured: runs %d s, journal %d processes"
          " %.1f s, backfill %.1f s" % (store, len(rs), len(measured), run_s,
                                        jn, js, t1 - t0))
for store in ("warm", "a"):
    if not all(tot["b"]):
        break
    print("  (%s) / (b): runs %.3f, journal %.3f, backfill %.3f" % (
        store, tot[store][0] / tot["b"][0], tot[store][1] / tot["b"][1],
        tot[store][2] / tot["b"][2]))
