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
 */
#define _GNU_SOURCE 1
#include "serve.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/json.h"
#include "benchfarm/proto.h"

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

/* One run in a child: wait for the release, run, write into fd. */
static void child(int release, int fd, const json_t *run, int64_t id,
                  struct bf_agent_ctx *ctx)
{
	char c;

	while (read(release, &c, 1) < 0 && errno == EINTR)
		;
	close(release);
	_exit(bf_req_run(fd, run, id, ctx) ? 1 : 0);
}

/* Forward the samples in f, tagged with pair; its last message in *last. */
static int forward(int out_fd, FILE *f, int pair, json_t **last)
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
	json_t *final[2] = { NULL, NULL }, *answer;
	FILE *file[2] = { NULL, NULL };
	pid_t pid[2] = { -1, -1 };
	int cpu[2], allowed, n, rel[2] = { -1, -1 }, ret = 0;

	if (!json_is_array(runs) || json_array_size(runs) != 2)
		return bf_req_error(out_fd, id, "bad_request",
		                    "duet: \"runs\" must be an array of two "
		                    "run requests (base, patch)");
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
		file[i] = tmpfile();
		if (!file[i] || (pid[i] = fork()) < 0) {
			json_decref(run);
			ret = bf_req_error(out_fd, id, "system",
			                   "duet: starting run %d: %s", i,
			                   strerror(errno));
			goto out;
		}
		if (pid[i] == 0) {
			close(rel[1]);
			child(rel[0], fileno(file[i]), run, id, ctx);
		}
		json_decref(run);
	}
out:
	/* both started (or not): release them at once */
	close(rel[0]);
	close(rel[1]);
	for (int i = 0; i < 2; i++)
		if (pid[i] > 0)
			while (waitpid(pid[i], NULL, 0) < 0 && errno == EINTR)
				;
	if (ret || pid[0] <= 0 || pid[1] <= 0)
		goto done;
	for (int i = 0; i < 2 && !ret; i++)
		ret = forward(out_fd, file[i], i, &final[i]);
	if (ret)
		goto done;
	answer = json_pack("{s:s, s:I, s:[oo], s:[ii]}", "type", "result", "id",
	                   (json_int_t)id, "runs",
	                   final[0] ? json_incref(final[0])
	                            : bf_proto_error(id, "system",
	                                             "the run gave no answer"),
	                   final[1] ? json_incref(final[1])
	                            : bf_proto_error(id, "system",
	                                             "the run gave no answer"),
	                   "cpus", cpu[swap], cpu[!swap]);
	ret = bf_proto_write(out_fd, answer, NULL);
	json_decref(answer);
done:
	for (int i = 0; i < 2; i++) {
		if (file[i])
			fclose(file[i]);
		json_decref(final[i]);
	}
	return ret;
}
