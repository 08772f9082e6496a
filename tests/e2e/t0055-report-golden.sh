#!/bin/sh
# Golden files: every reporter, from each fixed result document, renders
# byte for byte what tests/fixtures/report/golden/FIXTURE/FORMAT/ holds
# (one file per output). BF_UPDATE_GOLDEN=1 rewrites them instead;
# BF_GOLDEN_FORMATS="github junit" limits the run to some formats. Review
# the diff before committing a rewrite.
#
# And whatever the format: a result with infrastructure failures, or one
# in which nothing was compared (an empty results list), never says "no
# regressions".
. "$(dirname "$0")/lib.sh"
# The CI's and the reporters' variables would change what is rendered.
unset GITHUB_SHA GITHUB_REF CI_MERGE_REQUEST_IID CHANGE_ID \
	GERRIT_CHANGE_NUMBER GERRIT_PATCHSET_NUMBER BENCHFARM_PERF_ISSUE \
	BENCHFARM_PERF_PATCHSET BENCHFARM_GERRIT_COMMENTS

FX="$BF_SRC/tests/fixtures/report"
G="$FX/golden"
CFG="$G/benchfarm.yaml"

for fx in compare-regressed compare-clean compare-infra compare-hostile detect bisect; do
	[ -d "$G/$fx" ] || continue
	for dir in "$G/$fx"/*/; do
		fmt=$(basename "$dir")
		case " ${BF_GOLDEN_FORMATS:-$fmt} " in
		*" $fmt "*) ;;
		*) continue ;;
		esac
		gdir="$T/golden/$fx/$fmt"
		mkdir -p "$gdir"
		expect_exit 0 "$fmt renders $fx" "$BF" report -c "$CFG" \
			--no-post --format "$fmt" --input "$FX/$fx.json" \
			--output-dir "$gdir"
		if [ "${BF_UPDATE_GOLDEN:-0}" = 1 ]; then
			rm -rf "$dir"
			mkdir -p "$dir"
			cp "$gdir"/* "$dir"
			t_ok "$fmt/$fx golden rewritten"
			continue
		fi
		if diff -r "$dir" "$gdir" >"$T/diff" 2>&1; then
			t_ok "$fmt/$fx is byte for byte its golden file"
		else
			sed 's/^/#   /' "$T/diff" | head -40
			t_fail "$fmt/$fx differs from its golden file"
		fi
	done
done

# Infrastructure failures, or nothing compared: no format may say there
# was no regression.
for fmt in $("$BF" report --list | awk '$1 !~ /^exec/ {print $1}'); do
	case " ${BF_GOLDEN_FORMATS:-$fmt} " in
	*" $fmt "*) ;;
	*) continue ;;
	esac
	for fx in compare-infra compare-empty; do
		out="$T/never/$fx/$fmt"
		mkdir -p "$out"
		expect_exit 0 "$fmt renders $fx" "$BF" report -c "$CFG" \
			--no-post --format "$fmt" --input "$FX/$fx.json" \
			--output-dir "$out"
		if grep -rqiE 'no regressions?([^a-z]|$)' "$out"; then
			grep -rniE 'no regressions?' "$out" | sed 's/^/#   /' |
				head -5
			t_fail "$fmt never says \"no regressions\" for $fx"
		else
			t_ok "$fmt never says \"no regressions\" for $fx"
		fi
	done
done

# What was not compared is said so where a reviewer reads the verdict.
out="$T/never/compare-empty"
[ -n "${BF_GOLDEN_FORMATS:-}" ] && exit 0
grep_file "markdown says nothing was compared" \
	"^## benchfarm: nothing was compared$" "$out/markdown/report.md"
jq_check "the GitHub check is neutral: nothing was compared" \
	'.conclusion == "neutral" and .output.title == "Nothing was compared"' \
	"$out/github/github-check.json"
jq_check "Gerrit says so and does not vote" \
	'(.message | startswith("benchfarm (perf/pixel): nothing was compared\n")) and (has("labels") | not)' \
	"$out/gerrit/gerrit-review.json"
