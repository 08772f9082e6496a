#include "mocks/host_mock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"

static struct host_mock *active;

static void mock_log(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
	if (active)
		active->logs++;
}

static const char *mock_getenv(const char *name)
{
	for (size_t i = 0; active && i < BF_ARRAY_SIZE(active->env); i++)
		if (active->env[i][0] && !strcmp(active->env[i][0], name))
			return active->env[i][1];
	return NULL;
}

static void record(const char *const *argv, const char *input, size_t len)
{
	struct bf_buf b = BF_BUF_INIT;

	for (size_t i = 0; argv && argv[i]; i++) {
		if (i)
			bf_buf_addch(&b, '\n');
		bf_buf_addstr(&b, argv[i]);
	}
	free(active->last_argv);
	active->last_argv = bf_buf_detach(&b, NULL);
	free(active->last_input);
	active->last_input = bf_xstrndup(input ? input : "", input ? len : 0);
}

static int answer(struct bf_buf *out, int *status, struct bf_err *err)
{
	if (active->fail)
		return bf_err_set(err, active->fail, "mock failure %d",
		                  active->fail);
	if (out && active->answer)
		bf_buf_addstr(out, active->answer);
	*status = active->status;
	return 0;
}

static int mock_ssh_run(const struct bf_host_ssh *t, const char *const *argv,
                        const char *input, size_t len, struct bf_buf *out,
                        int *status, struct bf_err *err)
{
	active->ssh_calls++;
	record(argv, input, len);
	free(active->last_host);
	active->last_host = bf_xasprintf("%s@%s:%d", t->user ? t->user : "",
	                                 t->host ? t->host : "", t->port);
	return answer(out, status, err);
}

static int mock_spawn(const char *const *argv, const char *input, size_t len,
                      struct bf_buf *out, int *status, struct bf_err *err)
{
	active->spawn_calls++;
	record(argv, input, len);
	return answer(out, status, err);
}

static const struct bf_host mock_host = {
	BF_HOST_VERSION, mock_log, mock_getenv, mock_ssh_run, mock_spawn,
};

const struct bf_host *host_mock_init(struct host_mock *m)
{
	memset(m, 0, sizeof(*m));
	active = m;
	return &mock_host;
}

void host_mock_release(struct host_mock *m)
{
	free(m->last_argv);
	free(m->last_input);
	free(m->last_host);
	if (active == m)
		active = NULL;
	memset(m, 0, sizeof(*m));
}

void host_mock_setenv(struct host_mock *m, const char *name, const char *value)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(m->env); i++) {
		if (!m->env[i][0] || !strcmp(m->env[i][0], name)) {
			m->env[i][0] = name;
			m->env[i][1] = value;
			return;
		}
	}
}
