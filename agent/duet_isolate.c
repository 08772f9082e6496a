/*
 * Keeping a duet's runs apart (duet_isolate.h). A run's process leaves
 * the agent's namespaces before it runs: a new user namespace mapping
 * the agent's user and group onto themselves, in which
 * it may make a new PID and mount namespace; the first process of the
 * PID namespace mounts a /proc of its own, so that no process outside
 * is listed there or can be named by a number (kill, ptrace, pidfd
 * take numbers of the caller's namespace), then enters one more user
 * and mount namespace, which locks those mounts: even a benchmark that
 * is root in its namespace cannot unmount its /proc to find the host's
 * beneath. The cgroup mounts are hidden under an empty tmpfs there, so
 * that the run cannot move itself into another cgroup or widen its own
 * cpuset (a delegated cgroup's files belong to the benchmark's user).
 * The cpuset is a cgroup v2 directory beside the agent's cgroup, joined
 * before the namespaces; without one, the run is pinned to its core
 * and may not change its affinity (duet_pin.h).
 */
#define _GNU_SOURCE 1
#include "duet_isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "duet_pin.h"

/* The exit status of a namespace's first process that could not mount. */
#define NO_PROC_STATUS 125

int bf_duet_iso_mode_of(enum bf_duet_iso_mode *out, const char *s)
{
	static const char *const names[] = {
		[BF_DUET_ISO_NONE] = "none",
		[BF_DUET_ISO_BEST_EFFORT] = "best_effort",
		[BF_DUET_ISO_PROCESSES] = "processes",
		[BF_DUET_ISO_FULL] = "full",
	};

	if (!s) {
		*out = BF_DUET_ISO_BEST_EFFORT;
		return 0;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum bf_duet_iso_mode)i;
			return 0;
		}
	return BF_EINVAL;
}

/* s into path (O_WRONLY, no create); 0 or -1 with errno. */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)len ? 0 : -1;
}

/* The first line of path into buf, without its newline; 0 or -1. */
static int read_line(char *buf, size_t len, const char *path)
{
	FILE *f = fopen(path, "re");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* Where cgroup v2 is mounted, into dir; 0 or -1. */
static int cgroup2_mount(char *dir, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mnt[PATH_MAX];
	int ret = -1;

	while (f && ret && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - cgroup2 ");

		if (sep && sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    !strchr(mnt, '\\') &&
		    (size_t)snprintf(dir, len, "%s", mnt) < len)
			ret = 0;
	}
	if (f)
		fclose(f);
	return ret;
}

/* The agent's cgroup v2 path ("/a/b"), from /proc/self/cgroup; 0 or -1. */
static int own_cgroup(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	int ret = -1;

	while (f && ret && fgets(buf, (int)len, f))
		if (!strncmp(buf, "0::/", 4)) {
			buf[strcspn(buf, "\n")] = '\0';
			memmove(buf, buf + 3, strlen(buf + 3) + 1);
			ret = 0;
		}
	if (f)
		fclose(f);
	return ret;
}

int bf_duet_cpuset_parent(char *dir, size_t dirlen, char *why, size_t whylen)
{
	char mnt[PATH_MAX], own[PATH_MAX], ctl[PATH_MAX], path[PATH_MAX + 32];
	char *slash;

	if (cgroup2_mount(mnt, sizeof(mnt))) {
		snprintf(why, whylen, "no cgroup v2 is mounted");
		return -1;
	}
	if (own_cgroup(own, sizeof(own))) {
		snprintf(why, whylen, "the agent is in no cgroup v2 cgroup");
		return -1;
	}
	/* beside the agent's cgroup, or in the root when the agent is */
	slash = strrchr(own, '/');
	*slash = '\0';
	if ((size_t)snprintf(dir, dirlen, "%s%s", mnt, own) >= dirlen) {
		snprintf(why, whylen, "the cgroup path is too long");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if (read_line(ctl, sizeof(ctl), path) || !strstr(ctl, "cpuset") ||
	    access(path, W_OK)) {
		snprintf(why, whylen,
		         "cgroup v2 delegates no cpuset to the agent ('%s' has "
		         "no writable cpuset in cgroup.subtree_control; cgroup "
		         "v1 cpusets are not used)",
		         dir);
		return -1;
	}
	return 0;
}

/* The cgroup of run index of agent under parent, into path. */
static int cpuset_dir(char *path, size_t len, const char *parent, pid_t agent,
                      int index)
{
	return (size_t)snprintf(path, len, "%s/benchfarm-duet-%ld-%d", parent,
	                        (long)agent, index) < len
	               ? 0
	               : -1;
}

/* Into a new cpuset of cpu under parent; 0, or -1 with why. */
static int cpuset_join(const char *parent, int cpu, int index, char *why,
                       size_t whylen)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], mems[256], num[32];
	const char *step = "mkdir";

	if (cpuset_dir(dir, sizeof(dir), parent, getppid(), index))
		goto fail;
	rmdir(dir);
	snprintf(path, sizeof(path), "%s/cpuset.mems.effective", parent);
	if (mkdir(dir, 0700) || read_line(mems, sizeof(mems), path))
		goto fail;
	snprintf(num, sizeof(num), "%d", cpu);
	snprintf(path, sizeof(path), "%s/cpuset.cpus", dir);
	step = "cpuset.cpus";
	if (write_file(path, num))
		goto fail;
	snprintf(path, sizeof(path), "%s/cpuset.mems", dir);
	step = "cpuset.mems";
	if (write_file(path, mems))
		goto fail;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	step = "cgroup.procs";
	if (write_file(path, "0"))
		goto fail;
	return 0;
fail:
	/* a long parent's name may be cut: the step and errno stay first */
	if (snprintf(why, whylen,
	             "cannot make a cpuset of CPU %d (%s: %s) in "
	             "'%s'",
	             cpu, step, strerror(errno), parent) >= (int)whylen)
		why[whylen - 1] = '\0';
	return -1;
}

void bf_duet_cpuset_remove(int index)
{
	char parent[PATH_MAX], dir[PATH_MAX], why[200];

	if (!bf_duet_cpuset_parent(parent, sizeof(parent), why, sizeof(why)) &&
	    !cpuset_dir(dir, sizeof(dir), parent, getpid(), index))
		rmdir(dir);
}

/*
 * A new user namespace (with flags' others) mapping uid and gid onto
 * themselves; 0, or -1 with why. From inside, a process may map only
 * its own ids, one each: other users' files show as the overflow id.
 */
static int new_userns(int flags, uid_t uid, gid_t gid, char *why, size_t whylen)
{
	char map[64];
	const char *step = "unshare";

	if (unshare(CLONE_NEWUSER | flags))
		goto fail;
	/* gid_map needs setgroups denied where the writer is no root */
	if (write_file("/proc/self/setgroups", "deny") && errno != ENOENT) {
		step = "setgroups";
		goto fail;
	}
	snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)uid,
	         (unsigned long)uid);
	step = "uid_map";
	if (write_file("/proc/self/uid_map", map))
		goto fail;
	snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)gid,
	         (unsigned long)gid);
	step = "gid_map";
	if (write_file("/proc/self/gid_map", map))
		goto fail;
	return 0;
fail:
	snprintf(why, whylen, "cannot make a user namespace (%s: %s)", step,
	         strerror(errno));
	return -1;
}

/* Every cgroup mount under an empty read-only tmpfs; 0 or -1. */
static int hide_cgroups(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mnt[PATH_MAX];
	int ret = f ? 0 : -1;

	while (f && !ret && fgets(line, sizeof(line), f)) {
		if (!strstr(line, " - cgroup2 ") && !strstr(line, " - cgroup "))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    !strchr(mnt, '\\') &&
		    mount("none", mnt, "tmpfs",
		          MS_RDONLY | MS_NOSUID | MS_NODEV,
		          "size=4k,mode=0555"))
			ret = -1;
	}
	if (f)
		fclose(f);
	return ret;
}

/*
 * In the PID namespace's first process: its /proc, the cgroup files
 * hidden (cores), then the locking namespaces; false with why.
 */
static bool enter_pid1(struct bf_duet_iso *out, uid_t uid, gid_t gid, int cpu)
{
	bool hidden;

	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	          NULL))
		_exit(NO_PROC_STATUS);
	hidden = !hide_cgroups();
	if (!hidden) {
		out->cores = false;
		snprintf(out->cores_why, sizeof(out->cores_why),
		         "cannot hide the cgroup files from the run (%s)",
		         strerror(errno));
	}
	if (new_userns(CLONE_NEWNS, uid, gid, out->processes_why,
	               sizeof(out->processes_why)))
		return false;
	/* no cpuset: its affinity, which it may no longer change */
	if (hidden && !out->cores) {
		out->pinned = !bf_duet_pin(cpu, out->cores_why,
		                           sizeof(out->cores_why));
		out->cores = out->pinned;
	}
	return true;
}

/* The process that made the PID namespace: wait for its first one. */
static void wait_pid1(struct bf_duet_iso *out, pid_t pid)
{
	int st = 0;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == NO_PROC_STATUS) {
		/* nothing ran: the run is this process's, in the host's PIDs */
		out->processes = false;
		snprintf(out->processes_why, sizeof(out->processes_why),
		         "cannot mount a /proc of its own in a new PID and "
		         "mount namespace (a container's masked /proc?)");
		if (out->cores) {
			out->cores = false;
			snprintf(out->cores_why, sizeof(out->cores_why),
			         "its cpuset's files cannot be hidden from it");
		}
		return;
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

void bf_duet_isolate(struct bf_duet_iso *out, enum bf_duet_iso_mode mode,
                     int cpu, int index)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char parent[PATH_MAX];
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (mode == BF_DUET_ISO_NONE) {
		snprintf(out->processes_why, sizeof(out->processes_why),
		         "runs.duet_isolation: none");
		snprintf(out->cores_why, sizeof(out->cores_why),
		         "runs.duet_isolation: none");
		return;
	}
	if (!bf_duet_cpuset_parent(parent, sizeof(parent), out->cores_why,
	                           sizeof(out->cores_why)))
		out->cores = !cpuset_join(parent, cpu, index, out->cores_why,
		                          sizeof(out->cores_why));
	if (new_userns(CLONE_NEWPID | CLONE_NEWNS, uid, gid, out->processes_why,
	               sizeof(out->processes_why)))
		goto no_processes;
	/* a change of propagation: source and type are ignored ("none":
	 * valgrind reads them as strings) */
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL)) {
		snprintf(out->processes_why, sizeof(out->processes_why),
		         "cannot make its mounts private (%s)",
		         strerror(errno));
		goto no_processes;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(out->processes_why, sizeof(out->processes_why),
		         "cannot start a PID namespace (fork: %s)",
		         strerror(errno));
		goto no_processes;
	}
	if (pid > 0) {
		wait_pid1(out, pid);
		return;
	}
	out->processes = enter_pid1(out, uid, gid, cpu);
	if (out->processes)
		return;
no_processes:
	if (out->cores) {
		out->cores = false;
		snprintf(
		        out->cores_why, sizeof(out->cores_why),
		        "its cpuset's files cannot be hidden from it without a "
		        "mount namespace");
	}
}

json_t *bf_duet_iso_json(const struct bf_duet_iso *out, int64_t id)
{
	json_t *o = json_pack("{s:s, s:I, s:b, s:b}", "type", "isolation", "id",
	                      (json_int_t)id, "processes", out->processes,
	                      "cores", out->cores);

	if (!out->processes)
		json_object_set_new(o, "processes_why",
		                    json_string(out->processes_why));
	if (!out->cores)
		json_object_set_new(o, "cores_why",
		                    json_string(out->cores_why));
	return o;
}

bool bf_duet_iso_is_short(const struct bf_duet_iso *out,
                          enum bf_duet_iso_mode mode, char *msg, size_t msglen)
{
	if (mode >= BF_DUET_ISO_PROCESSES && !out->processes) {
		snprintf(msg, msglen,
		         "runs.duet_isolation: %s needs each side in its own "
		         "PID namespace, and this device cannot: %s",
		         mode == BF_DUET_ISO_FULL ? "full" : "processes",
		         out->processes_why);
		return true;
	}
	if (mode == BF_DUET_ISO_FULL && !out->cores) {
		snprintf(
		        msg, msglen,
		        "runs.duet_isolation: full needs each side held on its "
		        "core, and this device cannot: %s",
		        out->cores_why);
		return true;
	}
	return false;
}
