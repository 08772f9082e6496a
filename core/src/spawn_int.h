#ifndef BF_SPAWN_INT_H
#define BF_SPAWN_INT_H

#include <sys/types.h>

#include "benchfarm/spawn.h"

/*
 * Shared by spawn.c, spawn_child.c and spawn_exec.c only. The calls go
 * one way: spawn.c (a program run to completion) and spawn_child.c (a
 * long-running child) start children with spawn_exec.c, which calls
 * neither.
 */

/*
 * syscall() is declared exactly as glibc and musl do: it is hidden by
 * -D_POSIX_C_SOURCE, and the build does not define _GNU_SOURCE. Two
 * kernel interfaces are called raw through it. CPU affinity:
 * sched_setaffinity() and cpu_set_t are GNU extensions, and declaring
 * sched_setaffinity ourselves would need a made-up cpu_set_t, a
 * prototype no C library has, while the kernel interface behind it is
 * stable (a mask of unsigned longs and its length in bytes). And
 * pidfd_open (SYS_pidfd_open, where the kernel headers define it),
 * whose wrapper older C libraries lack.
 */
long syscall(long number, ...);

#define BF_SPAWN_MASK_WORD_BITS (8 * sizeof(unsigned long))
#define BF_SPAWN_MASK_WORDS     (BF_SPAWN_CPUS_MAX / BF_SPAWN_MASK_WORD_BITS)

/* Prepared in the parent: the child must not allocate. */
struct bf_spawn_child_setup {
	const unsigned long
	        *mask; /* affinity, BF_SPAWN_MASK_WORDS words; or NULL */
	bool set_nice;
	int nice;
	/*
	 * -1, or a pipe (close-on-exec) the child waits on before exec:
	 * it closes go_wr and reads go_rd until the parent closes its end.
	 */
	int go_rd, go_wr;
};

/*
 * environ plus set (NULL-terminated, may be NULL), later entries
 * overriding earlier ones. Caller frees the array, not its strings
 * (borrowed from environ and set). Cannot fail (aborts on OOM).
 */
char **bf_spawn__env(const char *const *set);

/*
 * In the child after fork: become a process group of its own, take
 * in_fd, out_fd and err_fd as 0, 1 and 2, change to opts->cwd, take
 * cs's affinity and niceness, and exec opts->argv with env. Never
 * returns: when a step fails, it writes which one and errno to
 * status_fd (close-on-exec, so exec closes it) and exits 127.
 */
BF_NORETURN void bf_spawn__exec_child(const struct bf_spawn_opts *opts,
                                      char **env,
                                      const struct bf_spawn_child_setup *cs,
                                      int in_fd, int out_fd, int err_fd,
                                      int status_fd);

/*
 * In the parent: the child's report on status_fd (read once its write
 * end is closed here) as an error naming opts->argv[0] and the step:
 * BF_ENOTFOUND for a program that does not exist, BF_ESYS otherwise;
 * 0 when the child exec'd.
 */
int bf_spawn__child_failed(int status_fd, const struct bf_spawn_opts *opts,
                           struct bf_err *err);

/*
 * The affinity mask of opts->cpus into mask (BF_SPAWN_MASK_WORDS
 * words). BF_EINVAL naming a CPU out of range.
 */
int bf_spawn__cpu_mask(unsigned long *mask, const struct bf_spawn_opts *opts,
                       struct bf_err *err);

/* A close-on-exec pipe into fds; BF_ESYS. */
int bf_spawn__pipe(int fds[2], struct bf_err *err);

/* Close *fd when open; *fd is -1 afterwards. */
void bf_spawn__close(int *fd);

#endif /* BF_SPAWN_INT_H */
