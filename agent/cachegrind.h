#ifndef BF_AGENT_CACHEGRIND_H
#define BF_AGENT_CACHEGRIND_H

#include "benchfarm/argv.h"
#include "benchfarm/json.h"

struct bf_err;

/*
 * `measure: instructions`: the benchmark runs under Valgrind's
 * cachegrind, which counts the instructions it executes and simulates
 * its caches; the counts do not depend on the machine's load or clock,
 * so a few runs per side are enough. Every process of the run is
 * counted: a forked child (which cachegrind follows) and an exec'd
 * program (--trace-children=yes) each write a file of their own,
 * DIR/cg.out.PID, and the run's metrics are the sums of the "summary:"
 * lines of all of them. A process killed before it exits (one the run
 * left behind, killed when the run ends) writes none and is not
 * counted; valgrind writes no count at an exec either, so the work a
 * process did before it exec'd is lost: the benchmark's own process
 * must end as the program it was given (bf_cg_read_dir refuses the run
 * otherwise), a child's cannot be checked.
 */
struct bf_cg_totals {
	double instructions; /* Ir */
	double i1_misses; /* I1mr */
	double d1_misses; /* D1mr + D1mw */
	double ll_misses; /* ILmr + DLmr + DLmw */
};

/* The Debian/Ubuntu package that has valgrind, for error messages. */
#define BF_CG_PACKAGE "valgrind"

/* The name of each process's output file is this, then its pid. */
#define BF_CG_FILE_PREFIX "cg.out."
/* At most this many processes' files, each at most this long, a run. */
#define BF_CG_FILES_MAX 4096
#define BF_CG_FILE_MAX  (64u * 1024 * 1024)

/*
 * valgrind's argv around cmd: the program "valgrind" (from PATH),
 * --tool=cachegrind --cache-sim=yes --trace-children=yes
 * --cachegrind-out-file=DIR/cg.out.%p, then cmd's words as they are.
 */
void bf_cg_argv(struct bf_argv *out, const char *dir,
                const struct bf_argv *cmd);

/*
 * The totals of a cachegrind output file's text: its "events:" line
 * names the columns of its "summary:" line. BF_EINVAL naming what and
 * the missing line or event (Ir is required; the cache events need
 * --cache-sim=yes).
 */
int bf_cg_parse(struct bf_cg_totals *out, const char *text, size_t len,
                const char *what, struct bf_err *err);

/* Adds t's counts to sum's. */
void bf_cg_totals_add(struct bf_cg_totals *sum, const struct bf_cg_totals *t);

/*
 * The sum of the totals of every process's file in dir (the files
 * named BF_CG_FILE_PREFIX and a pid; nothing else there is read). When
 * top is not 0 it is the benchmark's own pid: its file must be there
 * and its "cmd:" line must be cmd_line (the command's words joined by
 * blanks, as cachegrind writes them), else the process exec'd another
 * program, losing its count before the exec, and the run is refused
 * (BF_ENOTFOUND, BF_EINVAL). Also BF_ENOTFOUND when there is no file,
 * BF_ETOOBIG beyond BF_CG_FILES_MAX files or a file beyond
 * BF_CG_FILE_MAX, else bf_cg_parse's error naming the file; *out is set
 * only on success.
 */
int bf_cg_read_dir(struct bf_cg_totals *out, const char *dir, long top,
                   const char *cmd_line, struct bf_err *err);

/* The totals as a result's "counters" array (see counters.h). */
json_t *bf_cg_json(const struct bf_cg_totals *t);

#endif /* BF_AGENT_CACHEGRIND_H */
