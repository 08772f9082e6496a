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
