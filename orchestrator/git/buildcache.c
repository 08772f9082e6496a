#include "git/buildcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/sha256.h"
#include "config/cfg.h"

/*
 * Open file description locks (Linux 3.15): they belong to the open
 * file, so two locks of one process conflict like those of two, and
 * the kernel drops them when the process dies. The constants are the
 * kernel's ABI; <fcntl.h> shows them only under _GNU_SOURCE.
 */
#ifndef F_OFD_GETLK
#define F_OFD_GETLK  36
#define F_OFD_SETLK  37
#define F_OFD_SETLKW 38
#endif

/* Bumped when the layout or the meaning of a key changes. */
#define CACHE_LAYOUT 1

extern char **environ;

const char *const bf_buildcache_env_names[] = { "PATH",
	                                        "CC",
	                                        "CXX",
	                                        "CPP",
	                                        "CFLAGS",
	                                        "CXXFLAGS",
	                                        "CPPFLAGS",
	                                        "LDFLAGS",
	                                        "LDLIBS",
	                                        "LIBS",
	                                        "AR",
	                                        "AS",
	                                        "LD",
	                                        "NM",
	                                        "RANLIB",
	                                        "STRIP",
	                                        "OBJCOPY",
	                                        "FC",
	                                        "FFLAGS",
	                                        "MAKEFLAGS",
	                                        "MFLAGS",
	                                        "GNUMAKEFLAGS",
	                                        "MAKEFILES",
	                                        "CPATH",
	                                        "C_INCLUDE_PATH",
	                                        "CPLUS_INCLUDE_PATH",
	                                        "LIBRARY_PATH",
	                                        "PKG_CONFIG",
	                                        "PKG_CONFIG_PATH",
	                                        "PKG_CONFIG_LIBDIR",
	                                        "PKG_CONFIG_SYSROOT_DIR",
	                                        "SOURCE_DATE_EPOCH",
	                                        "RUSTC",
	                                        "RUSTFLAGS",
	                                        "GOFLAGS",
	                                        "GOOS",
	                                        "GOARCH",
	                                        "GOAMD64",
	                                        "GOARM",
	                                        "GOROOT",
	                                        "GOTOOLCHAIN",
	                                        "JAVA_HOME",
	                                        "ANDROID_HOME",
	                                        "ANDROID_SDK_ROOT",
	                                        "ANDROID_NDK_HOME",
	                                        "ANDROID_NDK_ROOT",
	                                        "BENCHFARM_BUILD_ENV",
	                                        "CMAKE_*",
	                                        "CARGO_*",
	                                        "CGO_*",
	                                        NULL };

int bf_buildcache_dir(char **out, struct bf_err *err)
{
	char *cache = NULL;
	int ret;

	if ((ret = bf_fs_cache_dir(&cache, err)))
		return ret;
	*out = bf_xasprintf("%s/builds", cache);
	free(cache);
	if ((ret = bf_fs_mkdirs(*out, 0700, err)))
		BF_FREE(*out);
	return ret;
}

/* name (len bytes) is in the comma-separated list, or NULL list. */
static bool in_list(const char *list, const char *name, size_t len)
{
	const char *p = list;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static bool is_build_var(const char *name, size_t len)
{
	for (const char *const *n = bf_buildcache_env_names; *n; n++) {
		size_t k = strlen(*n);

		if ((*n)[k - 1] == '*'
		            ? len >= k - 1 && !strncmp(*n, name, k - 1)
		            : len == k && !strncmp(*n, name, k))
			return true;
	}
	return in_list(getenv("BENCHFARM_BUILD_ENV"), name, len);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every set build variable as "NAME=VALUE", sorted. */
/*
 * A make flags variable (MAKEFLAGS, MFLAGS, GNUMAKEFLAGS) without its
 * parallelism words (-jN, --jobs=N, --jobserver-auth=..., --jobserver-
 * fds=...): they say how many jobs build, not what is built, and a make
 * running benchfarm under -j hands down a jobserver that can differ on
 * every run (GNU make 4.4 names a fresh FIFO), which would defeat the
 * cache. Caller frees.
 */
static char *make_flags_input(const char *var)
{
	struct bf_buf b = BF_BUF_INIT;
	const char *eq = strchr(var, '=') + 1, *w = eq;

	bf_buf_add(&b, var, (size_t)(eq - var));
	while (*w) {
		size_t n = strcspn(w, " \t");

		if (n && strncmp(w, "-j", 2) && strncmp(w, "--jobs", 6) &&
		    strncmp(w, "--jobserver-", 12)) {
			if (b.buf[b.len - 1] != '=')
				bf_buf_addch(&b, ' ');
			bf_buf_add(&b, w, n);
		}
		w += n;
		w += strspn(w, " \t");
	}
	return bf_buf_detach(&b, NULL);
}

static bool is_make_flags(const char *name, size_t len)
{
	return (len == 9 && !strncmp(name, "MAKEFLAGS", 9)) ||
	       (len == 6 && !strncmp(name, "MFLAGS", 6)) ||
	       (len == 12 && !strncmp(name, "GNUMAKEFLAGS", 12));
}

static json_t *env_inputs(void)
{
	struct bf_argv vars = BF_ARGV_INIT;
	json_t *env;

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *flags;

		if (!eq || !is_build_var(*e, (size_t)(eq - *e)))
			continue;
		if (!is_make_flags(*e, (size_t)(eq - *e))) {
			bf_argv_push(&vars, *e);
			continue;
		}
		flags = make_flags_input(*e);
		bf_argv_push(&vars, flags);
		free(flags);
	}
	if (vars.argc)
		qsort(vars.argv, vars.argc, sizeof(*vars.argv), cmp_str);
	env = bf_json_argv(&vars);
	bf_argv_release(&vars);
	return env;
}

json_t *bf_buildcache_inputs(const char *tree, const struct bf_cfg *cfg)
{
	return json_pack(
	        "{s:i, s:s, s:o, s:o, s:o}", "version", CACHE_LAYOUT, "tree",
	        tree, "build", bf_json_argv(&cfg->project.build), "artifacts",
	        bf_json_argv(&cfg->project.artifacts), "env", env_inputs());
}

void bf_buildcache_key(char out[BF_BUILDCACHE_KEY_LEN + 1],
                       const json_t *inputs)
{
	unsigned char d[BF_SHA256_LEN];
	char *text = json_dumps(inputs, JSON_COMPACT | JSON_SORT_KEYS);

	if (!text)
		BF_BUG("cannot serialise the build inputs");
	bf_sha256(d, text, strlen(text));
	bf_sha256_hex(out, d);
	free(text);
}

static int set_lock(int fd, short type, bool wait)
{
	struct flock fl;
	int rc;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = 0;
	fl.l_len = 1;
	do
		rc = fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl);
	while (rc < 0 && errno == EINTR);
	return rc;
}

/* The lock is on the file now at path (not one a prune unlinked). */
static bool is_current(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int bf_buildcache_lock(int *fd_out, const char *dir, const char *key,
                       short type, bool wait, struct bf_err *err)
{
	char *path = bf_xasprintf("%s/%s.lock", dir, key);
	int fd = -1, ret = 0;

	for (;;) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0) {
			ret = bf_err_sys(err, "cannot open the lock file '%s'",
			                 path);
			break;
		}
		if (set_lock(fd, type, wait) < 0) {
			if (errno == EAGAIN || errno == EACCES)
				ret = bf_err_set(err, BF_EBUSY,
				                 "'%s' is in use", path);
			else
				ret = bf_err_sys(err, "cannot lock '%s'", path);
			close(fd);
			break;
		}
		if (is_current(fd, path)) {
			*fd_out = fd;
			break;
		}
		close(fd);
	}
	free(path);
	return ret;
}

int bf_buildcache_relock(int fd, short type, struct bf_err *err)
{
	if (set_lock(fd, type, true) < 0)
		return bf_err_sys(err, "cannot change a build cache lock");
	return 0;
}

bool bf_buildcache_is_locked(const char *lock_path)
{
	struct flock fl;
	int fd = open(lock_path, O_RDONLY | O_CLOEXEC);
	bool locked = false;

	if (fd < 0)
		return false;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_len = 1;
	if (!fcntl(fd, F_OFD_GETLK, &fl))
		locked = fl.l_type != F_UNLCK;
	close(fd);
	return locked;
}
