#include "serve.h"

#include "agent.h"
#include "benchfarm/err.h"
#include "benchfarm/proto.h"
#include "info.h"
#include "probe/devfs.h"
#include "probe/probe.h"

/* The device facts of `benchfarm-agent info`, under "info". */
int bf_req_info(int out_fd, const json_t *req, int64_t id,
                struct bf_agent_ctx *ctx)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_devfs *fs = NULL;
	struct bf_probe p;
	unsigned flags;
	json_t *msg;
	int ret;

	(void)req;
	if (bf_probe_open(&fs, &flags, NULL, ctx->root, ctx->adb, &err))
		return bf_req_error(out_fd, id, "device", "info: %s", err.msg);
	bf_probe_all(&p, fs, flags, NULL);
	msg = json_pack("{s:s, s:I, s:o}", "type", "result", "id",
	                (json_int_t)id, "info",
	                bf_info_json(&p, ctx->adb ? NULL : ctx->root));
	ret = bf_proto_write(out_fd, msg, NULL);
	json_decref(msg);
	bf_probe_release(&p);
	bf_devfs_free(fs);
	return ret;
}
