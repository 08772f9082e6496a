#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/text.h"
#include "trace/trace.h"

/* benchfarm trace fold|top|chrome|svg|diff: reading libbenchfarm_trace. */

static const char trace_usage[] =
        "usage: benchfarm trace fold [--calls] FILE [--only FUNC]...\n"
        "       benchfarm trace top [-n N] [--json] FILE [--only FUNC]...\n"
        "       benchfarm trace chrome FILE [-o OUT.json] [--only FUNC]...\n"
        "       benchfarm trace svg FILE [-o OUT.svg] [--only FUNC]...\n"
        "       benchfarm trace diff BASE PATCH [-o OUT.svg] [--only "
        "FUNC]...\n"
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
        "    --only FUNC  only the stacks through FUNC (repeatable; "
        "'ns::f'\n"
        "            also names the C++ 'ns::f(int)'): what FUNC calls, "
        "and the\n"
        "            frames above it as the way there; applied when "
        "reading, so\n"
        "            it sees libraries loaded at any time\n"
        "\n"
        "A trace that lost events (a full buffer, a file cut short) is "
        "read\n"
        "as far as it goes and every output says it is partial, and where\n"
        "a thread's buffer filled.\n"
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
		bf_text_printf(
		        stderr,
		        "benchfarm: trace: warning: %s: its functions are "
		        "shown as file+offset, not with names that would be "
		        "wrong\n",
		        w);
	if (unknown > outside)
		bf_text_printf(
		        stderr,
		        "benchfarm: trace: %zu function address%s had no "
		        "symbol (a stripped binary, or a file that is not the "
		        "traced one)\n",
		        unknown - outside, unknown - outside == 1 ? "" : "es");
	if (outside)
		bf_text_printf(
		        stderr,
		        "benchfarm: trace: %zu function address%s outside "
		        "every mapped file (code generated at run time, or a "
		        "library unloaded before the trace was written)\n",
		        outside, outside == 1 ? " lies" : "es lie");
	if (!t->partial && bf_symbols_is_partial(syms, why, sizeof(why)))
		bf_text_printf(stderr, "benchfarm: trace: %s is partial: %s\n",
		               path, why);
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
		bf_text_printf(stderr, "benchfarm: trace: %s is partial: %s\n",
		               path, t->why);
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].truncated)
			bf_text_printf(
			        stderr,
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
	/* what only the call tree found (deep stacks, calls left open) */
	if (tree && tree->partial && !t->partial &&
	    !bf_symbols_is_partial(tree->syms, NULL, 0))
		bf_text_printf(stderr, "benchfarm: trace: %s is partial: %s\n",
		               path, tree->why);
	return 0;
}

/*
 * Output goes to stdout, or is collected in memory and written to the
 * -o file at the end with bf_fs_write_atomic (0600 like every result;
 * a device or FIFO is written in place, nothing planted is followed).
 */
struct out {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *open_out(struct out *out, const char *path)
{
	out->buf = NULL;
	out->len = 0;
	if (!path || !strcmp(path, "-"))
		return out->f = stdout;
	out->f = open_memstream(&out->buf, &out->len);
	if (!out->f)
		bf_cmd_fail(BF_EXIT_INFRA, "trace", "cannot write %s: %s", path,
		            strerror(errno));
	return out->f;
}

static int close_out(struct out *out, const char *path)
{
	struct bf_err err = BF_ERR_INIT;
	int ret = BF_EXIT_OK;

	if (out->f == stdout)
		return bf_cmd_flush_stdout() ? BF_EXIT_INFRA : BF_EXIT_OK;
	if (fclose(out->f))
		ret = bf_cmd_fail(BF_EXIT_INFRA, "trace", "cannot write %s",
		                  path);
	else if (bf_fs_write_atomic(path, out->buf, out->len, 0600, &err))
		ret = bf_cmd_fail(BF_EXIT_INFRA, "trace", "%s", err.msg);
	free(out->buf);
	return ret;
}

struct opts {
	const char *out_path;
	bool calls, json;
	size_t top_n;
	const char **only; /* --only names, borrowed from argv */
	size_t nonly;
};

/* The options after the subcommand; 0, or the exit code to return. */
static int parse_opts(struct opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "calls", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "only", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	optind = 2;
	while ((c = getopt_long(argc, argv, "o:n:h", longopts, NULL)) != -1) {
		if (c == 'o')
			o->out_path = optarg;
		else if (c == 'C')
			o->calls = true;
		else if (c == 'J')
			o->json = true;
		else if (c == 'O')
			o->only[o->nonly++] = optarg;
		else if (c == 'n') {
			o->top_n = strtoul(optarg, &end, 10);
			if (*end || !*optarg)
				return bf_cmd_fail(BF_EXIT_USAGE, "trace",
				                   "-n: '%s' is not a count",
				                   optarg);
		} else if (c == 'h')
			return fputs(trace_usage, stdout), -1;
		else
			return fputs(trace_usage, stderr), BF_EXIT_USAGE;
	}
	return 0;
}

static void warn_no_match(const struct opts *o, const char *path)
{
	bf_text_printf(stderr,
	               "benchfarm: trace: warning: no function in %s is ",
	               path);
	for (size_t i = 0; i < o->nonly; i++)
		bf_text_printf(stderr, "%s'%s'", i ? " or " : "", o->only[i]);
	bf_text_printf(stderr, " (--only): nothing to show\n");
}

static int run_chrome(const struct opts *o, const char *path)
{
	struct bf_symbols *syms;
	struct bf_trace t;
	char why[256];
	struct out sink;
	FILE *out;
	int ret;

	if ((ret = load(&t, NULL, path)))
		return ret;
	if (!(out = open_out(&sink, o->out_path))) {
		bf_trace_release(&t);
		return BF_EXIT_USAGE;
	}
	syms = bf_symbols_new(&t);
	bf_symbols_name_trace(syms, &t);
	bf_trace_chrome(out, &t, syms, o->only, o->nonly, why, sizeof(why));
	warn_symbols(path, &t, syms);
	if (*why && !t.partial && !bf_symbols_is_partial(syms, NULL, 0))
		bf_text_printf(stderr, "benchfarm: trace: %s is partial: %s\n",
		               path, why);
	if (o->nonly && !bf_symbols_has_wanted(syms, o->only, o->nonly))
		warn_no_match(o, path);
	bf_symbols_free(syms);
	bf_trace_release(&t);
	return close_out(&sink, o->out_path);
}

/* fold, top, svg and diff (base: NULL unless diff): one call tree each. */
static int run_tree(const struct opts *o, const char *sub, const char *path,
                    const char *base_path)
{
	struct bf_trace t, base;
	struct bf_ttree tree, btree;
	struct out sink;
	FILE *out;
	int ret;

	if ((ret = load(&t, &tree, path)))
		return ret;
	if (base_path && (ret = load(&base, &btree, base_path))) {
		bf_ttree_release(&tree);
		bf_trace_release(&t);
		return ret;
	}
	if (o->nonly && !bf_ttree_only(&tree, o->only, o->nonly))
		warn_no_match(o, path);
	if (o->nonly && base_path)
		bf_ttree_only(&btree, o->only, o->nonly);
	out = open_out(&sink, o->out_path);
	if (!out)
		ret = BF_EXIT_USAGE;
	else if (!strcmp(sub, "fold"))
		bf_trace_fold(out, &tree, o->calls);
	else if (!strcmp(sub, "top"))
		bf_trace_top(out, &tree, o->top_n, o->json);
	else
		bf_trace_svg(out, &tree, base_path ? &btree : NULL, path);
	if (out)
		ret = close_out(&sink, o->out_path);
	if (base_path) {
		bf_ttree_release(&btree);
		bf_trace_release(&base);
	}
	bf_ttree_release(&tree);
	bf_trace_release(&t);
	return ret;
}

int cmd_trace(int argc, char **argv, struct bf_ctx *ctx)
{
	struct opts o = { NULL, false, false, 20, NULL, 0 };
	const char *sub;
	bool diff;
	int ret;

	(void)ctx;
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(trace_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? BF_EXIT_USAGE : BF_EXIT_OK;
	}
	sub = argv[1];
	o.only = bf_xcalloc((size_t)argc, sizeof(*o.only));
	ret = parse_opts(&o, argc, argv);
	if (ret) {
		free(o.only);
		return ret < 0 ? BF_EXIT_OK : ret;
	}
	diff = !strcmp(sub, "diff");
	if (strcmp(sub, "fold") && strcmp(sub, "top") &&
	    strcmp(sub, "chrome") && strcmp(sub, "svg") && !diff)
		ret = bf_cmd_fail(BF_EXIT_USAGE, "trace",
		                  "unknown subcommand '%s' (fold, top, chrome, "
		                  "svg or diff)",
		                  sub);
	else if (argc - optind != (diff ? 2 : 1))
		ret = bf_cmd_fail(BF_EXIT_USAGE, "trace",
		                  "%s takes %s (see 'benchfarm trace --help')",
		                  sub,
		                  diff ? "BASE and PATCH" : "one trace file");
	else if (!strcmp(sub, "chrome"))
		ret = run_chrome(&o, argv[optind]);
	else
		ret = run_tree(&o, sub, argv[optind + diff],
		               diff ? argv[optind] : NULL);
	free(o.only);
	return ret;
}
