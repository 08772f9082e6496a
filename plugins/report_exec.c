#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/plugin.h"

/*
 * exec:NAME: the result document goes on the stdin of the program
 * benchfarm-report-NAME found on PATH, and what it prints is the report.
 * Users' own reporters, in any language. The program is run by argv,
 * never through a shell, and NAME may only hold letters, digits, '.',
 * '_' and '-', so it cannot name a path.
 */

#define EXEC_PREFIX   "benchfarm-report-"
#define EXEC_NAME_MAX 64

static int check_name(const char *name, struct bf_err *err)
{
	size_t n = name ? strlen(name) : 0;

	if (!n)
		return bf_err_set(err, BF_EINVAL,
		                  "exec needs a name: 'exec:NAME' runs "
		                  "%sNAME",
		                  EXEC_PREFIX);
	if (n > EXEC_NAME_MAX)
		return bf_err_set(err, BF_EINVAL,
		                  "exec name is longer than %d characters",
		                  EXEC_NAME_MAX);
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-') ||
		    (i == 0 && c == '.'))
			return bf_err_set(err, BF_EINVAL,
			                  "exec name '%.64s' may only hold "
			                  "letters, digits, '.', '_' and '-'",
			                  name);
	}
	return 0;
}

static int exec_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const struct bf_report_opts *o = bf_report_opts(r);
	const struct bf_host *host = bf_report_host(r);
	char prog[sizeof(EXEC_PREFIX) + EXEC_NAME_MAX];
	char file[EXEC_NAME_MAX + 16];
	const char *argv[2];
	struct bf_buf *out;
	char *input;
	int status = 0, ret;

	(void)payload;
	if ((ret = check_name(o->exec_name, err)))
		return ret;
	snprintf(prog, sizeof(prog), EXEC_PREFIX "%s", o->exec_name);
	snprintf(file, sizeof(file), "exec-%s.out", o->exec_name);
	argv[0] = prog;
	argv[1] = NULL;
	input = json_dumps(bf_report_result(r), JSON_COMPACT);
	if (!input)
		return bf_err_set(err, BF_ERROR, "cannot encode the result");
	out = bf_report_add_output(r, file);
	ret = host->spawn(argv, input, strlen(input), out, &status, err);
	free(input);
	if (ret)
		return ret;
	if (status == 127)
		return bf_err_set(err, BF_ENOTFOUND,
		                  "'%s' not found on PATH (exec:%s runs it)",
		                  prog, o->exec_name);
	if (status)
		return bf_err_set(err, BF_EINVAL,
		                  "'%s' failed (exit status %d)", prog, status);
	return 0;
}

const struct bf_plugin bf_plugin_exec = {
	.abi = BF_PLUGIN_ABI,
	.name = "exec",
	.summary = "exec:NAME hands the result JSON to benchfarm-report-NAME",
	.kinds = "compare,detect,bisect",
	.run = exec_run,
};
