#include "unit/probe/tmptree.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/fs.h"
#include "check/throttle.h"

int tmptree_setup(void **state)
{
	struct tmptree *t = bf_xcalloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/bf-tree.XXXXXX");
	if (!mkdtemp(t->dir)) {
		free(t);
		return -1;
	}
	unsetenv(BF_THROTTLE_ENV);
	*state = t;
	return 0;
}

int tmptree_teardown(void **state)
{
	struct tmptree *t = *state;

	bf_fs_rmtree(t->dir, NULL);
	free(t);
	unsetenv(BF_THROTTLE_ENV);
	return 0;
}

void tmptree_put(const char *root, const char *path, const char *text)
{
	char *full = bf_xasprintf("%s%s", root, path);
	char *dir = bf_fs_dirname(full);

	assert_int_equal(bf_fs_mkdirs(dir, 0755, NULL), 0);
	assert_int_equal(
	        bf_fs_write_atomic(full, text, strlen(text), 0644, NULL), 0);
	free(dir);
	free(full);
}
