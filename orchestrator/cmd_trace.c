#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/exitcode.h"
#include "trace.h"

/* benchfarm trace fold|top|chrome|svg|diff: reading libbenchfarm_trace. */

static const char trace_usage[] =
        "usage: benchfarm trace fold [--calls] FILE\n"
        "       benchfarm trace top [-n N] [--json] FILE\n"
        "       benchfarm trace chrome FILE [-o OUT.json]\n"
        "       benchfarm trace svg FILE [-o OUT.svg]\n"
        "       benchfarm trace diff BASE PATCH [-o OUT.svg]\n"
        "\n"
        "Read a trace written by libbenchfarm_trace (a program built with\n"
        "-finstrument-functions, linked with -lbenchfarm_trace and run "
        "with\n"
        "BENCHFARM_TRACE=FILE). Function names come from the ELF symbol\n"
        "tables of the executable and its libraries, as they were mapped;\n"
        "C++ names are demangled when c++filt is installed. A file whose\n"
        "build-id is not the traced one (rebuilt, or another machine's) "
        "is\n"
        "not used for names: its functions show as FILE+0xOFFSET.\n"
        "\n"
        "    fold    folded stacks, 'thread-1;main;f;g SELF_NS' per line, "
        "for\n"
        "            flamegraph.pl and speedscope (--calls: call counts)\n"
        "    top     functions by self time: calls, inclusive and self "
        "time\n"
        "    chrome  Chrome Trace Event JSON for Perfetto and "
        "chrome://tracing\n"
        "    svg     a flame graph; hover a frame for its time\n"
        "    diff    PATCH's flame graph coloured by each frame's change "
        "against\n"
        "            BASE: red slower, blue faster\n"
        "\n"
        "A trace that lost events (a full buffer, a file cut short) is "
        "read\n"
        "as far as it goes and every output says it is partial.\n"
        "Exit: 0, 2 usage error or a file that is not a trace.\n";

/* What naming the functions ran into, on stderr. */
static void warn_symbols(const char *path, const struct bf_trace *t,
                         const struct bf_symbols *syms)
{
	size_t unknown = bf_symbols_unknown(syms);
	size_t outside = bf_symbols_outside(syms);
	char why[256];
	const char *w;

	for (size_t i = 0; (w = bf_symbols_warning(syms, i)); i++)
		fprintf(stderr,
		        "benchfarm: trace: warning: %s: its functions are "
		        "shown as file+offset, not with names that would be "
		        "wrong\n",
		        w);
	if (unknown > outside)
		fprintf(stderr,
		        "benchfarm: trace: %zu function address%s had no "
		        "symbol (a stripped binary, or a file that is not the "
		        "traced one)\n",
		        unknown - outside, unknown - outside == 1 ? "" : "es");
	if (outside)
		fprintf(stderr,
		        "benchfarm: trace: %zu function address%s outside "
		        "every mapped file (code generated at run time, or a "
		        "library unloaded before the trace was written)\n",
		        outside, outside == 1 ? " lies" : "es lie");
	if (!t->partial && bf_symbols_is_partial(syms, why, sizeof(why)))
		fprintf(stderr, "benchfarm: trace: %s is partial: %s\n", path,
		        why);
}

static int load(struct bf_trace *t, struct bf_ttree *tree, const char *path)
{
	struct bf_err err = BF_ERR_INIT;

	if (bf_trace_load(t, path, &err)) {
		bf_trace_release(t);
		return bf_cmd_fail(BF_EXIT_USAGE, "trace", "%s", err.msg);
	}
	if (tree && bf_ttree_build(tree, t, &err)) {
		bf_trace_release(t);
		return bf_cmd_fail(BF_EXIT_USAGE, "trace", "%s", err.msg);
	}
	if (t->partial)
		fprintf(stderr, "benchfarm: trace: %s is partial: %s\n", path,
		        t->why);
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].truncated)
			fprintf(stderr,
			        "benchfarm: trace: %s: thread-%u was truncated "
			        "%.3f ms into the trace: %llu events after "
			        "were dropped\n",
			        path, t->threads[i].id,
			        bf_trace_offset_ns(t,
			                           t->threads[i].truncated_at) /
			                1e6,
			        (unsigned long long)t->threads[i].dropped);
	if (tree)
		warn_symbols(path, t, tree->syms);
	return 0;
}

static FILE *open_out(const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		bf_cmd_fail(BF_EXIT_USAGE, "trace", "cannot write %s: %s", path,
		            strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	if (f == stdout)
		return fflush(f) ? BF_EXIT_INFRA : BF_EXIT_OK;
	if (fclose(f))
		return bf_cmd_fail(BF_EXIT_INFRA, "trace", "cannot write %s",
		                   path);
	return BF_EXIT_OK;
}

int cmd_trace(int argc, char **argv, struct bf_ctx *ctx)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "calls", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sub, *out_path = NULL;
	bool calls = false, json = false;
	struct bf_trace t, base;
	struct bf_ttree tree, btree;
	size_t top_n = 20;
	FILE *out;
	int c, ret;
	char *end;

	(void)ctx;
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(trace_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? BF_EXIT_USAGE : BF_EXIT_OK;
	}
	sub = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "o:n:h", opts, NULL)) != -1) {
		if (c == 'o')
			out_path = optarg;
		else if (c == 'C')
			calls = true;
		else if (c == 'J')
			json = true;
		else if (c == 'n') {
			top_n = strtoul(optarg, &end, 10);
			if (*end || !*optarg)
				return bf_cmd_fail(BF_EXIT_USAGE, "trace",
				                   "-n: '%s' is not a count",
				                   optarg);
		} else if (c == 'h')
			return fputs(trace_usage, stdout), BF_EXIT_OK;
		else
			return fputs(trace_usage, stderr), BF_EXIT_USAGE;
	}
	if (strcmp(sub, "fold") && strcmp(sub, "top") &&
	    strcmp(sub, "chrome") && strcmp(sub, "svg") && strcmp(sub, "diff"))
		return bf_cmd_fail(
		        BF_EXIT_USAGE, "trace",
		        "unknown subcommand '%s' (fold, top, chrome, "
		        "svg or diff)",
		        sub);
	if (argc - optind != (strcmp(sub, "diff") ? 1 : 2))
		return bf_cmd_fail(BF_EXIT_USAGE, "trace",
		                   "%s takes %s (see 'benchfarm trace --help')",
		                   sub,
		                   strcmp(sub, "diff") ? "one trace file"
		                                       : "BASE and PATCH");
	if (!strcmp(sub, "chrome")) {
		struct bf_symbols *syms;
		struct bf_err err = BF_ERR_INIT;

		if ((ret = load(&t, NULL, argv[optind])))
			return ret;
		if (!(out = open_out(out_path))) {
			bf_trace_release(&t);
			return BF_EXIT_USAGE;
		}
		syms = bf_symbols_new(&t);
		bf_trace_chrome(out, &t, syms, &err);
		warn_symbols(argv[optind], &t, syms);
		bf_symbols_free(syms);
		bf_trace_release(&t);
		return close_out(out, out_path);
	}
	if ((ret = load(&t, &tree, argv[optind + (!strcmp(sub, "diff"))])))
		return ret;
	if (!strcmp(sub, "diff") && (ret = load(&base, &btree, argv[optind]))) {
		bf_ttree_release(&tree);
		bf_trace_release(&t);
		return ret;
	}
	out = open_out(out_path);
	if (!out)
		ret = BF_EXIT_USAGE;
	else if (!strcmp(sub, "fold"))
		bf_trace_fold(out, &tree, calls);
	else if (!strcmp(sub, "top"))
		bf_trace_top(out, &tree, top_n, json);
	else if (!strcmp(sub, "svg"))
		bf_trace_svg(out, &tree, NULL, argv[optind]);
	else
		bf_trace_svg(out, &tree, &btree, argv[optind + 1]);
	if (out)
		ret = close_out(out, out_path);
	if (!strcmp(sub, "diff")) {
		bf_ttree_release(&btree);
		bf_trace_release(&base);
	}
	bf_ttree_release(&tree);
	bf_trace_release(&t);
	return ret;
}
