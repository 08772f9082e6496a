/*
 * Unit tests for connecting over SSH (orchestrator/farm/ssh.c,
 * ssh_known.c, ssh_session.c): host keys (scan, record, unknown,
 * changed, pinned by the registry), client keys (refused, encrypted, too open),
 * connect failures and timeouts, and where known_hosts lives. Against a real
 * OpenSSH sshd (unit/ssh/fixture.h). Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/spawn.h"
#include "farm/ssh.h"
#include "unit/ssh/fixture.h"

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

static void test_ssh__scan_and_add_host_key(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_buf text = BF_BUF_INIT, expect = BF_BUF_INIT;
	char *fp = NULL, *line = NULL, *kh = path_in("kh/sub/known_hosts");
	char *want = bf_xasprintf("[127.0.0.1]:%d ssh-ed25519 %s", fx.port,
	                          fx.d1_b64);
	struct stat st;

	(void)state;
	assert_int_equal(bf_ssh_scan_host_key(&fp, &line, NULL, "127.0.0.1",
	                                      fx.port, 5, &err),
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

/*
 * A registered device's pin is the whole truth, as on a host that
 * shares the registry but has never seen the device: the key with the
 * pinned fingerprint connects with no known_hosts file at all and
 * whatever a stale known_hosts says; any other key is refused as
 * changed, naming both fingerprints and device rekey, even when
 * known_hosts has it.
 */
static void test_ssh__pinned_host_key(void **state)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = NULL;
	char *none = path_in("kh_none"), *stale = path_in("kh_stale");

	(void)state;
	target_of(&t, fx.port);
	t.host_key_fp = fx.d1_fp;
	t.known_hosts = none; /* never made */
	assert_int_equal(bf_ssh_connect(&s, &t, &err), 0);
	assert_non_null(s);
	bf_ssh_close(s);
	s = NULL;
	assert_false(bf_fs_exists(none));
	/* known_hosts holds another key for d1's host:port */
	assert_int_equal(write_known_hosts(stale, fx.client_b64, fx.port), 0);
	t.known_hosts = stale;
	assert_int_equal(bf_ssh_connect(&s, &t, &err), 0);
	bf_ssh_close(s);
	s = NULL;
	/* another key pinned; the file that has the device's key is ignored */
	t.known_hosts = fx.known_hosts;
	t.host_key_fp = fx.client_fp;
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_ECORRUPT);
	assert_null(s);
	assert_non_null(strstr(err.msg, "'d1'"));
	assert_non_null(strstr(err.msg, "HOST KEY CHANGED"));
	assert_non_null(strstr(err.msg, "pinned"));
	assert_non_null(strstr(err.msg, fx.client_fp)); /* pinned */
	assert_non_null(strstr(err.msg, fx.d1_fp)); /* offered */
	assert_non_null(strstr(err.msg, "'benchfarm device rekey d1'"));
	/* a pin that is no fingerprint at all is no key's */
	t.host_key_fp = "SHA256:";
	assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_ECORRUPT);
	assert_null(s);
	free(none);
	free(stale);
}

/*
 * Every spelling of 127.0.0.1 is its one address: the IPv4-mapped IPv6
 * form (::ffff:127.0.0.1, ::ffff:7f00:1) and a bracketed literal name
 * the key pinned for [127.0.0.1]:PORT, so that another key cannot be
 * recorded for it through them, and a connection through them checks
 * that pin.
 */
static void test_ssh__mapped_address_is_the_same_pin(void **state)
{
	static const char *const spellings[] = { "::ffff:127.0.0.1",
		                                 "::ffff:7f00:1",
		                                 "[::ffff:127.0.0.1]" };
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = NULL;
	char *kh = path_in("kh_mapped");
	char *addr = bf_xasprintf(",[127.0.0.1]:%d ", fx.port);

	(void)state;
	/* another key (the client's) pinned for d1's address */
	assert_int_equal(write_known_hosts(kh, fx.client_b64, fx.port), 0);
	for (size_t i = 0; i < BF_ARRAY_SIZE(spellings); i++) {
		char *fp = NULL, *line = NULL, *a = NULL;
		int rc = bf_ssh_scan_host_key(&fp, &line, &a, spellings[i],
		                              fx.port, 5, &err);

		if (rc)
			fail_msg("scan %s: %s", spellings[i], err.msg);
		if (!strstr(line, addr))
			fail_msg("%s: '%s' does not name '%s'", spellings[i],
			         line, addr);
		assert_string_equal(a, "127.0.0.1");
		assert_true(bf_ssh_host_is_at(spellings[i], fx.port, a));
		assert_false(bf_ssh_host_is_at(spellings[i], fx.port, "::1"));
		assert_int_equal(bf_ssh_known_hosts_add(kh, line, false, &err),
		                 BF_EEXISTS);
		assert_non_null(strstr(err.msg, "[127.0.0.1]"));
		target_of(&t, fx.port);
		t.host = spellings[i];
		t.known_hosts = kh;
		assert_int_equal(bf_ssh_connect(&s, &t, &err), BF_ECORRUPT);
		assert_null(s);
		assert_non_null(strstr(err.msg, "HOST KEY CHANGED"));
		free(fp);
		free(line);
		free(a);
	}
	assert_true(bf_ssh_host_is_at("127.0.0.1", fx.port, "127.0.0.1"));
	assert_false(bf_ssh_host_is_at("no such host.invalid", fx.port,
	                               "127.0.0.1"));
	free(addr);
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
	assert_int_equal(bf_ssh_scan_host_key(&fp, &line, NULL, "127.0.0.1",
	                                      ntohs(a.sin_port), 0.3, &err),
	                 BF_ETIMEOUT);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ssh__known_hosts_path),
		cmocka_unit_test(test_ssh__scan_and_add_host_key),
		cmocka_unit_test(test_ssh__unknown_host_key),
		cmocka_unit_test(test_ssh__changed_host_key),
		cmocka_unit_test(test_ssh__pinned_host_key),
		cmocka_unit_test(test_ssh__mapped_address_is_the_same_pin),
		cmocka_unit_test(test_ssh__wrong_client_key),
		cmocka_unit_test(test_ssh__encrypted_key),
		cmocka_unit_test(test_ssh__key_with_open_permissions),
		cmocka_unit_test(test_ssh__closed_port_fails_fast),
		cmocka_unit_test(test_ssh__silent_listener_times_out),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
