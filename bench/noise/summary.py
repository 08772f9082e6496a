#!/usr/bin/env python3
"""The noise study's summary tables from replay.c's per-series TSV.

Usage: summary.py REPLAY.tsv

Rates are pooled over the series (the benchmarks) of one metric, with a
Wilson 95% interval over the trials; that interval is the replay's own
sampling error over one recorded corpus, not the spread between
recordings. "worst" is the worst single series: the highest A/A false
verdict rate, the lowest power.
"""
import collections
import math
import sys


def wilson(k, n, z=1.96):
    if n == 0:
        return (float("nan"),) * 2
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def pct(x):
    return "%.1f" % (100 * x)


def main():
    rows = []
    with open(sys.argv[1]) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            for k in ("shift", "min_effect", "runs", "width",
                      "measured_shift"):
                r[k] = float(r[k])
            for k in ("trials", "regressed", "improved", "same", "unknown"):
                r[k] = int(r[k])
            rows.append(r)
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["condition"], r["method"], r["min_effect"], r["metric"],
                r["shift"])].append(r)
    conds = sorted({r["condition"] for r in rows},
                   key=lambda c: ["quiet", "cpu", "mem", "disk"].index(c)
                   if c in ("quiet", "cpu", "mem", "disk") else 9)
    methods = ["fixed 10", "fixed 30", "adaptive",
               "duet 10", "duet 30",
               "duet same time"]
    metrics = sorted({r["metric"] for r in rows if r["metric"] != "(all)"})
    shifts = sorted({r["shift"] for r in rows})
    for me in sorted({r["min_effect"] for r in rows}, reverse=True):
        print("\nmin_effect %g: A/A false verdicts and power (regressed) "
              "in %%, pooled over benchmarks [95%% interval] (worst "
              "benchmark); runs per side, mean over every shift\n" % me)
        cols = ["condition", "method", "metric", "A/A false"] + \
            ["power %g%%" % (100 * s) for s in shifts if s > 0] + ["runs"]
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for c in conds:
            for m in methods:
                for mt in metrics:
                    aa = groups.get((c, m, me, mt, 0.0))
                    if not aa:
                        continue
                    k = sum(r["regressed"] + r["improved"] for r in aa)
                    n = sum(r["trials"] for r in aa)
                    lo, hi = wilson(k, n)
                    worst = max((r["regressed"] + r["improved"]) /
                                r["trials"] for r in aa)
                    cells = [c, m, mt, "%s [%s, %s] (%s)" %
                             (pct(k / n), pct(lo), pct(hi), pct(worst))]
                    allr = list(aa)
                    for s in shifts:
                        if s <= 0:
                            continue
                        g = groups.get((c, m, me, mt, s), [])
                        if not g:
                            cells.append("")
                            continue
                        allr += g
                        k = sum(r["regressed"] for r in g)
                        n = sum(r["trials"] for r in g)
                        lo, hi = wilson(k, n)
                        worst = min(r["regressed"] / r["trials"] for r in g)
                        cells.append("%s [%s, %s] (%s)" % (
                            pct(k / n), pct(lo), pct(hi), pct(worst)))
                    cells.append("%.1f" % (sum(r["runs"] for r in allr) /
                                           len(allr)))
                    print("| " + " | ".join(cells) + " |")
    print("\nRuns per side, mean over the benchmarks, shifts and trials: "
          "adaptive judged per series (a benchmark that prints one "
          "series) and as a whole run (a benchmark stops when every series "
          "its runs print is decided; its A/A column: any series with a "
          "false verdict) and per benchmark (each benchmark of the program "
          "a config entry of its own, stopping when its own series are "
          "decided; mean over the benchmarks), against a fixed 30\n")
    print("| condition | min_effect | adaptive, per series | fewer than 30 "
          "| whole run | fewer than 30 | whole run, A/A any false "
          "| per benchmark | fewer than 30 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for me in sorted({r["min_effect"] for r in rows}, reverse=True):
        for c in conds:
            per = [r["runs"] for r in rows if r["condition"] == c and
                   r["method"] == "adaptive" and r["min_effect"] == me]
            whole = [r for r in rows if r["condition"] == c and
                     r["method"] == "adaptive, whole run" and
                     r["min_effect"] == me]
            if not per or not whole:
                continue
            bench = [r["runs"] for r in rows if r["condition"] == c and
                     r["method"] == "adaptive, per benchmark" and
                     r["min_effect"] == me]
            bm = sum(bench) / len(bench) if bench else float("nan")
            pm = sum(per) / len(per)
            wm = sum(r["runs"] for r in whole) / len(whole)
            aa = [r for r in whole if r["shift"] == 0]
            k = sum(r["regressed"] + r["improved"] for r in aa)
            n = sum(r["trials"] for r in aa)
            lo, hi = wilson(k, n)
            print("| %s | %g | %.1f | %.0f%% | %.1f | %.0f%% | %s [%s, %s] "
                  "| %.1f | %.0f%% |"
                  % (c, me, pm, 100 * (1 - pm / 30), wm,
                     100 * (1 - wm / 30), pct(k / n if n else 0), pct(lo),
                     pct(hi), bm, 100 * (1 - bm / 30)))
    print("\nInterval width on A/A (median over trials), duet against "
          "interleaved fixed 30 per benchmark; ratio < 0.5 meets the "
          "target\n")
    print("| condition | metric | benchmark | fixed 30 | duet 30 | "
          "duet same time (rounds) | ratio same time |")
    print("|---|---|---|---|---|---|---|")
    for c in conds:
        for mt in metrics:
            f30 = {r["name"]: r for r in
                   groups.get((c, "fixed 30", 0.02, mt, 0.0), [])}
            d30 = {r["name"]: r for r in
                   groups.get((c, "duet 30", 0.02, mt, 0.0), [])}
            dst = {r["name"]: r for r in
                   groups.get((c, "duet same time", 0.02, mt, 0.0), [])}
            for name in sorted(f30):
                if name not in dst:
                    continue
                print("| %s | %s | %s | %s | %s | %s (%d) | %.2f |" % (
                    c, mt, name, pct(f30[name]["width"]),
                    pct(d30[name]["width"]), pct(dst[name]["width"]),
                    round(dst[name]["runs"]),
                    dst[name]["width"] / f30[name]["width"]))
    print("\nShift measured over every recorded run of each cell "
          "(interleaved: median ratio; duet: median round ratio), in %\n")
    print("| condition | metric | benchmark | mode | " +
          " | ".join("patch +%g%%" % (100 * s) for s in shifts) + " |")
    print("|---|---|---|---|" + "---|" * len(shifts))
    for c in conds:
        for mt in metrics:
            for mode, m in (("interleaved", "fixed 30"),
                            ("duet", "duet 30")):
                names = sorted({r["name"] for r in
                                groups.get((c, m, 0.02, mt, 0.0), [])})
                for name in names:
                    vals = []
                    for s in shifts:
                        g = [r for r in groups.get((c, m, 0.02, mt, s), [])
                             if r["name"] == name]
                        vals.append("%+.2f" % (100 * g[0]["measured_shift"])
                                    if g else "")
                    print("| %s | %s | %s | %s | %s |" % (
                        c, mt, name, mode, " | ".join(vals)))


if __name__ == "__main__":
    main()
