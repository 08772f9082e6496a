/*
 * The "duet" request: two runs at the same time, each pinned to its own
 * core, so that whatever disturbs the device (a neighbour, the clock
 * frequency, heat) disturbs both alike and cancels in their ratio.
 *
 * Each run is a "run" request of its own (req_run.c) carried out by a
 * child of the agent; both children wait on one pipe and are released
 * together when the agent closes its end. Each child writes its answer
 * (samples, then its result or error) to a temporary file; once both
 * are done the agent forwards every sample with "pair": 0 or 1 (the
 * index of its run in "runs") and answers with one result holding both
 * runs' results or errors in "runs".
 *
 * Before it waits for the release, each child leaves the agent's
 * namespaces and cgroup as far as the request's "isolation" asks and
 * the device allows (duet_isolate.h), and writes what it reached as an
 * "isolation" message ahead of its answer; the result's "isolation"
 * says what both reached. Neither child, nor what it runs, holds the
 * other's answer file.
 */
#define _GNU_SOURCE 1
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "benchfarm/json.h"
#include "benchfarm/proto.h"
#include "duet_isolate.h"

/* The first two CPUs this agent may run on, or fewer; the count. */
static int two_cpus(int cpu[2], int *allowed)
{
	cpu_set_t set;
	int n = 0;

	*allowed = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	*allowed = CPU_COUNT(&set);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	return n;
}

/* What a duet's child is to do: its run, where, and how far apart. */
struct duet_child {
	int index; /* 0 base, 1 patch */
	int cpu;
	enum bf_duet_iso_mode mode;
	int release; /* read end: EOF releases it */
	int fd; /* its answer file */
	json_t *run; /* the child's own copy */
};

/*
 * One run in a child: isolate it, say how far, wait for the release,
 * run, write into fd; a run that could not be isolated as far as the
 * mode needs is refused ("not_isolated") instead.
 */
static void child(const struct duet_child *c, int64_t id,
                  struct bf_agent_ctx *ctx)
{
	struct bf_duet_iso iso;
	char msg[512], ch;
	json_t *m;

	bf_duet_isolate(&iso, c->mode, c->cpu, c->index);
	m = bf_duet_iso_json(&iso, id);
	bf_proto_write(c->fd, m, NULL);
	json_decref(m);
	if (bf_duet_iso_is_short(&iso, c->mode, msg, sizeof(msg))) {
		bf_req_error(c->fd, id, "not_isolated", "%s", msg);
		_exit(1);
	}
	/* pinned for good: setting it again would be refused */
	if (iso.pinned)
		json_object_del(c->run, "cpus");
	while (read(c->release, &ch, 1) < 0 && errno == EINTR)
		;
	close(c->release);
	/*
	 * In its own PID namespace the run's process group id is not the
	 * device's: under the lease fence it would name another process
	 * (or none) to the agents outside. The duet request itself was
	 * fenced when serve took it; its runs are not registered.
	 */
	if (iso.processes && ctx) {
		struct bf_agent_ctx own = *ctx;

		own.fence = NULL;
		_exit(bf_req_run(c->fd, c->run, id, &own) ? 1 : 0);
	}
	_exit(bf_req_run(c->fd, c->run, id, ctx) ? 1 : 0);
}

/* Both runs' "isolation" messages as the result's: what both reached. */
static json_t *isolation_json(json_t *const iso[2])
{
	const char *why[2] = { NULL, NULL };
	bool got[2] = { true, true };
	static const char *const key[2] = { "processes", "cores" };
	json_t *o = json_object();
	char name[32];

	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++) {
			snprintf(name, sizeof(name), "%s_why", key[k]);
			got[k] = got[k] && iso[i] &&
			         json_is_true(json_object_get(iso[i], key[k]));
			if (!why[k])
				why[k] = iso[i] ? bf_json_str_or(iso[i], name,
				                                 NULL)
				                : "the run gave no answer";
		}
	for (int k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "%s_why", key[k]);
		json_object_set_new(o, key[k], json_boolean(got[k]));
		if (!got[k])
			json_object_set_new(o, name,
			                    json_string(why[k] ? why[k] : "?"));
	}
	return o;
}

/*
 * Forward the samples in f, tagged with pair; its "isolation" message in
 * *iso, its last other message in *last.
 */
static int forward(int out_fd, FILE *f, int pair, json_t **iso, json_t **last)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	rewind(f);
	while (!ret && (len = getline(&line, &cap, f)) > 0) {
		json_t *msg = NULL;

		if (bf_proto_parse(&msg, line, (size_t)len, "run", NULL))
			continue;
		if (!strcmp(bf_proto_type(msg), "sample")) {
			json_object_set_new(msg, "pair", json_integer(pair));
			ret = bf_proto_write(out_fd, msg, NULL);
			json_decref(msg);
		} else if (!strcmp(bf_proto_type(msg), "isolation")) {
			json_decref(*iso);
			*iso = msg;
		} else {
			json_decref(*last);
			*last = msg;
		}
	}
	free(line);
	return ret;
}

int bf_req_duet(int out_fd, const json_t *req, int64_t id,
                struct bf_agent_ctx *ctx)
{
	const json_t *runs = json_object_get(req, "runs");
	bool swap = json_is_true(json_object_get(req, "swap"));
	json_t *final[2] = { NULL, NULL }, *iso[2] = { NULL, NULL }, *answer;
	struct duet_child c = { 0 };
	FILE *file[2] = { NULL, NULL };
	pid_t pid[2] = { -1, -1 };
	int cpu[2], allowed, n, rel[2] = { -1, -1 }, ret = 0;

	if (!json_is_array(runs) || json_array_size(runs) != 2)
		return bf_req_error(out_fd, id, "bad_request",
		                    "duet: \"runs\" must be an array of two "
		                    "run requests (base, patch)");
	if (bf_duet_iso_mode_of(&c.mode,
	                        bf_json_str_or(req, "isolation", NULL)))
		return bf_req_error(out_fd, id, "bad_request",
		                    "duet: \"isolation\" must be \"none\", "
		                    "\"best_effort\", \"processes\" or "
		                    "\"full\"");
	n = two_cpus(cpu, &allowed);
	if (n < 2)
		return bf_req_error(out_fd, id, "too_few_cores",
		                    "duet needs 2 cores to run base and patch "
		                    "at the same time; the agent may run on "
		                    "%d (online cores it is allowed)",
		                    allowed);
	if (pipe(rel))
		return bf_req_error(out_fd, id, "system", "duet: pipe: %s",
		                    strerror(errno));
	for (int i = 0; i < 2; i++) {
		json_t *run = json_deep_copy(json_array_get(runs, (size_t)i));

		if (!json_is_object(run)) {
			json_decref(run);
			ret = bf_req_error(out_fd, id, "bad_request",
			                   "duet: \"runs\"[%d] must be a run "
			                   "request",
			                   i);
			goto out;
		}
		json_object_set_new(run, "cpus",
		                    json_pack("[i]", cpu[(i + swap) % 2]));
		/* a side stopped by a signal is no clean measurement */
		json_object_set_new(run, "watch_stops", json_true());
		file[i] = tmpfile();
		/* what the run starts never holds an answer file */
		if (file[i])
			fcntl(fileno(file[i]), F_SETFD, FD_CLOEXEC);
		if (!file[i] || (pid[i] = fork()) < 0) {
			json_decref(run);
			ret = bf_req_error(out_fd, id, "system",
			                   "duet: starting run %d: %s", i,
			                   strerror(errno));
			goto out;
		}
		if (pid[i] == 0) {
			close(rel[1]);
			if (i)
				fclose(file[0]);
			c.index = i;
			c.cpu = cpu[(i + swap) % 2];
			c.release = rel[0];
			c.fd = fileno(file[i]);
			c.run = run;
			child(&c, id, ctx);
		}
		json_decref(run);
	}
out:
	/* both started (or not): release them at once */
	close(rel[0]);
	close(rel[1]);
	for (int i = 0; i < 2; i++)
		if (pid[i] > 0) {
			while (waitpid(pid[i], NULL, 0) < 0 && errno == EINTR)
				;
			bf_duet_cpuset_remove(i);
		}
	if (ret || pid[0] <= 0 || pid[1] <= 0)
		goto done;
	for (int i = 0; i < 2 && !ret; i++)
		ret = forward(out_fd, file[i], i, &iso[i], &final[i]);
	if (ret)
		goto done;
	answer = json_pack("{s:s, s:I, s:[oo], s:[ii], s:o}", "type", "result",
	                   "id", (json_int_t)id, "runs",
	                   final[0] ? json_incref(final[0])
	                            : bf_proto_error(id, "system",
	                                             "the run gave no answer"),
	                   final[1] ? json_incref(final[1])
	                            : bf_proto_error(id, "system",
	                                             "the run gave no answer"),
	                   "cpus", cpu[swap], cpu[!swap], "isolation",
	                   isolation_json(iso));
	ret = bf_proto_write(out_fd, answer, NULL);
	json_decref(answer);
done:
	for (int i = 0; i < 2; i++) {
		if (file[i])
			fclose(file[i]);
		json_decref(final[i]);
		json_decref(iso[i]);
	}
	return ret;
}
