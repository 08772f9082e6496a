#!/bin/sh
# make bench: the project's own performance benchmarks. Results and the
# commands that produced them are summarised in BENCHMARKS.md.
set -eu
cd "$(dirname "$0")/.."
command -v bc >/dev/null || { echo "bench: needs bc (apt-get install bc)" >&2; exit 2; }
echo "== compare orchestration overhead =="
sh bench/compare_overhead.sh 10 3
echo "== CPU sampling overhead of benchfarm-agent run =="; sh bench/cpu_sampling.sh 7
echo "== farm scaling: N loopback sshd devices against the ssh client =="; sh bench/farm_scale.sh
echo "== step detection over 10,000 series and store ingest against sqlite3 .import =="; sh bench/detect_ingest.sh
echo "== step detection on real histories (tests/data/histories) =="; sh bench/history_corpus.sh
echo "== function tracing overhead against uftrace =="; sh bench/trace_overhead.sh
echo "== benchfarm trace on a 16 MB trace of 3,000 functions =="; sh bench/trace_render.sh
echo "== libbenchfarm_bench against Google Benchmark =="; sh bench/harness_vs_gbench.sh 10
echo "== the HTML dashboard: 100 series x 1,000 points in headless Chromium =="; sh bench/html_dashboard.sh 5
echo "== sample ingest into PostgreSQL against psql \\copy =="; sh bench/pg_ingest.sh
echo "== lease throughput: 5 processes contending for 50 devices =="; sh bench/lease_contend.sh
echo "== a simulated day of a lab: 5 orchestrators, 50 to 200 devices =="; sh bench/lab_day.sh
echo "== verdicts on a noisy machine: the noise study's recorded corpus replayed =="; sh bench/noise/replay.sh
echo "== verdict power at small changes against compare.py =="; sh bench/verdict-power/run.sh
