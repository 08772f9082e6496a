#!/usr/bin/env python3
"""The verdict power study, part two: seeded trials on the corpus.

Usage: trials.py [-t TRIALS] [-s SEED] [-j JOBS] [-n NS] [-o OUT.tsv]
                 [CORPUS]

For each pair (aa, s1, s2, s5), benchmark and n in NS (default 5,10,20;
a cell's draws do not depend on the other cells), a trial draws n of the
recorded base runs and n of the patch runs, each without replacement,
and judges the same draw for each metric (cpu_time, real_time), twice:

  benchfarm   `$BF_BUILD/benchfarm analyze compare --base B --patch P
              --json` at its defaults; its "verdict" (regressed,
              improved, same, unknown) is counted
  compare.py  Google Benchmark's own U test: gbench.report's
              get_difference_report(..., utest=True) on the two draws
              shaped as benchmark JSON; a change is found when the
              metric's p-value is below compare.py's default alpha, 0.05

BF_BUILD defaults to build/default under the source tree, GBENCH_TOOLS
(the folder holding gbench/) to /usr/share/benchmark (Debian's
libbenchmark-tools). The draws depend only on SEED and the cell, so the
same corpus gives the same file. One line per cell goes to OUT.tsv
(default bench/verdict-power/trials.tsv), after '#' lines naming the
benchfarm that judged.
"""
import getopt
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
METRICS = ("cpu_time", "real_time")
NS = (5, 10, 20)
PEER_ALPHA = 0.05

corpus = None
bf = None
tmp = None
report = None


def usage():
    sys.stderr.write("usage: trials.py [-t TRIALS] [-s SEED] [-j JOBS] "
                     "[-n NS] [-o OUT.tsv] [CORPUS]\n")
    sys.exit(2)


def benchfarm_verdict(base, patch, tag):
    """The verdict of `benchfarm analyze compare` on two samples."""
    paths = []
    for side, vals in (("base", base), ("patch", patch)):
        p = os.path.join(tmp, "%d-%s-%s" % (os.getpid(), tag, side))
        with open(p, "w") as f:
            f.write("".join("%r\n" % v for v in vals))
        paths.append(p)
    r = subprocess.run([bf, "analyze", "compare", "--base", paths[0],
                        "--patch", paths[1], "--json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("benchfarm analyze compare exited %d: %s"
                           % (r.returncode, r.stderr.strip()))
    return json.loads(r.stdout)["verdict"]


def peer_pvalues(name, unit, base, patch):
    """compare.py's U-test p-values, {metric: p or None}, on two draws."""
    def runs(side):
        return {"benchmarks": [{
            "name": name, "run_type": "iteration", "time_unit": unit,
            "real_time": rt, "cpu_time": ct}
            for rt, ct in zip(side["real_time"], side["cpu_time"])]}
    diff = report.get_difference_report(runs(base), runs(patch), utest=True)
    u = next(d for d in diff if d["name"] == name)["utest"]
    # An empty utest means compare.py reports no test (and so no change).
    return {"cpu_time": u.get("cpu_pvalue"), "real_time": u.get("time_pvalue")}


def trial(task):
    pair, name, n, bi, pi = task
    s = corpus[pair]["benchmarks"][name]
    base = {m: [s["base"][m][i] for i in bi] for m in METRICS}
    patch = {m: [s["patch"][m][i] for i in pi] for m in METRICS}
    pv = peer_pvalues(name, s["time_unit"], base, patch)
    out = []
    for m in METRICS:
        v = benchfarm_verdict(base[m], patch[m], m)
        p = pv[m]
        found = p is not None and p < PEER_ALPHA
        slower = statistics.median(patch[m]) > statistics.median(base[m])
        out.append((pair, m, name, n, v, found, slower))
    return out


def init_worker(c, b, t, tools):
    global corpus, bf, tmp, report
    corpus, bf, tmp = c, b, t
    sys.path.insert(0, tools)
    from gbench import report as r
    report = r


def tasks(pairs, ns, trials, seed):
    for pair in sorted(pairs):
        for name in sorted(pairs[pair]["benchmarks"]):
            s = pairs[pair]["benchmarks"][name]
            nb = len(s["base"]["cpu_time"])
            np_ = len(s["patch"]["cpu_time"])
            for n in ns:
                rng = random.Random("%d:%s:%s:%d" % (seed, pair, name, n))
                for _ in range(trials):
                    yield (pair, name, n, rng.sample(range(nb), n),
                           rng.sample(range(np_), n))


def cv(x):
    return statistics.stdev(x) / statistics.mean(x)


def describe(p, name, m):
    """CVs, measured shift and disturbed runs of one series of a pair."""
    s = p["benchmarks"][name]
    b, q = s["base"][m], s["patch"][m]
    runs = [(r, c) for side in ("base", "patch")
            for r, c in zip(s[side]["real_time"], s[side]["cpu_time"])]
    return ("%.5f" % cv(b), "%.5f" % cv(q),
            "%.5f" % (statistics.median(q) / statistics.median(b) - 1),
            "%.4f" % (sum(r > 1.05 * c for r, c in runs) / len(runs)))


def git(tree, *args):
    """git's output in tree, or None when git fails there."""
    r = subprocess.run(["git", "-C", tree] + list(args),
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def build_identity():
    """The judging build's tree, its HEAD and the last commit there that
    changed benchfarm's own sources (bench/ and docs are not its code)."""
    tree = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(bf))))
    code = ("core", "orchestrator", "agent", "plugins", "Makefile")
    head = git(tree, "log", "-1", "--format=%H %cI %s")
    sources = git(tree, "log", "-1", "--format=%H %cI %s", "--", *code)
    status = git(tree, "status", "--porcelain", "--untracked-files=no",
                 "--", *code)
    return tree, head or "unknown", sources or "unknown", bool(status)


def main():
    global bf
    try:
        opts, args = getopt.getopt(sys.argv[1:], "t:s:j:n:o:")
    except getopt.GetoptError:
        usage()
    o = dict(opts)
    trials = int(o.get("-t", 1000))
    seed = int(o.get("-s", 1))
    jobs = int(o.get("-j", os.cpu_count() or 1))
    ns = [int(n) for n in o["-n"].split(",")] if "-n" in o else NS
    out = o.get("-o", os.path.join(SRC, "bench/verdict-power/trials.tsv"))
    if len(args) > 1:
        usage()
    path = args[0] if args else os.path.join(
        SRC, "bench/verdict-power/corpus.json")
    build = os.environ.get("BF_BUILD") or "build/default"
    bf = os.path.join(build if os.path.isabs(build)
                      else os.path.join(SRC, build), "benchfarm")
    tools = os.environ.get("GBENCH_TOOLS") or "/usr/share/benchmark"
    with open(path) as f:
        pairs = {p["pair"]: p for p in json.load(f)["pairs"]}
    counts = {}
    with tempfile.TemporaryDirectory(prefix="bf-power-trials.") as t:
        with multiprocessing.Pool(jobs, init_worker,
                                  (pairs, bf, t, tools)) as pool:
            for res in pool.imap_unordered(
                    trial, tasks(pairs, ns, trials, seed), chunksize=25):
                for pair, m, name, n, v, found, slower in res:
                    c = counts.setdefault((pair, m, name, n), {
                        "trials": 0, "regressed": 0, "improved": 0,
                        "same": 0, "unknown": 0, "peer_found": 0,
                        "peer_slower": 0, "peer_faster": 0})
                    c["trials"] += 1
                    c[v] += 1
                    if found:
                        c["peer_found"] += 1
                        c["peer_slower" if slower else "peer_faster"] += 1
    tree, head, sources, dirty = build_identity()
    cols = ["pair", "shift", "metric", "benchmark", "n", "trials",
            "regressed", "improved", "same", "unknown", "peer_found",
            "peer_slower", "peer_faster", "cv_base", "cv_patch",
            "measured_shift", "disturbed"]
    with open(out + ".tmp", "w") as f:
        f.write("# judged by %s (tree %s; sources at %s%s)\n"
                % (bf, tree, sources,
                   ", with uncommitted changes" if dirty else ""))
        f.write("# tree HEAD %s\n" % head)
        f.write("# %d trials per cell, seed %d, corpus %s\n"
                % (trials, seed, os.path.relpath(path, SRC)))
        f.write("\t".join(cols) + "\n")
        for (pair, m, name, n) in sorted(counts, key=lambda k: (
                k[3], k[0], k[1], k[2])):
            c = counts[(pair, m, name, n)]
            p = pairs[pair]
            f.write("\t".join([pair, "%g" % p["shift"], m, name, str(n)] +
                              [str(c[k]) for k in cols[5:13]] +
                              list(describe(p, name, m))) + "\n")
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
