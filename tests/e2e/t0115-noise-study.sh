#!/bin/sh
# The noise study (bench/noise/), as BENCHMARKS.md tells people to run
# it, at a small size: record.sh records real comparisons of its
# generated Google Benchmark project into a corpus of the documented
# shape, and replay.sh replays it into its per-series table and summary.
# Then replay on corpora made here, whose answers are known: a 10%
# slowdown with 0.2% noise is found in every trial by every method, and
# adaptive stops at its first look; A/A gives no verdict; and a duet cell
# whose level drifts 9-fold while every round's ratio stays 1.05 is found
# by the duet methods (pairs kept together) and measured as +5% exactly.
. "$(dirname "$0")/lib.sh"

N=$BF_SRC/bench/noise
BF_BUILD=$BF_BUILD_ABS
export BF_BUILD

# Recording: one condition, 3 runs per side, the default project and
# the default work directory (a new one under TMPDIR, kept: the raw
# results stay there).
TMPDIR="$T" expect_exit 0 "record.sh records the quiet condition" \
	sh "$N/record.sh" -n 3 -o "$T/corpus.json" quiet
check "its default work directory under TMPDIR keeps the 8 raw results" \
	test "$(ls "$T"/bf-noise.*/raw/*.json | wc -l)" -eq 8
jq_check "the corpus has one cell per patch and mode, all quiet" \
	'[.cells[] | [.condition, .patch, .mode]] | sort ==
	 [["quiet","aa","duet"],["quiet","aa","interleaved"],
	  ["quiet","s1","duet"],["quiet","s1","interleaved"],
	  ["quiet","s2","duet"],["quiet","s2","interleaved"],
	  ["quiet","s5","duet"],["quiet","s5","interleaved"]]' "$T/corpus.json"
jq_check "every cell has 4 benchmarks x 2 metrics, 3 runs a side" \
	'all(.cells[]; (.series | length) == 8 and
	     all(.series[]; (.base | length) == 3 and (.patch | length) == 3
	         and all(.base[], .patch[]; . > 0)))' "$T/corpus.json"
jq_check "each cell keeps its shift and its device time" \
	'all(.cells[]; .shift == {"aa":0,"s1":0.01,"s2":0.02,"s5":0.05}[.patch]
	     and .benchmark_s > 0)' "$T/corpus.json"
expect_exit 0 "replay.sh replays it" \
	sh "$N/replay.sh" -t 10 -o "$T/replay.tsv" "$T/corpus.json"
# 4 shifts x (8 series x (3 interleaved + 3 duet methods) + 1 whole
# run + 4 benchmarks) x 2 min_effects
check "the replay has a line per shift, series, method and min_effect" \
	test "$(tail -n +2 "$T/replay.tsv" | wc -l)" -eq 424
check "each line's verdicts add up to its trials" \
	awk -F'\t' 'NR > 1 && $8 + $9 + $10 + $11 != $7 { exit 1 }' \
	"$T/replay.tsv"
grep_file "the summary has the quiet condition's adaptive row" \
	'^| quiet | adaptive | real_time |' "$OUT"
# A benchmark stops when both its series have: its runs are the larger.
check "each benchmark's adaptive runs are the most its two series took" \
	awk -F'\t' 'NR > 1 && $3 == "adaptive" { k = $1 FS $2 FS $4 FS $5
		if ($12 > most[k]) most[k] = $12 }
	NR > 1 && $3 == "adaptive, per benchmark" { b[$1 FS $2 FS $4 FS $5] = $12 }
	END { n = 0; for (k in b) { n++; if (b[k] + 0 < most[k] + 0) exit 1 }
		exit n != 32 }' "$T/replay.tsv"

# Known answers. cell COND PATCH SHIFT MODE BASE PATCH: one series of
# 40 runs a side (interleaved: 0.5 s a run; duet: 0.5 s a round).
cell() {
	printf '{"condition":"%s","patch":"%s","shift":%s,"mode":"%s",' \
		"$1" "$2" "$3" "$4"
	_s=40
	[ "$4" = duet ] && _s=20
	printf '"repeats":40,"benchmark_s":%s,"series":[{"name":"b",' $_s
	printf '"metric":"real_time","unit":"ns","base":%s,"patch":%s}]}' \
		"$5" "$6"
}
# 40 runs: 0.2% of noise in a 5-run pattern, and the same x1.10.
base=$(awk 'BEGIN { s = "["; for (i = 0; i < 40; i++)
	s = s (i ? "," : "") 1000 * (1 + 0.001 * (i % 5 - 2)); print s "]" }')
aa=$(awk 'BEGIN { s = "["; for (i = 0; i < 40; i++)
	s = s (i ? "," : "") 1000 * (1 + 0.001 * ((i + 2) % 5 - 2)); print s "]" }')
slow=$(awk 'BEGIN { s = "["; for (i = 0; i < 40; i++)
	s = s (i ? "," : "") 1100 * (1 + 0.001 * (i % 5 - 2)); print s "]" }')
# Drift: round i at level 1 + i/5 (1 to 8.8), its patch 5% above.
dbase=$(awk 'BEGIN { s = "["; for (i = 0; i < 40; i++)
	s = s (i ? "," : "") 1000 * (1 + i / 5); print s "]" }')
dslow=$(awk 'BEGIN { s = "["; for (i = 0; i < 40; i++)
	s = s (i ? "," : "") 1050 * (1 + i / 5); print s "]" }')
{
	printf '{"cells":['
	cell quiet aa 0 interleaved "$base" "$aa"
	printf ,
	cell quiet s5 0.1 interleaved "$base" "$slow"
	printf ,
	cell quiet aa 0 duet "$base" "$aa"
	printf ,
	cell quiet s5 0.1 duet "$base" "$slow"
	printf ,
	cell drift s5 0.05 duet "$dbase" "$dslow"
	printf ,
	cell drift s5 0.05 interleaved "$dbase" "$dslow"
	printf ']}\n'
} >"$T/known.json"
expect_exit 0 "replay.sh replays a corpus of known answers" \
	sh "$N/replay.sh" -t 40 -o "$T/known.tsv" "$T/known.json"
# row COND SHIFT METHOD FIELD at min_effect 0.02 (fields: 8 regressed,
# 9 improved, 10 same, 11 unknown, 12 runs, 14 measured shift).
row() {
	awk -F'\t' -v c="$1" -v s="$2" -v m="$3" -v f="$4" \
		'$1 == c && $2 == s && $3 == m && $4 == 0.02 { print $f }' \
		"$T/known.tsv"
}
for m in "fixed 10" "fixed 30" adaptive "duet 10" "duet 30" "duet same time"; do
	check "10% slower: $m says regressed in all 40 trials" \
		test "$(row quiet 0.1 "$m" 8)" = 40
	check "A/A: $m gives no regressed or improved verdict" \
		test "$(row quiet 0 "$m" 8)$(row quiet 0 "$m" 9)" = 00
done
check "adaptive stops the 10% slowdown at its first look (6 runs)" \
	test "$(row quiet 0.1 adaptive 12)" = 6.00
check "adaptive's A/A stops 'same' at its first look too" \
	test "$(row quiet 0 adaptive 10) $(row quiet 0 adaptive 12)" = "40 6.00"
for m in "duet 10" "duet 30"; do
	check "drifting level, ratio 1.05: $m keeps rounds paired (40 regressed)" \
		test "$(row drift 0.05 "$m" 8)" = 40
done
check "the drift cell's measured duet shift is +5%" \
	test "$(row drift 0.05 "duet 30" 14)" = 0.05000
check "unpaired, the same drift hides the 5% from fixed 30" \
	test "$(row drift 0.05 "fixed 30" 8)" -lt 40
check "duet same time takes fixed 30's device time in rounds (60)" \
	test "$(row quiet 0.1 "duet same time" 12)" = 60.00
expect_exit 2 "replay.sh refuses a corpus it cannot read" \
	sh "$N/replay.sh" -t 5 -o "$T/x.tsv" "$T/missing.json"
grep_file "... and names it" "cannot read the corpus '$T/missing.json'" "$ERR"
