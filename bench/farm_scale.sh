#!/bin/sh
# Farm scaling: for N loopback devices (real OpenSSH sshd
# started by ci/sshd.sh, each running the real benchfarm-agent), the wall
# time to connect to every device, check it and run a fixed short
# benchmark on it, done by `benchfarm compare` over a pool of N devices,
# against the same work done by the OpenSSH `ssh` client in a shell
# loop. Targets: per-device session set-up at least as fast as ssh, and
# N = 32 finishing within 1.5x the time of N = 1.
#
# What each side does per device (the same requests, the same agent):
#   benchfarm  one compare with N benchmark entries on the pool of N
#              devices: all N leased, each in its own thread with its
#              own libssh2 session: connect (TCP, handshake, strict host
#              key, public key), `benchfarm-agent serve` on one channel,
#              info; then units are taken, one per benchmark, each a
#              check and the base and patch runs per measured block.
#              runs.repeats cannot be below 2, so a unit is check, run,
#              run, check, run, run. A device takes the next free unit
#              when it is connected, so with units this short the first
#              devices connected take several and the last ones none:
#              the last column counts the devices that ran a unit (the
#              total of checks and runs is the same). The compare also
#              resolves the commits (builds cached by an untimed warm-up
#              compare, build step `true`), leases the devices in SQLite,
#              stores every sample and check and computes the statistics:
#              all of it is in its time.
#   ssh        one fresh ssh session per device (no ControlMaster, strict
#              known_hosts, BatchMode) running the agent's one-shot
#              commands in one remote shell: info, check, run, run,
#              check, run, run, with the same check thresholds, argv and
#              working directory, all output sent back to this machine.
#              seq: a plain loop; par: every ssh in the background, then
#              wait; par_libssh2_algs: par with the key exchange, cipher
#              and MAC libssh2 negotiates (OpenSSH's default
#              sntrup761x25519 costs the client about 50 ms of CPU).
# The benchmark: /bin/sh running a 1,000-iteration shell loop and
# printing one `lines` sample (a few ms).
# Per-device set-up, one device: `benchfarm device check NAME` (connect,
# info, check, results stored) against ssh doing info and check in one
# session (OpenSSH's and libssh2's algorithms), and in two sessions.
# Cells are medians of FARM_REPS (3) repetitions, in an order that
# rotates per repetition, set-up of FARM_SETUP_REPS (10); */ratios are
# benchfarm time over the other; _N/_1 is against the first size; cpu_s
# is the CPU time the whole machine was busy (client, sshd, shells and
# agents all run here, on the same cores).
#   bench/farm_scale.sh     (env: FARM_SIZES="1 4 16 32", FARM_REPS=3,
#                            FARM_SETUP_REPS=10, BF_BUILD=build/default)
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
: "${BF_BUILD:=build/default}"
BF="$SRC/$BF_BUILD/benchfarm"
BFA="$SRC/$BF_BUILD/benchfarm-agent"
SSHD_SH="$SRC/ci/sshd.sh"
SIZES=${FARM_SIZES:-1 4 16 32}
REPS=${FARM_REPS:-3}
SETUP_REPS=${FARM_SETUP_REPS:-10}
for tool in jq git ssh ssh-keygen awk; do
	command -v "$tool" >/dev/null ||
		{ echo "farm_scale: needs $tool" >&2; exit 2; }
done
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] ||
	{ echo "farm_scale: needs sshd (openssh-server)" >&2; exit 2; }
[ -x "$BF" ] && [ -x "$BFA" ] ||
	{ echo "farm_scale: build first: make (BF_BUILD=$BF_BUILD)" >&2; exit 2; }

W=$(mktemp -d "${TMPDIR:-/tmp}/bf-farm.XXXXXX")
S="$W/sshd"
NDEV=0
# Stop every sshd however the script ends (a signal exits through EXIT).
cleanup() {
	i=0
	while [ $i -lt $NDEV ]; do
		i=$((i + 1))
		"$SSHD_SH" stop "$S" "$(printf 'd%02d' $i)" || true
	done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM PIPE
export HOME="$W/home" BENCHFARM_DB="$W/db" BENCHFARM_CACHE="$W/cache"
export BENCHFARM_KNOWN_HOSTS="$W/bf_known_hosts"
unset SSH_AUTH_SOCK
mkdir -p "$S" "$HOME" "$W/work" "$W/out"
ME=$(id -un)

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.4f", b - a }'; }
# CPU seconds the whole machine has been busy (user, nice, system, irq,
# softirq in /proc/stat): the devices' sshd, shells and agents run here
# too, so this is the work's full CPU cost (plus anything else running).
CLK=$(getconf CLK_TCK 2>/dev/null || echo 100)
busy() {
	if [ -r /proc/stat ]; then
		awk -v hz="$CLK" '$1 == "cpu" { printf "%.3f", ($2 + $3 + $4 + $7 + $8) / hz }' /proc/stat
	else
		echo 0
	fi
}
# median V...: the median of the numbers given.
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2];
		else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
fail() {
	echo "farm_scale: $*" >&2
	exit 1
}

# Devices d01..dMAX (not timed). Device i carries the label nS for every
# size S >= i, so the pool nS is the first S devices (n1, d01, is also
# the set-up measurement's).
max=0
for n in $SIZES; do
	if [ "$n" -gt $max ]; then max=$n; fi
done
"$SSHD_SH" client-key "$S"
chmod 600 "$S/client_key"
KEY="$S/client_key"
: >"$W/known_hosts"
while [ $NDEV -lt $max ]; do
	NDEV=$((NDEV + 1))
	d=$(printf 'd%02d' $NDEV)
	port=$("$SSHD_SH" start "$S" "$d")
	labels=
	for n in 1 $SIZES; do
		case ",$labels," in
		*",n$n,"*) ;;
		*) if [ $NDEV -le "$n" ]; then labels="$labels${labels:+,}n$n"; fi ;;
		esac
	done
	mkdir -p "$W/work/$d"
	"$BF" device add "$d" --host 127.0.0.1 --port "$port" --user "$ME" \
		--key "$KEY" --labels "$labels" --agent "$BFA" \
		--workdir "$W/work/$d" --accept-host-key >/dev/null
	# The same host key for ssh, which then checks it strictly too.
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$S/$d/host_key.pub")" \
		>>"$W/known_hosts"
done

# The benchmark and a two-commit repository (base: main, patch: patch).
cat >"$W/tick.sh" <<'X'
i=0
while [ $i -lt 1000 ]; do
	i=$((i + 1))
done
echo "$1 $i"
X
R="$W/repo"
g() { git -C "$R" -c user.name=b -c user.email=b@b.invalid "$@" >/dev/null; }
mkdir -p "$R" && git -C "$R" init -q -b main
echo base >"$R/side"
g add -A && g commit -q -m base && g checkout -q -b patch
echo patch >"$R/side"
g commit -q -am patch
# config N: N benchmark entries b01..bN on the pool nN.
config() {
	{
		printf 'version: 1\nproject:\n  repo: %s\n  build: ["true"]\n' "$R"
		echo "benchmarks:"
		i=0
		while [ $i -lt "$1" ]; do
			i=$((i + 1))
			b=$(printf 'b%02d' $i)
			printf '  - {name: %s, command: [/bin/sh, %s, %s], format: lines}\n' \
				"$b" "$W/tick.sh" "$b"
		done
		printf 'devices: {pool: n%s}\n' "$1"
		echo "checks: {battery_min: 0, suppress: [load, throttle, battery]}"
		echo "runs: {repeats: 2, warmup: 0, interleave: true}"
		echo "presubmit: {fail_on: never}"
	} >"$W/n$1.yaml"
}

# The ssh side. SSH_ALGS: empty for OpenSSH's defaults (here
# sntrup761x25519-sha512 and chacha20-poly1305), or the algorithms
# libssh2 negotiates with this sshd (curve25519-sha256, aes128-ctr,
# hmac-sha2-256; seen in sshd's debug log).
LIBSSH2_ALGS="-o KexAlgorithms=curve25519-sha256 -o Ciphers=aes128-ctr -o MACs=hmac-sha2-256"
SSH_ALGS=
# ssh_to DEVICE REMOTE_COMMAND: one fresh, strict, non-interactive
# session.
ssh_to() {
	# shellcheck disable=SC2086 # SSH_ALGS is a list of words
	ssh -F /dev/null -i "$KEY" -p "$(cat "$S/$1/port")" -l "$ME" \
		-o BatchMode=yes -o IdentitiesOnly=yes -o IdentityAgent=none \
		-o StrictHostKeyChecking=yes \
		-o UserKnownHostsFile="$W/known_hosts" \
		-o GlobalKnownHostsFile=/dev/null \
		-o ControlMaster=no -o ControlPath=none -o LogLevel=ERROR \
		$SSH_ALGS 127.0.0.1 "$2"
}
# ssh_dev I: one session on device I doing what a compare does there,
# its output kept in $W/out/dI.
CHECK_ARGS="--battery-min 0 --suppress load,throttle,battery --json"
CHECK="'$BFA' check $CHECK_ARGS"
ssh_dev() {
	d=$(printf 'd%02d' "$1")
	run="'$BFA' run --format lines --cwd '$W/work/$d' -- /bin/sh '$W/tick.sh' $(printf 'b%02d' "$1")"
	ssh_to "$d" "'$BFA' info && $CHECK && $run && $run && $CHECK && $run && $run" \
		>"$W/out/$d" 2>&1
}
ssh_seq() {
	i=0
	while [ $i -lt "$1" ]; do
		i=$((i + 1))
		ssh_dev $i || fail "ssh on d$i failed: $(cat "$W/out/$(printf 'd%02d' $i)")"
	done
}
ssh_par() {
	i=0
	pids=
	while [ $i -lt "$1" ]; do
		i=$((i + 1))
		ssh_dev $i &
		pids="$pids $!"
	done
	i=0
	for p in $pids; do
		i=$((i + 1))
		wait "$p" || fail "ssh on d$i failed: $(cat "$W/out/$(printf 'd%02d' $i)")"
	done
}
# ssh_verify N: every device answered 4 runs, each with its sample.
ssh_verify() {
	i=0
	while [ $i -lt "$1" ]; do
		i=$((i + 1))
		f="$W/out/$(printf 'd%02d' $i)"
		[ "$(grep -c '"type":"result".*"exit_code":0' "$f")" = 4 ] &&
			[ "$(grep -c '"type":"sample"' "$f")" = 4 ] ||
			fail "ssh on d$i: not 4 good runs: $(cat "$f")"
		rm -f "$f"
	done
}

# The benchfarm side: one compare over the pool nN.
bf_compare() {
	"$BF" compare -c "$W/n$1.yaml" --base main --patch patch \
		--json "$W/r.json" >"$W/compare.out" 2>&1 ||
		fail "compare over $1 devices failed: $(cat "$W/compare.out")"
}
# bf_verify N: N devices leased, none failed, 4 N runs done in all, no
# benchmark error; prints how many devices ran a unit.
bf_verify() {
	jq -e --argjson n "$1" '.status == "ok" and (.devices | length) == $n
		and all(.devices[]; .failed == false)
		and ([.devices[].steps] | add) == 4 * $n
		and (.errors | length) == 0' "$W/r.json" >/dev/null ||
		fail "compare over $1 devices: $(jq -c '{status, devices: [.devices[] | {name, steps, failed, error}], errors}' "$W/r.json")"
	# A device connected first may take another's unit: reported.
	jq '[.devices[] | select(.steps > 0)] | length' "$W/r.json"
}

# 1. Per-device session set-up, one device: median of SETUP_REPS, the
# variants interleaved in each repetition.
config 1
bf_compare 1 # untimed: the agent's throttle baseline, caches
ssh_dev 1 || fail "ssh on d01: $(cat "$W/out/d01")"
setup_bf=
setup_ssh=
setup_alg=
setup_two=
k=0
while [ $k -lt "$SETUP_REPS" ]; do
	k=$((k + 1))
	# benchfarm: connect, info, check, results stored.
	t=$(now)
	"$BF" device check d01 -c "$W/n1.yaml" >"$W/check.out" 2>&1 ||
		fail "device check d01: $(cat "$W/check.out")"
	setup_bf="$setup_bf $(since "$t")"
	# ssh: one session, info then check.
	t=$(now)
	ssh_to d01 "'$BFA' info && $CHECK" >"$W/out/setup" 2>&1 ||
		fail "ssh info && check: $(cat "$W/out/setup")"
	setup_ssh="$setup_ssh $(since "$t")"
	# The same with libssh2's algorithms.
	t=$(now)
	SSH_ALGS=$LIBSSH2_ALGS
	ssh_to d01 "'$BFA' info && $CHECK" >"$W/out/setup" 2>&1 ||
		fail "ssh info && check: $(cat "$W/out/setup")"
	SSH_ALGS=
	setup_alg="$setup_alg $(since "$t")"
	# ssh: two sessions, info, then check.
	t=$(now)
	ssh_to d01 "'$BFA' info" >"$W/out/setup" 2>&1 &&
		ssh_to d01 "$CHECK" >"$W/out/setup" 2>&1 ||
		fail "ssh info; ssh check: $(cat "$W/out/setup")"
	setup_two="$setup_two $(since "$t")"
done
bf_m=$(median $setup_bf)
ssh_m=$(median $setup_ssh)
alg_m=$(median $setup_alg)
two_m=$(median $setup_two)
echo "== per-device session set-up: connect, info, check on 1 device, median of $SETUP_REPS (wall s) =="
echo "benchfarm_s,ssh_s,ssh_libssh2_algs_s,ssh_2sessions_s,bf/ssh,bf/ssh_libssh2_algs,bf/ssh_2sessions"
echo "$bf_m,$ssh_m,$alg_m,$two_m,$(ratio "$bf_m" "$ssh_m"),$(ratio "$bf_m" "$alg_m"),$(ratio "$bf_m" "$two_m")"

# 2. Connect, check and run on N devices: median of REPS per cell.
echo "== connect, check and run on N devices, median of $REPS (wall s) =="
echo "devices,benchfarm_s,ssh_seq_s,ssh_par_s,ssh_par_libssh2_algs_s,bf/ssh_seq,bf/ssh_par,bf/ssh_par_libssh2_algs,bf_N/bf_1,ssh_par_N/ssh_par_1,bf_cpu_s,ssh_par_cpu_s,bf_devices_used"
bf_one=
par_one=
for n in $SIZES; do
	config "$n"
	# Untimed warm-up: worktrees exported, builds cached.
	bf_compare "$n"
	bf_verify "$n" >/dev/null
	bf_t=
	bf_c=
	par_c=
	seq_t=
	par_t=
	alg_t=
	used=
	r=0
	while [ $r -lt "$REPS" ]; do
		r=$((r + 1))
		case $((r % 4)) in
		1) order="bf seq par alg" ;;
		2) order="seq par alg bf" ;;
		3) order="par alg bf seq" ;;
		*) order="alg bf seq par" ;;
		esac
		for side in $order; do
			c=$(busy)
			t=$(now)
			case $side in
			bf) bf_compare "$n" ;;
			seq) ssh_seq "$n" ;;
			par) ssh_par "$n" ;;
			alg)
				SSH_ALGS=$LIBSSH2_ALGS
				ssh_par "$n"
				SSH_ALGS=
				;;
			esac
			el=$(since "$t")
			cpu=$(awk -v a="$c" -v b="$(busy)" 'BEGIN { printf "%.3f", b - a }')
			case $side in
			bf)
				bf_t="$bf_t $el"
				bf_c="$bf_c $cpu"
				used="$used${used:+/}$(bf_verify "$n")"
				;;
			seq) seq_t="$seq_t $el" ;;
			par)
				par_t="$par_t $el"
				par_c="$par_c $cpu"
				;;
			alg) alg_t="$alg_t $el" ;;
			esac
			[ $side = bf ] || ssh_verify "$n"
		done
	done
	bf_m=$(median $bf_t)
	seq_m=$(median $seq_t)
	par_m=$(median $par_t)
	alg_m=$(median $alg_t)
	[ -n "$bf_one" ] || { bf_one=$bf_m; par_one=$par_m; }
	echo "$n,$bf_m,$seq_m,$par_m,$alg_m,$(ratio "$bf_m" "$seq_m"),$(ratio "$bf_m" "$par_m"),$(ratio "$bf_m" "$alg_m"),$(ratio "$bf_m" "$bf_one"),$(ratio "$par_m" "$par_one"),$(median $bf_c),$(median $par_c),$used"
done
