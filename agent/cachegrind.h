#ifndef BF_AGENT_CACHEGRIND_H
#define BF_AGENT_CACHEGRIND_H

#include "benchfarm/argv.h"
#include "benchfarm/json.h"

struct bf_err;

/*
 * `measure: instructions`: the benchmark runs under Valgrind's
 * cachegrind, which counts the instructions it executes and simulates
 * its caches; the counts do not depend on the machine's load or clock,
 * so a few runs per side are enough. The run's metrics are the totals
 * of the "summary:" line of cachegrind's output file.
 */
struct bf_cg_totals {
	double instructions; /* Ir */
	double i1_misses; /* I1mr */
	double d1_misses; /* D1mr + D1mw */
	double ll_misses; /* ILmr + DLmr + DLmw */
};

/* The Debian/Ubuntu package that has valgrind, for error messages. */
#define BF_CG_PACKAGE "valgrind"

/*
 * valgrind's argv around cmd: the program "valgrind" (from PATH),
 * --tool=cachegrind --cache-sim=yes --cachegrind-out-file=OUT_FILE,
 * then cmd's words as they are.
 */
void bf_cg_argv(struct bf_argv *out, const char *out_file,
                const struct bf_argv *cmd);

/*
 * The totals of a cachegrind output file's text: its "events:" line
 * names the columns of its "summary:" line. BF_EINVAL naming what and
 * the missing line or event (Ir is required; the cache events need
 * --cache-sim=yes).
 */
int bf_cg_parse(struct bf_cg_totals *out, const char *text, size_t len,
                const char *what, struct bf_err *err);

/* The totals as a result's "counters" array (see counters.h). */
json_t *bf_cg_json(const struct bf_cg_totals *t);

#endif /* BF_AGENT_CACHEGRIND_H */
