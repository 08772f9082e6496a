/*
 * bf_bench_main: the command line, the selection of benchmarks, the
 * threads around them (a watchdog behind --time-cap, the busy-spin
 * thread of --sustained), the benchmark thread's priority, crash
 * messages, the console table and the JSON file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* SCHED_IDLE */
#endif
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static atomic_int running;

static uint64_t real_now(void)
{
	return bf_bench__real_clock.now_ns(NULL);
}

/*
 * The watchdog. A benchmark past its cap stops by itself at its next
 * measurement boundary; one whose body does not get back to
 * bf_bench_keep_running within a grace period (the cap, at least 2 s)
 * is ended here, since its body cannot be interrupted safely.
 */
static int write_out(const char *path, const struct bf_bench_context *c,
                     const struct bf_bench_result *r, size_t n, const char *cls,
                     const char *prog);

/*
 * What the watchdog needs to leave --out's file saying why the program
 * stopped: the results so far and the one running (set by run_all).
 */
static struct {
	struct bf_bench_result *res; /* set before the watchdog starts */
	atomic_size_t i; /* the one running */
	const struct bf_bench_context *c;
	const char *cls, *prog;
} cur;

static void *watchdog(void *arg)
{
	const struct bf_bench_opts *o = arg;
	uint64_t grace =
	        (uint64_t)((o->time_cap_s < 2 ? 2 : o->time_cap_s) * 1e9);

	while (atomic_load(&running)) {
		uint64_t dl = atomic_load(&bf_bench__watch.deadline_ns);
		const char *name = atomic_load(&bf_bench__watch.name);

		if (dl && name && real_now() > dl + grace) {
			fprintf(stderr,
			        "benchfarm-bench: benchmark '%s' exceeded the time cap of %g s and did not return to bf_bench_keep_running; stopping the program\n",
			        name, o->time_cap_s);
			if (o->out && cur.res) { /* its failure, in the file */
				size_t i = atomic_load(&cur.i);
				struct bf_bench_result *r = &cur.res[i];

				snprintf(
				        r->error_buf, sizeof(r->error_buf),
				        "stopped: exceeded the time cap of %g s "
				        "and never returned to "
				        "bf_bench_keep_running",
				        o->time_cap_s);
				r->error = r->error_buf;
				r->timed_out = true;
				write_out(o->out, cur.c, cur.res, i + 1,
				          cur.cls, cur.prog);
			}
			_exit(3);
		}
		bf_bench__real_clock.sleep_ns(NULL, 50000000);
	}
	return NULL;
}

/* --sustained: keep a core busy at the lowest priority (Jetpack's
 * BenchSpinThread), so the CPU stays out of deep idle states. */
static void *spin(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
#ifdef SCHED_IDLE
	{
		struct sched_param p = { 0 };

		pthread_setschedparam(pthread_self(), SCHED_IDLE, &p);
	}
#endif
	while (atomic_load(&running))
		n++;
	return NULL;
}

static void on_signal(int sig)
{
	const char *name = atomic_load(&bf_bench__watch.name);
	char msg[300];
	int n;

	if (name) {
		n = snprintf(
		        msg, sizeof(msg),
		        "benchfarm-bench: benchmark '%s' crashed (signal %d) during its run\n",
		        name, sig);
		if (n > 0 && write(2, msg, (size_t)n) < 0)
			n = 0;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * on_signal for the crashes, on a stack of its own: a benchmark that
 * overflows its stack still gets its message (on the overflowed stack
 * the handler itself would fault, and the process die unexplained).
 */
static void crash_handlers(void)
{
	static const int sigs[] = { SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL };
	static char alt[1 << 16];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt), .ss_flags = 0 };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = sigaltstack(&ss, NULL) ? 0 : SA_ONSTACK;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Picks the runs to do into sel; 0 or an exit status. */
static int select_runs(const struct bf_bench_entry ***sel_out, size_t *n_out,
                       const struct bf_bench_opts *o, const char *prog)
{
	size_t n, k = 0;
	const struct bf_bench_entry *e = bf_bench__entries(&n);
	const struct bf_bench_entry **sel;
	regex_t re;
	int ret;

	if (bf_bench__registration_error()) {
		fprintf(stderr, "%s: %s\n", prog,
		        bf_bench__registration_error());
		return 2;
	}
	if (o->filter &&
	    (ret = regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB))) {
		char msg[256];

		regerror(ret, &re, msg, sizeof(msg));
		fprintf(stderr, "%s: --filter '%s': %s\n", prog, o->filter,
		        msg);
		return 2;
	}
	sel = calloc(n + 1, sizeof(*sel));
	if (!sel)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!o->filter || !regexec(&re, e[i].name, 0, NULL, 0))
			sel[k++] = &e[i];
	if (o->filter)
		regfree(&re);
	if (!k) {
		fprintf(stderr, "%s: no benchmark %s%s%s (--list shows them)\n",
		        prog, o->filter ? "matches '" : "is defined",
		        o->filter ? o->filter : "", o->filter ? "'" : "");
		free(sel);
		return 2;
	}
	*sel_out = sel;
	*n_out = k;
	return 0;
}

/* Writes the JSON to path through a temporary file; 0 or -1. */
static int write_out(const char *path, const struct bf_bench_context *c,
                     const struct bf_bench_result *r, size_t n, const char *cls,
                     const char *prog)
{
	char tmp[PATH_MAX];
	FILE *f = NULL;
	int fd, ret = -1;

	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	/* results are private to their owner, like benchfarm's */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f && fd >= 0)
		close(fd);
	if (f && !bf_bench__write_json(f, c, r, n, cls))
		ret = 0;
	if (f && fclose(f))
		ret = -1;
	if (!ret && rename(tmp, path))
		ret = -1;
	if (ret) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path,
		        strerror(errno));
		unlink(tmp);
	}
	return ret;
}

/* The threads and the priority around the runs. */
struct env {
	pthread_t dog, spinner;
	bool dog_on, spin_on;
	int old_nice;
};

static void env_start(struct env *v, struct bf_bench_opts *o,
                      struct bf_bench_context *c)
{
	memset(v, 0, sizeof(*v));
	atomic_store(&running, 1);
	crash_handlers();
	/* the threads first, so they do not inherit the raised priority */
	if (o->time_cap_s > 0)
		v->dog_on = !pthread_create(&v->dog, NULL, watchdog, o);
	if (o->sustained)
		v->spin_on = !pthread_create(&v->spinner, NULL, spin, NULL);
	c->sustained = v->spin_on;
	/* nice -20 as Jetpack's benchmark thread, when allowed (EPERM and
	 * EACCES are expected; the JSON's context says which) */
	errno = 0;
	v->old_nice = getpriority(PRIO_PROCESS, 0);
	if (!errno)
		c->priority_raised = !setpriority(PRIO_PROCESS, 0, -20);
}

static void env_stop(struct env *v, const struct bf_bench_context *c)
{
	atomic_store(&running, 0);
	if (c->priority_raised)
		setpriority(PRIO_PROCESS, 0, v->old_nice);
	if (v->dog_on)
		pthread_join(v->dog, NULL);
	if (v->spin_on)
		pthread_join(v->spinner, NULL);
}

static int run_all(const struct bf_bench_entry **sel, size_t n,
                   struct bf_bench_opts *o, const char *prog)
{
	const char *cls = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	struct bf_bench_run_opts ro = { (size_t)o->repeats,
		                        o->target_ns,
		                        (uint64_t)(o->time_cap_s * 1e9),
		                        o->dry_run,
		                        &bf_bench__real_clock,
		                        stderr };
	struct bf_bench_throttle_env tenv = { bf_bench__throttle_work,
		                              (void *)&bf_bench__real_clock,
		                              &bf_bench__real_clock };
	struct bf_bench_throttle th;
	struct bf_bench_context c;
	struct bf_bench_result *res;
	struct env v;
	size_t failed = 0;

	res = calloc(n, sizeof(*res));
	if (!res)
		abort();
	bf_bench__context_probe(&c, "");
	cur.res = res;
	cur.c = &c;
	cur.cls = cls;
	cur.prog = prog;
	env_start(&v, o, &c);
	/* as Jetpack: no throttle baseline with locked clocks or in
	 * sustained mode, whose clocks are steady by design */
	bf_bench__throttle_init(&th,
	                        o->throttle && !o->dry_run && !c.cpu_locked &&
	                                !c.sustained,
	                        o->retries, (uint64_t)(o->sleep_s * 1e9));
	bf_bench__table_header(stdout);
	for (size_t i = 0; i < n; i++) {
		atomic_store(&cur.i, i);
		bf_bench__run(&res[i], sel[i], &ro, &th, &tenv);
		bf_bench__table_row(stdout, &res[i]);
		if (res[i].error) {
			fprintf(stderr, "%s: benchmark '%s': %s\n", prog,
			        sel[i]->name, res[i].error);
			failed++;
		}
		/* as Jetpack, the file holds every result so far */
		if (o->out && write_out(o->out, &c, res, i + 1, cls, prog))
			failed++;
	}
	env_stop(&v, &c);
	for (size_t i = 0; i < n; i++)
		bf_bench__result_release(&res[i]);
	free(res);
	return failed ? 1 : 0;
}

int bf_bench_main(int argc, char **argv)
{
	const char *prog = argc > 0 && argv[0] ? argv[0] : "benchfarm-bench";
	const struct bf_bench_entry **sel = NULL;
	struct bf_bench_opts o;
	char msg[512];
	size_t n = 0;
	int ret;

	bf_bench__opts_init(&o);
	switch (bf_bench__opts_parse(&o, argc, argv, msg, sizeof(msg))) {
	case BF_OPTS_HELP:
		bf_bench__usage(stdout, prog);
		return 0;
	case BF_OPTS_USAGE:
		fprintf(stderr, "%s: %s\n(see %s --help)\n", prog, msg, prog);
		return 2;
	case BF_OPTS_RUN:
		break;
	}
	ret = select_runs(&sel, &n, &o, prog);
	if (ret)
		return ret;
	if (o.list) {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", sel[i]->name);
	} else {
		ret = run_all(sel, n, &o, prog);
	}
	free(sel);
	if (fflush(stdout) && !ret) {
		fprintf(stderr, "%s: cannot write the output: %s\n", prog,
		        strerror(errno));
		ret = 1;
	}
	return ret;
}
