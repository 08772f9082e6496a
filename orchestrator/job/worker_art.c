#include "job/worker.h"

#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"
#include "benchfarm/regfile.h"
#include "farm/ssh.h"
#include "job/presubmit_int.h"

/*
 * After a failed upload: is the local file no longer what was checked
 * (gone, swapped for a link or a FIFO, too big, other content)? Then
 * the failure is the job's (its build), not the device's.
 */
static bool local_changed(const struct bf_artifact_file *f)
{
	unsigned char d[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1];
	struct stat st;
	int fd = -1, ret;

	if (bf_regfile_open(&fd, &st, f->real, BF_REGFILE_MAX, "artifact",
	                    NULL))
		return true;
	ret = bf_regfile_sha256(d, fd, (uint64_t)st.st_size, f->real, NULL);
	close(fd);
	if (ret)
		return true;
	bf_sha256_hex(hex, d);
	return strcmp(hex, f->hex) != 0;
}

static int upload_file(bool *sent, struct bf_worker *w,
                       const struct bf_artifact_file *f, const char *remote,
                       struct bf_err *err)
{
	int ret = bf_ssh_upload_to(sent, w->ssh, f->real, f->hex, remote, err);

	if (ret && local_changed(f))
		w->job_fault = true;
	return ret;
}

/*
 * An artifact goes to ROOT/SHA256/BASENAME: a file's SHA-256, or a
 * directory's over its files' paths, modes and contents with the tree
 * under BASENAME as in the export; a changed file gives a new
 * directory. *remote_out is ROOT/SHA256/BASENAME (caller frees).
 */
static int upload_one(char **remote_out, struct bf_worker *w,
                      const struct bf_artifact *a, const char *root,
                      struct bf_err *err)
{
	const char *base = strrchr(a->name, '/');
	char *top = bf_xasprintf("%s/%s/%s", root, a->hex,
	                         base ? base + 1 : a->name);
	size_t sent = 0;
	bool up = false;
	int ret = 0;

	if (!a->is_dir) {
		ret = upload_file(&up, w, &a->file, top, err);
		sent = up;
	}
	for (size_t i = 0; a->is_dir && !ret && i < a->files.argc; i++) {
		char *remote = bf_xasprintf("%s/%s", top, a->files.argv[i]);

		ret = upload_file(&up, w, &a->under[i], remote, err);
		sent += up;
		free(remote);
	}
	if (!ret && a->is_dir)
		BF_LOG_INFO("%s: %s: %zu of %zu files uploaded to %s", w->name,
		            a->name, sent, a->files.argc, top);
	else if (!ret)
		BF_LOG_INFO("%s: %s %s", w->name,
		            sent ? "uploaded" : "already has", top);
	if (!ret)
		*remote_out = top;
	else
		free(top);
	return ret;
}

/* What the agent checks before a run: {"path", "sha256", "tree"}. */
static json_t *verify_entry(const struct bf_artifact *a, const char *remote)
{
	json_t *o = json_pack("{s:s, s:s, s:b}", "path", remote, "sha256",
	                      a->hex, "tree", a->is_dir);

	if (!a->is_dir)
		json_object_set_new(o, "size",
		                    json_integer((json_int_t)a->file.size));
	return o;
}

/*
 * Upload the artifacts of each side the job measures once per
 * connection, into the device's work directory, resolved to an
 * absolute path first: the runs' cwd and the artifact paths in their
 * argv are then absolute, and a relative --workdir (the default) means
 * the same directory to SFTP and to the agent. A postsubmit record
 * measures (and prepares) one side only, the commit's.
 */
int bf_worker__upload_artifacts(struct bf_worker *w, struct bf_err *err)
{
	const struct bf_job *job = w->job;
	const char *dir =
	        w->dev.workdir ? w->dev.workdir : BF_DEVICE_WORKDIR_DEFAULT;
	char *root = NULL;
	int ret;

	BF_FREE(w->remote_cwd);
	if ((ret = bf_ssh_workdir(&w->remote_cwd, w->ssh, dir, err)))
		return ret;
	root = bf_xasprintf("%s/artifacts", w->remote_cwd);
	for (int s = job->record ? 1 : 0; s < 2 && !ret; s++) {
		const struct bf_artifacts *arts = &job->arts[s];

		bf_argv_release(&w->art_local[s]);
		bf_argv_release(&w->art_remote[s]);
		json_decref(w->art_verify[s]);
		w->art_verify[s] = json_array();
		if (!job->side[s].dir)
			BF_BUG("side %d was not prepared", s);
		for (size_t i = 0; i < arts->n && !ret; i++) {
			char *remote = NULL;

			ret = upload_one(&remote, w, &arts->v[i], root, err);
			if (ret)
				break;
			bf_argv_push(&w->art_local[s], arts->v[i].name);
			bf_argv_push(&w->art_remote[s], remote);
			json_array_append_new(
			        w->art_verify[s],
			        verify_entry(&arts->v[i], remote));
			free(remote);
		}
	}
	free(root);
	return ret;
}
