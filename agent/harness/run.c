/*
 * The registry that the BF_BENCHMARK macros fill, and one benchmark's
 * run: bf_bench_keep_running's measurement boundaries (the only place
 * the clock is read, apart from pauses), warmup, timing, the throttle
 * check that may sleep and redo the timing, and the time cap.
 */
#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum phase { PHASE_WARMUP, PHASE_TIMING, PHASE_DONE };

struct bf_bench_state {
	struct bf_bench_state_head head; /* first: the inline fast path */
	const struct bf_bench_clock *clock;
	const struct bf_bench_entry *e;
	enum phase phase;
	uint64_t iters; /* iterations per measurement */
	uint64_t start_ns, pause_ns, paused_ns;
	uint64_t deadline_ns; /* when has_deadline: stop at a boundary */
	bool has_deadline, timed_out;
	bool started, paused;
	struct bf_bench_warmup warmup;
	double *runs;
	size_t nruns, want;
	uint64_t target_ns;
	const char *error; /* misuse, reported after the run */
	char error_buf[160];
};

struct bf_bench_watch bf_bench__watch;

static struct bf_bench_entry *entries;
static size_t nentries, capentries;
static char reg_error[300];

static uint64_t real_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void real_sleep(void *ctx, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u),
		               (long)(ns % 1000000000u) };

	(void)ctx;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

const struct bf_bench_clock bf_bench__real_clock = { real_now, real_sleep,
	                                             NULL };

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("benchfarm-bench: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void set_reg_error(const char *name, const char *why)
{
	if (!reg_error[0])
		snprintf(reg_error, sizeof(reg_error), "benchmark '%s': %s",
		         name, why);
}

/* Adds name, or name/ARG0/ARG1... when nargs > 0. */
static void add_entry(const char *name, bf_bench_fn *fn, const long long *args,
                      int nargs)
{
	size_t len = strlen(name) + 1 + (size_t)nargs * 21, off;
	struct bf_bench_entry *e;

	if (nentries == capentries) {
		size_t cap = capentries ? 2 * capentries : 16;
		struct bf_bench_entry *v = xmalloc(cap * sizeof(*v));

		if (nentries)
			memcpy(v, entries, nentries * sizeof(*v));
		free(entries);
		entries = v;
		capentries = cap;
	}
	e = &entries[nentries];
	e->fn = fn;
	e->nargs = nargs;
	e->args = xmalloc((size_t)nargs * sizeof(*args));
	if (nargs)
		memcpy(e->args, args, (size_t)nargs * sizeof(*args));
	e->name = xmalloc(len);
	off = (size_t)snprintf(e->name, len, "%s", name);
	for (int i = 0; i < nargs; i++)
		off += (size_t)snprintf(e->name + off, len - off, "/%lld",
		                        args[i]);
	for (size_t i = 0; i < nentries; i++)
		if (!strcmp(entries[i].name, e->name))
			set_reg_error(e->name, "defined twice");
	nentries++;
}

void bf_bench_register(const char *name, bf_bench_fn *fn)
{
	add_entry(name, fn, NULL, 0);
}

void bf_bench_register_args(const char *name, bf_bench_fn *fn,
                            const long long *args, int per_run, int nvalues)
{
	if (per_run < 1 || nvalues < per_run || nvalues % per_run) {
		set_reg_error(name, "the argument values are not a whole "
		                    "number of runs (BF_BENCHMARK_ARGS_N)");
		return;
	}
	for (int i = 0; i < nvalues; i += per_run)
		add_entry(name, fn, args + i, per_run);
}

void bf_bench_register_range(const char *name, bf_bench_fn *fn, long long lo,
                             long long hi, long long mult)
{
	long long v = lo;

	if (lo > hi) {
		set_reg_error(name, "range with lo > hi");
		return;
	}
	if (mult < 2)
		mult = 8;
	while (v < hi) {
		add_entry(name, fn, &v, 1);
		if (v <= 0 || v > LLONG_MAX / mult)
			break;
		v *= mult;
	}
	add_entry(name, fn, &hi, 1);
}

const struct bf_bench_entry *bf_bench__entries(size_t *n_out)
{
	*n_out = nentries;
	return entries;
}

const char *bf_bench__registration_error(void)
{
	return reg_error[0] ? reg_error : NULL;
}

void bf_bench__registry_clear(void)
{
	for (size_t i = 0; i < nentries; i++) {
		free(entries[i].name);
		free(entries[i].args);
	}
	free(entries);
	entries = NULL;
	nentries = capentries = 0;
	reg_error[0] = '\0';
}

static void misuse(struct bf_bench_state *s, const char *why)
{
	if (!s->error)
		s->error = why;
	s->phase = PHASE_DONE;
}

long long bf_bench__arg(struct bf_bench_state *s, int i)
{
	if (i >= 0 && i < s->e->nargs)
		return s->e->args[i];
	if (i == 0 && !s->e->nargs)
		return 0;
	if (!s->error) {
		snprintf(s->error_buf, sizeof(s->error_buf),
		         "bf_bench_arg(state, %d): this run has %d argument%s",
		         i, s->e->nargs, s->e->nargs == 1 ? "" : "s");
		misuse(s, s->error_buf);
	}
	return 0;
}

void bf_bench_pause_timing(struct bf_bench_state *s)
{
	if (s->paused) {
		misuse(s, "bf_bench_pause_timing called twice without resume");
		return;
	}
	s->paused = true;
	s->pause_ns = s->clock->now_ns(s->clock->ctx);
}

void bf_bench_resume_timing(struct bf_bench_state *s)
{
	if (!s->paused) {
		misuse(s, "bf_bench_resume_timing without a pause");
		return;
	}
	s->paused_ns += s->clock->now_ns(s->clock->ctx) - s->pause_ns;
	s->paused = false;
}

/* Records the measurement that ended at end; false when no more. */
static bool measurement_end(struct bf_bench_state *s, uint64_t end)
{
	uint64_t raw = end - s->start_ns;

	if (s->paused) {
		misuse(s, "a measurement ended while timing was paused (call "
		          "bf_bench_resume_timing)");
		return false;
	}
	if (s->phase == PHASE_WARMUP) {
		/* warmup counts paused time too, as Jetpack does */
		if (bf_bench__warmup_add(&s->warmup, raw)) {
			s->phase = PHASE_TIMING;
			s->iters = bf_bench__loop_iterations(s->target_ns,
			                                     s->warmup.last_ns);
		}
		return true;
	}
	s->runs[s->nruns++] = (double)(raw - s->paused_ns) / (double)s->iters;
	if (s->nruns >= s->want) {
		s->phase = PHASE_DONE;
		return false;
	}
	return true;
}

int bf_bench__boundary(struct bf_bench_state *s)
{
	uint64_t now;

	if (s->phase == PHASE_DONE)
		return 0;
	now = s->clock->now_ns(s->clock->ctx);
	if (s->started && !measurement_end(s, now))
		return 0;
	if (s->has_deadline && now >= s->deadline_ns) {
		s->timed_out = true;
		s->phase = PHASE_DONE;
		return 0;
	}
	s->started = true;
	s->paused_ns = 0;
	s->head.remaining = s->iters - 1;
	s->start_ns = s->clock->now_ns(s->clock->ctx);
	return 1;
}

unsigned long long bf_bench__batch(struct bf_bench_state *s,
                                   unsigned long long left)
{
	unsigned long long n;

	if (left) {
		misuse(s, "left BF_BENCH_LOOP with break or goto (return after "
		          "the loop instead)");
		return 0;
	}
	/* the whole batch ran: what bf_bench_keep_running would have seen */
	s->head.remaining = 0;
	if (!bf_bench__boundary(s))
		return 0;
	n = s->head.remaining + 1;
	s->head.remaining = 0;
	return n;
}

/* Runs the body once (a whole phase) inside the time cap. */
static void run_body(struct bf_bench_state *s,
                     const struct bf_bench_run_opts *o, uint64_t *body_ns)
{
	uint64_t t0 = o->clock->now_ns(o->clock->ctx);

	s->has_deadline = o->time_cap_ns > 0;
	s->deadline_ns =
	        t0 +
	        (o->time_cap_ns > *body_ns ? o->time_cap_ns - *body_ns : 0);
	if (s->has_deadline && o->clock == &bf_bench__real_clock)
		atomic_store(&bf_bench__watch.deadline_ns, s->deadline_ns);
	s->e->fn(s);
	atomic_store(&bf_bench__watch.deadline_ns, 0);
	*body_ns += o->clock->now_ns(o->clock->ctx) - t0;
}

static void describe(struct bf_bench_result *res,
                     const struct bf_bench_state *s,
                     const struct bf_bench_run_opts *o)
{
	if (s->error) {
		snprintf(res->error_buf, sizeof(res->error_buf), "%s",
		         s->error);
	} else if (s->timed_out) {
		res->timed_out = true;
		snprintf(
		        res->error_buf, sizeof(res->error_buf),
		        "stopped at the time cap of %g s (%s, %zu of %zu measurements)",
		        (double)o->time_cap_ns / 1e9,
		        !o->dry_run && !s->warmup.done ? "in warmup" : "timing",
		        s->nruns, s->want);
	} else if (s->nruns < s->want) {
		snprintf(
		        res->error_buf, sizeof(res->error_buf),
		        "returned before bf_bench_keep_running said stop (%zu of %zu measurements)",
		        s->nruns, s->want);
	} else {
		return;
	}
	res->error = res->error_buf;
}

void bf_bench__run(struct bf_bench_result *res, const struct bf_bench_entry *e,
                   const struct bf_bench_run_opts *o,
                   struct bf_bench_throttle *th,
                   const struct bf_bench_throttle_env *env)
{
	const struct bf_bench_clock *c = o->clock;
	uint64_t t0 = c->now_ns(c->ctx), body_ns = 0;
	struct bf_bench_state s;

	memset(res, 0, sizeof(*res));
	memset(&s, 0, sizeof(s));
	res->e = s.e = e;
	s.clock = c;
	s.want = o->dry_run ? 1 : (o->measurements ? o->measurements : 1);
	s.target_ns = o->target_ns;
	s.runs = xmalloc(s.want * sizeof(*s.runs));
	s.iters = 1;
	s.phase = o->dry_run ? PHASE_TIMING : PHASE_WARMUP;
	bf_bench__warmup_init(&s.warmup);
	if (o->dry_run)
		th = NULL;
	if (th)
		bf_bench__throttle_begin(th, env);
	atomic_store(&bf_bench__watch.name, e->name);
	for (;;) {
		run_body(&s, o, &body_ns);
		if (s.error || s.timed_out || s.nruns < s.want || !th ||
		    bf_bench__throttle_after_phase(th, env, o->log) !=
		            BF_THROTTLE_REDO)
			break;
		/* redo the timing phase: same loop size, no warmup */
		s.nruns = 0;
		s.phase = PHASE_TIMING;
		s.started = false;
		s.head.remaining = 0;
	}
	atomic_store(&bf_bench__watch.name, NULL);
	res->total_ns = c->now_ns(c->ctx) - t0;
	res->runs = s.runs;
	res->nruns = s.nruns;
	res->warmup_iterations = s.warmup.iterations;
	res->repeat_iterations = s.iters;
	res->slept_ns = th ? th->slept_ns : 0;
	describe(res, &s, o);
}

void bf_bench__result_release(struct bf_bench_result *res)
{
	free(res->runs);
	res->runs = NULL;
	res->nruns = 0;
}

/* Where bf_bench__use leaves its pointer: a store the compiler keeps. */
static const void *volatile use_sink;

void bf_bench__use(const void *p)
{
	use_sink = p;
}

void bf_bench__barrier(void)
{
	atomic_signal_fence(memory_order_seq_cst);
}
