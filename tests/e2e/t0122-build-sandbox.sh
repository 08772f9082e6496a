#!/bin/sh
# The patch's build as an attacker on the build cache, on a real
# OpenSSH sshd device (ci/sshd.sh). The patch's build rewrites
# ../*/out/bench.sh, every sibling entry's artifact: the base's build,
# cached next to it, would then say 200 ns instead of 100, and the next
# compare of a harmless patch against the same base would read
# "improved". Each build runs in a bubblewrap sandbox that sees only its
# own tree writable, so the rewrite fails and the base's entry, the
# other entries' records, known_hosts and the store stay as they were.
# Where bwrap cannot run (BENCHFARM_BWRAP names a program that does not
# exist), the build runs unsandboxed and the result says so; the
# rewrite then succeeds, and the next compare finds the base's entry
# changed against the digests recorded when it was built and builds it
# again instead of serving it. build_sandbox: require refuses to build
# without the sandbox.
. "$(dirname "$0")/lib.sh"

sshd_setup
sshd_pool "with the defaults" d1

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/bench.sh" <<'X'
#!/bin/sh
echo "BM_prog 100 ns"
X
cat >"$R/build.sh" <<'X'
#!/bin/sh
set -e
mkdir -p out
cp bench.sh out/bench.sh
chmod 755 out/bench.sh
X
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project:
  repo: .
  target_branch: main
  build: [sh, build.sh]
  artifacts: [out/bench.sh]
benchmarks:
  - name: prog
    command: [out/bench.sh]
    format: lines
devices: {pool: lab}
checks:
  battery_min: 0
  suppress: [load, throttle, battery, clocks]
runs: {repeats: 3, warmup: 0, interleave: true, retries: 1}
presubmit: {fail_on: regression}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
# The poisoning patch: its build rewrites every sibling entry's
# out/bench.sh to say 200 ns; with $T/attack-all there, it also appends
# to every record of the cache, known_hosts and the store.
t_git -C "$R" checkout -q -b poison
cat >>"$R/build.sh" <<'X'
me=${PWD##*/}
for f in ../*/out/bench.sh; do
	case "$f" in "../$me/"*) continue ;; esac
	[ -f "$f" ] || continue
	sed 's/100/200/' "$f" >out/new 2>/dev/null || continue
	{ chmod u+w "$f" && cat out/new >"$f"; } 2>/dev/null || :
done
rm -f out/new
if [ -e "@T@/attack-all" ]; then
	for f in ../*.json ../*.lock "$BENCHFARM_KNOWN_HOSTS" "$BENCHFARM_DB"; do
		[ -f "$f" ] || continue
		{ echo poisoned >>"$f"; } 2>/dev/null || :
	done
fi
X
sed -i "s|@T@|$T|" "$R/build.sh"
t_git -C "$R" commit -q -am "poison the build cache"
# The harmless patch: the same program, another tree.
t_git -C "$R" checkout -q -b harmless main
echo "a harmless change" >"$R/NOTES"
t_git -C "$R" add -A
t_git -C "$R" commit -q -m "harmless"

# base_is_100 FILE what: the base measured 100 ns, the patch 100 ns,
# and the verdict is not "improved".
base_is_100() {
	jq_check "$2: base and patch are 100 ns, the verdict is same" \
		'[.results[] | select(.base.median == 100 and .patch.median == 100 and .verdict == "same")] | length == 1' \
		"$1"
}

# sums: the checksums of what no build may write (the store changes
# with every compare: it is checked for the attack's line instead).
sums() {
	sha256sum "$BENCHFARM_KNOWN_HOSTS" "$BENCHFARM_CACHE"/builds/*.json \
		"$BENCHFARM_CACHE"/builds/*/out/bench.sh
}

sandbox_ok=
# 1. In the sandbox: the rewrite fails, nothing outside the build's own
# tree changes.
if command -v bwrap >/dev/null 2>&1 &&
	bwrap --ro-bind / / --dev /dev --proc /proc --bind "$T" "$T" \
		--unshare-all --cap-drop ALL true 2>"$T/bwrap.err"; then
	sandbox_ok=1
	expect_exit 0 "base builds" "$BF" compare -c "$R/benchfarm.yaml" \
		--base main --patch harmless --json "$T/a0.json" --seed 1
	expect_exit 0 "compare 1 with the poisoning patch, sandboxed" "$BF" \
		compare -c "$R/benchfarm.yaml" --base main --patch poison \
		--json "$T/a1.json" --seed 3
	base_is_100 "$T/a1.json" "compare 1"
	jq_check "both builds ran in the sandbox" \
		'.base.build_sandbox == "bwrap" and .patch.build_sandbox == "bwrap"' \
		"$T/a1.json"
	expect_exit 0 "compare 2, a harmless patch on the same base" "$BF" \
		compare -c "$R/benchfarm.yaml" --base main --patch harmless \
		--json "$T/a2.json" --seed 5
	base_is_100 "$T/a2.json" "compare 2"
	jq_check "compare 2 reuses the base's untouched build" \
		'.base.build_cached == true and .base.build_rebuilt == false' \
		"$T/a2.json"
	# The poisoning build again (a new tree: a new entry), now also
	# appending to the cache's records, known_hosts and the store.
	sums >"$T/before"
	touch "$T/attack-all"
	t_git -C "$R" checkout -q poison
	echo again >"$R/AGAIN"
	t_git -C "$R" add -A
	t_git -C "$R" commit -q -m "poison again"
	expect_exit 0 "compare 3, the poisoning patch writing everywhere" \
		"$BF" compare -c "$R/benchfarm.yaml" --base main \
		--patch poison --json "$T/a3.json" --seed 7
	rm -f "$T/attack-all"
	base_is_100 "$T/a3.json" "compare 3"
	if sha256sum -c --quiet "$T/before" >"$T/sums.diff" 2>&1 &&
		! grep -aq poisoned "$BENCHFARM_DB"; then
		t_ok "no other entry, record, known_hosts or the store changed"
	else
		t_fail "changed: $(cat "$T/sums.diff")"
	fi
	# A build that outlives its timeout, and leaves a process behind
	# that holds its output open: the whole sandbox is killed.
	sed 's/^  build: \[sh, build.sh\]$/  build: [sh, -c, "sleep 7171 \& sleep 7171"]\n  build_timeout: 1/' \
		"$R/benchfarm.yaml" >"$R/slow.yaml"
	expect_exit 3 "a sandboxed build past its timeout is killed" timeout 60 \
		"$BF" compare -c "$R/slow.yaml" --base main --patch poison \
		--json "$T/slow.json"
	grep_file "and the failure says it timed out" "timed out after 1 s" "$ERR"
	n=$(ps -eo args | grep -c '^sleep 7171')
	[ "$n" -eq 0 ] && t_ok "nothing of the killed build is left running" ||
		t_fail "$n processes of the killed build are still running"
else
	t_skip "the sandbox" "bwrap cannot run here (ci/deps.sh installs bubblewrap): $(head -1 "$T/bwrap.err" 2>/dev/null)"
fi

# 2. Without the sandbox (no bwrap): said in the output and the result;
# the base's changed entry is found and rebuilt, not served.
export BENCHFARM_CACHE="$T/cache-nosandbox"
export BENCHFARM_BWRAP="$T/no-such-bwrap"
"$BF" compare -c "$R/benchfarm.yaml" --base main --patch poison \
	--json "$T/b1.json" --seed 3 >"$OUT" 2>"$ERR"
grep_file "the output says the build ran without a sandbox" \
	"without a sandbox.*no-such-bwrap" "$ERR"
jq_check "the result says the build ran without a sandbox" \
	'.patch.build_sandbox == "none"' "$T/b1.json"
if grep -q '200 ns' "$BENCHFARM_CACHE"/builds/*/out/bench.sh; then
	t_ok "unsandboxed, the poisoning build did rewrite the base's entry"
else
	t_fail "the attack rewrote nothing: the test proves nothing"
fi
expect_exit 0 "compare 2 after the poisoning, unsandboxed" "$BF" compare \
	-c "$R/benchfarm.yaml" --base main --patch harmless \
	--json "$T/b2.json" --seed 5
base_is_100 "$T/b2.json" "compare 2 unsandboxed"
jq_check "the base's changed entry is built again, not served" \
	'.base.build_cached == false' "$T/b2.json"
grep_file "the changed entry is named with the artifact" \
	"out/bench.sh.*changed since it was built" "$ERR"

# 3. build_sandbox: require refuses to build without it.
sed 's/^  build: \[sh, build.sh\]$/&\n  build_sandbox: require/' \
	"$R/benchfarm.yaml" >"$R/require.yaml"
export BENCHFARM_CACHE="$T/cache-require"
expect_exit 3 "require without bwrap is an infrastructure failure" "$BF" \
	compare -c "$R/require.yaml" --base main --patch harmless \
	--json "$T/c1.json"
grep_file "the failure names the key and bwrap" \
	"project.build_sandbox.*require.*no-such-bwrap" "$ERR"

# 4. Under require, an entry an earlier run built without the sandbox
# is built again in it.
if [ -n "$sandbox_ok" ]; then
	unset BENCHFARM_BWRAP
	export BENCHFARM_CACHE="$T/cache-nosandbox"
	expect_exit 0 "require with bwrap, on the unsandboxed cache" "$BF" \
		compare -c "$R/require.yaml" --base main --patch harmless \
		--json "$T/d1.json"
	jq_check "the unsandboxed base is built again, in the sandbox" \
		'.base.build_rebuilt == true and .base.build_sandbox == "bwrap"' \
		"$T/d1.json"
	grep_file "and the output says why" \
		"built without the sandbox, and project.build_sandbox is require" \
		"$ERR"
else
	t_skip "require rebuilds an unsandboxed entry" "bwrap cannot run here"
fi
