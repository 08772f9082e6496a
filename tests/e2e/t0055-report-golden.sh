#!/bin/sh
# Golden files: every reporter, from each fixed result document, renders
# byte for byte what tests/fixtures/report/golden/FIXTURE/FORMAT/ holds
# (one file per output). BF_UPDATE_GOLDEN=1 rewrites them instead;
# BF_GOLDEN_FORMATS="github junit" limits the run to some formats. Review
# the diff before committing a rewrite.
#
# And whatever the format: a result with infrastructure failures never
# says "no regressions".
. "$(dirname "$0")/lib.sh"

FX="$BF_SRC/tests/fixtures/report"
G="$FX/golden"
CFG="$G/benchfarm.yaml"

for fx in compare-regressed compare-clean compare-infra compare-hostile detect; do
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

# Infrastructure failures: no format may say there was no regression.
for fmt in $("$BF" report --list | awk '$1 !~ /^exec/ {print $1}'); do
	case " ${BF_GOLDEN_FORMATS:-$fmt} " in
	*" $fmt "*) ;;
	*) continue ;;
	esac
	out="$T/infra/$fmt"
	mkdir -p "$out"
	expect_exit 0 "$fmt renders a result with infrastructure failures" \
		"$BF" report -c "$CFG" --no-post --format "$fmt" \
		--input "$FX/compare-infra.json" --output-dir "$out"
	if grep -rqiE 'no regressions?([^a-z]|$)' "$out"; then
		grep -rniE 'no regressions?' "$out" | sed 's/^/#   /' | head -5
		t_fail "$fmt never says \"no regressions\" with infrastructure failures"
	else
		t_ok "$fmt never says \"no regressions\" with infrastructure failures"
	fi
done
