#include "cmd.h"

#include <stdio.h>

#include "benchfarm/exitcode.h"

/*
 * Commands of the command-line contract that are not built yet.
 * Each answers -h with its usage and otherwise says which issue brings
 * it, exiting 2, so that pipelines written against the contract fail
 * loudly rather than silently.
 */
struct stub {
	const char *name;
	const char *usage;
	int issue;
};

static const struct stub stubs[] = {
	{ "trace", "benchfarm trace fold|svg|chrome|top|diff ...", 9 },
};

static const struct stub *find_stub(const char *name)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(stubs); i++)
		if (!strcmp(stubs[i].name, name))
			return &stubs[i];
	return NULL;
}

int cmd_stub(int argc, char **argv, struct bf_ctx *ctx)
{
	const struct stub *s = find_stub(argv[0]);

	(void)ctx;
	if (!s)
		BF_BUG("command '%s' has no stub entry", argv[0]);
	if (bf_cmd_wants_help(argc, argv)) {
		printf("usage: %s\n\nNot implemented yet: planned in issue "
		       "#%d.\n",
		       s->usage, s->issue);
		return BF_EXIT_OK;
	}
	return bf_cmd_fail(BF_EXIT_USAGE, s->name,
	                   "not implemented yet (planned in issue #%d)",
	                   s->issue);
}
