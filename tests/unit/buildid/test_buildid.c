/*
 * Build identity (orchestrator/git/buildid.c) on real ELF programs that
 * the test compiles with the system's cc: a build-id or debug
 * information does not make two builds differ by code, a changed
 * constant does; bytes identity tells every one of them apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "git/artifacts.h"
#include "git/buildid.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char *path = bf_xasprintf("%s/%s", root, rel);
	char *dir = bf_fs_dirname(path);

	assert_int_equal(bf_fs_mkdirs(dir, 0700, NULL), 0);
	assert_int_equal(
	        bf_fs_write_atomic(path, text, strlen(text), 0644, NULL), 0);
	free(dir);
	free(path);
}

/* cc -O1 [extra] -o root/out root/src; fails the test if it fails. */
static void cc(const char *out, const char *src, const char *extra1,
               const char *extra2)
{
	char *o = bf_xasprintf("%s/%s", root, out);
	char *s = bf_xasprintf("%s/%s", root, src);
	char *argv[8];
	int n = 0, status = 0;
	pid_t pid;

	argv[n++] = (char *)"cc";
	argv[n++] = (char *)"-O1";
	if (extra1)
		argv[n++] = (char *)extra1;
	if (extra2)
		argv[n++] = (char *)extra2;
	argv[n++] = (char *)"-o";
	argv[n++] = o;
	argv[n++] = s;
	argv[n] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		execvp("cc", argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("cc -o %s %s failed", out, src);
	free(o);
	free(s);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/bf-buildid.XXXXXX");
	assert_non_null(mkdtemp(root));
	put("one.c",
	    "#include <stdio.h>\n"
	    "int main(void) { printf(\"%d\\n\", 41 + 1); return 0; }\n");
	put("two.c",
	    "#include <stdio.h>\n"
	    "int main(void) { printf(\"%d\\n\", 41 + 2); return 0; }\n");
	put("data/input", "not a program");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	bf_fs_rmtree(root, NULL);
	return 0;
}

/* The identity of the artifacts "prog" and "data" of root. */
static void id_of(char out[BF_BUILD_ID_SIZE], const char *prog,
                  enum bf_build_identity kind, size_t *elf)
{
	struct bf_argv pats = BF_ARGV_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_artifacts a;
	struct bf_build_id id;

	bf_argv_push(&pats, prog);
	bf_argv_push(&pats, "data");
	if (bf_artifacts_expand(&a, root, &pats, &err))
		fail_msg("%s", err.msg);
	if (bf_build_id_of(&id, &a, kind, &err))
		fail_msg("%s", err.msg);
	memcpy(out, id.id, BF_BUILD_ID_SIZE);
	if (elf)
		*elf = id.elf_files;
	bf_artifacts_release(&a);
	bf_argv_release(&pats);
}

/* Build src as root/prog with the extra flags; its two identities. */
static void build(char code[BF_BUILD_ID_SIZE], char bytes[BF_BUILD_ID_SIZE],
                  const char *src, const char *extra1, const char *extra2)
{
	size_t elf = 0;

	cc("prog", src, extra1, extra2);
	id_of(code, "prog", BF_BUILD_IDENTITY_CODE, &elf);
	assert_int_equal(elf, 1);
	id_of(bytes, "prog", BF_BUILD_IDENTITY_BYTES, &elf);
	assert_int_equal(elf, 0);
}

static void test_buildid__code_and_bytes(void **state)
{
	char a_code[BF_BUILD_ID_SIZE], b_code[BF_BUILD_ID_SIZE];
	char g_code[BF_BUILD_ID_SIZE], two_code[BF_BUILD_ID_SIZE];
	char a_bytes[BF_BUILD_ID_SIZE], b_bytes[BF_BUILD_ID_SIZE];
	char g_bytes[BF_BUILD_ID_SIZE], two_bytes[BF_BUILD_ID_SIZE];
	char c_code[BF_BUILD_ID_SIZE];

	(void)state;
	build(a_code, a_bytes, "one.c", "-Wl,--build-id=0x1111111111111111",
	      NULL);
	assert_int_equal(strncmp(a_code, "code:", 5), 0);
	assert_int_equal(strlen(a_code), 5 + 64);
	assert_int_equal(strncmp(a_bytes, "bytes:", 6), 0);
	build(b_code, b_bytes, "one.c", "-Wl,--build-id=0x2222222222222222",
	      NULL);
	build(g_code, g_bytes, "one.c", "-Wl,--build-id=0x3333333333333333",
	      "-g");
	build(two_code, two_bytes, "two.c", "-Wl,--build-id=0x1111111111111111",
	      NULL);

	/* another build-id, or debug information: the same code */
	assert_string_equal(a_code, b_code);
	assert_string_equal(a_code, g_code);
	/* but not the same bytes */
	assert_string_not_equal(a_bytes, b_bytes);
	assert_string_not_equal(a_bytes, g_bytes);
	/* a changed constant is other code, and other bytes */
	assert_string_not_equal(a_code, two_code);
	assert_string_not_equal(a_bytes, two_bytes);
	/* the same program under another name ships something else */
	cc("other", "one.c", "-Wl,--build-id=0x1111111111111111", NULL);
	id_of(c_code, "other", BF_BUILD_IDENTITY_CODE, NULL);
	assert_string_not_equal(a_code, c_code);
}

/* A file that is not ELF counts by its bytes, in either identity. */
static void test_buildid__other_files_by_bytes(void **state)
{
	char one[BF_BUILD_ID_SIZE], two[BF_BUILD_ID_SIZE];
	char hex[BF_SHA256_HEX_LEN + 1];
	struct bf_err err = BF_ERR_INIT;
	char *path = bf_xasprintf("%s/data/input", root);
	bool is_elf = true;

	(void)state;
	cc("prog", "one.c", NULL, NULL);
	id_of(one, "prog", BF_BUILD_IDENTITY_CODE, NULL);
	put("data/input", "another input");
	id_of(two, "prog", BF_BUILD_IDENTITY_CODE, NULL);
	assert_string_not_equal(one, two);
	assert_int_equal(bf_build_id_file(hex, &is_elf, path,
	                                  "0000000000000000000000000000000000"
	                                  "000000000000000000000000000000",
	                                  &err),
	                 BF_ECORRUPT); /* not what it hashed to: changed */
	assert_non_null(strstr(err.msg, "changed after the build"));
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_buildid__code_and_bytes,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_buildid__other_files_by_bytes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
