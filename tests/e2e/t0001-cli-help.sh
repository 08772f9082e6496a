#!/bin/sh
# The command-line contract: help, version, unknown commands, exit codes.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "benchfarm -h exits 0" "$BF" -h
grep_file "benchfarm -h lists compare" "^  compare " "$OUT"
expect_exit 0 "benchfarm --version" "$BF" --version
grep_file "version line" "^benchfarm [0-9]" "$OUT"
expect_exit 2 "no command is a usage error" "$BF"
expect_exit 2 "unknown global option is a usage error" "$BF" --frob config
grep_file "names the option" "unknown option '--frob'" "$ERR"
expect_exit 2 "unknown command" "$BF" comapre
for c in compare run backfill detect history bisect alert analyze device report \
	trace config cache dashboard; do
	expect_exit 0 "$c -h" "$BF" "$c" -h
	grep_file "$c -h prints usage" "^usage: benchfarm $c" "$OUT"
done
expect_exit 0 "agent -h" "$BFA" -h
for c in serve info check run parse lock-clocks unlock-clocks; do
	expect_exit 0 "agent $c -h" "$BFA" "$c" -h
done
expect_exit 2 "agent unknown command" "$BFA" frob
