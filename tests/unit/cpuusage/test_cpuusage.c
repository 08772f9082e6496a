/*
 * Unit tests for agent/probe/cpuusage.c (Lyft's relative average CPU usage
 * from /proc/PID/stat, checked against values computed by hand from the
 * article's example line), the sampling hooks it relies on in
 * core/src/spawn.c (ticks, the exit snapshot) and spawn_exec.c
 * (affinity, niceness), and the CPU fields of the agent's "run" request.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/proto.h"
#include "benchfarm/spawn.h"
#include "probe/cpuusage.h"
#include "serve.h"

/* The example of the article, verbatim. */
#define LYFT_LINE                                                             \
	"13382 (package.example) R 733 733 0 0 -1 4194624 36257 0 29 0 212 "  \
	"24 0 0 20 0 29 0 109604942 15316271104 33934 18446744073709551615 "  \
	"400721997824 400722001824 549509190800 0 0 0 4612 1 1073775864 0 0 " \
	"0 17 0 0 0 1 0 0 400722001920 400722003192 401529204736 "            \
	"549509195107 549509195206 549509195206 549509197790 0\n"

static void parse_ok(struct bf_proc_stat *st, const char *line)
{
	struct bf_err err = BF_ERR_INIT;

	if (bf_proc_stat_parse(st, line, strlen(line), &err))
		fail_msg("'%s': %s", line, err.msg);
}

/* The fields of st the CPU usage needs are these. */
static void expect_stat(const struct bf_proc_stat *st, int64_t pid, char state,
                        uint64_t utime, uint64_t stime, uint64_t cutime,
                        uint64_t cstime, uint64_t starttime)
{
	assert_int_equal(st->pid, pid);
	assert_int_equal(st->state, state);
	assert_int_equal(st->utime, utime);
	assert_int_equal(st->stime, stime);
	assert_int_equal(st->cutime, cutime);
	assert_int_equal(st->cstime, cstime);
	assert_int_equal(st->starttime, starttime);
}

static void test_cpuusage__parses_the_article_line(void **state)
{
	struct bf_proc_stat st;

	(void)state;
	parse_ok(&st, LYFT_LINE);
	expect_stat(&st, 13382, 'R', 212, 24, 0, 0, 109604942);
}

static void test_cpuusage__comm_with_spaces_and_parens(void **state)
{
	struct bf_proc_stat st;

	(void)state;
	/* comm "a) (b c) S 9" would fool a parser counting from the left. */
	parse_ok(&st, "77 (a) (b c) S 9) Z 1 2 3 4 5 6 7 8 9 10 11 12 13 14 "
	              "15 16 17 18 19 20 21\n");
	expect_stat(&st, 77, 'Z', 11, 12, 13, 14, 19);
	/* Exactly the fields needed, no newline, and an empty comm. */
	parse_ok(&st, "5 () R 1 2 3 4 5 6 7 8 9 10 1 2 3 4 -20 19 1 0 500");
	assert_int_equal(st.cstime, 4);
	assert_int_equal(st.starttime, 500);
}

static void test_cpuusage__garbage_is_einval(void **state)
{
	static const char *const bad[] = {
		"",
		"hello",
		"12 (x)",
		"12 (x) R",
		"(x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19",
		"x1 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19",
		"12 x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19",
		"12 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18",
		"12 (x) R 1 2 3 4 5 6 7 8 9 10 11 1x 13 14 15 16 17 18 19",
		"12 (x) R 1 2 3 4 5 6 7 8 9 10 -1 12 13 14 15 16 17 18 19",
		"12 (x) R 1 2 3 4 5 6 7 8 9 10  11 12 13 14 15 16 17 18 19",
		"12 (x) RR 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19",
		"12 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 "
		"123456789012345678901234567890123456789",
		"12 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 1e3",
	};
	struct bf_err err = BF_ERR_INIT;
	struct bf_proc_stat st;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(bad); i++) {
		bf_err_clear(&err);
		if (bf_proc_stat_parse(&st, bad[i], strlen(bad[i]), &err) !=
		    BF_EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_true(err.msg[0] != '\0');
	}
	/* Messages say what is wrong. */
	bf_proc_stat_parse(&st, bad[3], strlen(bad[3]), &err);
	assert_string_equal(err.msg, "truncated: field 4 (of 22) is missing");
	bf_proc_stat_parse(&st, bad[9], strlen(bad[9]), &err);
	assert_string_equal(err.msg, "field 14 is negative (-1)");
	/* Random bytes (NULs, no terminator) are rejected, not overrun. */
	assert_int_equal(bf_proc_stat_parse(&st, "1 (\0) R\xff", 8, &err),
	                 BF_EINVAL);
}

static void snap_of(struct bf_cpu_snapshot *s, const char *line, double up)
{
	parse_ok(&s->stat, line);
	s->uptime_s = up;
}

/*
 * By hand, from the article's line with clockSpeedHz 100:
 *   cpuTimeSec     = (212 + 24 + 0 + 0) / 100        = 2.36 s
 *   starttime      = 109604942 / 100                 = 1096049.42 s
 *   processTimeSec = 1096059.42 - 1096049.42         = 10 s
 *   avgUsage       = 2.36 / 10 / 8 cores             = 0.0295
 */
static void test_cpuusage__average_since_launch(void **state)
{
	struct bf_cpu_snapshot launch, now;
	double usage;

	(void)state;
	snap_of(&now, LYFT_LINE, 1096059.42);
	assert_float_equal(bf_cpu_time_s(&now, 100), 2.36, 1e-12);
	assert_float_equal(bf_cpu_process_time_s(&now, 100), 10.0, 1e-6);
	bf_cpu_snapshot_launch(&launch, &now.stat, 100);
	assert_float_equal(bf_cpu_process_time_s(&launch, 100), 0.0, 0);
	assert_float_equal(bf_cpu_time_s(&launch, 100), 0.0, 0);
	assert_int_equal(bf_cpu_usage(&usage, &launch, &now, 100, 8, NULL), 0);
	assert_float_equal(usage, 0.0295, 1e-9);
	/* One core: 23.6%, the article's avgUsagePercent' before / cores. */
	assert_int_equal(bf_cpu_usage(&usage, &launch, &now, 100, 1, NULL), 0);
	assert_float_equal(usage, 0.236, 1e-9);
}

/*
 * Relative usage between two snapshots 2 s apart, children included:
 *   cpuTimeDeltaSec     = ((312 + 44 + 30 + 10) - 236) / 100 = 1.6 s
 *   processTimeDeltaSec = 2 s
 *   relAvgUsage         = 1.6 / 2 / 4 cores                  = 0.2
 */
static void test_cpuusage__relative_between_snapshots(void **state)
{
	struct bf_cpu_snapshot a, b;
	double usage;

	(void)state;
	snap_of(&a, LYFT_LINE, 1096059.42);
	snap_of(&b,
	        "13382 (package.example) S 733 733 0 0 -1 4194624 36257 0 29 "
	        "0 312 44 30 10 20 0 29 0 109604942 0",
	        1096061.42);
	assert_int_equal(bf_cpu_usage(&usage, &a, &b, 100, 4, NULL), 0);
	assert_float_equal(usage, 0.2, 1e-9);
	/* x86 kernels report USER_HZ 100 too, but the rate is an input. */
	assert_int_equal(bf_cpu_usage(&usage, &a, &b, 1000, 4, NULL), 0);
	assert_float_equal(usage, 0.02, 1e-9);
}

static void test_cpuusage__usage_rejects_bad_pairs(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_cpu_snapshot a, b;
	double usage = -1;

	(void)state;
	snap_of(&a, LYFT_LINE, 1096059.42);
	b = a;
	assert_int_equal(bf_cpu_usage(&usage, &a, &b, 100, 4, &err), BF_EINVAL);
	assert_string_equal(err.msg,
	                    "second snapshot is not later than the first");
	b.uptime_s += 1;
	b.stat.utime -= 1;
	assert_int_equal(bf_cpu_usage(&usage, &a, &b, 100, 4, &err), BF_EINVAL);
	assert_string_equal(err.msg, "CPU time went backwards");
	b = a;
	b.uptime_s += 1;
	b.stat.pid++;
	assert_int_equal(bf_cpu_usage(&usage, &a, &b, 100, 4, &err), BF_EINVAL);
	b.stat.pid--;
	b.stat.starttime++; /* a recycled pid */
	assert_int_equal(bf_cpu_usage(&usage, &a, &b, 100, 4, &err), BF_EINVAL);
	b.stat.starttime--;
	assert_int_equal(bf_cpu_usage(&usage, &a, &b, 0, 4, &err), BF_EINVAL);
	assert_int_equal(bf_cpu_usage(&usage, &a, &b, 100, 0, &err), BF_EINVAL);
	assert_float_equal(usage, -1, 0);
	assert_int_equal(bf_cpu_usage(&usage, &a, &b, 100, 4, &err), 0);
	assert_float_equal(usage, 0, 0);
}

/* Snapshot k: 0.1 s apart, k * k ticks, process started at 100.0 s. */
static void series_snap(struct bf_cpu_snapshot *s, int k)
{
	memset(s, 0, sizeof(*s));
	s->stat.pid = 9;
	s->stat.starttime = 10000;
	s->stat.utime = (uint64_t)(k * k);
	s->uptime_s = 100.0 + 0.1 * k;
}

static void test_cpuusage__series_thins_evenly_and_exactly(void **state)
{
	static const int kept[] = { 0, 4, 8, 12, 13 };
	struct bf_cpu_series s;
	struct bf_cpu_snapshot snap;
	double t, usage;

	(void)state;
	bf_cpu_series_init(&s, 5);
	for (int k = 0; k <= 13; k++) {
		series_snap(&snap, k);
		bf_cpu_series_add(&s, &snap, k == 0 || k == 13);
		assert_true(s.n <= 5);
	}
	assert_int_equal(s.n, BF_ARRAY_SIZE(kept));
	for (size_t i = 0; i + 1 < s.n; i++) {
		int a = kept[i], b = kept[i + 1];

		assert_int_equal(
		        bf_cpu_series_point(&t, &usage, &s, i, 100, 1, NULL),
		        0);
		assert_float_equal(t, 0.1 * b, 1e-9);
		assert_float_equal(
		        usage, (b * b - a * a) / 100.0 / (0.1 * (b - a)), 1e-9);
	}
	bf_cpu_series_release(&s);
	bf_cpu_series_release(&s);
	bf_cpu_series_release(NULL);
}

static void test_cpuusage__snapshot_of_live_and_gone_processes(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_cpu_snapshot snap;
	double before = bf_cpu_uptime_s();

	(void)state;
	assert_int_equal(bf_cpu_snapshot_take(&snap, getpid(), &err), 0);
	assert_int_equal(snap.stat.pid, getpid());
	assert_int_equal(snap.stat.state, 'R');
	assert_true(snap.uptime_s >= before);
	/* Started after boot, and not in the future. */
	assert_true(bf_cpu_process_time_s(&snap, sysconf(_SC_CLK_TCK)) >= 0);
	assert_int_equal(bf_cpu_snapshot_take(&snap, 0x3fffffff, &err),
	                 BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "/proc/1073741823/stat"));
}

struct ticks {
	int ticks, exits;
	pid_t pid;
	struct bf_cpu_snapshot last;
};

static void on_tick(pid_t pid, void *payload)
{
	struct ticks *t = payload;

	t->ticks++;
	t->pid = pid;
}

static void on_exit_snap(pid_t pid, void *payload)
{
	struct ticks *t = payload;

	t->exits++;
	assert_int_equal(bf_cpu_snapshot_take(&t->last, pid, NULL), 0);
}

/* Enough work for a few hundred ms on any machine we run on. */
#define BUSY_SH "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"

static void test_cpuusage__spawn_ticks_and_exit_snapshot(void **state)
{
	const char *argv[] = { "sh", "-c", BUSY_SH, NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct ticks t = { 0, 0, 0, { { 0 }, 0 } };
	struct bf_spawn_result res;
	long hz = sysconf(_SC_CLK_TCK);
	double cpu;

	(void)state;
	opts.argv = argv;
	opts.tick_s = 0.01;
	opts.tick = on_tick;
	opts.exited = on_exit_snap;
	opts.payload = &t;
	assert_int_equal(bf_spawn_run(&res, &opts, NULL), 0);
	assert_true(bf_spawn_is_success(&res));
	assert_int_equal(t.exits, 1);
	/* The exit hook runs before reaping: the child is a zombie. */
	assert_int_equal(t.last.stat.state, 'Z');
	/* Ticks came while it ran, at most one per 10 ms of wall time. */
	assert_true(t.ticks >= 1);
	assert_true(t.ticks <= (int)(res.wall_s / 0.01) + 1);
	assert_int_equal(t.pid, (pid_t)t.last.stat.pid);
	/* /proc and rusage agree on its CPU time, within two ticks. */
	cpu = bf_cpu_time_s(&t.last, hz);
	assert_true(cpu > 0);
	assert_float_equal(cpu, res.user_s + res.sys_s, 2.0 / (double)hz);
	bf_spawn_result_release(&res);
}

static void test_cpuusage__spawn_after_outputs_close(void **state)
{
	const char *argv[] = { "sh", "-c", "exec >/dev/null 2>&1; sleep 30",
		               NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct ticks t = { 0, 0, 0, { { 0 }, 0 } };
	struct bf_spawn_result res;

	(void)state;
	/* Closed outputs end the poll loop; ticks and the deadline go on. */
	opts.argv = argv;
	opts.timeout_s = 0.3;
	opts.tick_s = 0.05;
	opts.tick = on_tick;
	opts.exited = on_exit_snap;
	opts.payload = &t;
	assert_int_equal(bf_spawn_run(&res, &opts, NULL), 0);
	assert_true(res.timed_out);
	assert_true(res.wall_s < 20);
	assert_true(t.ticks >= 1);
	assert_int_equal(t.exits, 1);
	bf_spawn_result_release(&res);
}

static void run_sh_opts(struct bf_spawn_result *res, const char *script,
                        struct bf_spawn_opts *opts)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	struct bf_err err = BF_ERR_INIT;

	opts->argv = argv;
	if (bf_spawn_run(res, opts, &err))
		fail_msg("%s", err.msg);
	opts->argv = NULL;
}

static void test_cpuusage__spawn_affinity_and_nice(void **state)
{
	static const char show[] =
	        "grep Cpus_allowed_list /proc/self/status; "
	        "set -- $(cat /proc/$$/stat); echo nice=${19}";
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_spawn_result res;
	int cpus[2] = { 0, 0 };
	const char *argv[] = { "true", NULL };

	(void)state;
	opts.cpus = cpus;
	opts.ncpus = 1;
	opts.set_nice = true;
	opts.nice = 7;
	run_sh_opts(&res, show, &opts);
	assert_string_equal(res.out.buf, "Cpus_allowed_list:\t0\nnice=7\n");
	bf_spawn_result_release(&res);
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
		cpus[0] = 1;
		run_sh_opts(&res, show, &opts);
		assert_string_equal(res.out.buf,
		                    "Cpus_allowed_list:\t1\nnice=7\n");
		bf_spawn_result_release(&res);
	}
	/* Out of range: refused before forking. */
	opts.argv = argv;
	cpus[0] = BF_SPAWN_CPUS_MAX;
	assert_int_equal(bf_spawn_run(&res, &opts, &err), BF_EINVAL);
	assert_string_equal(err.msg, "CPU 1024 out of range 0..1023");
	bf_spawn_result_release(&res);
	/* A CPU this machine lacks: the child reports, nothing runs. */
	cpus[0] = BF_SPAWN_CPUS_MAX - 1;
	assert_int_equal(bf_spawn_run(&res, &opts, &err), BF_ESYS);
	assert_non_null(strstr(err.msg, "cannot run 'true': cannot set its "
	                                "CPU affinity: "));
	bf_spawn_result_release(&res);
}

/* Run one request through the agent's handler; the final message. */
static json_t *run_request(const char *req_text)
{
	FILE *f = tmpfile();
	static char line[BF_PROTO_LINE_MAX];
	json_t *req = NULL, *msg = NULL;

	assert_non_null(f);
	assert_int_equal(bf_json_parse(&req, req_text, strlen(req_text),
	                               "request", NULL),
	                 0);
	assert_int_equal(bf_req_run(fileno(f), req, 7, NULL), 0);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		json_decref(msg);
		assert_int_equal(
		        bf_json_parse(&msg, line, strlen(line), "answer", NULL),
		        0);
	}
	fclose(f);
	json_decref(req);
	return msg;
}

static void test_cpuusage__run_request_reports_cpu(void **state)
{
	json_t *msg = run_request(
	        "{\"argv\": [\"sh\", \"-c\", \"" BUSY_SH "; echo x 1 ns\"],"
	        " \"format\": \"lines\", \"cpu_sample_ms\": 10,"
	        " \"cpus\": [0], \"nice\": 3}");
	json_t *cpu = json_object_get(msg, "cpu");
	json_t *series = json_object_get(msg, "cpu_series"), *p;
	double last_t = 0, usage;
	size_t i;

	(void)state;
	assert_string_equal(bf_proto_type(msg), "result");
	assert_non_null(cpu);
	usage = json_real_value(json_object_get(cpu, "usage"));
	/* One busy process on one pinned core of "cores". */
	assert_true(usage > 0);
	assert_true(usage <=
	            1.05 / json_integer_value(json_object_get(cpu, "cores")));
	assert_float_equal(
	        json_real_value(json_object_get(cpu, "usage_cores")),
	        usage * json_integer_value(json_object_get(cpu, "cores")),
	        1e-9);
	assert_int_equal(json_integer_value(json_object_get(cpu, "clk_tck")),
	                 sysconf(_SC_CLK_TCK));
	assert_true(json_real_value(json_object_get(cpu, "user_s")) > 0);
	assert_true(json_real_value(json_object_get(cpu, "wall_s")) > 0);
	assert_true(json_array_size(series) >= 2);
	json_array_foreach(series, i, p)
	{
		double t = json_real_value(json_object_get(p, "t"));

		assert_true(t > last_t);
		assert_true(json_real_value(json_object_get(p, "usage")) >= 0);
		last_t = t;
	}
	json_decref(msg);
	/* Without sampling: no series, still the usage. */
	msg = run_request("{\"argv\": [\"echo\", \"x 1 ns\"],"
	                  " \"format\": \"lines\"}");
	assert_null(json_object_get(msg, "cpu_series"));
	assert_true(json_is_real(
	        json_object_get(json_object_get(msg, "cpu"), "usage")));
	json_decref(msg);
}

static void test_cpuusage__run_request_rejects_bad_fields(void **state)
{
	static const char *const bad[] = {
		"\"cpu_sample_ms\": 0",
		"\"cpu_sample_ms\": 0.5",
		"\"cpu_sample_ms\": \"10\"",
		"\"cpus\": []",
		"\"cpus\": [-1]",
		"\"cpus\": [1024]",
		"\"cpus\": 0",
		"\"nice\": 20",
		"\"nice\": -21",
	};
	char req[256];

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(bad); i++) {
		json_t *msg;

		snprintf(req, sizeof(req),
		         "{\"argv\": [\"true\"], \"format\": \"lines\", %s}",
		         bad[i]);
		msg = run_request(req);
		if (strcmp(bf_proto_type(msg), "error") ||
		    strcmp(bf_json_str_or(msg, "code", ""), "bad_request"))
			fail_msg("accepted %s", bad[i]);
		json_decref(msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuusage__parses_the_article_line),
		cmocka_unit_test(test_cpuusage__comm_with_spaces_and_parens),
		cmocka_unit_test(test_cpuusage__garbage_is_einval),
		cmocka_unit_test(test_cpuusage__average_since_launch),
		cmocka_unit_test(test_cpuusage__relative_between_snapshots),
		cmocka_unit_test(test_cpuusage__usage_rejects_bad_pairs),
		cmocka_unit_test(
		        test_cpuusage__series_thins_evenly_and_exactly),
		cmocka_unit_test(
		        test_cpuusage__snapshot_of_live_and_gone_processes),
		cmocka_unit_test(test_cpuusage__spawn_ticks_and_exit_snapshot),
		cmocka_unit_test(test_cpuusage__spawn_after_outputs_close),
		cmocka_unit_test(test_cpuusage__spawn_affinity_and_nice),
		cmocka_unit_test(test_cpuusage__run_request_reports_cpu),
		cmocka_unit_test(test_cpuusage__run_request_rejects_bad_fields),
	};

	return cmocka_run_group_tests_name("cpuusage", tests, NULL, NULL);
}
