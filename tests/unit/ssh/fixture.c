/*
 * The fixture the SSH transport's tests share: an OpenSSH sshd "device"
 * d1 on 127.0.0.1 started with ci/sshd.sh (with an SFTP subsystem), a
 * client key in its authorized_keys, a known_hosts file that holds its
 * host key, and the real benchfarm-agent of this build.
 */
#include "unit/ssh/fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/spawn.h"

struct fixture fx;

/* PATH with the fixture's bin/ first (see sftp_wrapper()). */
static char *path_env;

/* Run argv; its stdout into out (may be NULL). Returns the exit code. */
int run(struct bf_buf *out, const char *const *argv)
{
	const char *env[] = { path_env, NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;
	struct bf_err err = BF_ERR_INIT;
	int code;

	opts.argv = argv;
	opts.env_set = path_env ? env : NULL;
	opts.timeout_s = 60;
	if (bf_spawn_run(&res, &opts, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		bf_spawn_result_release(&res);
		return -1;
	}
	if (res.exit_code)
		fprintf(stderr, "%s: %s", argv[0], res.err.buf);
	if (out)
		bf_buf_addstr(out, res.out.buf);
	code = res.exit_code;
	bf_spawn_result_release(&res);
	return code;
}

/* Field n (0-based, space-separated) of the first line of text. */
static char *field(const char *text, int n)
{
	const char *p = text;
	size_t len;

	for (int i = 0; i < n && p; i++) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return bf_xstrdup("");
	len = strcspn(p, " \n");
	return bf_xstrndup(p, len);
}

/* Fingerprint and base64 blob of a public key file, via ssh-keygen. */
static int pubkey_info(char **fp, char **b64, const char *pub)
{
	const char *argv[] = { "ssh-keygen", "-lf", pub, NULL };
	struct bf_buf out = BF_BUF_INIT, text = BF_BUF_INIT;

	if (run(&out, argv) || bf_buf_read_file(&text, pub, NULL))
		return -1;
	*fp = field(out.buf, 1);
	*b64 = field(text.buf, 1);
	bf_buf_release(&out);
	bf_buf_release(&text);
	return 0;
}

char *path_in(const char *name)
{
	return bf_xasprintf("%s/%s", fx.dir, name);
}

static int start_device(int *port, const char *name)
{
	const char *argv[] = { "ci/sshd.sh", "start", fx.dir, name, NULL };
	struct bf_buf out = BF_BUF_INIT;
	int ret = run(&out, argv);

	*port = (int)strtol(out.buf, NULL, 10);
	bf_buf_release(&out);
	return ret || *port <= 0 ? -1 : 0;
}

int write_known_hosts(const char *path, const char *host_b64, int port)
{
	char *line =
	        bf_xasprintf("[127.0.0.1]:%d ssh-ed25519 %s\n", port, host_b64);
	int ret = bf_fs_write_atomic(path, line, strlen(line), 0600, NULL);

	free(line);
	return ret;
}

/*
 * ci/sshd.sh configures no SFTP subsystem, which uploads need: put an
 * "sshd" first in PATH that adds OpenSSH's built-in one when the
 * generated sshd_config has none (sshd refuses a duplicate).
 */
static int sftp_wrapper(void)
{
	const char *which[] = { "sh", "-c",
		                "command -v sshd || echo "
		                "/usr/sbin/sshd",
		                NULL };
	struct bf_buf real = BF_BUF_INIT, script = BF_BUF_INIT;
	char *bin = path_in("bin"), *sshd = path_in("bin/sshd");
	int ret = run(&real, which);

	bf_buf_rtrim(&real);
	bf_buf_addf(&script,
	            "#!/bin/sh\n"
	            "if grep -qi '^Subsystem' \"$2\"; then exec %s \"$@\"; fi\n"
	            "exec %s -o 'Subsystem sftp internal-sftp' \"$@\"\n",
	            real.buf, real.buf);
	if (!ret)
		ret = bf_fs_mkdirs(bin, 0755, NULL) ||
		      bf_fs_write_atomic(sshd, script.buf, script.len, 0755,
		                         NULL);
	path_env = bf_xasprintf("PATH=%s:%s", bin, getenv("PATH"));
	bf_buf_release(&real);
	bf_buf_release(&script);
	free(bin);
	free(sshd);
	return ret;
}

int group_setup(void **state)
{
	char tmpl[] = "/tmp/bf-test-ssh-XXXXXX";
	const char *keygen[] = { "ci/sshd.sh", "client-key", NULL, NULL };
	const char *build = getenv("BF_BUILD_ABS");
	char *pub, *hostpub;
	int ret;

	(void)state;
	if (!mkdtemp(tmpl))
		return -1;
	fx.dir = bf_xstrdup(tmpl);
	keygen[2] = fx.dir;
	fx.key = path_in("client_key");
	fx.known_hosts = path_in("known_hosts");
	if (build && *build)
		fx.agent = bf_xasprintf("%s/benchfarm-agent", build);
	else
		fx.agent = bf_fs_join(getcwd(tmpl, sizeof(tmpl)) ? tmpl : ".",
		                      "build/default/benchfarm-agent");
	fx.user = bf_xstrdup(getpwuid(getuid())->pw_name);
	pub = path_in("client_key.pub");
	hostpub = path_in("d1/host_key.pub");
	ret = sftp_wrapper() || run(NULL, keygen) ||
	      start_device(&fx.port, "d1") ||
	      pubkey_info(&fx.d1_fp, &fx.d1_b64, hostpub) ||
	      pubkey_info(&fx.client_fp, &fx.client_b64, pub) ||
	      write_known_hosts(fx.known_hosts, fx.d1_b64, fx.port);
	free(pub);
	free(hostpub);
	return ret ? -1 : 0;
}

int group_teardown(void **state)
{
	const char *stop[] = { "ci/sshd.sh", "stop", fx.dir, "d1", NULL };

	(void)state;
	run(NULL, stop);
	bf_fs_rmtree(fx.dir, NULL);
	free(fx.dir);
	free(fx.key);
	free(fx.known_hosts);
	free(fx.agent);
	free(fx.user);
	free(fx.d1_fp);
	free(fx.d1_b64);
	free(fx.client_fp);
	free(fx.client_b64);
	BF_FREE(path_env);
	return 0;
}

void target_of(struct bf_ssh_target *t, int port)
{
	t->name = "d1";
	t->host = "127.0.0.1";
	t->port = port;
	t->user = fx.user;
	t->key_path = fx.key;
	t->known_hosts = fx.known_hosts;
	t->connect_timeout_s = 10;
}

struct bf_ssh *connect_d1(void)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = NULL;

	target_of(&t, fx.port);
	if (bf_ssh_connect(&s, &t, &err))
		fail_msg("connect: %s", err.msg);
	return s;
}

/* Run argv on s; returns its stdout (caller frees) and *status. */
char *exec_out(int *status, struct bf_ssh *s, const char *const *argv)
{
	struct bf_buf out = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;

	if (bf_ssh_exec(status, &out, s, argv, 10, &err))
		fail_msg("exec %s: %s", argv[0], err.msg);
	return bf_buf_detach(&out, NULL);
}
