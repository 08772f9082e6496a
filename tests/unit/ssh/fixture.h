#ifndef BF_TEST_SSH_FIXTURE_H
#define BF_TEST_SSH_FIXTURE_H

#include "benchfarm/buf.h"
#include "farm/ssh.h"

/*
 * The fixture of the SSH transport's tests (tests/unit/ssh/test_ssh*.c):
 * group_setup() starts the OpenSSH sshd "device" d1 on 127.0.0.1 with
 * ci/sshd.sh in a new temporary directory, makes the client key and the
 * known_hosts file holding d1's host key; group_teardown() stops d1 and
 * removes the directory. Run from the repository root; the agent is
 * $BF_BUILD_ABS/benchfarm-agent, else build/default's.
 */
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

extern struct fixture fx;

int group_setup(void **state);
int group_teardown(void **state);

/*
 * Run argv (PATH with the fixture's sshd wrapper first); its stdout into
 * out (may be NULL). Returns the exit code, -1 when it could not run.
 */
int run(struct bf_buf *out, const char *const *argv);

/* The path of name in the fixture's directory. Caller frees. */
char *path_in(const char *name);

/* Write a known_hosts file pinning host_b64 for [127.0.0.1]:port. */
int write_known_hosts(const char *path, const char *host_b64, int port);

/* The target d1 at port, with the fixture's user, key and known_hosts. */
void target_of(struct bf_ssh_target *t, int port);

/* A session to d1; the test fails when it cannot connect. */
struct bf_ssh *connect_d1(void);

/* Run argv on s; returns its stdout (caller frees) and *status. */
char *exec_out(int *status, struct bf_ssh *s, const char *const *argv);

#endif /* BF_TEST_SSH_FIXTURE_H */
