#!/bin/sh
# Duet interference: an A/A patch (the same work on both sides) whose
# benchmark starts a helper that looks for the base's process in /proc
# and SIGSTOPs and SIGCONTs it every 30 ms, so that the base's wall time
# doubles and the patch seems faster (before the sides were isolated it
# read "improved" by 41% and passed). With each side in its own PID
# namespace (and its own /proc) the helper finds no other side and the
# A/A compare does not read improved; a helper that moves a busy loop
# onto the base's core cannot move. With runs.duet_isolation: none, and
# where no user namespace can be made (a device whose kernel or
# container forbids them), the rounds whose base was stopped are left
# out, nothing reads improved, the compare fails, and the result and the
# report say that the sides were not isolated; runs.duet_isolation:
# processes refuses such a device (exit 3).
. "$(dirname "$0")/lib.sh"
need_cc

cat >"$T/spin.c" <<'X'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long n = atoll(argv[1]) * 600000LL, start = now();
	volatile unsigned long x = 0;

	(void)argc;
	for (long long i = 0; i < n; i++)
		x += (unsigned long)i * 7;
	printf("wall %lld ns\n", now() - start);
	return 0;
}
X
# attack MARK: stops and continues, every 30 ms, each process of /proc
# whose command line holds MARK and which is not its own sibling (a
# child of its parent); it waits up to 0.5 s for one to appear and ends
# once none is left, having continued every one it stopped.
cat >"$T/attack.c" <<'X'
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int victims(const char *mark, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) && n < max) {
		char path[64], buf[4096];
		pid_t pid = (pid_t)atoi(e->d_name), ppid = -1;
		FILE *f;
		size_t len;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		if (!(f = fopen(path, "r")))
			continue;
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		for (size_t i = 0; i < len; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[len] = 0;
		if (!strstr(buf, mark) || strstr(buf, "attack"))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%*d %*s %*c %d", &ppid) != 1)
				ppid = -1;
			fclose(f);
		}
		if (ppid != getppid())
			out[n++] = pid;
	}
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	struct timespec half = { 0, 15000000 };
	pid_t v[16];
	int n, seen = 0, stops = 0;

	(void)argc;
	for (int tries = 0; tries < 500; tries++) {
		n = victims(argv[1], v, 16);
		if (!n && (seen || tries > 33))
			break;
		if (!n) {
			nanosleep(&half, NULL);
			continue;
		}
		seen = 1;
		for (int i = 0; i < n; i++)
			kill(v[i], SIGSTOP);
		nanosleep(&half, NULL);
		for (int i = 0; i < n; i++)
			kill(v[i], SIGCONT);
		nanosleep(&half, NULL);
		stops++;
	}
	fprintf(stderr, "attack: stopped %d times\n", stops);
	return 0;
}
X
cc -O1 -o "$T/spin" "$T/spin.c"
cc -O1 -o "$T/attack" "$T/attack.c"

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/bench.sh" <<X
exec "$T/spin" 300 "$T/mark"
X
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main}
benchmarks:
  - {name: spin, command: [sh, bench.sh], format: lines, timeout: 60}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {mode: duet, repeats: 8, warmup: 0}
presubmit: {alpha: 0.05, min_effect: 0.02}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
t_git -C "$R" checkout -q -b patch
# the same work, and the helper that stops the other side
cat >"$R/bench.sh" <<X
"$T/attack" "$T/mark" &
"$T/spin" 300 "$T/mark"
wait
X
t_git -C "$R" commit -q -am "the same work, and stop the base"

"$BF" compare -c "$R/bf.yaml" --base main --patch patch --seed 1 \
	--json "$T/r.json" >"$OUT" 2>"$ERR"
rc=$?
if jq -e '.settings.duet_isolation.processes_isolated == 0' "$T/r.json" \
	>/dev/null 2>&1; then
	_why=$(jq -r '.settings.duet_isolation.not_isolated' "$T/r.json")
	t_skip "isolated: the A/A patch that stops the base gets no verdict" \
		"this machine cannot isolate the sides: $_why"
else
	# what the helper does on the patch's own core is the patch's
	# cost: the patch may read slower, never faster
	jq_check "isolated: the A/A patch that stops the base does not read improved" \
		'.results[0].name == "wall" and .results[0].verdict != "improved" and .results[0].verdict != "error"' "$T/r.json"
	check "isolated: the compare does not fail as infrastructure (exit $rc)" \
		test "$rc" -le 1
	jq_check "isolated: every round's sides had their own PID namespaces and cores, none was stopped" \
		'.settings.duet_isolation | .mode == "best_effort" and .rounds == 8 and .processes_isolated == 8 and .cores_isolated == 8 and .isolated == true and .not_isolated == null and .stopped_rounds == 0' "$T/r.json"
	check "isolated: the report does not say otherwise" \
		sh -c '! grep -q "Duet: the sides were not" "$1"' sh "$OUT"
fi

# A patch whose helper moves a busy loop onto the other core (the
# base's) for as long as its own work runs: held on its core, the
# helper cannot move (sched_setaffinity is refused) and spins nowhere.
cat >"$T/crowd.c" <<'X'
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	cpu_set_t set;
	int here = sched_getcpu();

	CPU_ZERO(&set);
	for (int c = 0; c < 2; c++)
		if (c != here)
			CPU_SET(c, &set);
	FILE *log = fopen(argv[1], "a");

	(void)argc;
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(log, "refused\n");
		return 0;
	}
	fprintf(log, "moved\n");
	fclose(log);
	alarm(3);
	for (;;)
		;
}
X
cc -O1 -o "$T/crowd" "$T/crowd.c"
t_git -C "$R" checkout -q -b crowd main
cat >"$R/bench.sh" <<X
"$T/crowd" "$T/crowd.log" & c=\$!
"$T/spin" 300 "$T/mark"
kill \$c 2>/dev/null
wait
X
t_git -C "$R" commit -q -am "the same work, and crowd the base's core"
"$BF" compare -c "$R/bf.yaml" --base main --patch crowd --seed 1 \
	--json "$T/crowd.json" >"$OUT" 2>"$ERR"
rc=$?
if jq -e '.settings.duet_isolation.cores_isolated == 8' "$T/crowd.json" \
	>/dev/null 2>&1; then
	check "held on its core: the helper could not move in any run" \
		sh -c '[ "$(grep -c refused "$1")" -ge 8 ] && ! grep -q moved "$1"' \
		sh "$T/crowd.log"
	jq_check "held on its core: the patch that crowds the base's core does not read improved" \
		'.results[0].verdict != "improved" and .results[0].verdict != "error"' "$T/crowd.json"
	check "held on its core: the compare does not fail as infrastructure (exit $rc)" \
		test "$rc" -le 1
else
	t_skip "held on its core: the patch that crowds the base's core gets no verdict" \
		"this machine cannot hold the sides on their cores"
fi

# stopped FILE [WHAT]: FILE's base rounds were found stopped and left
# out, none reads improved, the compare fails, and the report says so.
stopped() {
	jq_check "$2: the rounds whose base was stopped are left out" \
		'.settings.duet_isolation.stopped_rounds > 0 and ([.errors[] | select(.code == "stopped" and .side == "base" and (.message | contains("stopped by a signal")))] | length) == .settings.duet_isolation.stopped_rounds' "$1"
	jq_check "$2: no improved verdict" \
		'[.results[] | select(.verdict == "improved")] == []' "$1"
	check "$2: the compare does not pass (exit $rc)" test "$rc" -ne 0
	grep_file "$2: the report says the sides were not isolated" \
		"Duet: the sides were not isolated" "$OUT"
	grep_file "$2: ... and that rounds were left out" \
		"round.* left out: a side was stopped while it ran" "$OUT"
}

# runs.duet_isolation: none: the helper stops the base, the agent sees it.
sed 's/^runs: {mode: duet, /runs: {mode: duet, duet_isolation: none, /' \
	"$R/bf.yaml" >"$T/none.yaml"
sed -i 's|project: {repo: .|project: {repo: '"$R"'|' "$T/none.yaml"
"$BF" compare -c "$T/none.yaml" --base main --patch patch --seed 1 \
	--json "$T/none.json" >"$OUT" 2>"$ERR"
rc=$?
jq_check "none: the result says the sides were not isolated, and why" \
	'.settings.duet_isolation | .mode == "none" and .isolated == false and .processes_isolated == 0 and (.not_isolated | contains("runs.duet_isolation: none"))' "$T/none.json"
stopped "$T/none.json" none

# no_userns CMD...: CMD where no user namespace can be made, as on a
# device whose kernel or container forbids them.
no_userns() {
	unshare -U -r sh -c \
		'echo 0 >/proc/sys/user/max_user_namespaces && exec "$@"' \
		sh "$@"
}
if ! no_userns true 2>/dev/null; then
	t_skip "no user namespaces: the sides are not isolated" \
		"cannot make a user namespace here to forbid them in"
else
	no_userns "$BF" compare -c "$R/bf.yaml" --base main --patch patch \
		--seed 1 --json "$T/nons.json" >"$OUT" 2>"$ERR"
	rc=$?
	jq_check "no user namespaces: the result says the sides were not isolated, and why" \
		'.settings.duet_isolation | .mode == "best_effort" and .isolated == false and .processes_isolated == 0 and (.not_isolated | contains("cannot make a user namespace"))' "$T/nons.json"
	stopped "$T/nons.json" "no user namespaces"
	# runs.duet_isolation: processes refuses such a device (exit 3)
	sed 's/duet_isolation: none/duet_isolation: processes/' \
		"$T/none.yaml" >"$T/procs.yaml"
	expect_exit 3 "processes: a device without user namespaces is refused (exit 3)" \
		no_userns "$BF" compare -c "$T/procs.yaml" --base main \
		--patch patch --seed 1
	grep_file "processes: the error names the device, the key and why" \
		"device 'local': runs.duet_isolation: processes needs each side in its own PID namespace, and this device cannot: cannot make a user namespace" "$ERR"
fi
