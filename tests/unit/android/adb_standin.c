#include "unit/android/adb_standin.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "probe/devfs.h"

#define STANDIN "tests/fixtures/adb/adb"

int adb_standin_setup(void **state)
{
	struct adb_standin *e = bf_xcalloc(1, sizeof(*e));
	char cwd[PATH_MAX], *adb;

	if (!getcwd(cwd, sizeof(cwd)) || access(STANDIN, X_OK)) {
		fprintf(stderr,
		        "cannot find %s (run from the repository root)\n",
		        STANDIN);
		free(e);
		return -1;
	}
	snprintf(e->dir, sizeof(e->dir), "/tmp/bf-android.XXXXXX");
	if (!mkdtemp(e->dir)) {
		free(e);
		return -1;
	}
	snprintf(e->log, sizeof(e->log), "%s/log", e->dir);
	adb = bf_fs_join(cwd, STANDIN);
	setenv("BENCHFARM_ADB", adb, 1);
	free(adb);
	setenv("BF_ADB_STATE", e->dir, 1);
	setenv("BF_ADB_LOG", e->log, 1);
	unsetenv("BF_ADB_SCENARIO");
	*state = e;
	return 0;
}

int adb_standin_teardown(void **state)
{
	struct adb_standin *e = *state;

	bf_fs_rmtree(e->dir, NULL);
	free(e);
	return 0;
}

char *adb_log(const struct adb_standin *e)
{
	struct bf_buf b = BF_BUF_INIT;

	bf_buf_read_file(&b, e->log, NULL);
	return bf_buf_detach(&b, NULL);
}

size_t adb_calls(const struct adb_standin *e)
{
	char *log = adb_log(e);
	size_t n = 0;

	for (const char *s = log; *s; s++)
		n += *s == '\n';
	free(log);
	return n;
}

struct bf_devfs *open_adb(const char *serial)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_devfs *fs = NULL;

	if (bf_devfs_open_adb(&fs, serial, &err))
		fail_msg("cannot open adb device '%s': %s", serial, err.msg);
	return fs;
}

void assert_err(int ret, int code, const struct bf_err *err, const char *needle)
{
	if (ret != code || !strstr(err->msg, needle))
		fail_msg("expected %d with '%s', got %d: '%s'", code, needle,
		         ret, err->msg);
}
