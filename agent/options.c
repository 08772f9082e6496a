#include "agent.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/exitcode.h"

/* The options every agent command accepts, before the command's own. */
static const struct option common_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "root", required_argument, NULL, 'R' },
	{ "adb", required_argument, NULL, 'A' },
};

/* common_longopts then own, ended by a zeroed entry; caller frees. */
static struct option *all_longopts(const struct option *own)
{
	size_t ncommon = BF_ARRAY_SIZE(common_longopts), nown = 0;
	struct option *all;

	while (own && own[nown].name)
		nown++;
	all = bf_xcalloc(ncommon + nown + 1, sizeof(*all));
	memcpy(all, common_longopts, sizeof(common_longopts));
	if (nown)
		memcpy(all + ncommon, own, nown * sizeof(*own));
	return all;
}

static int one_opt(int c, struct bf_agent_ctx *ctx, const char *usage,
                   bf_agent_opt_fn *cb, void *payload)
{
	if (c == 'h') {
		printf("usage: %s\n", usage);
		return BF_EXIT_OK;
	}
	if (c == 'R') {
		ctx->root = optarg;
		return -1;
	}
	if (c == 'A') {
		ctx->adb = optarg;
		return -1;
	}
	if (c == '?') {
		fprintf(stderr, "usage: %s\n", usage);
		return BF_EXIT_USAGE;
	}
	return cb ? cb(c, optarg, payload) : BF_EXIT_USAGE;
}

int bf_agent_getopt(int argc, char **argv, struct bf_agent_ctx *ctx,
                    const char *usage, const char *extra,
                    const struct option *longopts, bf_agent_opt_fn *cb,
                    void *payload)
{
	struct option *all = all_longopts(longopts);
	char shortopts[64];
	int c, ret = -1;

	snprintf(shortopts, sizeof(shortopts), "+hR:A:%s", extra);
	optind = 1;
	while (ret < 0 &&
	       (c = getopt_long(argc, argv, shortopts, all, NULL)) != -1)
		ret = one_opt(c, ctx, usage, cb, payload);
	free(all);
	return ret;
}
