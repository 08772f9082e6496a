#!/bin/sh
# benchfarm store copy from a hostile SQLite source, made with the
# sqlite3 CLI (SQLite keeps any value in any column): the text 'abc' as
# a sample's value, a benchmark name with a NUL byte, a blob as a
# benchmark name, and a recursive view where the alerts table was. Each
# is refused (exit 3) naming its table, row and column, and the
# destination is byte for byte as it was; the view is stopped by
# --query-timeout instead of hanging the copy.
. "$(dirname "$0")/lib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "ok 1 # skip no sqlite3 CLI"
	exit 0
fi

# fresh NAME AT: a source store T/NAME.db of the current schema with a
# device, a run started at AT and three samples.
fresh() {
	BENCHFARM_DB="$T/$1.db" "$BF" device list >/dev/null 2>&1
	sqlite3 "$T/$1.db" "
	INSERT INTO devices (name, type, host, port, created_at)
	 VALUES ('d1', 'linux', '127.0.0.1', 22, 1000);
	INSERT INTO runs (id, kind, status, started_at)
	 VALUES (1, 'compare', 'complete', $2);
	INSERT INTO samples (id, run_id, benchmark, metric, side,
	 repeat_idx, iter_idx, value) VALUES
	 (1, 1, 'BM_a', 'real_time', 'base', 0, 0, 1.5),
	 (2, 1, 'BM_b', 'real_time', 'base', 0, 0, 2.5),
	 (3, 1, 'BM_c', 'real_time', 'base', 0, 0, 3.5);"
}

DST="$T/dst.db"
fresh good 999
expect_exit 0 "a clean source copies" "$BF" store copy --from "$T/good.db" \
	--to "$DST"
cp "$DST" "$T/dst-before"

# hostile NAME SQL PATTERN: the source with SQL applied is refused, the
# message matching PATTERN, the destination unchanged. Its run is not
# the destination's (which has the run at 999), so it is read.
hostile() {
	fresh "$1" 1000
	sqlite3 "$T/$1.db" "$2"
	expect_exit 3 "$1: refused" "$BF" store copy --from "$T/$1.db" \
		--to "$DST" --query-timeout 1
	grep_file "$1: the message names table, row and column" "$3" "$ERR"
	check "$1: nothing was copied" cmp "$DST" "$T/dst-before"
}
hostile text "UPDATE samples SET value = 'abc' WHERE id = 2" \
	"samples row 2, column value: it holds a text, not a real number"
hostile nul \
	"UPDATE samples SET benchmark = CAST(X'424d5f630078' AS TEXT) WHERE id = 3" \
	"samples row 3, column benchmark: its text has a NUL byte"
hostile blob "UPDATE samples SET benchmark = X'00424d' WHERE id = 1" \
	"samples row 1, column benchmark: it holds a blob, not a text"
start=$(date +%s)
hostile view "DROP TABLE alerts; CREATE VIEW alerts AS WITH RECURSIVE
 r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n AS id,
 'b' AS benchmark, 'm' AS metric, '' AS device_class, 'c1' AS commit_lo,
 'c2' AS commit_hi, 'regressed' AS direction, 0.1 AS size, 5.0 AS score,
 'open' AS status, 1 AS created_at, 0 AS group_id, '' AS suite,
 NULL AS detail, NULL AS culprit FROM r" \
	"alerts.*stopped after 1 s, the bound of one query"
end=$(date +%s)
[ $((end - start)) -lt 30 ] && t_ok "the view did not hang the copy" ||
	t_fail "the copy with a recursive view took $((end - start)) s"
expect_exit 2 "a negative --query-timeout is a usage error" "$BF" store copy \
	--from "$T/good.db" --to "$DST" --query-timeout -1
