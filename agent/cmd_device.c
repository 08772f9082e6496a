#include "agent.h"

#include <stdio.h>

#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/parse.h"
#include "check/check.h"
#include "info.h"
#include "probe/devfs.h"
#include "probe/probe.h"

/* `benchfarm-agent info` and `benchfarm-agent check`. */

#define EXIT_UNFIT 1 /* check: the device is not fit to measure */

/* Open the device the options name; prints the error. */
static int open_device(struct bf_devfs **fs, unsigned *flags, char **key,
                       const char *cmd, const struct bf_agent_ctx *ctx)
{
	struct bf_err err = BF_ERR_INIT;

	if (!bf_probe_open(fs, flags, key, ctx->root, ctx->adb, &err))
		return 0;
	fprintf(stderr, "benchfarm-agent: %s: %s\n", cmd, err.msg);
	return ctx->adb ? BF_EXIT_INFRA : BF_EXIT_USAGE;
}

static int print_json(json_t *v)
{
	int ret = json_dumpf(v, stdout,
	                     JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	                             JSON_REAL_PRECISION(12));

	json_decref(v);
	putchar('\n');
	return ret || fflush(stdout) ? BF_EXIT_INFRA : BF_EXIT_OK;
}

int bf_agent_cmd_info(int argc, char **argv, struct bf_agent_ctx *ctx)
{
	static const char usage[] =
	        "benchfarm-agent info [--root DIR] [--adb SERIAL]\n\n"
	        "Prints the device's facts as JSON: CPU, cores, cpufreq, boost,\n"
	        "thermal zones, power supplies, memory, load, kernel, ASLR.";
	struct bf_devfs *fs = NULL;
	struct bf_probe p;
	unsigned flags;
	int ret = bf_agent_getopt(argc, argv, ctx, usage, "", NULL, NULL, NULL);

	if (ret >= 0)
		return ret;
	if (optind != argc) {
		fprintf(stderr, "usage: %s\n", usage);
		return BF_EXIT_USAGE;
	}
	if ((ret = open_device(&fs, &flags, NULL, "info", ctx)))
		return ret;
	bf_probe_all(&p, fs, flags, NULL);
	ret = print_json(bf_info_json(&p, ctx->adb ? NULL : ctx->root));
	bf_probe_release(&p);
	bf_devfs_free(fs);
	return ret;
}

struct check_cli {
	struct bf_check_opts opts;
	bool json;
};

static int bad_value(const char *opt, const char *arg, const char *what)
{
	fprintf(stderr, "benchfarm-agent: check: %s: '%s' is not %s\n", opt,
	        arg, what);
	return BF_EXIT_USAGE;
}

static int check_opt(int opt, const char *arg, void *payload)
{
	struct bf_check_opts *o = &((struct check_cli *)payload)->opts;
	struct bf_err err = BF_ERR_INIT;

	switch (opt) {
	case 'b':
		return bf_parse_int_range(&o->battery_min, arg, 0, 100, NULL)
		               ? bad_value("--battery-min", arg, "a percentage")
		               : -1;
	case 't':
		return bf_parse_double(&o->thermal_max, arg, false, NULL)
		               ? bad_value("--thermal-max", arg, "a number")
		               : -1;
	case 'l':
		return bf_parse_double(&o->load_max, arg, false, NULL)
		               ? bad_value("--load-max", arg, "a number")
		               : -1;
	case 'T':
		return bf_parse_double(&o->throttle_tolerance, arg, false, NULL)
		               ? bad_value("--throttle-tolerance", arg,
		                           "a fraction")
		               : -1;
	case 'w':
		return bf_parse_double(&o->wait_max_s, arg, false, NULL)
		               ? bad_value("--wait-max", arg, "seconds")
		               : -1;
	case 'L':
		return bf_parse_double(&o->load_wait_s, arg, false, NULL)
		               ? bad_value("--load-wait", arg, "seconds")
		               : -1;
	case 'R':
		return bf_parse_int_range(&o->throttle_retries, arg, 0,
		                          BF_CHECK_THROTTLE_RETRY_MAX, NULL)
		               ? bad_value("--throttle-retries", arg,
		                           "a count 0..10")
		               : -1;
	case 'Z':
		return bf_parse_double(&o->throttle_sleep_s, arg, false, NULL)
		               ? bad_value("--throttle-sleep", arg, "seconds")
		               : -1;
	case 's':
		if (!bf_check_suppress_parse(&o->suppress, arg, &err))
			return -1;
		fprintf(stderr, "benchfarm-agent: check: --suppress: %s\n",
		        err.msg);
		return BF_EXIT_USAGE;
	}
	if (opt == 'c')
		o->require_charging = true;
	else if (opt == 'k')
		o->require_locked_clocks = true;
	else if (opt == 'S')
		o->state_dir = arg;
	else if (opt == 'j')
		((struct check_cli *)payload)->json = true;
	return -1;
}

static void print_text(const struct bf_check_result *res)
{
	printf("%s: %s", res->device ? res->device : "device",
	       res->fit ? "fit" : "NOT FIT");
	if (res->waited_s > 0)
		printf(" (waited %.0f s)", res->waited_s);
	putchar('\n');
	for (int i = 0; i < BF_CHECK_NIDS; i++)
		printf("  %-4s  %-8s  %s\n",
		       bf_check_status_name(res->items[i].status),
		       bf_check_id_name((enum bf_check_id)i),
		       res->items[i].message);
	for (size_t i = 0; i < res->errors.argc; i++)
		printf("  error: %s\n", res->errors.argv[i]);
}

static const char check_usage[] =
        "benchfarm-agent check [--root DIR] [--adb SERIAL] [--battery-min N]\n"
        "       [--require-charging] [--thermal-max C] [--load-max L]\n"
        "       [--require-locked-clocks] [--throttle-tolerance F]\n"
        "       [--suppress ID,..] [--wait-max S] [--load-wait S]\n"
        "       [--throttle-retries N] [--throttle-sleep S]\n"
        "       [--state-dir DIR] [--json]\n\n"
        "Checks the device is fit to measure: battery, cores, clocks, thermal,\n"
        "throttle, load, boost. Exit 0 fit, 1 not fit, 2 usage.\n"
        "Load is the tasks runnable right now besides the agent; more than\n"
        "--load-max per online core fails, after waiting up to --load-wait\n"
        "seconds (polling every second) for them to finish.\n"
        "Defaults: --battery-min 25 --thermal-max 70 --load-max 1.0\n"
        "--load-wait 30 --throttle-tolerance 0.10; a throttle is measured again\n"
        "--throttle-retries 2 times, --throttle-sleep 90 seconds apart,\n"
        "before it fails. State (the throttle baseline) in\n"
        "$XDG_STATE_HOME/benchfarm-agent or ~/.local/state/benchfarm-agent.\n"
        "A fixture tree forces the throttle workload time with the file\n"
        "/benchfarm/throttle_ns; $BENCHFARM_THROTTLE_NS forces it anywhere.";

int bf_agent_cmd_check(int argc, char **argv, struct bf_agent_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "battery-min", required_argument, NULL, 'b' },
		{ "require-charging", no_argument, NULL, 'c' },
		{ "thermal-max", required_argument, NULL, 't' },
		{ "load-max", required_argument, NULL, 'l' },
		{ "require-locked-clocks", no_argument, NULL, 'k' },
		{ "throttle-tolerance", required_argument, NULL, 'T' },
		{ "suppress", required_argument, NULL, 's' },
		{ "wait-max", required_argument, NULL, 'w' },
		{ "load-wait", required_argument, NULL, 'L' },
		{ "throttle-retries", required_argument, NULL, 'R' },
		{ "throttle-sleep", required_argument, NULL, 'Z' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_cli cli = { BF_CHECK_OPTS_INIT, false };
	struct bf_check_env env = { 0 };
	struct bf_err err = BF_ERR_INIT;
	struct bf_check_result res;
	char *key = NULL;
	int ret = bf_agent_getopt(argc, argv, ctx, check_usage,
	                          "b:ct:l:kT:s:w:L:R:Z:S:j", longopts,
	                          check_opt, &cli);

	bf_check_result_init(&res);
	if (ret >= 0)
		return ret;
	if (optind != argc || bf_check_opts_validate(&cli.opts, &err)) {
		fprintf(stderr, "benchfarm-agent: check: %s\nusage: %s\n",
		        err.msg[0] ? err.msg : "unexpected argument",
		        check_usage);
		return BF_EXIT_USAGE;
	}
	if ((ret = open_device(&env.fs, &env.probe_flags, &key, "check", ctx)))
		return ret;
	env.device_key = key;
	if (bf_check_run(&res, &cli.opts, &env, &err)) {
		fprintf(stderr, "benchfarm-agent: check: %s\n", err.msg);
		ret = BF_EXIT_USAGE;
	} else if (cli.json) {
		ret = print_json(bf_check_result_json(&res));
	} else {
		print_text(&res);
		ret = fflush(stdout) ? BF_EXIT_INFRA : BF_EXIT_OK;
	}
	if (!ret && !res.fit)
		ret = EXIT_UNFIT;
	bf_check_result_release(&res);
	bf_devfs_free(env.fs);
	free(key);
	return ret;
}
