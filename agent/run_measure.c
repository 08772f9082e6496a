/* What a run measures besides the benchmark's output: run_measure.h. */
#include "run_measure.h"

#include <stdlib.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "cachegrind.h"

/* cmd's words joined by blanks, as cachegrind's "cmd:" line has them. */
static char *join(const struct bf_argv *cmd)
{
	struct bf_buf b = BF_BUF_INIT;

	for (size_t i = 0; i < cmd->argc; i++) {
		if (i)
			bf_buf_addch(&b, ' ');
		bf_buf_addstr(&b, cmd->argv[i]);
	}
	return bf_buf_detach(&b, NULL);
}

int bf_run_measure_prepare(struct bf_run_measure *m, const char *measure,
                           const struct bf_argv *cmd,
                           struct bf_spawn_opts *opts, struct bf_err *err)
{
	const char *tmp = getenv("TMPDIR");

	memset(m, 0, sizeof(*m));
	bf_argv_init(&m->argv);
	bf_counters_init(&m->counters);
	if (!measure || !strcmp(measure, "time"))
		return 0;
	if (strcmp(measure, "instructions"))
		return bf_err_set(err, BF_EINVAL,
		                  "\"measure\" must be \"time\" or "
		                  "\"instructions\", not '%s'",
		                  measure);
	m->instructions = true;
	m->dir = bf_xasprintf("%s/benchfarm-cg-XXXXXX",
	                      tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(m->dir)) {
		int ret = bf_err_sys(err,
		                     "cannot create a directory like '%s' "
		                     "for cachegrind's output",
		                     m->dir);

		free(m->dir);
		m->dir = NULL;
		return ret;
	}
	bf_cg_argv(&m->argv, m->dir, cmd);
	m->cmd_line = join(cmd);
	opts->argv = (const char *const *)m->argv.argv;
	return 0;
}

void bf_run_measure_started(struct bf_run_measure *m, pid_t pid)
{
	m->pid = pid;
	if (!m->instructions)
		bf_counters_open(&m->counters, pid);
}

int bf_run_measure_finish(json_t **out, struct bf_run_measure *m,
                          struct bf_err *err)
{
	struct bf_cg_totals t;
	int ret;

	*out = NULL;
	if (!m->instructions) {
		bf_run_measure_stop(m);
		*out = bf_counters_json(&m->counters);
		return 0;
	}
	if ((ret = bf_cg_read_dir(&t, m->dir, (long)m->pid, m->cmd_line, err)))
		bf_err_prefix(err, "cachegrind");
	else
		*out = bf_cg_json(&t);
	return ret;
}

void bf_run_measure_stop(struct bf_run_measure *m)
{
	if (!m->instructions)
		bf_counters_read(&m->counters); /* closes what it read */
}

const char *bf_run_measure_no_valgrind(void)
{
	return "the benchmark's 'measure: instructions' runs it under "
	       "valgrind, which is not installed on this device: install "
	       "the '" BF_CG_PACKAGE "' package (apt-get install " BF_CG_PACKAGE
	       ") or put valgrind in the agent's PATH";
}

void bf_run_measure_release(struct bf_run_measure *m)
{
	bf_counters_close(&m->counters);
	bf_argv_release(&m->argv);
	if (m->dir)
		bf_fs_rmtree(m->dir, NULL); /* every process's file */
	free(m->dir);
	free(m->cmd_line);
	m->dir = m->cmd_line = NULL;
}
