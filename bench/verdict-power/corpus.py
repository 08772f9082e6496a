#!/usr/bin/env python3
"""The verdict power study's corpus from record.sh's raw runs.

Usage: corpus.py META RAWDIR > corpus.json

META holds record.sh's key=value lines (machine, times, settings).
RAWDIR holds one Google Benchmark JSON per run, named
PAIR-INDEX-SIDE.json. The corpus keeps, per pair and benchmark, every
run's real_time, cpu_time and iteration count per side in run order
(base run i was made just before patch run i), and the load averages
Google Benchmark printed with each run.
"""
import json
import os
import sys

WORK = {"aa": 1.00, "s1": 1.01, "s2": 1.02, "s5": 1.05}


def read_meta(path):
    meta = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            meta[k] = v
    return meta


def main():
    meta = read_meta(sys.argv[1])
    raw = sys.argv[2]
    pairs = {}
    context = None
    for name in sorted(os.listdir(raw)):
        if not name.endswith(".json"):
            continue
        pair, idx, side = name[:-5].split("-")
        with open(os.path.join(raw, name)) as f:
            r = json.load(f)
        if context is None:
            context = {k: r["context"][k] for k in
                       ("num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
                        "caches", "library_build_type")
                       if k in r["context"]}
        p = pairs.setdefault(pair, {
            "pair": pair, "shift": round(WORK[pair] - 1, 4),
            "work": {"base": 1.00, "patch": WORK[pair]},
            "load_avg": {"base": [], "patch": []}, "benchmarks": {}})
        assert len(p["load_avg"][side]) == int(idx) - 1, name
        p["load_avg"][side].append(r["context"].get("load_avg"))
        for b in r["benchmarks"]:
            s = p["benchmarks"].setdefault(b["name"], {
                "time_unit": b["time_unit"],
                "base": {"real_time": [], "cpu_time": [], "iterations": []},
                "patch": {"real_time": [], "cpu_time": [],
                          "iterations": []}})
            for k in ("real_time", "cpu_time"):
                s[side][k].append(float("%.7g" % b[k]))
            s[side]["iterations"].append(b["iterations"])
    json.dump({
        "about": "bench/verdict-power/record.sh: real per-run times of "
                 "power.cc, base and patch alternating on core 0; drawn "
                 "from by bench/verdict-power/trials.py",
        "machine": {"cpu": meta["cpu"], "nproc": int(meta["nproc"]),
                    "threads_per_core": meta["threads_per_core"],
                    "kernel": meta["kernel"], "gbench_context": context},
        "started": meta["started"],
        "ended": meta["ended"],
        "loadavg_start": meta["loadavg_start"],
        "loadavg_end": meta["loadavg_end"],
        "neighbour": "bench/noise/neighbour.c cpu, taskset -c 1",
        "benchmark_cpu": "taskset -c 0",
        "nice": int(meta["nice"]),
        "compiler": meta["compiler"],
        "libbenchmark": meta["libbenchmark"],
        "binary_sha256": meta["binary_sha256"],
        "binaries": "base and patch: one build, copied (cmp-identical)",
        "min_time": meta["min_time"],
        "pairs": [pairs[k] for k in sorted(pairs)],
    }, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
