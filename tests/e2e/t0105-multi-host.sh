#!/bin/sh
# Three hosts share one lab through one PostgreSQL database (a fresh one
# on the server of $BENCHFARM_TEST_PG): three orchestrator processes,
# each with its own HOME (so its own build cache and known_hosts, both
# at their defaults) and its own clone of the project, run 36 compares
# at once (12 per host, each host a loop in the background) on a pool
# of four real sshd devices that only the first host registered. Then:
# every compare ends with a verdict (exit 0 or 1, never 3); the devices'
# own run journals (the agent's, on the device) show no two runs
# overlapping on one device; every compare's samples are stored exactly
# once (per run, the count in PostgreSQL is the count in its result
# JSON, and no (run, benchmark entry, benchmark, metric, side, repeat,
# iteration) is stored twice); and every device served more than one
# host. Hosts b and c have no known_hosts: the registry's pins of the
# host keys are what they check.
. "$(dirname "$0")/lib.sh"

if ! have_pg; then
	echo "ok 1 # skip no PostgreSQL (BENCHFARM_TEST_PG unset)"
	exit 0
fi
sshd_setup
pg_fresh_db hosts || exit 1
pg() { db "$1"; }
# Each host keeps its build cache and known_hosts where a user's are by
# default: under its own HOME.
unset BENCHFARM_KNOWN_HOSTS BENCHFARM_CACHE
HOSTS="a b c"
PER_HOST=12
for h in $HOSTS; do
	mkdir -p "$T/host-$h"
done

# Host a registers the lab: four devices with their host keys pinned.
HOME="$T/host-a"
sshd_pool "on host a" d1 d2 d3 d4
HOME="$T/home"
: >"$OUT"
: >"$ERR"
n=$(pg "select count(*) from devices where host_key_fp like 'SHA256:%'")
[ "$n" = 4 ] && t_ok "the four host keys are pinned in PostgreSQL" ||
	t_fail "pinned host keys: $n"

# The project: two benchmarks of a few tens of ms each (a job gives each
# benchmark to one device, so three hosts at once want six devices of
# the four, and every device gets work), baseline on main; each host
# works in its own clone. The four sshd devices are one machine
# (127.0.0.1), which a job would measure on one at a time; this lab
# stands for four machines, so each job measures on its two at once
# (devices.same_machine: parallel).
pool_repo "$T/host-a/repo" <<'X'
sleep 0.03
echo "b 1 ns"
X
sed -i -e 's/^  - {name: micro, .*/&\n  - {name: micro2, command: [sh, bench.sh], format: lines}/' \
	-e 's/^devices: {pool: lab}$/devices: {pool: lab, same_machine: parallel}/' \
	"$T/host-a/repo/bf.yaml"
t_git -C "$T/host-a/repo" commit -q -am "a second benchmark"
for h in b c; do
	git clone -q "$T/host-a/repo" "$T/host-$h/repo" || t_fail "clone for host $h"
done

# host H CMD...: benchfarm on host H: its HOME, in its clone.
host() {
	_h=$1
	shift
	(cd "$T/host-$_h/repo" && HOME="$T/host-$_h" "$BF" "$@")
}
# loop H: host H's compares one after the other; each one's exit code
# in $T/host-H/rc.I, its result in $T/host-H/r.I.json.
loop() {
	_i=1
	while [ $_i -le $PER_HOST ]; do
		host "$1" compare -c bf.yaml --base main --patch main \
			--json "$T/host-$1/r.$_i.json" \
			>"$T/host-$1/out.$_i" 2>"$T/host-$1/err.$_i"
		echo $? >"$T/host-$1/rc.$_i"
		_i=$((_i + 1))
	done
}
start=$(date +%s)
pids=
for h in $HOSTS; do
	loop "$h" &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p"
done
end=$(date +%s)
echo "# $((3 * PER_HOST)) compares on three hosts in $((end - start)) s"

# Every compare ended with a verdict.
bad=
for h in $HOSTS; do
	i=1
	while [ $i -le $PER_HOST ]; do
		rc=$(cat "$T/host-$h/rc.$i" 2>/dev/null)
		case $rc in
		0 | 1) ;;
		*)
			bad="$bad $h.$i:$rc"
			sed "s/^/#   host $h compare $i: /" "$T/host-$h/err.$i" | tail -5
			;;
		esac
		i=$((i + 1))
	done
done
[ -z "$bad" ] && t_ok "all $((3 * PER_HOST)) compares ended with a verdict (exit 0 or 1)" ||
	t_fail "compares without a verdict (host.compare:exit):$bad"
check "hosts b and c never wrote a known_hosts" test ! -e \
	"$T/host-b/.local/share/benchfarm/known_hosts" -a ! -e \
	"$T/host-c/.local/share/benchfarm/known_hosts"
check "each host built in its own cache" test -d "$T/host-a/.cache/benchfarm" \
	-a -d "$T/host-b/.cache/benchfarm" -a -d "$T/host-c/.cache/benchfarm"

# No device ran two things at once: each device's journal (the agent's
# own record, ci/sshd.sh gives each device its state directory), sorted
# by start, has every run end before the next one starts.
total=0
for d in d1 d2 d3 d4; do
	j="$S/$d/state/benchfarm/agent-runs.jsonl"
	if [ ! -s "$j" ]; then
		t_fail "$d kept a run journal"
		continue
	fi
	n=$(wc -l <"$j")
	total=$((total + n))
	jq_slurp_check "$d: none of its $n runs overlap another" \
		'sort_by(.start) | . as $r | all(range(1; length); $r[. - 1].end <= $r[.].start)' \
		"$j"
	jq_slurp_check "$d: every run ended with exit 0 and one sample" \
		'all(.[]; .exit_code == 0 and .samples == 1)' "$j"
done
# Every measured run of every compare is in a journal: 2 repeats of
# base and patch each, of each of the two benchmarks.
want=$((3 * PER_HOST * 8))
[ "$total" = "$want" ] && t_ok "the journals hold all $want runs" ||
	t_fail "the journals hold $total runs, not $want"

# No sample lost or stored twice.
lost=
for h in $HOSTS; do
	i=1
	while [ $i -le $PER_HOST ]; do
		f="$T/host-$h/r.$i.json"
		run=$(jq -r '.run_id // empty' "$f" 2>/dev/null)
		nj=$(jq '.samples | length' "$f" 2>/dev/null)
		ns=$(pg "select count(*) from samples where run_id = ${run:-0}")
		if [ -z "$run" ] || [ "${nj:-0}" -eq 0 ] || [ "$nj" != "$ns" ]; then
			lost="$lost $h.$i:run=${run:-?},json=${nj:-?},sql=$ns"
		fi
		i=$((i + 1))
	done
done
[ -z "$lost" ] && t_ok "every compare's samples are all in PostgreSQL" ||
	t_fail "samples differ (host.compare:run,json,sql):$lost"
n=$(pg "select count(distinct run_id) from samples")
[ "$n" = $((3 * PER_HOST)) ] && t_ok "one stored run per compare ($n)" ||
	t_fail "stored runs with samples: $n"
n=$(pg "select count(*) from (select 1 from samples group by run_id, suite, benchmark, metric, side, repeat_idx, iter_idx having count(*) > 1) d")
[ "$n" = 0 ] && t_ok "no (run, sample) stored twice" ||
	t_fail "$n (run, sample) keys stored more than once"
n=$(pg "select count(*) from runs where kind = 'compare' and status = 'complete'")
[ "$n" = $((3 * PER_HOST)) ] && t_ok "every run is complete" ||
	t_fail "complete runs: $n"
n=$(pg "select count(*) from leases")
[ "$n" = 0 ] && t_ok "no lease is left behind" || t_fail "leases left: $n"

# Every device served more than one host: the hosts' result JSONs say
# which device measured each sample.
for h in $HOSTS; do
	jq -r --arg h "$h" '.samples[] | "\(.device) \($h)"' "$T"/host-"$h"/r.*.json
done | sort -u >"$T/device-hosts"
for d in d1 d2 d3 d4; do
	n=$(grep -c "^$d " "$T/device-hosts")
	[ "$n" -gt 1 ] && t_ok "$d served $n hosts" ||
		t_fail "$d served $n host(s): $(grep "^$d " "$T/device-hosts" | tr '\n' ' ')"
done
