#include "serve.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "benchfarm/proto.h"
#include "benchfarm/sample.h"
#include "benchfarm/spawn.h"
#include "fence.h"
#include "journal.h"
#include "parse/parse.h"
#include "probe/cpuusage.h"
#include "run_measure.h"
#include "verify.h"

#define RUN_OUT_MAX_DEFAULT (64u * 1024 * 1024)
#define RUN_OUT_MAX_LIMIT   (256u * 1024 * 1024)
#define RUN_TIMEOUT_DEFAULT 300.0
#define RUN_SAMPLE_MS_MAX   60000
/* How often a run with "watch_stops" is looked at for stops. */
#define RUN_STOP_WATCH_S 0.02

/* A validated "run" request. */
struct run_req {
	struct bf_argv argv;
	struct bf_argv env; /* "K=V" */
	const char *cwd;
	const char *format;
	const char *output; /* "stdout", "stderr" or "both": what is parsed */
	const char *measure; /* "time" (NULL) or "instructions" */
	double timeout_s;
	size_t out_max;
	int sample_ms; /* "cpu_sample_ms"; 0: no CPU time series */
	int *cpus; /* "cpus": affinity, or NULL */
	size_t ncpus;
	bool set_nice; /* "nice" given */
	int nice;
	bool watch_stops; /* "watch_stops": count the times it was stopped */
};

/*
 * CPU metrics of one run (cpuusage.h): snapshots of /proc/PID/stat taken
 * from the spawn loop, every sample_ms and once the benchmark has
 * exited (before it is reaped, so its final times are still there).
 */
struct run_cpu {
	long clk_tck, cores;
	bool sampling;
	struct bf_cpu_series series;
	struct bf_cpu_snapshot final;
	bool have_final;
	struct bf_err err; /* the first failure to read /proc */
	struct bf_run_measure *measure; /* its counters open at the start */
	/*
	 * The request's lease fence (fence.h; NULL: none): the run is
	 * recorded in progress under its token once its process group
	 * exists, before it execs.
	 */
	const struct bf_fence *fence;
	pid_t pgid; /* recorded under the fence; 0: not recorded */
	int64_t newer; /* refused: a newer lease's run was in progress */
	struct bf_fence_claim claim;
	/*
	 * Time it waited for a CPU while runnable (/proc/PID/schedstat),
	 * read with the final times; and with watch_stops, how many times
	 * it was seen stopped or continued by a signal (SIGSTOP, SIGCONT).
	 */
	double run_delay_s;
	bool have_delay, watch_stops;
	long stops;
};

static void run_req_release(struct run_req *r)
{
	bf_argv_release(&r->argv);
	bf_argv_release(&r->env);
	BF_FREE(r->cpus);
}

/* req[key] as an integer in min..max into *out; 1 when present. */
static int int_of(int *out, const json_t *req, const char *key, int min,
                  int max, struct bf_err *err)
{
	const json_t *v = json_object_get(req, key);

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return bf_err_set(err, BF_EINVAL,
		                  "\"%s\" must be an integer %d..%d", key, min,
		                  max);
	*out = (int)json_integer_value(v);
	return 1;
}

/* "cpus": a non-empty array of CPU numbers. */
static int cpus_of(struct run_req *r, const json_t *arr, struct bf_err *err)
{
	size_t i;
	json_t *v;

	if (!arr)
		return 0;
	if (!json_is_array(arr) || !json_array_size(arr) ||
	    json_array_size(arr) > BF_SPAWN_CPUS_MAX)
		return bf_err_set(err, BF_EINVAL,
		                  "\"cpus\" must be a non-empty array of CPU "
		                  "numbers");
	r->cpus = bf_xcalloc(json_array_size(arr), sizeof(int));
	json_array_foreach(arr, i, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= BF_SPAWN_CPUS_MAX)
			return bf_err_set(err, BF_EINVAL,
			                  "\"cpus\"[%zu] must be an integer "
			                  "0..%d",
			                  i, BF_SPAWN_CPUS_MAX - 1);
		r->cpus[r->ncpus++] = (int)json_integer_value(v);
	}
	return 0;
}

/* The optional fields: sampling, affinity, niceness. */
static int run_req_parse_cpu(struct run_req *r, const json_t *req,
                             struct bf_err *err)
{
	int ret;

	if ((ret = int_of(&r->sample_ms, req, "cpu_sample_ms", 1,
	                  RUN_SAMPLE_MS_MAX, err)) < 0)
		return ret;
	if ((ret = int_of(&r->nice, req, "nice", -20, 19, err)) < 0)
		return ret;
	r->set_nice = ret == 1;
	r->watch_stops = json_is_true(json_object_get(req, "watch_stops"));
	return cpus_of(r, json_object_get(req, "cpus"), err);
}

static int strings_of(struct bf_argv *out, const json_t *arr, const char *key,
                      struct bf_err *err)
{
	size_t i;
	json_t *v;

	if (!json_is_array(arr) || !json_array_size(arr))
		return bf_err_set(err, BF_EINVAL,
		                  "\"%s\" must be a non-empty array of strings",
		                  key);
	json_array_foreach(arr, i, v)
	{
		if (!json_is_string(v))
			return bf_err_set(err, BF_EINVAL,
			                  "\"%s\"[%zu] is not a string", key,
			                  i);
		bf_argv_push(out, json_string_value(v));
	}
	return 0;
}

static int env_of(struct bf_argv *out, const json_t *obj, struct bf_err *err)
{
	const char *k;
	json_t *v;

	if (!obj)
		return 0;
	if (!json_is_object(obj))
		return bf_err_set(err, BF_EINVAL, "\"env\" must be an object");
	json_object_foreach((json_t *)obj, k, v)
	{
		if (!json_is_string(v) || !*k || strchr(k, '='))
			return bf_err_set(err, BF_EINVAL,
			                  "\"env\" entry '%s' is invalid", k);
		bf_argv_pushf(out, "%s=%s", k, json_string_value(v));
	}
	return 0;
}

static int run_req_parse(struct run_req *r, const json_t *req,
                         struct bf_err *err)
{
	const json_t *t = json_object_get(req, "timeout");
	const json_t *m = json_object_get(req, "out_max");
	int ret;

	r->cwd = bf_json_str_or(req, "cwd", NULL);
	r->format = bf_json_str_or(req, "format", NULL);
	r->output = bf_json_str_or(req, "output", "stdout");
	r->measure = bf_json_str_or(req, "measure", NULL);
	r->timeout_s = RUN_TIMEOUT_DEFAULT;
	r->out_max = RUN_OUT_MAX_DEFAULT;
	if ((ret = strings_of(&r->argv, json_object_get(req, "argv"), "argv",
	                      err)) ||
	    (ret = env_of(&r->env, json_object_get(req, "env"), err)))
		return ret;
	if (!r->format || !bf_parser_find(r->format))
		return bf_err_set(err, BF_EINVAL,
		                  "\"format\" missing or unknown ('%s')",
		                  r->format ? r->format : "");
	if (strcmp(r->output, "stdout") && strcmp(r->output, "stderr") &&
	    strcmp(r->output, "both"))
		return bf_err_set(
		        err, BF_EINVAL,
		        "\"output\" must be \"stdout\", \"stderr\" or "
		        "\"both\", not '%s'",
		        r->output);
	if (t && (!json_is_number(t) || !(json_number_value(t) > 0) ||
	          json_number_value(t) > BF_RUN_TIMEOUT_MAX))
		return bf_err_set(err, BF_EINVAL,
		                  "\"timeout\" must be more than 0 and at most "
		                  "%d seconds",
		                  BF_RUN_TIMEOUT_MAX);
	if (t)
		r->timeout_s = json_number_value(t);
	if (m && (!json_is_integer(m) || json_integer_value(m) <= 0 ||
	          json_integer_value(m) > RUN_OUT_MAX_LIMIT))
		return bf_err_set(err, BF_EINVAL,
		                  "\"out_max\" must be 1..%u bytes",
		                  RUN_OUT_MAX_LIMIT);
	if (m)
		r->out_max = (size_t)json_integer_value(m);
	return run_req_parse_cpu(r, req, err);
}

/* Offer a snapshot to the series, after the launch snapshot. */
static void cpu_offer(struct run_cpu *c, const struct bf_cpu_snapshot *snap,
                      bool keep)
{
	struct bf_cpu_snapshot launch;

	if (!c->series.n) {
		bf_cpu_snapshot_launch(&launch, &snap->stat, c->clk_tck);
		bf_cpu_series_add(&c->series, &launch, true);
	}
	bf_cpu_series_add(&c->series, snap, keep);
}

/*
 * A stop or continue of pid since the last look, consumed (the exit is
 * not: without WEXITED the child is neither reaped nor reported).
 */
static void watch_stops(struct run_cpu *c, pid_t pid)
{
	siginfo_t si;

	for (int i = 0; i < 2; i++) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si,
		           WSTOPPED | WCONTINUED | WNOHANG) < 0 ||
		    si.si_pid != pid)
			return;
		c->stops++;
	}
}

/* bf_spawn_tick_fn: one point of the time series, or a look at stops. */
static void cpu_tick(pid_t pid, void *payload)
{
	struct run_cpu *c = payload;
	struct bf_cpu_snapshot snap;

	if (c->watch_stops)
		watch_stops(c, pid);
	if (c->sampling &&
	    !bf_cpu_snapshot_take(&snap, pid, c->err.code ? NULL : &c->err))
		cpu_offer(c, &snap, false);
}

/* The run delay of pid (schedstat's second field) into c. */
static void read_run_delay(struct run_cpu *c, pid_t pid)
{
	char path[64];
	unsigned long long ran, waited;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/schedstat", (long)pid);
	if (!(f = fopen(path, "r")))
		return;
	if (fscanf(f, "%llu %llu", &ran, &waited) == 2) {
		c->run_delay_s = (double)waited / 1e9;
		c->have_delay = true;
	}
	fclose(f);
}

/* bf_spawn_tick_fn: the final times, before the benchmark is reaped. */
static void cpu_exited(pid_t pid, void *payload)
{
	struct run_cpu *c = payload;

	if (c->watch_stops)
		watch_stops(c, pid);
	read_run_delay(c, pid);
	if (bf_cpu_snapshot_take(&c->final, pid, c->err.code ? NULL : &c->err))
		return;
	c->have_final = true;
	if (c->sampling)
		cpu_offer(c, &c->final, true);
}

/*
 * bf_spawn_tick_fn: the child waits before exec; count from there. The
 * run is recorded under its lease's token first, which ends an older
 * lease's run still in progress and waits for it to be gone; a newer
 * lease's run in progress ends this one before it execs.
 */
static void run_started(pid_t pid, void *payload)
{
	struct run_cpu *c = payload;
	struct bf_err err = BF_ERR_INIT;
	int rc;

	if (c->fence) {
		rc = bf_fence_claim(&c->claim, c->fence, pid, bf_fence_wait_s(),
		                    &err);
		if (!rc)
			c->pgid = pid;
		else if (rc == BF_EBUSY && (c->newer = c->claim.newer))
			kill(-pid, SIGKILL);
		else
			BF_LOG_WARN("run: %s; the run is not fenced", err.msg);
	}
	bf_run_measure_started(c->measure, pid);
}

/*
 * After the run: its line under the fence is removed. 1 when the run
 * was answered here: ended by a newer lease ("superseded"), or run
 * while an older lease's run could not be ended ("overlapped"), which
 * is no clean measurement.
 */
static int fence_outcome(int out_fd, int64_t id, struct run_cpu *c, int *ret)
{
	struct bf_err err = BF_ERR_INIT;
	int64_t ended_by = c->newer;

	if (c->pgid && bf_fence_release(&ended_by, c->fence, c->pgid, &err))
		BF_LOG_WARN("run: %s", err.msg);
	c->pgid = 0;
	if (ended_by) {
		*ret = bf_req_error(
		        out_fd, id, "superseded",
		        "the run was ended: device '%s' was taken "
		        "over by a newer lease (token %lld > %lld); "
		        "nothing of it is sent",
		        c->fence->device, (long long)ended_by,
		        (long long)c->fence->token);
		return 1;
	}
	if (c->fence && c->claim.overlap) {
		*ret = bf_req_error(
		        out_fd, id, "overlapped",
		        "the run overlapped a run of an older lease "
		        "(token %lld) on device '%s' that was still "
		        "running %g s after it was killed: it is "
		        "no clean measurement",
		        (long long)c->claim.overlap_token, c->fence->device,
		        bf_fence_wait_s());
		return 1;
	}
	return 0;
}

static void run_cpu_init(struct run_cpu *c, const struct run_req *r,
                         struct bf_spawn_opts *opts,
                         struct bf_run_measure *measure,
                         const struct bf_fence *fence)
{
	memset(c, 0, sizeof(*c));
	c->measure = measure;
	c->fence = fence;
	opts->started = run_started;
	c->clk_tck = sysconf(_SC_CLK_TCK);
	c->cores = sysconf(_SC_NPROCESSORS_ONLN);
	c->sampling = r->sample_ms > 0;
	bf_cpu_series_init(&c->series, 0);
	opts->exited = cpu_exited;
	opts->payload = c;
	c->watch_stops = r->watch_stops;
	if (c->sampling || c->watch_stops) {
		opts->tick = cpu_tick;
		/* with sampling, stops are looked at as often as it samples */
		opts->tick_s =
		        c->sampling ? r->sample_ms / 1000.0 : RUN_STOP_WATCH_S;
	}
	opts->cpus = r->cpus;
	opts->ncpus = r->ncpus;
	opts->set_nice = r->set_nice;
	opts->nice = r->nice;
}

/*
 * "cpu": times from rusage (the benchmark and its waited-for children)
 * and the relative average usage since launch from /proc/PID/stat.
 */
static json_t *cpu_json(struct run_cpu *c, const struct bf_spawn_result *res)
{
	json_t *o = json_pack("{s:f, s:f, s:f}", "wall_s", res->wall_s,
	                      "user_s", res->user_s, "sys_s", res->sys_s);
	struct bf_cpu_snapshot launch;
	double usage;

	if (c->have_final) {
		bf_cpu_snapshot_launch(&launch, &c->final.stat, c->clk_tck);
		if (bf_cpu_usage(&usage, &launch, &c->final, c->clk_tck,
		                 c->cores, &c->err))
			c->have_final = false;
	}
	json_object_set_new(o, "usage",
	                    c->have_final ? json_real(usage) : json_null());
	json_object_set_new(o, "usage_cores",
	                    c->have_final ? json_real(usage * (double)c->cores)
	                                  : json_null());
	json_object_set_new(o, "cores", json_integer(c->cores));
	json_object_set_new(o, "run_delay_s",
	                    c->have_delay ? json_real(c->run_delay_s)
	                                  : json_null());
	if (c->watch_stops)
		json_object_set_new(o, "stops", json_integer(c->stops));
	json_object_set_new(o, "clk_tck", json_integer(c->clk_tck));
	if (!c->have_final)
		json_object_set_new(o, "usage_error", json_string(c->err.msg));
	return o;
}

/* "cpu_series": [{"t": s, "usage": fraction}], one per interval. */
static json_t *series_json(const struct run_cpu *c)
{
	json_t *arr = json_array();
	double t, usage;

	for (size_t i = 0; i + 1 < c->series.n; i++)
		if (!bf_cpu_series_point(&t, &usage, &c->series, i, c->clk_tck,
		                         c->cores, NULL))
			json_array_append_new(arr,
			                      json_pack("{s:f, s:f}", "t", t,
			                                "usage", usage));
	return arr;
}

/* The last few lines of a program's stderr, for error messages. */
static const char *tail_lines(const struct bf_buf *b, int lines)
{
	const char *p = b->buf + b->len;

	while (p > b->buf && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	while (p > b->buf && lines > 0) {
		p--;
		if (*p == '\n')
			lines--;
	}
	return *p == '\n' ? p + 1 : p;
}

static int send_result(int out_fd, int64_t id,
                       const struct bf_spawn_result *res, size_t nsamples,
                       struct run_cpu *c, json_t *counters)
{
	json_t *msg = json_pack(
	        "{s:s, s:I, s:i, s:f, s:f, s:f, s:I, s:I, s:I, s:I}", "type",
	        "result", "id", (json_int_t)id, "exit_code", res->exit_code,
	        "wall_s", res->wall_s, "user_s", res->user_s, "sys_s",
	        res->sys_s, "maxrss_kb", (json_int_t)res->maxrss_kb, "nvcsw",
	        (json_int_t)res->nvcsw, "nivcsw", (json_int_t)res->nivcsw,
	        "samples", (json_int_t)nsamples);
	int ret;

	json_object_set_new(msg, "cpu", cpu_json(c, res));
	json_object_set_new(msg, "counters", counters);
	if (c->sampling)
		json_object_set_new(msg, "cpu_series", series_json(c));
	ret = bf_proto_write(out_fd, msg, NULL);

	json_decref(msg);
	return ret;
}

/*
 * The start of a stream for a message: its first 3 lines, at most 200
 * bytes (cut at a UTF-8 boundary), "..." when there is more.
 */
static void add_excerpt(struct bf_buf *b, const struct bf_buf *s)
{
	size_t n = 0, k;
	int lines = 0;

	while (n < s->len && n < 200 && lines < 3)
		if (s->buf[n++] == '\n')
			lines++;
	while (n < s->len && n > 0 && ((unsigned char)s->buf[n] & 0xc0) == 0x80)
		n--;
	for (k = n; k < s->len && (s->buf[k] == '\n' || s->buf[k] == ' '); k++)
		;
	while (n > 0 && (s->buf[n - 1] == '\n' || s->buf[n - 1] == ' '))
		n--;
	bf_buf_addf(b, "'%.*s'%s", (int)n, s->buf, k < s->len ? "..." : "");
}

/* What one stream held: "standard output (12 bytes): 'x'..." or empty. */
static void add_stream(struct bf_buf *b, const char *name,
                       const struct bf_buf *s)
{
	if (!s->len) {
		bf_buf_addf(b, "%s was empty", name);
		return;
	}
	bf_buf_addf(b, "%s (%zu bytes): ", name, s->len);
	add_excerpt(b, s);
}

/*
 * A parse error says what the program printed: the parsed stream's
 * start, and whether the other one had anything (the benchmark's
 * config key output: stdout|stderr|both chooses).
 */
static int parse_failed(int out_fd, int64_t id, const struct run_req *r,
                        const struct bf_spawn_result *res, const char *msg)
{
	bool out = strcmp(r->output, "stderr");
	bool errs = strcmp(r->output, "stdout");
	struct bf_buf b = BF_BUF_INIT;
	int ret;

	bf_buf_addf(&b, "%s; ", msg);
	add_stream(&b, "standard output", &res->out);
	bf_buf_addstr(&b, "; ");
	add_stream(&b, "standard error", &res->err);
	bf_buf_addf(&b, "; %s parsed (the benchmark's 'output: %s')",
	            out && errs ? "both were"
	            : out       ? "only standard output is"
	                        : "only standard error is",
	            r->output);
	ret = bf_req_error(out_fd, id, "parse_error", "%s", b.buf);
	bf_buf_release(&b);
	return ret;
}

/* Report how the program failed; 1 when it did, 0 when it succeeded. */
static int report_failure(int out_fd, int64_t id, const struct run_req *r,
                          const struct bf_spawn_result *res, int *ret)
{
	char how[64];

	if (res->out_truncated ||
	    (res->err_truncated && strcmp(r->output, "stdout"))) {
		*ret = bf_req_error(out_fd, id, "output_too_big",
		                    "'%s' printed more than %zu bytes to "
		                    "standard %s",
		                    r->argv.argv[0], r->out_max,
		                    res->out_truncated ? "output" : "error");
		return 1;
	}
	if (bf_spawn_is_success(res))
		return 0;
	bf_spawn_describe(res, r->timeout_s, how, sizeof(how));
	*ret = bf_req_error(out_fd, id,
	                    res->timed_out ? "timeout" : "benchmark_failed",
	                    "'%s' %s%s%s", r->argv.argv[0], how,
	                    res->err.len ? ": " : "", tail_lines(&res->err, 5));
	return 1;
}

/*
 * The run's line in the journal: from just before the program started
 * to just after it ended (before its results are sent, so that the
 * next job's run on the device cannot seem to start inside it). A
 * failure is only logged.
 */
static void journal(const struct run_req *r, int64_t id, double start,
                    double end, int exit_code, size_t nsamples)
{
	struct bf_journal_run j = {
		.start = start,
		.end = end,
		.id = id,
		.cwd = r->cwd,
		.program = r->argv.argv[0],
		.exit_code = exit_code,
		.samples = nsamples,
	};
	struct bf_err err = BF_ERR_INIT;
	char *path = bf_journal_path();

	if (path && bf_journal_append(path, &j, &err))
		BF_LOG_WARN("run: %s", err.msg);
	free(path);
}

int bf_req_run(int out_fd, const json_t *req, int64_t id,
               struct bf_agent_ctx *ctx)
{
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct run_req r = { .argv = BF_ARGV_INIT, .env = BF_ARGV_INIT };
	struct bf_samples samples = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_spawn_result res;
	struct bf_buf both = BF_BUF_INIT;
	const struct bf_buf *parsed;
	struct run_cpu cpu;
	struct bf_run_measure measure;
	json_t *counters = NULL;
	double start = 0, end = 0;
	int ret = 0, n, code = -1;

	bf_spawn_result_init(&res);
	memset(&cpu, 0, sizeof(cpu));
	bf_cpu_series_init(&cpu.series, 0);
	bf_run_measure_prepare(&measure, NULL, NULL, &opts, NULL);
	if (run_req_parse(&r, req, &err)) {
		ret = bf_req_error(out_fd, id, "bad_request", "run: %s",
		                   err.msg);
		goto out;
	}
	if (bf_verify_artifacts(json_object_get(req, "verify"), &err)) {
		ret = bf_req_error(out_fd, id,
		                   err.code == BF_ECORRUPT ? "artifact_changed"
		                                           : "bad_request",
		                   "%s", err.msg);
		goto out;
	}
	opts.argv = (const char *const *)r.argv.argv;
	opts.cwd = r.cwd;
	opts.env_set = (const char *const *)r.env.argv;
	opts.timeout_s = r.timeout_s;
	opts.out_max = r.out_max;
	/* a parsed standard error gets standard output's room */
	opts.err_max = strcmp(r.output, "stdout") ? r.out_max : 0;
	opts.kill_on_overflow = true;
	run_cpu_init(&cpu, &r, &opts, &measure, ctx ? ctx->fence : NULL);
	if (bf_run_measure_prepare(&measure, r.measure, &r.argv, &opts, &err)) {
		ret = bf_req_error(out_fd, id,
		                   err.code == BF_EINVAL ? "bad_request"
		                                         : "system",
		                   "run: %s", err.msg);
		goto out;
	}
	/*
	 * Whatever the run starts is adopted by the agent when its parent
	 * ends, also after leaving the run's process group (setsid), and
	 * killed when the run is over: nothing outlives a run.
	 */
#ifdef PR_SET_CHILD_SUBREAPER
	prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L);
#endif
	start = bf_journal_now();
	if (bf_spawn_run(&res, &opts, &err)) {
		bf_spawn_kill_strays();
		end = bf_journal_now();
		if (fence_outcome(out_fd, id, &cpu, &ret))
			goto out;
		if (err.code == BF_ENOTFOUND && measure.instructions)
			ret = bf_req_error(out_fd, id, "system", "%s",
			                   bf_run_measure_no_valgrind());
		else
			ret = bf_req_error(out_fd, id,
			                   err.code == BF_ENOTFOUND
			                           ? "not_found"
			                           : "system",
			                   "%s", err.msg);
		goto out;
	}
	bf_run_measure_stop(&measure);
	n = bf_spawn_kill_strays();
	end = bf_journal_now(); /* whatever it started is gone too */
	code = res.exit_code;
	if (n)
		BF_LOG_INFO("run: killed %d process%s the benchmark left "
		            "running outside its process group",
		            n, n == 1 ? "" : "es");
	if (fence_outcome(out_fd, id, &cpu, &ret))
		goto out;
	if (report_failure(out_fd, id, &r, &res, &ret))
		goto out;
	if (bf_run_measure_finish(&counters, &measure, &err)) {
		/* counts the benchmark's processes left unreadable are its own
		 */
		ret = bf_req_error(out_fd, id,
		                   err.code == BF_ESYS ? "system"
		                                       : "parse_error",
		                   "%s", err.msg);
		goto out;
	}
	/* under cachegrind its output is no measure of its time */
	if (measure.instructions)
		goto send;
	if (!strcmp(r.output, "both")) {
		bf_buf_add(&both, res.out.buf, res.out.len);
		bf_buf_add(&both, res.err.buf, res.err.len);
	}
	parsed = !strcmp(r.output, "stdout")   ? &res.out
	         : !strcmp(r.output, "stderr") ? &res.err
	                                       : &both;
	if (bf_parse_output(&samples, r.format, parsed->buf, parsed->len,
	                    r.argv.argv[0], &err)) {
		ret = parse_failed(out_fd, id, &r, &res, err.msg);
		goto out;
	}
send:
	ret = bf_req_send_samples(out_fd, id, &samples);
	if (!ret)
		ret = send_result(out_fd, id, &res, samples.n, &cpu,
		                  json_incref(counters));
out:
	if (start > 0)
		journal(&r, id, start, end, code, samples.n);
	bf_cpu_series_release(&cpu.series);
	bf_run_measure_release(&measure);
	json_decref(counters);
	bf_samples_release(&samples);
	bf_spawn_result_release(&res);
	bf_buf_release(&both);
	run_req_release(&r);
	return ret;
}
