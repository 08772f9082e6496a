#include "report/plugins.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/spawn.h"
#include "farm/ssh.h"

/*
 * The built-in reporters, one descriptor each (plugins/report_*.c), and
 * the host they run in.
 */
extern const struct bf_plugin bf_plugin_markdown;
extern const struct bf_plugin bf_plugin_exec;
extern const struct bf_plugin bf_plugin_json;
extern const struct bf_plugin bf_plugin_github;
extern const struct bf_plugin bf_plugin_gitlab;
extern const struct bf_plugin bf_plugin_gerrit;
extern const struct bf_plugin bf_plugin_junit;
extern const struct bf_plugin bf_plugin_skia_perf;
extern const struct bf_plugin bf_plugin_bmf;
extern const struct bf_plugin bf_plugin_html;

const struct bf_plugin *const bf_plugins[] = {
	&bf_plugin_markdown, &bf_plugin_exec,      &bf_plugin_json,
	&bf_plugin_github,   &bf_plugin_gitlab,    &bf_plugin_gerrit,
	&bf_plugin_junit,    &bf_plugin_skia_perf, &bf_plugin_bmf,
	&bf_plugin_html,
};
const size_t bf_nplugins = BF_ARRAY_SIZE(bf_plugins);

#define REPORT_OUT_MAX    (64u * 1024 * 1024) /* per output */
#define SSH_RUN_TIMEOUT_S 120.0
#define SPAWN_TIMEOUT_S   300.0

const struct bf_plugin *bf_plugin_find(const char *format,
                                       const char **exec_name)
{
	if (exec_name)
		*exec_name = NULL;
	if (!strncmp(format, "exec:", 5)) {
		if (exec_name)
			*exec_name = format + 5;
		format = "exec";
	}
	for (size_t i = 0; i < bf_nplugins; i++)
		if (!strcmp(bf_plugins[i]->name, format))
			return bf_plugins[i];
	return NULL;
}

/* The real host. */

static void host_log(int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* what a reporter did (posted a review) is shown unless -q */
	if (level == BF_LOG_INFO && bf_log_level_current >= BF_LOG_WARN &&
	    bf_log_level_current < BF_LOG_INFO)
		fprintf(stderr, "benchfarm: %s\n", msg);
	else
		BF_LOG_AT(level, "%s", msg);
}

static const char *host_getenv(const char *name)
{
	return getenv(name);
}

static int host_ssh_run(const struct bf_host_ssh *target,
                        const char *const *argv, const char *input,
                        size_t input_len, struct bf_buf *out, int *status,
                        struct bf_err *err)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_buf sink = BF_BUF_INIT;
	struct bf_ssh *s = NULL;
	int ret;

	t.name = target->host;
	t.host = target->host;
	t.port = target->port;
	t.user = target->user;
	t.key_path = target->key_path;
	t.known_hosts = target->known_hosts;
	ret = bf_ssh_connect(&s, &t, err);
	if (!ret)
		ret = bf_ssh_exec_input(status, out ? out : &sink, s, argv,
		                        input ? input : "", input_len,
		                        SSH_RUN_TIMEOUT_S, err);
	bf_ssh_close(s);
	bf_buf_release(&sink);
	return ret;
}

static int host_spawn(const char *const *argv, const char *input,
                      size_t input_len, struct bf_buf *out, int *status,
                      struct bf_err *err)
{
	struct bf_spawn_opts o = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;
	int ret;

	o.argv = argv;
	o.stdin_data = input ? input : "";
	o.stdin_len = input ? input_len : 0;
	o.timeout_s = SPAWN_TIMEOUT_S;
	o.out_max = REPORT_OUT_MAX;
	bf_spawn_result_init(&res);
	ret = bf_spawn_run(&res, &o, err);
	if (!ret) {
		if (res.err.len)
			fwrite(res.err.buf, 1, res.err.len, stderr);
		if (res.timed_out)
			ret = bf_err_set(err, BF_ETIMEOUT,
			                 "'%s' did not finish within %g s",
			                 argv[0], SPAWN_TIMEOUT_S);
		else if (res.term_signal)
			ret = bf_err_set(err, BF_ERROR,
			                 "'%s' was killed by signal %d (%s)",
			                 argv[0], res.term_signal,
			                 strsignal(res.term_signal));
		else if (res.out_truncated)
			ret = bf_err_set(err, BF_ETOOBIG,
			                 "the output of '%s' is longer than %u "
			                 "bytes",
			                 argv[0], REPORT_OUT_MAX);
	}
	if (!ret) {
		*status = res.exit_code;
		if (out)
			bf_buf_add(out, res.out.buf, res.out.len);
	}
	bf_spawn_result_release(&res);
	return ret;
}

static const struct bf_host default_host = {
	BF_HOST_VERSION, host_log, host_getenv, host_ssh_run, host_spawn,
};

const struct bf_host *bf_host_default(void)
{
	return &default_host;
}

char *bf_report_markdown_text(const json_t *result, const char *check_name,
                              const char *link, struct bf_err *err)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	const struct bf_plugin *p = bf_plugin_find("markdown", NULL);
	struct bf_report *r = NULL;
	const struct bf_buf *out;
	char *md;

	if (check_name)
		opts.check_name = check_name;
	opts.link = link;
	if (!p) {
		bf_err_set(err, BF_ERROR,
		           "the markdown reporter is not built in");
		return NULL;
	}
	if (bf_report_render(&r, p, result, &opts, bf_host_default(), err))
		return NULL;
	out = bf_report_noutputs(r) ? bf_report_output(r, 0) : NULL;
	md = bf_xstrndup(out ? out->buf : "", out ? out->len : 0);
	bf_report_free(r);
	return md;
}
