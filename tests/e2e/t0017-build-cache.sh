#!/bin/sh
# The build cache: a build whose inputs changed (the build command, the
# build environment) starts from a fresh export and measures the new
# binaries; unchanged inputs reuse the build. `benchfarm cache
# list|prune` show and remove entries, the size limit evicts the least
# recently used, and nothing in use by a running compare is removed,
# by a prune from another process or by the limit.
. "$(dirname "$0")/lib.sh"

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
# A real C program whose output says how it was compiled: a stale
# binary measured under a new build command would say "opt 2".
cat >"$R/prog.c" <<'X'
#include <stdio.h>
int main(void)
{
#ifdef __OPTIMIZE__
	puts("opt 2 ns");
#else
	puts("opt 1 ns");
#endif
	return 0;
}
X
cat >"$R/Makefile" <<'X'
CFLAGS ?= -O2
out/prog: prog.c
	mkdir -p out
	$(CC) $(CFLAGS) -o $@ prog.c
X
cat >"$R/bf.yaml" <<'X'
version: 1
project:
  repo: .
  build: [make]
  artifacts: [out/prog]
benchmarks:
  - {name: opt, command: [out/prog], format: lines}
runs: {repeats: 2, warmup: 0}
checks: {battery_min: 0, suppress: [load, throttle, battery]}
X
printf 'out/\n' >"$R/.gitignore"
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
t_git -C "$R" checkout -q -b patch
echo "a patch" >"$R/README"
t_git -C "$R" add README
t_git -C "$R" commit -q -m "add a README"

values() { # values FILE: the distinct measured values of "opt"
	jq -c '[.samples[] | select(.benchmark == "opt") | .value] | unique' "$1"
}

# The documented default cache: ~/.cache/benchfarm (lib.sh sets
# BENCHFARM_CACHE for the other scripts).
unset BENCHFARM_CACHE XDG_CACHE_HOME
C="$HOME/.cache/benchfarm"

expect_exit 0 "first compare (-O2)" "$BF" compare -c "$R/bf.yaml" --json "$T/a.json"
[ "$(values "$T/a.json")" = "[2]" ] && t_ok "the -O2 build measured optimised binaries" ||
	t_fail "the -O2 build measured optimised binaries (got $(values "$T/a.json"))"
jq_check "first compare built both sides" \
	'.base.build_cached == false and .patch.build_cached == false' "$T/a.json"
[ -d "$C/builds" ] && t_ok "the cache is in ~/.cache/benchfarm/builds" ||
	t_fail "the cache is in ~/.cache/benchfarm/builds"

expect_exit 0 "same inputs again" "$BF" compare -c "$R/bf.yaml" --json "$T/b.json"
jq_check "unchanged inputs reuse both builds" \
	'.base.build_cached == true and .patch.build_cached == true' "$T/b.json"

# The build command changes: -O0 must be built from a fresh export and
# measured, not make's "up to date" over the -O2 binaries.
sed 's|build: \[make\]|build: [make, CFLAGS=-O0]|' "$R/bf.yaml" >"$R/o0.yaml"
expect_exit 0 "compare with a changed build command" \
	"$BF" compare -c "$R/o0.yaml" --json "$T/c.json"
[ "$(values "$T/c.json")" = "[1]" ] && t_ok "the changed build command measured the -O0 binaries" ||
	t_fail "the changed build command measured the -O0 binaries (got $(values "$T/c.json"))"
jq_check "a changed build command is not a cached build" \
	'.base.build_cached == false and .patch.build_cached == false' "$T/c.json"
n=$(ls "$C/builds"/*.json | wc -l)
[ "$n" -eq 4 ] && t_ok "one entry per tree and build command (4)" ||
	t_fail "one entry per tree and build command (got $n)"
expect_exit 0 "cache list --json" "$BF" cache list --json
jq_check "list names each entry's commit, build and tree" \
	'.entries | length == 4 and all(.complete and (.commit | length == 40) and (.tree | length == 40)) and ([.[].build] | unique == ["make", "make CFLAGS=-O0"])' "$OUT"
jq -r '.entries[] | "\(.build)\t\(.path)"' "$OUT" | while IFS='	' read -r b p; do
	printf '%s\t%s\n' "$b" "$(sha256sum <"$p/out/prog" | cut -c1-64)"
done >"$T/artifacts"
grep -v -- '-O0' "$T/artifacts" | cut -f2 | sort -u >"$T/o2"
grep -- '-O0' "$T/artifacts" | cut -f2 | sort -u >"$T/o0"
if [ -s "$T/o2" ] && [ -s "$T/o0" ] && [ -z "$(comm -12 "$T/o2" "$T/o0")" ]; then
	t_ok "the -O0 entries hold other binaries than the -O2 ones"
else
	sed 's/^/#   /' "$T/artifacts"
	t_fail "the -O0 entries hold other binaries than the -O2 ones"
fi

# The build environment is an input too: CFLAGS from the environment
# reaches make's "CFLAGS ?=".
CFLAGS=-O0 expect_exit 0 "compare with CFLAGS=-O0 in the environment" \
	"$BF" compare -c "$R/bf.yaml" --json "$T/d.json"
[ "$(values "$T/d.json")" = "[1]" ] && t_ok "a changed build environment measured the new binaries" ||
	t_fail "a changed build environment measured the new binaries (got $(values "$T/d.json"))"
expect_exit 0 "back to -O2" "$BF" compare -c "$R/bf.yaml" --json "$T/e.json"
[ "$(values "$T/e.json")" = "[2]" ] && jq -e '.base.build_cached and .patch.build_cached' "$T/e.json" >/dev/null &&
	t_ok "the -O2 entries are still there and reused" ||
	t_fail "the -O2 entries are still there and reused"

# `cache list`: one line per entry with human sizes.
expect_exit 0 "cache list" "$BF" cache list
grep_file "list's first line names the cache, its size and limit" \
	"^$C: 6 entries, [0-9.]* [KM]iB (limit 5.0 GiB)$" "$OUT"
grep_file "list has a line per entry with size, state and build" \
	"^[0-9a-f]\{12\}  [0-9a-f]\{12\} *[0-9.]* KiB  [0-9]*m ago  *built  *make CFLAGS=-O0$" "$OUT"
expect_exit 2 "prune refuses a size it cannot read" "$BF" cache prune --max-size 5X
grep_file "names the size and what to give" "'5X' is not a size: give bytes, or a number with K, M, G or T" "$ERR"

# prune --max-size removes the least recently used first: here the
# -O0 entries, keeping the -O2 ones used last.
"$BF" cache list --json >"$T/l.json"
keep=$(jq '.entries[-2:] | map(.bytes) | add' "$T/l.json")
kept_keys=$(jq -c '.entries[-2:] | map(.key) | sort' "$T/l.json")
expect_exit 0 "prune --max-size" "$BF" cache prune --max-size "$keep"
grep_file "prune says what it removed" "^removed 4 entries ([0-9.]* KiB); [0-9.]* KiB left$" "$OUT"
"$BF" cache list --json >"$T/l2.json"
jq_check "the two used last are kept, and they are the -O2 builds" \
	"([.entries[].key] | sort) == $kept_keys and all(.entries[]; .build == \"make\" and (.inputs.env | all(startswith(\"CFLAGS\") | not)))" "$T/l2.json"

# A compare that is measuring holds its entries: the benchmark blocks on
# a FIFO until the test lets it go.
mkfifo "$T/started" "$T/go"
sed -e 's|{name: opt, command: \[out/prog\], format: lines}|{name: opt, command: [sh, -c, "[ -e '"$T"'/released ] \|\| { echo started >'"$T"'/started; read x <'"$T"'/go; }; out/prog"], format: lines}|' \
	"$R/bf.yaml" >"$R/hold.yaml"
"$BF" compare -c "$R/hold.yaml" --json "$T/hold.json" >"$T/hold.out" 2>&1 &
hold=$!
timeout 120 sh -c 'read x <"$1"' sh "$T/started" ||
	t_fail "the held compare's benchmark started"
mkdir -p "$C/work2/0123"
echo old >"$C/work2/0123/file"
expect_exit 0 "cache list while a compare measures" "$BF" cache list --json
jq_check "its two entries are in use, the old layout is listed" \
	'([.entries[] | select(.in_use)] | length == 2) and ([.entries[] | select(.legacy)] | length == 1)' "$OUT"
expect_exit 0 "prune --all from another process" "$BF" cache prune --all
grep_file "prune keeps what is in use" "^removed 1 entry .*; kept 2 in use by a running benchfarm$" "$OUT"
[ ! -e "$C/work2" ] && t_ok "prune --all removes the old layout" ||
	t_fail "prune --all removes the old layout"
# The size limit, in a third process, evicts nothing in use either.
BENCHFARM_CACHE_MAX_SIZE=1 expect_exit 0 "a compare under a 1-byte limit meanwhile" \
	"$BF" compare -c "$R/o0.yaml" --json "$T/f.json"
[ "$(values "$T/f.json")" = "[1]" ] && t_ok "it measured its own builds" ||
	t_fail "it measured its own builds (got $(values "$T/f.json"))"
n=0
for k in $(jq -r '.entries[].path' "$T/l2.json"); do
	[ -x "$k/out/prog" ] && n=$((n + 1))
done
[ "$n" -eq 2 ] && t_ok "the held entries are still there" ||
	t_fail "the held entries are still there ($n)"
touch "$T/released"
timeout 10 sh -c 'echo go >"$1"' sh "$T/go"
wait "$hold"
rc=$?
[ "$rc" -eq 0 ] && [ "$(values "$T/hold.json")" = "[2]" ] &&
	t_ok "the held compare finished and measured its builds" ||
	{ sed 's/^/#   /' "$T/hold.out"; t_fail "the held compare finished and measured its builds (exit $rc)"; }

# Now nothing holds the -O2 entries: a new build under the limit evicts
# every entry but its own.
CFLAGS=-O1 BENCHFARM_CACHE_MAX_SIZE=1 expect_exit 0 "a new build under a 1-byte limit" \
	"$BF" compare -c "$R/bf.yaml" --json "$T/g.json"
"$BF" cache list --json >"$T/l3.json"
jq_check "only the entries just built are left" \
	'(.entries | length == 2) and all(.entries[]; .inputs.env | index("CFLAGS=-O1"))' "$T/l3.json"
BENCHFARM_CACHE_MAX_SIZE=lots expect_exit 3 "a bad BENCHFARM_CACHE_MAX_SIZE stops the compare" \
	"$BF" compare -c "$R/bf.yaml"
grep_file "and names the variable" "BENCHFARM_CACHE_MAX_SIZE: 'lots' is not a size" "$ERR"

# Two compares of the same commits at once on an empty cache: each
# entry is built once (the second waits for the first's build and
# reuses it), and both measure. The builds count themselves in a file
# outside their trees, so they run without the sandbox.
sed 's|build: \[make\]|build: [sh, -c, "echo built >>'"$T"'/count; make"]\n  build_sandbox: off|' \
	"$R/bf.yaml" >"$R/count.yaml"
BENCHFARM_CACHE="$T/cache2" "$BF" compare -c "$R/count.yaml" --json "$T/p1.json" >/dev/null 2>&1 &
p1=$!
BENCHFARM_CACHE="$T/cache2" "$BF" compare -c "$R/count.yaml" --json "$T/p2.json" >/dev/null 2>&1
rc2=$?
wait "$p1"
rc1=$?
[ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] && [ "$(values "$T/p1.json")" = "[2]" ] &&
	[ "$(values "$T/p2.json")" = "[2]" ] && t_ok "two compares at once both measure" ||
	t_fail "two compares at once both measure (exit $rc1 and $rc2)"
n=$(wc -l <"$T/count")
[ "$n" -eq 2 ] && t_ok "each of the two entries was built once" ||
	t_fail "each of the two entries was built once (built $n times)"

# What a write killed halfway leaves of an entry (its record's or its
# log's temporary file) counts in its size and goes with it.
k=$(printf 'a%.0s' $(seq 64))
mkdir -p "$T/cache3/builds"
printf 'half a record' >"$T/cache3/builds/$k.json.tmp.1"
printf 'half a log' >"$T/cache3/builds/$k.log.tmp.2"
BENCHFARM_CACHE="$T/cache3" "$BF" cache list --json >"$T/l4.json"
jq_check "a leftover is listed with its bytes" \
	'(.entries | length) == 1 and .entries[0].bytes == 23' "$T/l4.json"
expect_exit 0 "prune --all with leftovers" env BENCHFARM_CACHE="$T/cache3" \
	"$BF" cache prune --all
BENCHFARM_CACHE="$T/cache3" "$BF" cache list --json >"$T/l5.json"
jq_check "and it is gone after prune --all" '(.entries | length) == 0' "$T/l5.json"
[ -z "$(ls "$T/cache3/builds")" ] && t_ok "no leftover file stays" ||
	t_fail "left: $(ls "$T/cache3/builds")"
