#include "serve.h"

#include <stdio.h>

#include "agent.h"
#include "android_run.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/proto.h"
#include "benchfarm/sample.h"
#include "counters.h"
#include "probe/devfs.h"

/*
 * The "instrument" request: a Jetpack Microbenchmark run on an Android
 * device the agent reaches through adb (--adb SERIAL):
 *   {"type":"instrument", "id":N, "runner":"PKG/RUNNER",
 *    "args":{"key":"value",...}, "timeout":SECONDS}
 * answers with one "sample" event per value of the benchmarkData.json
 * the run wrote, then {"type":"result","samples":N}. Errors: bad_request,
 * no_device (not an adb agent), disconnected, timeout, benchmark_failed,
 * not_found (the run wrote no JSON), parse_error.
 */

static const char *error_code(int ret)
{
	switch (ret) {
	case BF_EINVAL:
		return "parse_error";
	case BF_EPROTO:
		return "disconnected";
	case BF_ETIMEOUT:
		return "timeout";
	case BF_ENOTFOUND:
		return "not_found";
	default:
		return "benchmark_failed";
	}
}

static int args_of(struct bf_argv *out, const json_t *args, struct bf_err *err)
{
	const char *k;
	json_t *v;

	if (!args)
		return 0;
	if (!json_is_object(args))
		return bf_err_set(err, BF_EINVAL, "\"args\" must be an object");
	json_object_foreach((json_t *)args, k, v)
	{
		if (!json_is_string(v))
			return bf_err_set(err, BF_EINVAL,
			                  "\"args\".%s is not a string", k);
		bf_argv_push(out, k);
		bf_argv_push(out, json_string_value(v));
	}
	return 0;
}

/*
 * The counters of a run (counters.h) are opened on a process the agent
 * starts; an instrumentation runs in the app's process, started on the
 * device by am: each is unavailable, with that reason.
 */
static int send_result(int out_fd, int64_t id, size_t n)
{
	json_t *msg = json_pack("{s:s, s:I, s:I}", "type", "result", "id",
	                        (json_int_t)id, "samples", (json_int_t)n);
	struct bf_counters cs;
	int ret;

	bf_counters_init(&cs);
	bf_counters_all_unavailable(
	        &cs, "an Android instrumentation runs in the app's process, "
	             "which the device's am starts, not the agent");
	json_object_set_new(msg, "counters", bf_counters_json(&cs));
	ret = bf_proto_write(out_fd, msg, NULL);

	json_decref(msg);
	return ret;
}

int bf_req_instrument(int out_fd, const json_t *req, int64_t id,
                      struct bf_agent_ctx *ctx)
{
	const char *runner = bf_json_str_or(req, "runner", NULL);
	const json_t *t = json_object_get(req, "timeout");
	struct bf_samples samples = BF_SAMPLES_INIT;
	struct bf_argv args = BF_ARGV_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_devfs *fs = NULL;
	int ret;

	if (!ctx->adb) {
		ret = bf_req_error(out_fd, id, "no_device",
		                   "instrument needs an Android device: start "
		                   "the agent with --adb SERIAL");
		goto out;
	}
	if (!runner || (t && !json_is_number(t)) ||
	    args_of(&args, json_object_get(req, "args"), &err)) {
		ret = bf_req_error(out_fd, id, "bad_request", "instrument: %s",
		                   err.msg[0] ? err.msg
		                              : "needs \"runner\" (and a "
		                                "numeric \"timeout\")");
		goto out;
	}
	if ((ret = bf_devfs_open_adb(&fs, ctx->adb, &err)) ||
	    (ret = bf_android_run_jetpack(
	             &samples, fs, runner, (const char *const *)args.argv,
	             t ? json_number_value(t) : 0, &err))) {
		ret = bf_req_error(out_fd, id, error_code(ret), "%s", err.msg);
		goto out;
	}
	ret = bf_req_send_samples(out_fd, id, &samples);
	if (!ret)
		ret = send_result(out_fd, id, samples.n);
out:
	bf_devfs_free(fs);
	bf_argv_release(&args);
	bf_samples_release(&samples);
	return ret;
}
