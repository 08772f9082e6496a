#include "farm/agentconn.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/proto.h"
#include "benchfarm/spawn.h"

/* The local transport: benchfarm-agent as a child over two pipes. */
struct local {
	struct bf_child child;
	struct bf_linereader reader;
};

static int local_send(void *state, const char *data, size_t len,
                      struct bf_err *err)
{
	struct local *l = state;

	while (len) {
		ssize_t n = write(l->child.in_fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return bf_err_sys(err, "cannot write to the agent");
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

static int local_recv(void *state, const char **line, size_t *len,
                      double deadline, struct bf_err *err)
{
	struct local *l = state;

	return bf_linereader_next(&l->reader, line, len, deadline, err);
}

static void local_close(void *state)
{
	struct local *l = state;

	if (!l)
		return;
	bf_child_stop(&l->child, 5.0, NULL);
	bf_linereader_release(&l->reader);
	free(l);
}

static const struct bf_conn_ops local_ops = {
	"local",
	local_send,
	local_recv,
	local_close,
};

/* $BENCHFARM_AGENT, else beside /proc/self/exe, else PATH. */
static char *find_agent(void)
{
	const char *env = getenv("BENCHFARM_AGENT");
	char self[PATH_MAX];
	ssize_t n;
	char *slash, *path;

	if (env && *env)
		return bf_xstrdup(env);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			path = bf_xasprintf("%s/benchfarm-agent", self);
			if (access(path, X_OK) == 0)
				return path;
			free(path);
		}
	}
	return bf_xstrdup("benchfarm-agent");
}

int bf_agentconn_open_local(struct bf_agentconn **out, const char *agent_path,
                            const char *root, const char *device_name,
                            struct bf_err *err)
{
	struct local *l = bf_xcalloc(1, sizeof(*l));
	struct bf_argv argv = BF_ARGV_INIT;
	char *agent = agent_path ? bf_xstrdup(agent_path) : find_agent();
	int ret;

	bf_argv_push(&argv, agent);
	bf_argv_push(&argv, "serve");
	if (root) {
		bf_argv_push(&argv, "--root");
		bf_argv_push(&argv, root);
	}
	ret = bf_child_start(&l->child, (const char *const *)argv.argv, NULL,
	                     err);
	if (ret) {
		free(l);
		goto out;
	}
	bf_linereader_init(&l->reader, l->child.out_fd);
	ret = bf_agentconn_attach(out, &local_ops, l, device_name, err);
out:
	bf_argv_release(&argv);
	free(agent);
	return ret;
}
