#ifndef BF_TEST_CFG_EXPECT_H
#define BF_TEST_CFG_EXPECT_H

#include "config/cfg.h"

/*
 * Loading a config's text in the config tests, named "t.yaml" in
 * messages, and what must come of it.
 */

/* A valid head: sections appended to it start at line 7. */
#define HEAD                \
	"version: 1\n"      \
	"project:\n"        \
	"  repo: .\n"       \
	"benchmarks:\n"     \
	"  - name: micro\n" \
	"    command: [./micro]\n"

/* Load text into cfg as bf_cfg_load_string does. */
int load(struct bf_cfg *cfg, const char *text, struct bf_err *err);

/* text must load; the test fails with the error otherwise. */
void load_ok(struct bf_cfg *cfg, const char *text);

/*
 * text must fail with BF_EINVAL, a message starting "t.yaml:LINE:COL: "
 * (where) and containing what; cfg must come back released.
 */
void expect_error(const char *text, const char *where, const char *what);

#endif /* BF_TEST_CFG_EXPECT_H */
