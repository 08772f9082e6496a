#ifndef BF_DEVFS_H
#define BF_DEVFS_H

#include "benchfarm/argv.h"
#include "benchfarm/buf.h"
#include "benchfarm/common.h"

struct bf_err;

/*
 * How the agent reads a device's /sys and /proc: through a sysroot (a
 * directory standing for "/", so fixture trees can replace the real
 * ones) or through `adb -s SERIAL shell` for an Android device reached
 * from a lab host. Every probe goes through this interface, so probes
 * are the same code for both and for tests.
 *
 * Paths are absolute device paths ("/sys/class/thermal"). A missing file
 * is BF_ENOTFOUND ("not available on this device"), never a crash; an
 * unreadable one BF_ESYS; one over the size cap BF_ETOOBIG.
 */
#define BF_DEVFS_FILE_MAX (1024 * 1024)

struct bf_devfs_ops {
	const char *name; /* "local", "adb" */
	/* Append the file's content to out. */
	int (*read)(void *state, const char *path, struct bf_buf *out,
	            struct bf_err *err);
	/* The names in directory dir, sorted, without "." and "..". */
	int (*list)(void *state, const char *dir, struct bf_argv *names,
	            struct bf_err *err);
	/* Replace the file's content (sysfs writes: governor, frequencies). */
	int (*write)(void *state, const char *path, const char *data,
	             struct bf_err *err);
	/*
	 * Run a device command (adb: `shell dumpsys battery`); its stdout
	 * into out. BF_ENOTFOUND where the backend has no commands (local).
	 */
	int (*command)(void *state, const char *const *argv, struct bf_buf *out,
	               struct bf_err *err);
	void (*free)(void *state);
};

struct bf_devfs {
	const struct bf_devfs_ops *ops;
	void *state;
	char *desc; /* "sysroot '/'" or "adb device 'SERIAL'", for messages */
};

/* A sysroot: root "/" is this machine. Caller frees with bf_devfs_free. */
int bf_devfs_open_local(struct bf_devfs **out, const char *root,
                        struct bf_err *err);

/*
 * An Android device through `adb -s serial` (adb found on PATH, or
 * $BENCHFARM_ADB). Implemented in devfs_adb.c.
 */
int bf_devfs_open_adb(struct bf_devfs **out, const char *serial,
                      struct bf_err *err);

/*
 * bf_devfs_command() on an adb devfs with a caller-chosen timeout, for
 * commands longer than the backend's 30 s (a benchmark run), and an
 * output cap of out->max (0: 1 MiB). Each argv word must be of
 * [A-Za-z0-9_./:=,+@%-] (BF_EINVAL before adb runs). BF_EINVAL when fs
 * is not an adb devfs. Implemented in devfs_adb.c.
 */
int bf_devfs_adb_command(struct bf_devfs *fs, const char *const *argv,
                         double timeout_s, struct bf_buf *out,
                         struct bf_err *err);

void bf_devfs_free(struct bf_devfs *fs);

/* The ops, with messages naming fs->desc and the path. */
int bf_devfs_read(struct bf_devfs *fs, const char *path, struct bf_buf *out,
                  struct bf_err *err);
int bf_devfs_list(struct bf_devfs *fs, const char *dir, struct bf_argv *names,
                  struct bf_err *err);
int bf_devfs_write(struct bf_devfs *fs, const char *path, const char *data,
                   struct bf_err *err);
int bf_devfs_command(struct bf_devfs *fs, const char *const *argv,
                     struct bf_buf *out, struct bf_err *err);

/*
 * Read a file holding one integer (sysfs style, trailing newline ok).
 * Garbage is BF_EINVAL "PATH: 'TEXT' is not an integer".
 */
int bf_devfs_read_i64(int64_t *out, struct bf_devfs *fs, const char *path,
                      struct bf_err *err);
/* Read a one-line file, trimmed, into a new string the caller frees. */
int bf_devfs_read_line(char **out, struct bf_devfs *fs, const char *path,
                       struct bf_err *err);

#endif /* BF_DEVFS_H */
