#!/usr/bin/env python3
"""The noise study's corpus from record.sh's raw result JSONs.

Usage: corpus.py RAWDIR > corpus.json

Each raw file is one `benchfarm compare --json` result named
CONDITION-PATCH-MODE.json. The corpus keeps, per comparison, its
settings and device time and, per series, every measured run's value
per side in the order the runs were made (a run's value is the median
of its rows; Google Benchmark prints one row per benchmark per run, so
it is the run's one sample).
"""
import json
import os
import sys

SHIFT = {"aa": 0.0, "s1": 0.01, "s2": 0.02, "s5": 0.05}


def main():
    raw = sys.argv[1]
    cells = []
    for name in sorted(os.listdir(raw)):
        if not name.endswith(".json"):
            continue
        cond, patch, mode = name[:-5].split("-")
        with open(os.path.join(raw, name)) as f:
            r = json.load(f)
        dev = r["devices"][0]["info"]
        cells.append({
            "condition": cond,
            "patch": patch,
            "shift": SHIFT[patch],
            "mode": mode,
            "started": r["started"],
            "repeats": r["settings"]["repeats"],
            "benchmark_s": r["summary"]["benchmark_s"],
            "wall_s": r["summary"]["wall_s"],
            "series": [{
                "name": s["name"],
                "metric": s["metric"],
                "unit": s["unit"],
                "base": [float("%.6g" % v) for v in s["base"]["values"]],
                "patch": [float("%.6g" % v) for v in s["patch"]["values"]],
            } for s in r["results"] if "base" in s],
        })
    json.dump({
        "about": "bench/noise/record.sh: real per-run values of the noise "
                 "study's comparisons; replayed by bench/noise/replay.sh",
        "machine": {"cpu": dev["cpu"]["model"], "cpus": dev["cpus_online"],
                    "kernel": dev["kernel"],
                    "memory_kb": dev["memory"]["total_kb"]},
        "cells": cells,
    }, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
