#ifndef BF_HOST_MOCK_H
#define BF_HOST_MOCK_H

#include "benchfarm/plugin.h"

/*
 * A struct bf_host for unit tests of reporter plugins: no network, no
 * processes. getenv answers from a table the test sets; ssh_run and
 * spawn record their argv and input and answer with canned output and
 * status. One mock at a time (tests are single-threaded).
 */
struct host_mock {
	const char *env[16][2]; /* name, value; unset entries NULL */
	/* what ssh_run / spawn answer */
	const char *answer; /* stdout given back */
	int status; /* exit status given back */
	int fail; /* non-zero: return this error code instead */
	/* what they were called with (owned by the mock) */
	int ssh_calls, spawn_calls;
	char *last_argv; /* the words joined by '\n' */
	char *last_input;
	char *last_host; /* "user@host:port" of the last ssh_run */
	int logs; /* messages logged */
};

/* Reset m (freeing what it recorded) and make it the active mock. */
const struct bf_host *host_mock_init(struct host_mock *m);
void host_mock_release(struct host_mock *m);
void host_mock_setenv(struct host_mock *m, const char *name, const char *value);

#endif /* BF_HOST_MOCK_H */
