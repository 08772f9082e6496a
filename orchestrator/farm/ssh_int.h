#ifndef BF_SSH_INT_H
#define BF_SSH_INT_H

#include <libssh2.h>
#include <libssh2_sftp.h>

#include "farm/ssh.h"

/*
 * Shared by the ssh*.c files only: the one place libssh2 is called (a
 * library is wrapped by one module). The calls go one way:
 * ssh_session.c (the session, the waits, the errors) calls no other
 * ssh*.c file; ssh_known.c (host keys) uses the session; ssh.c
 * (connect) uses both; ssh_channel.c and ssh_sftp.c use the session.
 * The session is always in non-blocking mode; every libssh2 call that
 * returns EAGAIN is followed by bf_ssh__wait() and retried with the same
 * arguments.
 */
struct bf_ssh {
	char *name; /* device name, for messages */
	char *host;
	int port;
	char addr[64]; /* the numeric address connected to ("" before) */
	int sock; /* owned; -1 when closed */
	LIBSSH2_SESSION *session; /* owned */
	LIBSSH2_SFTP *sftp; /* owned; opened by the first upload */
	LIBSSH2_CHANNEL **closing; /* closed by us, not yet by the device */
	size_t nclosing, closing_alloc;
	bool dead; /* the connection failed: every call fails fast */
};

/* No progress for this long inside one libssh2 operation is a timeout. */
#define BF_SSH_STALL_S 60.0

/* Defined in ssh_session.c. */

/*
 * Wait until the socket is ready in the directions libssh2 is blocked
 * on, sending keepalives while waiting. deadline is from
 * bf_now_monotonic(); 0 waits without limit. BF_ETIMEOUT when it
 * passes: the operation was left half done, so the session is marked
 * dead. BF_ESYS when poll fails.
 */
int bf_ssh__wait(struct bf_ssh *s, double deadline, struct bf_err *err);

/*
 * Like bf_ssh__wait() for waits between operations (a channel with no
 * data yet): a timeout leaves the session usable.
 */
int bf_ssh__wait_idle(struct bf_ssh *s, double deadline, struct bf_err *err);

/*
 * Turn libssh2 error rc (negative, not EAGAIN) of the operation `what`
 * into err: BF_EPROTO "connection to 'NAME' dropped" for transport
 * errors (the session is marked dead), BF_EPROTO otherwise; a channel
 * the server refused names sshd's MaxSessions. Returns the code.
 */
int bf_ssh__fail(struct bf_ssh *s, int rc, const char *what,
                 struct bf_err *err);

/* BF_EPROTO naming the device when s is dead; else 0. */
int bf_ssh__check_alive(struct bf_ssh *s, struct bf_err *err);

/*
 * Open a TCP connection to host:port and complete the SSH handshake
 * before deadline, without verifying or authenticating anything. name
 * is for messages. Caller frees *out with bf_ssh_close().
 */
/*
 * The numeric address of sa (len bytes) into out (size bytes; "" when
 * it has none), one text per address: an IPv4-mapped IPv6 address
 * (::ffff:127.0.0.1, ::ffff:7f00:1) is its IPv4 address, so that a key
 * pinned for 127.0.0.1 is the key of every spelling of it. Cannot fail.
 */
struct sockaddr;
void bf_ssh__numeric_addr(char *out, size_t size, const struct sockaddr *sa,
                          size_t len);

/* host without the brackets of "[::1]" (a copy; caller frees). */
char *bf_ssh__host_unbracketed(const char *host);

int bf_ssh__open(struct bf_ssh **out, const char *name, const char *host,
                 int port, double deadline, struct bf_err *err);

/*
 * Verify the session's host key against known_hosts (ssh_known.c):
 * BF_ENOTFOUND unknown, BF_ECORRUPT changed, 0 when it matches.
 */
int bf_ssh__verify_host_key(struct bf_ssh *s, const char *known_hosts,
                            struct bf_err *err);

/*
 * Verify the session's host key against the registry's pin, fp
 * "SHA256:BASE64" (ssh_known.c): 0 when the key's fingerprint is fp,
 * else BF_ECORRUPT "HOST KEY CHANGED" naming both fingerprints.
 */
int bf_ssh__verify_pin(struct bf_ssh *s, const char *fp, struct bf_err *err);

#endif /* BF_SSH_INT_H */
