#!/usr/bin/env python3
"""The verdict power study's tables and targets from trials.py's TSV.

Usage: table.py TRIALS.tsv [TRIALS.tsv...]

With several files (the same corpus, seed and trial count judged by
different benchfarm builds) each build gets its own benchfarm columns,
blank where its file has no such cell; compare.py judged the same draws
in each, so its columns (the first file's) are shown once.

Rates are in % of the trials. "found" is the regressed verdicts for a
slower patch; on A/A (pair aa) it is the false verdicts: regressed plus
improved for benchfarm, p < 0.05 for compare.py. "wrong" is a verdict
in the wrong direction (improved on a slower patch; for compare.py, p <
0.05 with the patch's median the faster). Pooled rows sum the four
benchmarks' trials.
"""
import sys

PAIRS = {"aa": "A/A", "s1": "+1%", "s2": "+2%", "s5": "+5%"}
INT = ("n", "trials", "regressed", "improved", "same", "unknown",
       "peer_found", "peer_slower", "peer_faster")


def load(path):
    head, rows = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                head.append(line[1:].strip())
                continue
            cols = line.rstrip("\n").split("\t")
            if cols[0] == "pair":
                names = cols
                continue
            r = dict(zip(names, cols))
            for k in INT:
                r[k] = int(r[k])
            for k in ("shift", "cv_base", "cv_patch", "measured_shift",
                      "disturbed"):
                r[k] = float(r[k])
            rows.append(r)
    return head, {(r["n"], r["pair"], r["metric"], r["benchmark"]): r
                  for r in rows}


def label(head):
    """A short name for the build that judged: its tree and the commit
    of its sources."""
    for h in head:
        if h.startswith("judged by ") and "(tree " in h:
            tree, _, rest = h.split("(tree ", 1)[1].partition(";")
            commit = rest.split("sources at ", 1)[-1]
            return "%s %s" % (tree.rstrip("/").rsplit("/", 1)[-1],
                              commit[:7])
    return "?"


def pct(k, n):
    return "%.1f" % (100.0 * k / n) if n else ""


def bf_found(rs):
    n = sum(r["trials"] for r in rs)
    if rs[0]["pair"] == "aa":
        return pct(sum(r["regressed"] + r["improved"] for r in rs), n), "—"
    return (pct(sum(r["regressed"] for r in rs), n),
            pct(sum(r["improved"] for r in rs), n))


def peer_found(rs):
    n = sum(r["trials"] for r in rs)
    if rs[0]["pair"] == "aa":
        return pct(sum(r["peer_found"] for r in rs), n), "—"
    return (pct(sum(r["peer_slower"] for r in rs), n),
            pct(sum(r["peer_faster"] for r in rs), n))


def rate(rs, judge):
    n = sum(r["trials"] for r in rs)
    if judge == "peer":
        k = sum(r["peer_found"] if r["pair"] == "aa" else r["peer_slower"]
                for r in rs)
    elif rs[0]["pair"] == "aa":
        k = sum(r["regressed"] + r["improved"] for r in rs)
    else:
        k = sum(r["regressed"] for r in rs)
    return 100.0 * k / n


def cells(sets, key_of):
    """One row's columns per build, then compare.py's from the first."""
    out = []
    for _, t in sets:
        rs = key_of(t)
        if None in rs:
            out += ["", "", ""]
            continue
        f, w = bf_found(rs)
        out += [f, w, pct(sum(r["unknown"] for r in rs),
                          sum(r["trials"] for r in rs))]
    f, w = peer_found(key_of(sets[0][1]))
    return out + [f, w]


def check_same_draws(sets):
    a = sets[0][1]
    for _, t in sets[1:]:
        for k, r in t.items():
            if k in a and any(r[c] != a[k][c] for c in
                              ("trials", "peer_found", "peer_slower")):
                sys.exit("table.py: the files' compare.py columns differ "
                         "at %s: not the same draws (corpus, seed, trials)"
                         % (k,))


def targets(sets):
    t0 = sets[0][1]
    names = sorted({k[3] for k in t0})
    for lab, t in sets:
        if any((10, p, m, b) not in t for p in ("aa", "s2", "s5")
               for m in ("cpu_time", "real_time") for b in names):
            print("\nTargets, judged by benchfarm %s: no trials at n = 10"
                  % lab)
            continue
        print("\nTargets, judged by benchfarm %s (n = 10 runs a side):\n"
              % lab)
        for m in ("cpu_time", "real_time"):
            aa = [t[(10, "aa", m, b)] for b in names]
            bf, peer = rate(aa, "bf"), rate(aa, "peer")
            ok = bf <= 1.0 and bf <= peer / 5
            print("- A/A false verdicts, %s: %.1f%% against compare.py's "
                  "%.1f%% (at most 1%% and at most %.1f%%): %s"
                  % (m, bf, peer, peer / 5, "met" if ok else "not met"))
        # A benchmark's CV is its A/A pair's (the larger side's), where
        # nothing but noise separates the runs.
        low = [b for b in names if max(t[(10, "aa", "cpu_time", b)][k]
                                       for k in ("cv_base", "cv_patch"))
               < 0.01]
        for b in names:
            r = t[(10, "s2", "cpu_time", b)]
            a = t[(10, "aa", "cpu_time", b)]
            f = rate([r], "bf")
            cvs = "A/A CV %.2f%%/%.2f%%, +2%% pair CV %.2f%%/%.2f%%" % (
                100 * a["cv_base"], 100 * a["cv_patch"],
                100 * r["cv_base"], 100 * r["cv_patch"])
            if b in low:
                verdict = "met" if f >= 80 else "not met"
            else:
                verdict = "not a case of the target (CV not under 1%)"
            print("- +2%% cpu_time, %s (%s, measured %+.2f%%): found in "
                  "%.1f%% (compare.py %.1f%%; target 80%% when CV < 1%%): "
                  "%s" % (b, cvs, 100 * r["measured_shift"], f,
                          rate([r], "peer"), verdict))
        if not low:
            print("- +2% cpu_time: no benchmark had a cpu_time CV under 1% "
                  "in the A/A pair: the target is untested by this corpus")
        worst = []
        for b in names:
            r = t[(10, "s5", "cpu_time", b)]
            f = rate([r], "bf")
            worst.append(f)
            print("- +5%% cpu_time, %s (measured %+.2f%%): found in %.1f%% "
                  "(compare.py %.1f%%; target 95%%): %s"
                  % (b, 100 * r["measured_shift"], f, rate([r], "peer"),
                     "met" if f >= 95 else "not met"))
        print("- +5%% cpu_time, every benchmark at least 95%%: %s"
              % ("met" if min(worst) >= 95 else "not met"))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: table.py TRIALS.tsv [TRIALS.tsv...]")
    sets = []
    for p in sys.argv[1:]:
        head, t = load(p)
        sets.append((label(head), t))
        print("%s: %s" % (p, "; ".join(head)))
    check_same_draws(sets)
    t0 = sets[0][1]
    names = sorted({k[3] for k in t0})
    bfh = []
    for lab, _ in sets:
        bfh += ["benchfarm %s found" % lab, "wrong", "unknown"]
    print("\nPooled over the four benchmarks; found = false verdicts on "
          "A/A, %\n")
    cols = ["n", "pair", "metric"] + bfh + ["compare.py found", "wrong"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for n in sorted({k[0] for k in t0}):
        for pair in PAIRS:
            for m in ("cpu_time", "real_time"):
                if (n, pair, m, names[0]) not in t0:
                    continue
                row = cells(sets, lambda t: [t.get((n, pair, m, b))
                                             for b in names])
                print("| " + " | ".join([str(n), PAIRS[pair], m] + row) +
                      " |")
    print("\nPer benchmark, cpu_time, n = 10; CV over the pair's 30 runs a "
          "side; disturbed: runs whose real_time exceeds cpu_time by more "
          "than 5%, %\n")
    cols = ["benchmark", "pair", "CV base", "CV patch", "measured shift",
            "disturbed"] + bfh + ["compare.py found", "wrong"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for b in names:
        for pair in PAIRS:
            r = t0.get((10, pair, "cpu_time", b))
            if not r:
                continue
            row = cells(sets, lambda t: [t.get((10, pair, "cpu_time", b))])
            print("| " + " | ".join(
                [b, PAIRS[pair], "%.2f" % (100 * r["cv_base"]),
                 "%.2f" % (100 * r["cv_patch"]),
                 "%+.2f" % (100 * r["measured_shift"]),
                 "%.0f" % (100 * r["disturbed"])] + row) + " |")
    targets(sets)


if __name__ == "__main__":
    main()
