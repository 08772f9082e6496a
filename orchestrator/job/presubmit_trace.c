#include "job/presubmit_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/fs.h"
#include "benchfarm/log.h"
#include "benchfarm/spawn.h"
#include "config/cfg.h"
#include "job/plan.h"
#include "trace/trace.h"

/*
 * compare --trace BENCHMARK: after the measured runs (never during
 * them), run that benchmark once more on each side, on this machine, in
 * the side's build with BENCHFARM_TRACE set, then render the patch's
 * flame graph coloured by its change against the base. The benchmark's
 * build must link libbenchfarm_trace and compile with
 * -finstrument-functions (pkg-config benchfarm-trace). What happened is
 * in the result's "trace": the files, or why there are none.
 */

static int trace_side(const struct bf_job *job,
                      const struct bf_cfg_benchmark *b, int side,
                      const char *file, struct bf_err *err)
{
	struct bf_spawn_opts o = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;
	char *env = bf_xasprintf("BENCHFARM_TRACE=%s", file);
	const char *env_set[] = { env, NULL };
	char *cwd = b->workdir ? bf_xasprintf("%s/%s", job->side[side].dir,
	                                      b->workdir)
	                       : bf_xstrdup(job->side[side].dir);
	struct bf_argv argv = BF_ARGV_INIT;
	int ret;

	/* as the agent runs it: the same words, in the same directory */
	for (size_t i = 0; i < b->command.argc; i++)
		bf_argv_push(&argv, b->command.argv[i]);
	o.argv = (const char *const *)argv.argv;
	o.cwd = cwd;
	o.env_set = env_set;
	o.timeout_s = b->timeout_s;
	o.out_max = 1u << 20;
	bf_spawn_result_init(&res);
	remove(file);
	ret = bf_spawn_run(&res, &o, err);
	if (!ret && (res.timed_out || res.exit_code))
		ret = bf_err_set(err, BF_ERROR, "the traced %s run of '%s' %s",
		                 bf_side_name(side), b->name,
		                 res.timed_out ? "timed out" : "failed");
	if (!ret && !bf_fs_exists(file))
		ret = bf_err_set(err, BF_ENOTFOUND,
		                 "the %s run of '%s' wrote no trace: build it "
		                 "with -finstrument-functions and link "
		                 "-lbenchfarm_trace (pkg-config "
		                 "benchfarm-trace)",
		                 bf_side_name(side), b->name);
	bf_spawn_result_release(&res);
	bf_argv_release(&argv);
	free(cwd);
	free(env);
	return ret;
}

static int render_diff(const char *base, const char *patch, const char *svg,
                       const char *title, struct bf_err *err)
{
	struct bf_trace tb, tp;
	struct bf_ttree rb, rp;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if ((ret = bf_trace_load(&tb, base, err))) {
		bf_trace_release(&tb);
		return ret;
	}
	if ((ret = bf_trace_load(&tp, patch, err))) {
		bf_trace_release(&tb);
		bf_trace_release(&tp);
		return ret;
	}
	bf_ttree_build(&rb, &tb, err);
	bf_ttree_build(&rp, &tp, err);
	/* rendered in memory, then written 0600 like the other results */
	f = open_memstream(&text, &len);
	if (!f) {
		ret = bf_err_sys(err, "cannot write %s", svg);
	} else {
		bf_trace_svg(f, &rp, &rb, title);
		if (fclose(f))
			ret = bf_err_sys(err, "cannot write %s", svg);
		else
			ret = bf_fs_write_atomic(svg, text, len, 0600, err);
		free(text);
	}
	bf_ttree_release(&rb);
	bf_ttree_release(&rp);
	bf_trace_release(&tb);
	bf_trace_release(&tp);
	return ret;
}

json_t *bf_presubmit_trace(const struct bf_job *job, const char *bench,
                           const char *dir)
{
	const struct bf_cfg_benchmark *b = NULL;
	struct bf_err err = BF_ERR_INIT;
	char *abs = NULL, *files[2] = { NULL, NULL }, *svg = NULL, *title;
	json_t *out = json_pack("{s:s}", "benchmark", bench);
	int ret = 0;

	for (size_t i = 0; i < job->cfg->nbenchmarks && !b; i++)
		if (!strcmp(job->cfg->benchmarks[i].name, bench))
			b = &job->cfg->benchmarks[i];
	if (!b)
		ret = bf_err_set(&err, BF_EINVAL,
		                 "--trace: no benchmark '%s' in the config",
		                 bench);
	if (!ret)
		ret = bf_fs_mkdirs(dir, 0700, &err);
	if (!ret) {
		char cwd[4096];

		if (dir[0] == '/')
			abs = bf_xstrdup(dir);
		else if (getcwd(cwd, sizeof(cwd)))
			abs = bf_xasprintf("%s/%s", cwd, dir);
		else
			ret = bf_err_sys(&err, "the current directory");
	}
	for (int s = 0; !ret && s < 2; s++) {
		files[s] = bf_xasprintf("%s/trace-%s.bftrace", abs,
		                        bf_side_name(s));
		ret = trace_side(job, b, s, files[s], &err);
	}
	if (!ret) {
		svg = bf_xasprintf("%s/trace-diff.svg", abs);
		title = bf_xasprintf("%s: patch %.12s against base %.12s "
		                     "(red slower, blue faster)",
		                     bench, job->side[1].commit,
		                     job->side[0].commit);
		ret = render_diff(files[0], files[1], svg, title, &err);
		free(title);
	}
	if (ret) {
		BF_LOG_WARN("compare --trace: %s", err.msg);
		json_object_set_new(out, "error", json_string(err.msg));
	} else {
		json_object_set_new(out, "base", json_string(files[0]));
		json_object_set_new(out, "patch", json_string(files[1]));
		json_object_set_new(out, "diff_svg", json_string(svg));
	}
	free(files[0]);
	free(files[1]);
	free(svg);
	free(abs);
	return out;
}
