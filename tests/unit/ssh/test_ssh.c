/*
 * Unit tests for the SSH transport (orchestrator/farm/ssh*.c) against real
 * OpenSSH sshd "devices" on 127.0.0.1, started with ci/sshd.sh, and the
 * real benchfarm-agent ($BF_BUILD_ABS, else build/default). Run from
 * the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/sha256.h"
#include "benchfarm/spawn.h"
#include "farm/agentconn.h"
#include "farm/ssh.h"

/* The devices and files shared by all tests (group fixture). */
struct fixture {
	char *dir; /* mkdtemp */
	char *key; /* client key, in authorized_keys of every device */
	char *known_hosts; /* holds d1's host key */
	char *agent; /* benchfarm-agent of this build, absolute */
	char *user;
	int port; /* device d1 */
	char *d1_fp; /* d1's fingerprint as ssh-keygen prints it */
	char *d1_b64; /* d1's host key blob, base64 */
	char *client_fp; /* the client key's fingerprint */
	char *client_b64;
};

static struct fixture fx;

/* PATH with the fixture's bin/ first (see sftp_wrapper()). */
static char *path_env;

/* Run argv; its stdout into out (may be NULL). Returns the exit code. */
static int run(struct bf_buf *out, const char *const *argv)
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

static char *path_in(const char *name)
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

static int write_known_hosts(const char *path, const char *host_b64, int port)
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

static int group_setup(void **state)
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

static int group_teardown(void **state)
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

static void target_of(struct bf_ssh_target *t, int port)
{
	t->name = "d1";
	t->host = "127.0.0.1";
	t->port = port;
	t->user = fx.user;
	t->key_path = fx.key;
	t->known_hosts = fx.known_hosts;
	t->connect_timeout_s = 10;
}

static struct bf_ssh *connect_d1(void)
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
static char *exec_out(int *status, struct bf_ssh *s, const char *const *argv)
{
	struct bf_buf out = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;

	if (bf_ssh_exec(status, &out, s, argv, 10, &err))
		fail_msg("exec %s: %s", argv[0], err.msg);
	return bf_buf_detach(&out, NULL);
}

/* No line of the private key's text may appear in msg. */
static void assert_no_key_text(const char *msg, const char *key_path)
{
	struct bf_buf key = BF_BUF_INIT;
	char *line, *save = NULL;

	assert_int_equal(bf_buf_read_file(&key, key_path, NULL), 0);
	for (line = key.buf; *line; line = save + 1) {
		save = strchr(line, '\n');
		if (!save)
			break;
		*save = '\0';
		if (strlen(line) >= 16 && !strstr(line, "PRIVATE KEY"))
			assert_null(strstr(msg, line));
		if (strlen(line) >= 16) {
			line[16] = '\0';
			assert_null(strstr(msg, line));
		}
	}
	bf_memzero(key.buf, key.len);
	bf_buf_release(&key);
}

static void test_ssh__quote_argv(void **state)
{
	const char *one[] = { "a", NULL };
	const char *many[] = { "it's", "$x `y`", "", "a\nb", NULL };
	const char *bare[] = { "gerrit",      "review", "--json", "4711,3",
		               "/a/b.c:1+@%", "a=b",    "a b",    "~x",
		               "*",           NULL };
	char *q;

	(void)state;
	q = bf_ssh_quote_argv(one);
	assert_string_equal(q, "a");
	free(q);
	q = bf_ssh_quote_argv(many);
	assert_string_equal(q, "'it'\\''s' '$x `y`' '' 'a\nb'");
	free(q);
	/* safe words go bare; '=', a blank, a tilde or a glob is quoted */
	q = bf_ssh_quote_argv(bare);
	assert_string_equal(q, "gerrit review --json 4711,3 /a/b.c:1+@% 'a=b' "
	                       "'a b' '~x' '*'");
	free(q);
}

static void test_ssh__scan_and_add_host_key(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_buf text = BF_BUF_INIT, expect = BF_BUF_INIT;
	char *fp = NULL, *line = NULL, *kh = path_in("kh/sub/known_hosts");
	char *want = bf_xasprintf("[127.0.0.1]:%d ssh-ed25519 %s", fx.port,
	                          fx.d1_b64);
	struct stat st;

	(void)state;
	assert_int_equal(
	        bf_ssh_scan_host_key(&fp, &line, "127.0.0.1", fx.port, 5, &err),
	        0);
	assert_string_equal(fp, fx.d1_fp);
	assert_string_equal(line, want);
	/*
	 * The same key again is no change; another key for the same
	 * host:port is refused unless replacing (rekey), and then replaces
	 * it; other hosts' entries are kept.
	 */
	assert_int_equal(bf_ssh_known_hosts_add(kh,
	                                        "other.example ssh-ed25519 "
	                                        "AAAA",
	                                        false, &err),
	                 0);
	assert_int_equal(bf_ssh_known_hosts_add(kh, want, false, &err), 0);
	assert_int_equal(bf_ssh_known_hosts_add(kh, line, false, &err), 0);
	assert_int_equal(bf_buf_read_file(&text, kh, &err), 0);
	bf_buf_addf(&expect, "other.example ssh-ed25519 AAAA\n%s\n", want);
	assert_string_equal(text.buf, expect.buf);
	bf_buf_release(&text);
	assert_int_equal(bf_ssh_known_hosts_add(kh,
	                                        "other.example ssh-ed25519 "
	                                        "BBBB",
	                                        false, &err),
	                 BF_EEXISTS);
	assert_non_null(strstr(err.msg, "device rekey"));
	assert_int_equal(bf_buf_read_file(&text, kh, &err), 0);
	assert_string_equal(text.buf, expect.buf); /* unchanged */
	bf_buf_release(&text);
	bf_buf_release(&expect);
	assert_int_equal(bf_ssh_known_hosts_add(kh,
	                                        "other.example ssh-ed25519 "
	                                        "BBBB",
	                                        true, &err),
	                 0);
	assert_int_equal(bf_buf_read_file(&text, kh, &err), 0);
	bf_buf_addf(&expect, "%s\nother.example ssh-ed25519 BBBB\n", want);
	assert_string_equal(text.buf, expect.buf);
	bf_buf_release(&text);
	bf_buf_release(&expect);
	assert_int_equal(stat(kh, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(bf_ssh_known_hosts_add(kh, "garbage", true, &err),
	                 BF_EINVAL);
	free(fp);
	free(line);
	free(kh);
	free(want);
}

static void test_ssh__connect_exec_and_status(void **state)
{
	const char *echo[] = { "echo", "hi", NULL };
	const char *exit3[] = { "sh", "-c", "echo out; echo err >&2; exit 3",
		                NULL };
	const char *late[] = { "sh", "-c", "exec >&-; sleep 0.1; exit 4",
		               NULL };
	double t0 = bf_now_monotonic(), t1, t2;
	struct bf_ssh *s = connect_d1();
	int status = -1;
	char *out;

	(void)state;
	t1 = bf_now_monotonic();
	out = exec_out(&status, s, echo);
	t2 = bf_now_monotonic();
	assert_string_equal(out, "hi\n");
	assert_int_equal(status, 0);
	free(out);
	out = exec_out(&status, s, exit3);
	assert_string_equal(out, "out\n");
	assert_int_equal(status, 3);
	free(out);
	/* The status arrives after the end of output: it is waited for. */
	out = exec_out(&status, s, late);
	assert_string_equal(out, "");
	assert_int_equal(status, 4);
	free(out);
	assert_string_equal(bf_ssh_name(s), "d1");
	print_message("connect+auth %.1f ms, exec %.1f ms\n", (t1 - t0) * 1e3,
	              (t2 - t1) * 1e3);
	bf_ssh_close(s);
}

static void test_ssh__exec_quoting_keeps_metacharacters(void **state)
{
	const char *argv[] = { "printf", "%s|", "$(id);`x`", "a b",
		               "it's",   "*",   NULL };
	struct bf_ssh *s = connect_d1();
	int status = -1;
	char *out;

	(void)state;
	out = exec_out(&status, s, argv);
	assert_string_equal(out, "$(id);`x`|a b|it's|*|");
	assert_int_equal(status, 0);
	free(out);
	bf_ssh_close(s);
}

static void test_ssh__exec_timeout_keeps_session(void **state)
{
	const char *slow[] = { "sleep", "3", NULL };
	const char *echo[] = { "echo", "still", NULL };
	struct bf_buf out = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = connect_d1();
	int status = -1;
	double t0 = bf_now_monotonic();
	char *text;

	(void)state;
	assert_int_equal(bf_ssh_exec(&status, &out, s, slow, 0.3, &err),
	                 BF_ETIMEOUT);
	assert_true(bf_now_monotonic() - t0 < 3.0);
	assert_non_null(strstr(err.msg, "'d1'"));
	text = exec_out(&status, s, echo);
	assert_string_equal(text, "still\n");
	free(text);
	bf_buf_release(&out);
	bf_ssh_close(s);
}

static void test_ssh__exec_output_is_capped(void **state)
{
	const char *argv[] = { "printf", "0123456789abcdef", NULL };
	const char *endless[] = { "yes", NULL };
	struct bf_err err = BF_ERR_INIT;
	double t0;
	struct bf_ssh *s = connect_d1();
	struct bf_buf out;
	int status = -1;

	(void)state;
	bf_buf_init(&out, 10);
	assert_int_equal(bf_ssh_exec(&status, &out, s, argv, 10, &err),
	                 BF_ETOOBIG);
	assert_string_equal(out.buf, "0123456789");
	assert_int_equal(status, 0);
	/* A command that never stops writing is ended, not waited for. */
	bf_buf_reset(&out);
	status = 0;
	t0 = bf_now_monotonic();
	assert_int_equal(bf_ssh_exec(&status, &out, s, endless, 30, &err),
	                 BF_ETOOBIG);
	assert_true(bf_now_monotonic() - t0 < 5.0);
	assert_string_equal(out.buf, "y\ny\ny\ny\ny\n");
	assert_int_equal(status, -1); /* SIGPIPE */
	bf_buf_release(&out);
	bf_ssh_close(s);
}

static void test_ssh__unknown_host_key(void **state)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = NULL;
	char *kh = path_in("kh_plain");
	char *line = bf_xasprintf("127.0.0.1 ssh-ed25519 %s\n", fx.d1_b64);

	(void)state;
	target_of(&t, fx.port);
	t.known_hosts = kh; /* does not exist yet */
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_ENOTFOUND);
	assert_null(s);
	assert_non_null(strstr(err.msg, "'d1'"));
	assert_non_null(strstr(err.msg, fx.d1_fp));
	assert_non_null(strstr(err.msg, "--accept-host-key"));
	/* The key recorded for port 22 is not the key of another port. */
	assert_int_equal(bf_fs_write_atomic(kh, line, strlen(line), 0600, NULL),
	                 0);
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_ENOTFOUND);
	assert_null(s);
	free(kh);
	free(line);
}

static void test_ssh__changed_host_key(void **state)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = NULL;
	char *kh = path_in("kh_changed");

	(void)state;
	/* Another key recorded for d1's host:port. */
	assert_int_equal(write_known_hosts(kh, fx.client_b64, fx.port), 0);
	target_of(&t, fx.port);
	t.known_hosts = kh;
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_ECORRUPT);
	assert_null(s);
	assert_non_null(strstr(err.msg, "'d1'"));
	assert_non_null(strstr(err.msg, "CHANGED"));
	assert_non_null(strstr(err.msg, fx.client_fp)); /* recorded */
	assert_non_null(strstr(err.msg, fx.d1_fp)); /* offered */
	free(kh);
}

static void test_ssh__wrong_client_key(void **state)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = NULL;
	char *other = path_in("other_key");
	const char *keygen[] = { "ssh-keygen", "-q", "-t",  "ed25519", "-N",
		                 "",           "-f", other, NULL };

	(void)state;
	assert_int_equal(run(NULL, keygen), 0);
	target_of(&t, fx.port);
	t.key_path = other;
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_EAUTH);
	assert_null(s);
	assert_non_null(strstr(err.msg, "'d1'"));
	assert_non_null(strstr(err.msg, "refused"));
	assert_no_key_text(err.msg, other);
	free(other);
}

/* A key with a passphrase: refused clearly; the passphrase never shown. */
static void test_ssh__encrypted_key(void **state)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = NULL;
	char *locked = path_in("locked_key");
	const char *keygen[] = { "ssh-keygen", "-q", "-t",   "ed25519", "-N",
		                 "sw0rdf1sh",  "-f", locked, NULL };

	(void)state;
	assert_int_equal(run(NULL, keygen), 0);
	target_of(&t, fx.port);
	t.key_path = locked;
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_EAUTH);
	assert_null(s);
	assert_non_null(strstr(err.msg, locked));
	assert_null(strstr(err.msg, "sw0rdf1sh"));
	assert_no_key_text(err.msg, locked);
	free(locked);
}

static void test_ssh__key_with_open_permissions(void **state)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_buf key = BF_BUF_INIT;
	struct bf_ssh *s = NULL;
	char *open_key = path_in("open_key");

	(void)state;
	assert_int_equal(bf_buf_read_file(&key, fx.key, NULL), 0);
	assert_int_equal(
	        bf_fs_write_atomic(open_key, key.buf, key.len, 0644, NULL), 0);
	bf_buf_release(&key);
	/* Port 1 is closed: a connection attempt would fail differently. */
	target_of(&t, 1);
	t.key_path = open_key;
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_EAUTH);
	assert_non_null(strstr(err.msg, "permissions 0644 for"));
	assert_non_null(strstr(err.msg, open_key));
	assert_no_key_text(err.msg, open_key);
	t.key_path = "/nonexistent/key";
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_EAUTH);
	assert_non_null(strstr(err.msg, "does not exist"));
	assert_null(s);
	free(open_key);
}

/* A port nobody listens on: bind one, then close it. */
static int closed_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static void test_ssh__closed_port_fails_fast(void **state)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = NULL;
	double t0 = bf_now_monotonic();

	(void)state;
	target_of(&t, closed_port());
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_ESYS);
	/* not the 10 s connect timeout (with room for valgrind and load) */
	assert_true(bf_now_monotonic() - t0 < 5.0);
	assert_non_null(strstr(err.msg, "'d1'"));
	assert_non_null(strstr(err.msg, "refused"));
	assert_null(s);
}

static void test_ssh__silent_listener_times_out(void **state)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = NULL;
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char *fp = NULL, *line = NULL;
	double t0, dt;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	target_of(&t, ntohs(a.sin_port));
	t.connect_timeout_s = 0.5;
	t0 = bf_now_monotonic();
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_ETIMEOUT);
	dt = bf_now_monotonic() - t0;
	assert_true(dt >= 0.45 && dt < 5.0); /* 0.5 s, not the default 10 */
	assert_non_null(strstr(err.msg, "'d1'"));
	assert_null(s);
	assert_int_equal(bf_ssh_scan_host_key(&fp, &line, "127.0.0.1",
	                                      ntohs(a.sin_port), 0.3, &err),
	                 BF_ETIMEOUT);
	close(fd);
}

struct events {
	int samples;
	double value;
};

static int on_event(const json_t *ev, void *payload)
{
	struct events *e = payload;

	if (!strcmp(json_string_value(json_object_get(ev, "type")), "sample")) {
		e->samples++;
		e->value = json_number_value(json_object_get(ev, "value"));
	}
	return 0;
}

static json_t *run_req(const char *script)
{
	return json_pack("{s:s, s:[s,s,s], s:s}", "type", "run", "argv", "sh",
	                 "-c", script, "format", "lines");
}

static void test_ssh__agent_over_ssh(void **state)
{
	const char *echo[] = { "echo", "after", NULL };
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = connect_d1();
	struct bf_agentconn *c = NULL;
	struct events e = { 0, 0 };
	json_t *req, *res = NULL;
	char *out;
	int status;

	(void)state;
	for (int round = 0; round < 2; round++) {
		if (bf_ssh_open_agent(&c, s, fx.agent, NULL, &err))
			fail_msg("open agent: %s", err.msg);
		assert_int_equal(json_integer_value(json_object_get(
		                         bf_agentconn_hello(c), "protocol")),
		                 1);
		req = run_req("echo 'a 5 ns'");
		if (bf_agentconn_request(&res, c, req, 30, on_event, &e, &err))
			fail_msg("run: %s", err.msg);
		assert_string_equal(
		        json_string_value(json_object_get(res, "type")),
		        "result");
		assert_int_equal(
		        json_integer_value(json_object_get(res, "exit_code")),
		        0);
		json_decref(res);
		json_decref(req);
		bf_agentconn_close(c);
	}
	assert_int_equal(e.samples, 2);
	assert_true(e.value == 5.0);
	/* The session outlives its agents. */
	out = exec_out(&status, s, echo);
	assert_string_equal(out, "after\n");
	free(out);
	bf_ssh_close(s);
}

static void test_ssh__agent_killed_mid_request(void **state)
{
	const char *echo[] = { "echo", "alive", NULL };
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = connect_d1();
	struct bf_agentconn *c = NULL;
	json_t *req;
	char *out;
	int status;

	(void)state;
	if (bf_ssh_open_agent(&c, s, fx.agent, NULL, &err))
		fail_msg("open agent: %s", err.msg);
	/* The benchmark's parent is the agent: it dies mid-request. */
	req = run_req("kill -9 $PPID");
	assert_int_equal(
	        bf_agentconn_request(NULL, c, req, 30, NULL, NULL, &err),
	        BF_EPROTO);
	assert_true(bf_agentconn_is_broken(c));
	assert_non_null(strstr(err.msg, "'d1'"));
	json_decref(req);
	bf_agentconn_close(c);
	out = exec_out(&status, s, echo);
	assert_string_equal(out, "alive\n");
	free(out);
	bf_ssh_close(s);
}

static void test_ssh__connection_drop_mid_request(void **state)
{
	/* Kill this connection's sshd: the nearest sshd ancestor. */
	const char *script =
	        "p=$PPID; while [ \"$(cat /proc/$p/comm)\" != sshd ]; do "
	        "p=$(awk '{print $4}' /proc/$p/stat); done; kill -9 $p";
	const char *echo[] = { "echo", "x", NULL };
	struct bf_buf out = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = connect_d1();
	struct bf_agentconn *c = NULL;
	double t0 = bf_now_monotonic();
	int status;
	json_t *req;

	(void)state;
	if (bf_ssh_open_agent(&c, s, fx.agent, NULL, &err))
		fail_msg("open agent: %s", err.msg);
	req = run_req(script);
	assert_int_equal(
	        bf_agentconn_request(NULL, c, req, 30, NULL, NULL, &err),
	        BF_EPROTO);
	assert_true(bf_agentconn_is_broken(c));
	assert_true(bf_now_monotonic() - t0 < 10.0);
	json_decref(req);
	bf_agentconn_close(c);
	assert_int_equal(bf_ssh_exec(&status, &out, s, echo, 5, &err),
	                 BF_EPROTO);
	assert_non_null(strstr(err.msg, "'d1'"));
	bf_buf_release(&out);
	bf_ssh_close(s);
}

static void test_ssh__agent_missing(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = connect_d1();
	struct bf_agentconn *c = NULL;

	(void)state;
	assert_int_equal(
	        bf_ssh_open_agent(&c, s, "/nonexistent/bf-agent", NULL, &err),
	        BF_EPROTO);
	assert_null(c);
	assert_non_null(strstr(err.msg, "'d1'"));
	assert_non_null(strstr(err.msg, "/nonexistent/bf-agent"));
	bf_ssh_close(s);
}

/* A local file of n pseudo-random bytes with mode. */
static char *make_file(const char *name, size_t n, mode_t mode)
{
	char *path = path_in(name), *data = bf_xmalloc(n);
	uint32_t x = 12345;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (char)(x >> 16);
	}
	assert_int_equal(bf_fs_write_atomic(path, data, n, mode, NULL), 0);
	free(data);
	return path;
}

static void test_ssh__upload_once_verified(void **state)
{
	struct bf_ssh *s = connect_d1();
	struct bf_err err = BF_ERR_INIT;
	struct bf_buf local = BF_BUF_INIT, want = BF_BUF_INIT;
	char *file = make_file("bench.bin", 300000, 0755);
	char *rdir = path_in("remote/cache"), *remote = NULL, *out;
	unsigned char d[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1];
	bool sent = false;
	int status;

	(void)state;
	assert_int_equal(bf_sha256_file(d, file, &err), 0);
	bf_sha256_hex(hex, d);
	if (bf_ssh_upload(&remote, &sent, s, file, rdir, &err))
		fail_msg("upload: %s", err.msg);
	assert_true(sent);
	bf_buf_addf(&want, "%s/%s/bench.bin", rdir, hex);
	assert_string_equal(remote, want.buf);
	free(remote);
	assert_int_equal(bf_ssh_upload(&remote, &sent, s, file, rdir, &err), 0);
	assert_false(sent);
	assert_string_equal(remote, want.buf);
	{
		const char *cat[] = { "cat", remote, NULL };
		const char *mode[] = { "stat", "-c", "%a", remote, NULL };
		const char *ls[] = { "ls", "-a", want.buf, NULL };
		const char *sum[] = { "sha256sum", NULL, NULL };

		out = exec_out(&status, s, cat);
		assert_int_equal(bf_buf_read_file(&local, file, NULL), 0);
		assert_memory_equal(out, local.buf, local.len);
		free(out);
		/* read-only on the device, executable as here */
		out = exec_out(&status, s, mode);
		assert_string_equal(out, "555\n");
		free(out);
		/* A damaged copy is replaced; no temporary file remains. */
		want.buf[strlen(want.buf) - strlen("/bench.bin")] = '\0';
		assert_int_equal(truncate(remote, 7), 0);
		free(remote);
		assert_int_equal(
		        bf_ssh_upload(&remote, &sent, s, file, rdir, &err), 0);
		assert_true(sent);
		out = exec_out(&status, s, ls);
		assert_string_equal(out, ".\n..\nbench.bin\n");
		free(out);
		sum[1] = remote;
		out = exec_out(&status, s, sum);
		assert_int_equal(strncmp(out, hex, BF_SHA256_HEX_LEN), 0);
		free(out);
	}
	bf_buf_release(&local);
	bf_buf_release(&want);
	free(remote);
	free(rdir);
	free(file);
	bf_ssh_close(s);
}

/*
 * A relative work directory is made under the SFTP server's start
 * directory (d1/home, as ci/sshd.sh sets it), not the one commands
 * start in (the real home), and comes back absolute.
 */
static void test_ssh__workdir_relative_to_sftp_start(void **state)
{
	struct bf_ssh *s = connect_d1();
	struct bf_err err = BF_ERR_INIT;
	char *want = path_in("d1/home/.cache/bf-wd"), *abs = NULL;
	struct stat st_want, st_abs;

	(void)state;
	if (bf_ssh_workdir(&abs, s, ".cache/bf-wd", &err))
		fail_msg("workdir: %s", err.msg);
	assert_true(stat(want, &st_want) == 0 && S_ISDIR(st_want.st_mode));
	/* the same directory, named absolutely (/tmp may be a symlink) */
	assert_true(abs[0] == '/' && stat(abs, &st_abs) == 0);
	assert_true(st_abs.st_dev == st_want.st_dev &&
	            st_abs.st_ino == st_want.st_ino);
	free(abs);
	abs = NULL;
	/* An absolute one works too, and one that exists already. */
	assert_int_equal(bf_ssh_workdir(&abs, s, want, &err), 0);
	assert_true(stat(abs, &st_abs) == 0 && st_abs.st_ino == st_want.st_ino);
	free(abs);
	free(want);
	bf_ssh_close(s);
}

static void test_ssh__upload_missing_local_file(void **state)
{
	struct bf_ssh *s = connect_d1();
	struct bf_err err = BF_ERR_INIT;
	char *remote = NULL;
	bool sent = true;

	(void)state;
	assert_int_equal(bf_ssh_upload(&remote, &sent, s, "/nonexistent/f",
	                               "/tmp", &err),
	                 BF_ENOTFOUND);
	assert_null(remote);
	bf_ssh_close(s);
}

/*
 * Where known_hosts is: $BENCHFARM_KNOWN_HOSTS, else under an absolute
 * $XDG_DATA_HOME, else under $HOME; a relative XDG_DATA_HOME is ignored
 * (the XDG rule the store follows), so the file never follows the
 * working directory.
 */
static void test_ssh__known_hosts_path(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	char *saved = getenv("BENCHFARM_KNOWN_HOSTS");
	char *home = getenv("HOME");
	char *p = NULL;

	(void)state;
	saved = saved ? bf_xstrdup(saved) : NULL;
	home = home ? bf_xstrdup(home) : NULL;
	unsetenv("BENCHFARM_KNOWN_HOSTS");
	setenv("HOME", "/home/lab", 1);
	setenv("XDG_DATA_HOME", "/data", 1);
	assert_int_equal(bf_ssh_known_hosts_path(&p, &err), 0);
	assert_string_equal(p, "/data/benchfarm/known_hosts");
	free(p);
	setenv("XDG_DATA_HOME", "relative/share", 1);
	assert_int_equal(bf_ssh_known_hosts_path(&p, &err), 0);
	assert_string_equal(p, "/home/lab/.local/share/benchfarm/known_hosts");
	free(p);
	setenv("BENCHFARM_KNOWN_HOSTS", "/etc/bf/kh", 1);
	assert_int_equal(bf_ssh_known_hosts_path(&p, &err), 0);
	assert_string_equal(p, "/etc/bf/kh");
	free(p);
	unsetenv("XDG_DATA_HOME");
	if (saved)
		setenv("BENCHFARM_KNOWN_HOSTS", saved, 1);
	else
		unsetenv("BENCHFARM_KNOWN_HOSTS");
	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(saved);
	free(home);
}

/*
 * A file swapped after it was checked (for a link to a host file, a
 * FIFO, other bytes) is never shipped under the checked hash, and a
 * sparse monster is refused by its size before a byte is read.
 */
static void test_ssh__upload_refuses_a_swapped_file(void **state)
{
	struct bf_ssh *s = connect_d1();
	struct bf_err err = BF_ERR_INIT;
	char *file = make_file("swap.bin", 5000, 0644);
	char *secret = make_file("secret", 4000, 0600);
	char *rdir = path_in("remote/swap"), *remote;
	unsigned char d[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1];
	bool sent = false;
	int fd;

	(void)state;
	assert_int_equal(bf_sha256_file(d, file, &err), 0);
	bf_sha256_hex(hex, d);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(symlink(secret, file), 0);
	assert_int_equal(bf_ssh_upload(&remote, &sent, s, file, rdir, &err),
	                 BF_EINVAL);
	remote = bf_xasprintf("%s/%s/swap.bin", rdir, hex);
	assert_int_equal(bf_ssh_upload_to(&sent, s, file, hex, remote, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "is a symbolic link"));
	assert_int_equal(unlink(file), 0);
	assert_int_equal(mkfifo(file, 0600), 0);
	assert_int_equal(bf_ssh_upload_to(&sent, s, file, hex, remote, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "is not a regular file"));
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rename(secret, file), 0);
	assert_int_equal(bf_ssh_upload_to(&sent, s, file, hex, remote, &err),
	                 BF_ECORRUPT);
	assert_non_null(strstr(err.msg, "changed after it was checked"));
	assert_false(sent);
	assert_int_equal(access(remote, F_OK), -1);
	/* 8 GiB of holes: refused by the size limit, nothing read */
	assert_true((fd = open(file, O_WRONLY | O_TRUNC)) >= 0);
	assert_int_equal(ftruncate(fd, (off_t)8 << 30), 0);
	close(fd);
	assert_int_equal(bf_ssh_upload_to(&sent, s, file, hex, remote, &err),
	                 BF_ETOOBIG);
	assert_non_null(strstr(err.msg, "more than the limit of 4294967296"));
	free(remote);
	assert_int_equal(bf_ssh_upload(&remote, &sent, s, file, rdir, &err),
	                 BF_ETOOBIG);
	assert_int_equal(unlink(file), 0);
	free(rdir);
	free(file);
	free(secret);
	bf_ssh_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ssh__known_hosts_path),
		cmocka_unit_test(test_ssh__quote_argv),
		cmocka_unit_test(test_ssh__scan_and_add_host_key),
		cmocka_unit_test(test_ssh__connect_exec_and_status),
		cmocka_unit_test(test_ssh__exec_quoting_keeps_metacharacters),
		cmocka_unit_test(test_ssh__exec_timeout_keeps_session),
		cmocka_unit_test(test_ssh__exec_output_is_capped),
		cmocka_unit_test(test_ssh__unknown_host_key),
		cmocka_unit_test(test_ssh__changed_host_key),
		cmocka_unit_test(test_ssh__wrong_client_key),
		cmocka_unit_test(test_ssh__encrypted_key),
		cmocka_unit_test(test_ssh__key_with_open_permissions),
		cmocka_unit_test(test_ssh__closed_port_fails_fast),
		cmocka_unit_test(test_ssh__silent_listener_times_out),
		cmocka_unit_test(test_ssh__agent_over_ssh),
		cmocka_unit_test(test_ssh__agent_killed_mid_request),
		cmocka_unit_test(test_ssh__connection_drop_mid_request),
		cmocka_unit_test(test_ssh__agent_missing),
		cmocka_unit_test(test_ssh__upload_once_verified),
		cmocka_unit_test(test_ssh__workdir_relative_to_sftp_start),
		cmocka_unit_test(test_ssh__upload_missing_local_file),
		cmocka_unit_test(test_ssh__upload_refuses_a_swapped_file),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
