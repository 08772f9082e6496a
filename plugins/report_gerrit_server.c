#include "report_gerrit_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/json.h"

/*
 * The gerrit reporter's side of the server, through the host's SSH
 * (report_gerrit.c's top says when and why): the change to review, the
 * files of its patch set (`gerrit query`) and the review's posting
 * (`gerrit review --json`). Only a change of CHANGE,PATCHSET or a full
 * commit hash reaches a command line.
 */

bool bf_gerrit_valid_change(const char *c)
{
	size_t a = strspn(c, "0123456789"), b;

	if (a && c[a] == ',') {
		b = strspn(c + a + 1, "0123456789");
		return b && !c[a + 1 + b];
	}
	return strlen(c) == 40 && strspn(c, "0123456789abcdef") == 40;
}

const char *bf_gerrit_change_of(const json_t *result,
                                const struct bf_report_opts *o,
                                const struct bf_host *h, struct bf_buf *buf)
{
	const char *num = h->getenv ? h->getenv("GERRIT_CHANGE_NUMBER") : NULL;
	const char *ps = h->getenv ? h->getenv("GERRIT_PATCHSET_NUMBER") : NULL;

	if (o->gerrit_change)
		return o->gerrit_change;
	if (num && *num && ps && *ps) {
		bf_buf_addf(buf, "%s,%s", num, ps);
		return buf->buf;
	}
	return bf_json_str_or(json_object_get(result, "patch"), "commit", "");
}

static int port_of(const struct bf_report_opts *o)
{
	return o->gerrit->port ? o->gerrit->port : 22;
}

/* Whether patch set ps (of `gerrit query`) is the one change names. */
static bool is_patch_set(const json_t *ps, const char *change)
{
	const char *comma = strchr(change, ',');
	const json_t *num = json_object_get(ps, "number");
	char want[32];

	if (!comma)
		return !strcmp(bf_json_str_or(ps, "revision", ""), change);
	snprintf(want, sizeof(want), "%.20s", comma + 1);
	if (json_is_integer(num))
		return json_integer_value(num) == strtoll(want, NULL, 10);
	return !strcmp(bf_json_str_or(ps, "number", ""), want);
}

/* The files of change's patch set from `gerrit query` output; false if
 * the patch set is not in it. */
static bool parse_files(json_t *files, const struct bf_buf *out,
                        const char *change)
{
	bool found = false;

	for (size_t at = 0; at < out->len && !found;) {
		const char *nl = memchr(out->buf + at, '\n', out->len - at);
		size_t n = nl ? (size_t)(nl - out->buf) - at : out->len - at;
		json_t *row = json_loadb(out->buf + at, n, 0, NULL), *ps, *f;
		size_t i, j;

		at += n + 1;
		json_array_foreach(json_object_get(row, "patchSets"), i, ps)
		{
			if (found || !is_patch_set(ps, change))
				continue;
			found = true;
			json_array_foreach(json_object_get(ps, "files"), j, f)
			{
				json_t *name = json_object_get(f, "file");

				if (json_is_string(name))
					json_array_append(files, name);
			}
		}
		json_decref(row);
	}
	return found;
}

int bf_gerrit_change_files(json_t **files, const char *change,
                           const struct bf_report_opts *o,
                           const struct bf_host *h, struct bf_err *err)
{
	const char *comma = strchr(change, ',');
	struct bf_buf q = BF_BUF_INIT, out = BF_BUF_INIT;
	const char *argv[] = { "gerrit",       "query",   "--format", "JSON",
		               "--patch-sets", "--files", NULL,       NULL };
	int status = -1, ret;

	if (comma)
		bf_buf_addf(&q, "change:%.*s", (int)(comma - change), change);
	else
		bf_buf_addf(&q, "commit:%s", change);
	argv[6] = q.buf;
	*files = json_array();
	ret = h->ssh_run(o->gerrit, argv, NULL, 0, &out, &status, err);
	if (ret == BF_ETOOBIG) { /* too many patch sets: do without */
		bf_err_clear(err);
		status = -1;
		ret = 0;
	}
	if (ret)
		bf_err_prefix(err, "cannot post to Gerrit at %s:%d",
		              o->gerrit->host, port_of(o));
	else if ((status || !parse_files(*files, &out, change)) && h->log)
		h->log(BF_LOG_WARN,
		       "gerrit: cannot list the files of %s (gerrit query "
		       "exit status %d): the comments go to the patch "
		       "set level",
		       change, status);
	bf_buf_release(&q);
	bf_buf_release(&out);
	return ret;
}

int bf_gerrit_post(const char *review, const char *change,
                   const struct bf_report_opts *o, const struct bf_host *h,
                   struct bf_err *err)
{
	struct bf_buf answer = BF_BUF_INIT;
	const char *argv[] = { "gerrit", "review", "--json", change, NULL };
	int status = -1, ret;

	ret = h->ssh_run(o->gerrit, argv, review, strlen(review), &answer,
	                 &status, err);
	if (ret) {
		bf_err_prefix(err, "cannot post to Gerrit at %s:%d",
		              o->gerrit->host, port_of(o));
	} else if (status != 0) {
		struct bf_buf said = BF_BUF_INIT;

		/* Gerrit's "fatal: ..." is on stderr, which the host logs */
		bf_buf_rtrim(&answer);
		bf_gerrit_plain(&said, answer.buf, 300);
		ret = bf_err_set(err, BF_ERROR,
		                 "gerrit review of %s on %s:%d exited with "
		                 "status %d%s%s",
		                 change, o->gerrit->host, port_of(o), status,
		                 said.len ? ": " : "", said.buf);
		bf_buf_release(&said);
	} else if (h->log) {
		h->log(BF_LOG_INFO, "gerrit: posted the review of %s to %s:%d",
		       change, o->gerrit->host, port_of(o));
	}
	bf_buf_release(&answer);
	return ret;
}
