#include "unit/cfg/expect.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/err.h"

int load(struct bf_cfg *cfg, const char *text, struct bf_err *err)
{
	return bf_cfg_load_string(cfg, "t.yaml", text, strlen(text), err);
}

void load_ok(struct bf_cfg *cfg, const char *text)
{
	struct bf_err err = BF_ERR_INIT;

	if (load(cfg, text, &err)) {
		print_error("unexpected error: %s\nfor:\n%s\n", err.msg, text);
		fail();
	}
}

void expect_error(const char *text, const char *where, const char *what)
{
	struct bf_cfg cfg;
	struct bf_err err = BF_ERR_INIT;
	int ret = load(&cfg, text, &err);

	if (ret != BF_EINVAL || err.code != BF_EINVAL ||
	    strncmp(err.msg, where, strlen(where)) || !strstr(err.msg, what)) {
		print_error("for:\n%s\ngot %d '%s'\nwant '%s' ... '%s'\n", text,
		            ret, err.msg, where, what);
		fail();
	}
	assert_null(cfg.path);
	assert_null(cfg.benchmarks);
	assert_null(cfg.report.argv);
	assert_int_equal(cfg.nbenchmarks, 0);
}
