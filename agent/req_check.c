#include "serve.h"

#include "agent.h"
#include "benchfarm/err.h"
#include "benchfarm/proto.h"
#include "check/check.h"
#include "probe/devfs.h"
#include "probe/probe.h"

/*
 * The protocol `check` request: thresholds as fields (battery_min,
 * require_charging, require_all_cores, require_locked_clocks,
 * thermal_max, throttle_tolerance, load_max, suppress, wait_max,
 * load_wait; the orchestrator's `checks:` keys), answered by a result
 * carrying the check result object (check.h): fit, checks, suppressed,
 * waited_s.
 */
int bf_req_check(int out_fd, const json_t *req, int64_t id,
                 struct bf_agent_ctx *ctx)
{
	struct bf_check_opts opts = BF_CHECK_OPTS_INIT;
	struct bf_check_env env = { 0 };
	struct bf_err err = BF_ERR_INIT;
	struct bf_check_result res;
	char *key = NULL;
	json_t *msg, *body;
	int ret;

	bf_check_result_init(&res);
	if (bf_check_opts_from_json(&opts, req, &err))
		return bf_req_error(out_fd, id, "bad_request", "%s", err.msg);
	if (bf_probe_open(&env.fs, &env.probe_flags, &key, ctx->root, ctx->adb,
	                  &err))
		return bf_req_error(out_fd, id, "device", "check: %s", err.msg);
	env.device_key = key;
	if (bf_check_run(&res, &opts, &env, &err)) {
		ret = bf_req_error(out_fd, id, "bad_request", "check: %s",
		                   err.msg);
		goto out;
	}
	body = bf_check_result_json(&res);
	msg = json_pack("{s:s, s:I}", "type", "result", "id", (json_int_t)id);
	json_object_update(msg, body);
	ret = bf_proto_write(out_fd, msg, NULL);
	json_decref(body);
	json_decref(msg);
out:
	bf_check_result_release(&res);
	bf_devfs_free(env.fs);
	free(key);
	return ret;
}
