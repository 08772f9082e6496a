#include "cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "config/cfg.h"
#include "report/plugins.h"

/*
 * benchfarm report: render a stored result document (compare or detect
 * JSON) with one or more reporter plugins.
 */

static const char report_usage[] =
        "usage: benchfarm report --format FORMAT[,FORMAT...] --input "
        "RESULT.json\n"
        "                        [--output FILE | --output-dir DIR] [-c "
        "CONFIG]\n"
        "                        [--check-name NAME] [--gerrit-change C] "
        "[--no-post]\n"
        "   or: benchfarm report --list\n"
        "\n"
        "Render the JSON of 'benchfarm compare --json' (or of detect,\n"
        "bisect or run --json: 'report --list' says which formats render\n"
        "which) for a code review, a CI system or a dashboard. With one\n"
        "format the main output goes to --output FILE or stdout; "
        "--output-dir DIR\n"
        "writes every output of every format under its own name "
        "(report.md,\n"
        "junit.xml, ...). The config's 'review' mapping gives the check "
        "name,\n"
        "a link and where to post to Gerrit.\n"
        "\n"
        "    -f, --format LIST      formats (see --list); exec:NAME runs\n"
        "                           benchfarm-report-NAME with the result "
        "on stdin\n"
        "    -i, --input FILE       the result JSON ('-': stdin)\n"
        "    -o, --output FILE      the main output ('-': stdout)\n"
        "        --output-dir DIR   every output, under its own name\n"
        "    -c, --config FILE      review settings from the config\n"
        "        --check-name NAME  stable check and comment marker name\n"
        "        --gerrit-change C  the Gerrit change: CHANGE,PATCHSET or "
        "a commit\n"
        "        --link URL         the link to the full results "
        "(default:\n"
        "                           review.link), e.g. where CI keeps "
        "report.html\n"
        "        --no-post          render the Gerrit review, do not post "
        "it\n"
        "        --list             list the formats\n"
        "\n"
        "Exit: 0 written (and posted); 2 usage or bad input; 3 writing "
        "or\n"
        "posting failed.\n";

enum {
	OPT_DIR = 256,
	OPT_CHECK,
	OPT_CHANGE,
	OPT_NOPOST,
	OPT_LIST,
	OPT_LINK,
};

void bf_cmd_split_formats(struct bf_argv *out, const char *list)
{
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *w = bf_xstrndup(p, n);

		if (*w)
			bf_argv_push(out, w);
		free(w);
		p = end ? end + 1 : NULL;
	}
}

static void list_formats(void)
{
	for (size_t i = 0; i < bf_nplugins; i++)
		printf("%-12s %s (%s)\n", bf_plugins[i]->name,
		       bf_plugins[i]->summary, bf_plugins[i]->kinds);
}

void bf_report_opts_from_cfg(struct bf_report_opts *o,
                             struct bf_host_ssh *gerrit,
                             const struct bf_cfg *cfg)
{
	if (!cfg)
		return;
	o->check_name = cfg->review.check_name;
	o->link = cfg->review.link;
	o->gerrit_label = cfg->review.gerrit.label;
	o->gerrit_vote_fail = cfg->review.gerrit.vote_fail;
	o->gerrit_vote_pass = cfg->review.gerrit.vote_pass;
	o->gerrit_change = cfg->review.gerrit.change;
	if (!cfg->review.gerrit.host)
		return;
	memset(gerrit, 0, sizeof(*gerrit));
	gerrit->version = 1;
	gerrit->host = cfg->review.gerrit.host;
	gerrit->port =
	        cfg->review.gerrit.port ? cfg->review.gerrit.port : 29418;
	gerrit->user = cfg->review.gerrit.user;
	gerrit->key_path = cfg->review.gerrit.key;
	o->gerrit = gerrit;
}

/*
 * Whether benchfarm-report-NAME is an executable file on PATH, searched
 * as execvp searches it: no PATH is "/bin:/usr/bin", an empty entry is
 * the current directory.
 */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char file[4096];

	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		size_t n = strcspn(p, ":");

		if ((size_t)snprintf(file, sizeof(file),
		                     "%.*s%sbenchfarm-report-%s", (int)n, p,
		                     n ? "/" : "", name) < sizeof(file) &&
		    !access(file, X_OK))
			return true;
		p += n;
		if (!*p)
			return false;
	}
}

int bf_cmd_check_formats(const struct bf_argv *formats, const char *cmd)
{
	for (size_t i = 0; i < formats->argc; i++) {
		const char *f = formats->argv[i], *exec_name;

		if (!bf_plugin_find(f, &exec_name))
			return bf_cmd_fail(BF_EXIT_USAGE, cmd,
			                   "unknown report format '%s' (see "
			                   "'benchfarm report --list')",
			                   f);
		if (exec_name && !*exec_name)
			return bf_cmd_fail(
			        BF_EXIT_USAGE, cmd,
			        "exec needs a name: 'exec:NAME' runs "
			        "benchfarm-report-NAME");
		if (exec_name &&
		    (strchr(exec_name, '/') || !on_path(exec_name)))
			return bf_cmd_fail(BF_EXIT_USAGE, cmd,
			                   "%s: no program "
			                   "'benchfarm-report-%s' on PATH",
			                   f, exec_name);
	}
	return 0;
}

/* The formats that render kind, as "markdown, json, exec:NAME". */
static void kind_formats(struct bf_buf *b, const char *kind)
{
	for (size_t i = 0; i < bf_nplugins; i++)
		if (bf_plugin_renders(bf_plugins[i], kind))
			bf_buf_addf(b, "%s%s%s", b->len ? ", " : "",
			            bf_plugins[i]->name,
			            strcmp(bf_plugins[i]->name, "exec")
			                    ? ""
			                    : ":NAME");
}

/*
 * Every format is known and can render result (its kind, its version,
 * the words in opts): checked for all before any is rendered, so a list
 * with one format that cannot render this result writes nothing.
 */
static int check_all(const json_t *result, const struct bf_argv *formats,
                     const struct bf_report_opts *base, const char *cmd)
{
	const char *kind = bf_json_str_or(result, "kind", NULL);
	struct bf_err err = BF_ERR_INIT;

	for (size_t i = 0; i < formats->argc; i++) {
		const char *f = formats->argv[i], *exec_name;
		const struct bf_plugin *p = bf_plugin_find(f, &exec_name);
		struct bf_report_opts o = *base;
		struct bf_buf others = BF_BUF_INIT;
		int ret;

		if (!p)
			return bf_cmd_fail(BF_EXIT_USAGE, cmd,
			                   "unknown report format '%s' (see "
			                   "'benchfarm report --list')",
			                   f);
		o.exec_name = exec_name;
		if (!bf_report_check(p, result, &o, &err))
			continue;
		if (json_is_object(result) && kind &&
		    !bf_plugin_renders(p, kind))
			kind_formats(&others, kind);
		ret = bf_cmd_fail(BF_EXIT_USAGE, cmd, "%s: %s%s%s%s%s", f,
		                  err.msg, others.len ? "; formats for " : "",
		                  others.len ? kind : "",
		                  others.len ? " results: " : "",
		                  others.len ? others.buf : "");
		bf_buf_release(&others);
		bf_err_clear(&err);
		return ret;
	}
	return 0;
}

int bf_cmd_report_formats(const json_t *result, const struct bf_argv *formats,
                          const struct bf_report_opts *base, const char *output,
                          const char *dir, const char *cmd)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_report **done;
	int ret;

	if ((ret = check_all(result, formats, base, cmd)))
		return ret;
	/* every format rendered before anything is written */
	done = bf_xcalloc(formats->argc + 1, sizeof(*done));
	for (size_t i = 0; i < formats->argc; i++) {
		const char *f = formats->argv[i], *exec_name;
		const struct bf_plugin *p = bf_plugin_find(f, &exec_name);
		struct bf_report_opts o = *base;
		int rc;

		o.exec_name = exec_name;
		rc = bf_report_render(&done[i], p, result, &o,
		                      bf_host_default(), &err);
		if (rc)
			ret = bf_cmd_fail(rc == BF_EINVAL || rc == BF_ENOTFOUND
			                          ? BF_EXIT_USAGE
			                          : BF_EXIT_INFRA,
			                  cmd, "%s: %s", f, err.msg);
		bf_err_clear(&err);
		if (ret == BF_EXIT_USAGE)
			break;
	}
	for (size_t i = 0; ret != BF_EXIT_USAGE && i < formats->argc; i++) {
		if (done[i] && bf_report_write(done[i], output, dir, &err))
			ret = bf_cmd_fail(BF_EXIT_INFRA, cmd, "%s: %s",
			                  formats->argv[i], err.msg);
		bf_err_clear(&err);
	}
	for (size_t i = 0; i < formats->argc; i++)
		bf_report_free(done[i]);
	free(done);
	return ret;
}

int cmd_report(int argc, char **argv, struct bf_ctx *ctx)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "output-dir", required_argument, NULL, OPT_DIR },
		{ "config", required_argument, NULL, 'c' },
		{ "check-name", required_argument, NULL, OPT_CHECK },
		{ "gerrit-change", required_argument, NULL, OPT_CHANGE },
		{ "no-post", no_argument, NULL, OPT_NOPOST },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "link", required_argument, NULL, OPT_LINK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	struct bf_host_ssh gerrit;
	struct bf_err err = BF_ERR_INIT;
	const char *format = NULL, *input = NULL, *output = NULL, *dir = NULL;
	const char *config = NULL, *check = NULL, *change = NULL, *link = NULL;
	struct bf_argv formats = BF_ARGV_INIT;
	bool no_post = false, have_cfg = false;
	json_t *result = NULL;
	struct bf_cfg cfg;
	struct stat st;
	int c, ret;

	(void)ctx;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:i:o:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_DIR:
			dir = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case OPT_CHECK:
			check = optarg;
			break;
		case OPT_CHANGE:
			change = optarg;
			break;
		case OPT_NOPOST:
			no_post = true;
			break;
		case OPT_LINK:
			link = optarg;
			break;
		case OPT_LIST:
			list_formats();
			return BF_EXIT_OK;
		case 'h':
			fputs(report_usage, stdout);
			return BF_EXIT_OK;
		default:
			fputs(report_usage, stderr);
			return BF_EXIT_USAGE;
		}
	}
	if (optind != argc)
		return bf_cmd_fail(BF_EXIT_USAGE, "report",
		                   "unexpected argument '%s'", argv[optind]);
	if (!format || !input)
		return bf_cmd_fail(BF_EXIT_USAGE, "report",
		                   "give --format and --input (see --help)");
	if (output && dir)
		return bf_cmd_fail(BF_EXIT_USAGE, "report",
		                   "give --output or --output-dir, not both");
	if (output && !stat(output, &st) && S_ISDIR(st.st_mode))
		return bf_cmd_fail(BF_EXIT_USAGE, "report",
		                   "--output '%s' is a directory; give a file "
		                   "name, or --output-dir DIR",
		                   output);
	bf_cmd_split_formats(&formats, format);
	if (!formats.argc) {
		bf_argv_release(&formats);
		return bf_cmd_fail(BF_EXIT_USAGE, "report",
		                   "--format: no format given");
	}
	if (formats.argc > 1 && !dir) {
		bf_argv_release(&formats);
		return bf_cmd_fail(BF_EXIT_USAGE, "report",
		                   "several formats need --output-dir DIR");
	}
	if (config) {
		if ((ret = bf_cmd_load_cfg(&cfg, "report", config))) {
			bf_argv_release(&formats);
			return ret;
		}
		have_cfg = true;
		bf_report_opts_from_cfg(&o, &gerrit, &cfg);
	}
	if (check)
		o.check_name = check;
	if (change)
		o.gerrit_change = change;
	if (link)
		o.link = link;
	if (no_post)
		o.gerrit = NULL;
	if (bf_json_load_file(
	            &result, strcmp(input, "-") ? input : "/dev/stdin", &err)) {
		ret = bf_cmd_fail(BF_EXIT_USAGE, "report", "%s", err.msg);
		goto out;
	}
	ret = bf_cmd_report_formats(result, &formats, &o,
	                            dir      ? NULL
	                            : output ? output
	                                     : "-",
	                            dir, "report");
out:
	json_decref(result);
	bf_argv_release(&formats);
	if (have_cfg)
		bf_cfg_release(&cfg);
	return ret;
}
