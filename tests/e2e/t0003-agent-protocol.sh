#!/bin/sh
# The agent protocol end to end: `benchfarm-agent serve` on a pipe says
# hello first, answers every request with exactly one result or error
# with its id, survives malformed, non-object and oversized lines, runs
# commands (samples, timeouts, missing programs) and stops on shutdown.
# Also the one-shot `benchfarm-agent parse`.
. "$(dirname "$0")/lib.sh"

# serve_session NAME: pipes $T/NAME.in into the agent; output lines in
# $T/NAME.out, stderr in $T/NAME.err, exit code in $T/NAME.rc.
serve_session() {
	# A pipe on purpose (as the transports give), not a file on stdin.
	# shellcheck disable=SC2002
	cat "$T/$1.in" | "$BFA" serve >"$T/$1.out" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}

# The messages answering request id $1 (events then final), as a jq array.
answers() {
	echo "[.[] | select(.id == $1)]"
}

# pad_request ID BYTES: one valid info request exactly BYTES long (no
# newline counted), padded with an ignored string member.
pad_request() {
	pre='{"type":"info","id":'$1',"pad":"'
	n=$(($2 - ${#pre} - 2))
	printf '%s' "$pre"
	head -c "$n" /dev/zero | tr '\0' x
	printf '"}\n'
}

cat >"$T/main.in" <<'X'
{"type":"frob","id":1}
{not json
[1,2]
{"type":"info","id":2}
{"type":"info"}
{"type":"info","id":"3"}

{"type":"run","id":4,"argv":["sh","-c","echo 'a 5 ns'; echo 'b 7 ns'"],"format":"lines"}
{"type":"run","id":5,"argv":["/nonexistent/benchfarm-no-such-program"],"format":"lines"}
{"type":"run","id":6,"argv":["true"],"format":"frob"}
{"type":"run","id":7,"argv":["true"]}
{"type":"run","id":8,"argv":[],"format":"lines"}
{"type":"run","id":9,"argv":["sh","-c","echo 'x 1 ns'; exit 3"],"format":"lines"}
{"type":"info","id":10}
X
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' x >>"$T/main.in"
printf '\n{"type":"info","id":11}\n{"type":"shutdown","id":12}\n' >>"$T/main.in"
printf '{"type":"info","id":13}\n' >>"$T/main.in"
serve_session main
O="$T/main.out"

[ "$(cat "$T/main.rc")" = 0 ] && t_ok "serve exits 0 after shutdown" ||
	t_fail "serve exits 0 after shutdown (got $(cat "$T/main.rc"))"
lines=$(wc -l <"$O")
objs=$(jq -s 'map(select(type == "object")) | length' "$O" 2>/dev/null)
[ "$lines" -gt 0 ] && [ "$lines" = "$objs" ] &&
	t_ok "every output line is one JSON object ($lines lines)" ||
	t_fail "every output line is one JSON object ($lines lines, $objs objects)"
head -1 "$O" >"$T/hello.json"
jq_check "first line is hello" '.type == "hello"' "$T/hello.json"
jq_check "hello speaks protocol 1 with capabilities" \
	'.protocol == 1 and (.agent | type == "string") and
	 (.capabilities | type == "array" and index(["info"]) != null and
	  index(["run"]) != null and index(["shutdown"]) != null)' "$T/hello.json"
jq -s . "$O" >"$T/all.json"
jq_check "unknown type: error with the same id, bad_request" \
	"$(answers 1) | length == 1 and .[0].type == \"error\" and
	 .[0].code == \"bad_request\" and (.[0].message | test(\"frob\"))" \
	"$T/all.json"
jq_check "malformed and non-object lines: errors with id -1" \
	'[.[] | select(.id == -1)] | length >= 2 and
	 (.[0] | .type == "error" and .code == "bad_request" and
	  (.message | test("malformed"))) and
	 (.[1] | .type == "error" and .code == "bad_request")' "$T/all.json"
jq_check "the agent keeps serving after bad lines" \
	"$(answers 2) | length == 1 and .[0].type == \"result\" and
	 (.[0].info | type == \"object\")" "$T/all.json"
jq_check "requests without an integer id: errors with id -1" \
	'[.[] | select(.id == -1 and .type == "error" and
	  (.message | test("no integer")))] | length == 2' "$T/all.json"
jq_check "an empty line is ignored (5 errors with id -1, no more)" \
	'[.[] | select(.id == -1)] | length == 5' "$T/all.json"
jq_check "run: two sample events then the result" \
	"$(answers 4) | length == 3 and
	 (.[0] | .type == \"sample\" and .benchmark == \"a\" and .value == 5 and
	  .unit == \"ns\") and
	 (.[1] | .type == \"sample\" and .benchmark == \"b\" and .value == 7) and
	 (.[2] | .type == \"result\" and .samples == 2 and .exit_code == 0 and
	  (.wall_s | type == \"number\"))" "$T/all.json"
jq_check "run of a missing program: not_found" \
	"$(answers 5) | length == 1 and .[0].type == \"error\" and
	 .[0].code == \"not_found\"" "$T/all.json"
jq_check "run with an unknown format: bad_request" \
	"$(answers 6) | length == 1 and .[0].code == \"bad_request\" and
	 (.[0].message | test(\"format\"))" "$T/all.json"
jq_check "run without a format: bad_request" \
	"$(answers 7) | length == 1 and .[0].code == \"bad_request\"" \
	"$T/all.json"
jq_check "run with an empty argv: bad_request" \
	"$(answers 8) | length == 1 and .[0].code == \"bad_request\" and
	 (.[0].message | test(\"argv\"))" "$T/all.json"
jq_check "run of a failing program: benchmark_failed, no samples" \
	"$(answers 9) | length == 1 and .[0].type == \"error\" and
	 .[0].code == \"benchmark_failed\"" "$T/all.json"
jq_check "a line over 1 MiB gets an error" \
	'[.[] | select(.id == -1 and (.message | test("longer than")))] |
	 length == 1' "$T/all.json"
jq_check "the request after the long line is answered" \
	"$(answers 11) | length == 1 and .[0].type == \"result\"" "$T/all.json"
jq_check "shutdown gets a result" \
	"$(answers 12) | length == 1 and .[0].type == \"result\"" "$T/all.json"
jq_check "nothing is read after shutdown" \
	"$(answers 13) | length == 0" "$T/all.json"
jq_check "answers come in request order" \
	'[.[] | select(.id > 0 and .type != "sample") | .id] ==
	 [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12]' "$T/all.json"

# The size limit is exact: a valid request just over 1 MiB is refused,
# one of exactly 1 MiB is served.
{
	pad_request 20 $((1024 * 1024))
	pad_request 21 $((1024 * 1024 + 1))
	pad_request 22 $((1024 * 1024 + 40000))
	printf '{"type":"shutdown","id":23}\n'
} >"$T/limit.in"
serve_session limit
jq -s . "$T/limit.out" >"$T/limit.json"
jq_check "a request of exactly 1 MiB is served" \
	"$(answers 20) | length == 1 and .[0].type == \"result\"" "$T/limit.json"
jq_check "a request of 1 MiB + 1 byte is refused" \
	"$(answers 21) | length == 0" "$T/limit.json"
jq_check "a request of 1 MiB + 40000 bytes is refused" \
	"$(answers 22) | length == 0" "$T/limit.json"
jq_check "each over-long request gets a line-length error" \
	'[.[] | select(.id == -1 and (.message | test("longer than")))] |
	 length == 2' "$T/limit.json"

# A run that outlives its timeout is killed and reported as a timeout,
# after about the timeout, not after the program's 30 s.
# timed_session NAME: serve_session, with the time taken in $ms.
timed_session() {
	start=$(date +%s%N)
	serve_session "$1"
	end=$(date +%s%N)
	ms=$(((end - start) / 1000000))
	jq -s . "$T/$1.out" >"$T/$1.json"
}
# check_time WHAT: passes when $ms is at least the half second timeout
# and far from the program's 30 s (a loaded sanitizer run starts slowly).
check_time() {
	if [ "$ms" -ge 450 ] && [ "$ms" -lt 15000 ]; then
		t_ok "$1 (${ms} ms)"
	else
		t_fail "$1 (took ${ms} ms)"
	fi
}
printf '%s\n' \
	'{"type":"run","id":30,"argv":["sleep","30"],"format":"lines","timeout":0.5}' \
	'{"type":"shutdown","id":31}' >"$T/timeout.in"
timed_session timeout
jq_check "run of sleep 30 with timeout 0.5: error timeout" \
	"$(answers 30) | length == 1 and .[0].type == \"error\" and
	 .[0].code == \"timeout\"" "$T/timeout.json"
check_time "the timeout ends the run after about 0.5 s"
jq_check "the agent answers shutdown after a timeout" \
	"$(answers 31) | length == 1 and .[0].type == \"result\"" \
	"$T/timeout.json"
# A timeout past a week (the config's and the command line's bound) is
# refused, as a run that could hold the device for ever.
printf '%s\n' \
	'{"type":"run","id":32,"argv":["true"],"format":"lines","timeout":604801}' \
	'{"type":"shutdown","id":33}' >"$T/longtimeout.in"
serve_session longtimeout
jq -s . "$T/longtimeout.out" >"$T/longtimeout.json"
jq_check "a timeout over 604800 s is refused, naming the bound" \
	"$(answers 32) | length == 1 and .[0].type == \"error\" and
	 (.[0].message | test(\"at most 604800 seconds\"))" "$T/longtimeout.json"
[ "$(cat "$T/timeout.rc")" = 0 ] && t_ok "agent exits 0 after the timeout" ||
	t_fail "agent exits 0 after the timeout"

# The shell's child (which holds the output pipe) is stopped as well.
printf '%s\n' \
	'{"type":"run","id":35,"argv":["sh","-c","sleep 30; echo x 1 ns"],"format":"lines","timeout":0.5}' \
	'{"type":"shutdown","id":36}' >"$T/timeout2.in"
timed_session timeout2
jq_check "run of sh -c 'sleep 30; ...' with timeout 0.5: error timeout" \
	"$(answers 35) | length == 1 and .[0].code == \"timeout\"" \
	"$T/timeout2.json"
check_time "a shell and its child are stopped after about 0.5 s"

# End of input without shutdown is a clean end too.
printf '{"type":"info","id":40}\n' >"$T/eof.in"
serve_session eof
[ "$(cat "$T/eof.rc")" = 0 ] && t_ok "serve exits 0 at end of input" ||
	t_fail "serve exits 0 at end of input (got $(cat "$T/eof.rc"))"
jq_check "request before end of input answered" \
	'select(.id == 40) | .type == "result"' "$T/eof.out"

# One-shot parse of a Google Benchmark file.
FIX="$BF_SRC/tests/fixtures/gbench/repetitions.json"
expect_exit 0 "agent parse --format gbench" \
	"$BFA" parse --format gbench "$FIX"
jq_check "parse prints the samples as JSON" \
	'.format == "gbench" and (.samples | length > 0) and
	 all(.samples[]; (.benchmark | type == "string") and
	     (.metric | type == "string") and (.value | type == "number"))' \
	"$OUT"
jq_check "parse keeps each repetition, not the aggregates" \
	'[.samples[] | select(.benchmark == "BM_Sum/64" and
	  .metric == "real_time") | .iteration] == [0, 1, 2] and
	 ([.samples[] | select(.benchmark | test("_(mean|median|stddev|cv)$"))]
	  | length == 0)' "$OUT"
jq_check "parse drops benchmarks that reported an error" \
	'[.samples[] | select(.benchmark == "BM_Broken")] | length == 0' "$OUT"
printf 'this is plain text\nnot json\n' >"$T/plain.txt"
expect_exit 2 "parse of a text file exits 2" \
	"$BFA" parse --format gbench "$T/plain.txt"
grep_file "the parse error names the file" "plain.txt" "$ERR"
expect_exit 2 "parse of a missing file exits 2" \
	"$BFA" parse --format gbench "$T/missing.json"
grep_file "the error names the missing file" "missing.json" "$ERR"
