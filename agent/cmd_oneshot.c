#include "agent.h"

#include <stdio.h>
#include <string.h>

#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/parse.h"
#include "benchfarm/proto.h"
#include "benchfarm/sample.h"
#include "parse/parse.h"
#include "serve.h"

#define PARSE_FILE_MAX (64u * 1024 * 1024)

int bf_agent_cmd_serve(int argc, char **argv, struct bf_agent_ctx *ctx)
{
	int ret = bf_agent_getopt(
	        argc, argv, ctx,
	        "benchfarm-agent serve [--root DIR] [--adb SERIAL]\n\n"
	        "Speaks the JSON-lines agent protocol on stdin/stdout. Each "
	        "run\nis appended to the run journal: $BENCHFARM_AGENT_JOURNAL "
	        "(empty:\nnone), else "
	        "$XDG_STATE_HOME/benchfarm/agent-runs.jsonl, else\n"
	        "~/.local/state/benchfarm/agent-runs.jsonl.",
	        "", NULL, NULL, NULL);

	if (ret >= 0)
		return ret;
	return bf_agent_serve(0, 1, ctx) ? BF_EXIT_INFRA : BF_EXIT_OK;
}

struct run_opts {
	const char *format;
	const char *cwd;
	const char *output; /* NULL: standard output */
	double timeout;
	const char *measure; /* NULL: time */
};

static int run_opt(int opt, const char *arg, void *payload)
{
	struct run_opts *o = payload;
	struct bf_err err = BF_ERR_INIT;

	if (opt == 'f')
		o->format = arg;
	else if (opt == 'm')
		o->measure = arg;
	else if (opt == 'C')
		o->cwd = arg;
	else if (opt == 'o')
		o->output = arg;
	if (opt != 't')
		return -1;
	if (bf_parse_double(&o->timeout, arg, false, &err)) {
		fprintf(stderr, "benchfarm-agent: run: --timeout: %s\n",
		        err.msg);
		return BF_EXIT_USAGE;
	}
	/* a benchmark's timeout in the config has the same bounds */
	if (!(o->timeout > 0) || o->timeout > BF_RUN_TIMEOUT_MAX) {
		fprintf(stderr,
		        "benchfarm-agent: run: --timeout: must be more than 0 "
		        "and at most %d seconds, not %s\n",
		        BF_RUN_TIMEOUT_MAX, arg);
		return BF_EXIT_USAGE;
	}
	return -1;
}

int bf_agent_cmd_run(int argc, char **argv, struct bf_agent_ctx *ctx)
{
	static const char usage[] =
	        "benchfarm-agent run --format F [--timeout S] [--cwd DIR]\n"
	        "                    [--output stdout|stderr|both]\n"
	        "                    [--measure time|instructions] -- CMD "
	        "ARGS...\n\n"
	        "Runs CMD once (no shell) and prints the samples parsed from "
	        "its\nstandard output (--output: its standard error, or both) "
	        "as protocol\nlines, then one result, or one error and exit "
	        "status 3 (2 for a\nbad request). The run is appended to the "
	        "run journal, as by serve. --measure instructions runs CMD "
	        "under\nvalgrind's cachegrind and reports its counts instead "
	        "of parsing\nits output.";
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "cwd", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "measure", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts o = { NULL, NULL, NULL, 300, NULL };
	json_t *req, *args;
	int ret = bf_agent_getopt(argc, argv, ctx, usage,
	                          "f:C:t:o:m:", longopts, run_opt, &o);

	if (ret >= 0)
		return ret;
	if (!o.format || optind >= argc) {
		fprintf(stderr, "usage: %s\n", usage);
		return BF_EXIT_USAGE;
	}
	args = json_array();
	for (int i = optind; i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	req = json_pack("{s:s, s:i, s:o, s:s, s:f}", "type", "run", "id", 1,
	                "argv", args, "format", o.format, "timeout", o.timeout);
	if (o.cwd)
		json_object_set_new(req, "cwd", json_string(o.cwd));
	if (o.output)
		json_object_set_new(req, "output", json_string(o.output));
	if (o.measure)
		json_object_set_new(req, "measure", json_string(o.measure));
	bf_req_clear_error();
	ret = bf_req_run(1, req, 1, ctx);
	json_decref(req);
	if (ret)
		return BF_EXIT_INFRA;
	/* the error line says what; the status says whether */
	if (!bf_req_last_error())
		return BF_EXIT_OK;
	return strcmp(bf_req_last_error(), "bad_request") ? BF_EXIT_INFRA
	                                                  : BF_EXIT_USAGE;
}

static int parse_opt(int opt, const char *arg, void *payload)
{
	if (opt == 'f')
		*(const char **)payload = arg;
	return -1;
}

static json_t *samples_json(const struct bf_samples *s)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(
		        arr,
		        json_pack("{s:s, s:s, s:s, s:f, s:i}", "benchmark",
		                  s->v[i].benchmark, "metric", s->v[i].metric,
		                  "unit", s->v[i].unit, "value", s->v[i].value,
		                  "iteration", s->v[i].iteration));
	return arr;
}

int bf_agent_cmd_parse(int argc, char **argv, struct bf_agent_ctx *ctx)
{
	static const char usage[] =
	        "benchfarm-agent parse --format F FILE\n\n"
	        "Prints the samples FILE holds as JSON. Formats: gbench, jetpack, "
	        "hyperfine, native, lines.";
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct bf_samples samples = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;
	const char *format = NULL;
	struct bf_buf b;
	json_t *out;
	int ret = bf_agent_getopt(argc, argv, ctx, usage, "f:", longopts,
	                          parse_opt, &format);

	if (ret >= 0)
		return ret;
	if (!format || optind + 1 != argc) {
		fprintf(stderr, "usage: %s\n", usage);
		return BF_EXIT_USAGE;
	}
	bf_buf_init(&b, PARSE_FILE_MAX);
	if (bf_buf_read_file(&b, argv[optind], &err) ||
	    bf_parse_output(&samples, format, b.buf, b.len, argv[optind],
	                    &err)) {
		fprintf(stderr, "benchfarm-agent: parse: %s\n", err.msg);
		ret = BF_EXIT_USAGE;
		goto out;
	}
	out = json_pack("{s:s, s:s, s:o}", "file", argv[optind], "format",
	                format, "samples", samples_json(&samples));
	json_dumpf(out, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(out);
	ret = BF_EXIT_OK;
out:
	bf_samples_release(&samples);
	bf_buf_release(&b);
	return ret;
}
