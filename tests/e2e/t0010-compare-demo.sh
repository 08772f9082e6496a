#!/bin/sh
# Presubmit on the demo project: the injected 20% slowdown is reported
# regressed with the default repeats; A/A comparisons with ten seeds give
# no regressed or improved verdict at all; every raw sample is stored.
. "$(dirname "$0")/lib.sh"

R="$T/repo"
make_demo_repo "$R"

expect_exit 1 "compare finds the regression (exit 1)" \
	"$BF" compare -c "$R/benchfarm.yaml" --json "$T/r.json" --seed 1
# cpu_time is the verdict to insist on: on a loaded machine (CI with
# other jobs, the sanitizer build) the descheduled time widens
# real_time's interval until it may honestly say "unknown"; it must
# never say "same" or "improved".
grep_file "markdown says regressions" "^## benchfarm: [0-9]* regressions\{0,1\}$" "$OUT"
jq_check "BM_checksum cpu_time regressed" \
	'[.results[] | select(.name == "BM_checksum" and .metric == "cpu_time")][0].verdict == "regressed"' "$T/r.json"
jq_check "BM_checksum effect near +20%" \
	'[.results[] | select(.name == "BM_checksum" and .metric == "cpu_time")][0].effect | (. > 0.12 and . < 0.30)' "$T/r.json"
jq_check "BM_checksum real_time regressed, or unknown under load" \
	'[.results[] | select(.name == "BM_checksum" and .metric == "real_time")][0].verdict | (. == "regressed" or . == "unknown")' "$T/r.json"
jq_check "nothing else regressed or improved" \
	'[.results[] | select(.name != "BM_checksum") | select(.verdict == "regressed" or .verdict == "improved")] | length == 0' "$T/r.json"
jq_check "base is the merge-base with main" \
	".base.commit == \"$(git -C "$R" rev-parse main)\"" "$T/r.json"
jq_check "patch is HEAD" \
	".patch.commit == \"$(git -C "$R" rev-parse HEAD)\"" "$T/r.json"
jq_check "10 runs per side per series" \
	'[.results[] | .base.n == 10 and .patch.n == 10] | all' "$T/r.json"
jq_check "seed recorded" '.settings.seed == 1' "$T/r.json"
jq_check "each sample names the device it was measured on" \
	'.devices[0].name as $d | [.samples[] | .device == $d] | all and length > 0' "$T/r.json"
nsamples=$(jq '.samples | length' "$T/r.json")
nstored=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples")
if [ "$nsamples" -gt 0 ] && [ "$nsamples" = "$nstored" ]; then
	t_ok "every raw sample stored ($nstored)"
else
	t_fail "samples stored: json $nsamples, store $nstored"
fi
jq_check "the stored run is complete" "true" "$T/r.json"
status=$(sqlite3 "$BENCHFARM_DB" "select status from runs where kind='compare'")
[ "$status" = complete ] && t_ok "run status complete" ||
	t_fail "run status '$status'"
if [ "$(git -C "$R" status --porcelain)" = "" ]; then
	t_ok "the repository's working tree is untouched"
else
	t_fail "the repository's working tree is untouched"
fi

# A/A: the same commit on both sides, ten seeds, no false verdict.
false_verdicts=0
for seed in 11 12 13 14 15 16 17 18 19 20; do
	"$BF" compare -c "$R/benchfarm.yaml" --base patch --patch patch \
		--seed $seed --json "$T/aa.json" >/dev/null 2>"$ERR"
	rc=$?
	n=$(jq '[.results[] | select(.verdict == "regressed" or .verdict == "improved")] | length' "$T/aa.json")
	if [ "$rc" -ne 0 ] || [ "$n" -ne 0 ]; then
		echo "#   seed $seed: exit $rc, $n false verdicts"
		false_verdicts=$((false_verdicts + 1))
	fi
done
if [ "$false_verdicts" -eq 0 ]; then
	t_ok "A/A over 10 seeds: no regressed or improved verdict"
else
	t_fail "A/A over 10 seeds: $false_verdicts runs with false verdicts"
fi
jq_check "A/A build was cached" '.patch.build_cached' "$T/aa.json"

expect_exit 2 "unknown revision is a usage error" \
	"$BF" compare -c "$R/benchfarm.yaml" --patch no-such-branch
grep_file "names the revision" "unknown revision 'no-such-branch'" "$ERR"
