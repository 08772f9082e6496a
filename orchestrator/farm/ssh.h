#ifndef BF_SSH_H
#define BF_SSH_H

#include "benchfarm/buf.h"
#include "benchfarm/common.h"

struct bf_agentconn;
struct bf_err;

/*
 * The SSH transport (libssh2 is wrapped only in ssh*.c): one session per
 * device, reused across requests; strict host-key verification against
 * the registry's pin of the device's key when there is one, else
 * against the known_hosts file benchfarm keeps; public-key authentication;
 * connect, authentication and command timeouts; keepalives. Secrets
 * (private keys, passphrases) never reach logs, messages or the store.
 */
struct bf_ssh_target {
	const char *name; /* device name, for messages */
	const char *host; /* host name or address */
	int port; /* 0: 22 */
	const char *user; /* NULL: $USER, else "root" */
	const char *key_path; /* private key; NULL: ~/.ssh/id_ed25519 */
	const char *known_hosts; /* benchfarm's file; NULL: the default */
	/*
	 * The registry's pin ("SHA256:BASE64", devices.host_key_fp): when
	 * set, the host key must have exactly this fingerprint and
	 * known_hosts is not read, so every host sharing the registry
	 * trusts the same key. NULL or "": known_hosts decides.
	 */
	const char *host_key_fp;
	double connect_timeout_s; /* 0: 10 s; covers TCP, handshake, auth */
	int keepalive_s; /* 0: 15 s */
};

#define BF_SSH_TARGET_INIT                                  \
	{                                                   \
		NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0 \
	}

struct bf_ssh;

/*
 * The default known_hosts file: $BENCHFARM_KNOWN_HOSTS, else
 * $XDG_DATA_HOME/benchfarm/known_hosts, else
 * ~/.local/share/benchfarm/known_hosts. Caller frees.
 */
int bf_ssh_known_hosts_path(char **out, struct bf_err *err);

/*
 * Connect, verify the host key and authenticate. Errors name the device:
 * BF_ETIMEOUT (no answer within the timeout), BF_ESYS (refused,
 * unreachable), BF_EAUTH (key refused; a private key readable by group
 * or others is refused before connecting, as ssh does), BF_ENOTFOUND
 * (no pin and host key not in known_hosts: "run 'benchfarm device add
 * ... --accept-host-key'"), BF_ECORRUPT (host key CHANGED: not the
 * pinned one, or not the one in known_hosts; the message names both
 * SHA256 fingerprints and 'benchfarm device rekey NAME'). Caller frees
 * *out with bf_ssh_close().
 */
int bf_ssh_connect(struct bf_ssh **out, const struct bf_ssh_target *t,
                   struct bf_err *err);
void bf_ssh_close(struct bf_ssh *s);

/* The device name, borrowed. */
const char *bf_ssh_name(const struct bf_ssh *s);

/*
 * Run argv on the device (each word quoted for the remote shell; no
 * untrusted text is ever interpreted there) and collect stdout (capped
 * at out->max, or 1 MiB) and the exit status. BF_ETIMEOUT after
 * timeout_s; BF_EPROTO when the connection drops.
 * *status_out is the exit status, or -1 when the command was killed by
 * a signal. Output beyond the cap makes it BF_ETOOBIG: out holds the
 * first bytes, the channel is closed (a command still writing gets
 * SIGPIPE) and *status_out is set when the command ended within 5 s.
 * On other errors *status_out is unchanged.
 * timeout_s 0: no limit. Not thread-safe per session: one thread uses a
 * bf_ssh at a time (any number of sessions in parallel).
 */
int bf_ssh_exec(int *status_out, struct bf_buf *out, struct bf_ssh *s,
                const char *const *argv, double timeout_s, struct bf_err *err);

/*
 * bf_ssh_exec with input: input_len bytes of input are sent to the
 * command's stdin, then end of input, before its output is read (meant
 * for small inputs such as a Gerrit ReviewInput; a command that writes
 * a large output before reading its input would stall until timeout).
 * input NULL: no input, the same as bf_ssh_exec.
 */
int bf_ssh_exec_input(int *status_out, struct bf_buf *out, struct bf_ssh *s,
                      const char *const *argv, const char *input,
                      size_t input_len, double timeout_s, struct bf_err *err);

/*
 * The remote command line for argv: each word single-quoted ('\'' for a
 * quote), separated by spaces, so a POSIX shell on the device runs argv
 * exactly with nothing expanded. Caller frees. Cannot fail (aborts on
 * OOM); argv must hold at least one word.
 */
char *bf_ssh_quote_argv(const char *const *argv);

/*
 * Start `AGENT serve [EXTRA_ARGS...]` over an exec channel of s and read
 * its hello: the agent protocol over SSH, the same code path as the
 * local transport. agent_path NULL: "benchfarm-agent" on the device's
 * PATH; extra_args NULL or NULL-terminated (e.g. "--adb", SERIAL for an
 * Android phone on a lab host). The session stays usable for more
 * channels. Caller closes *out with bf_agentconn_close(), before
 * bf_ssh_close(s).
 */
int bf_ssh_open_agent(struct bf_agentconn **out, struct bf_ssh *s,
                      const char *agent_path, const char *const *extra_args,
                      struct bf_err *err);

/*
 * Make the device's work directory dir (mkdir -p over SFTP) and set
 * *abs_out to its absolute, canonical path (caller frees). A relative
 * dir is relative to the directory the SFTP server starts in: the
 * remote user's home, unless the server's sftp subsystem names another
 * (sftp-server -d). Everything benchfarm sends the agent afterwards
 * uses the absolute path, so the directory the agent itself was
 * started in never matters.
 */
int bf_ssh_workdir(char **abs_out, struct bf_ssh *s, const char *dir,
                   struct bf_err *err);

/*
 * Upload local_path with SFTP into REMOTE_DIR/SHA256/BASENAME on the
 * device (a per-content cache), verify its size (and mode), and set
 * *remote_out to that path (caller frees). When the file is already
 * there with the right size it is not sent again (*uploaded false).
 * The upload goes to a temporary name and is renamed into place, so a
 * half-written file is never used. A full disk is BF_ESYS naming the
 * device. The local file is opened once without following a link,
 * must be a regular file of at most BF_REGFILE_MAX bytes (else
 * BF_EINVAL or BF_ETOOBIG), and is hashed and sent from that one
 * descriptor; bytes that change while they are sent are BF_ECORRUPT.
 * The device's copy is read-only (0444, 0555 when executable).
 */
int bf_ssh_upload(char **remote_out, bool *uploaded, struct bf_ssh *s,
                  const char *local_path, const char *remote_dir,
                  struct bf_err *err);

/*
 * Upload local_path with SFTP to exactly remote_path (its directories
 * made as needed), as bf_ssh_upload() does: not sent again when there
 * with the right size (*uploaded false), written under a temporary name
 * and renamed into place, verified. hex, when not NULL, is the SHA-256
 * the file had when it was checked: content that no longer hashes to it
 * is BF_ECORRUPT and nothing is sent. For the files of a directory
 * artifact, whose remote directory the caller names by content, and for
 * a file whose hash the caller knows.
 */
int bf_ssh_upload_to(bool *uploaded, struct bf_ssh *s, const char *local_path,
                     const char *hex, const char *remote_path,
                     struct bf_err *err);

/*
 * Fetch the host key of host:port without authenticating (for `device
 * add --accept-host-key`): *fp_out "SHA256:BASE64" and *line_out the
 * known_hosts line ("[host]:port TYPE BASE64"; "[host]:port,[addr]:port
 * TYPE BASE64" when host is a name, so the key is pinned for the
 * address it resolved to as well) and *addr_out (may be NULL) the
 * numeric address connected to ("" when none). Callers free them.
 */
int bf_ssh_scan_host_key(char **fp_out, char **line_out, char **addr_out,
                         const char *host, int port, double timeout_s,
                         struct bf_err *err);

/*
 * Whether host (a name, an address in any spelling, "[v6]") resolves,
 * for port, to the numeric address addr as connections record it (an
 * IPv4-mapped address as IPv4). false when it does not resolve. For the
 * registry's pins by address (device add): the lookup happens here, on
 * this host, at the time of the call.
 */
bool bf_ssh_host_is_at(const char *host, int port, const char *addr);

/*
 * Record line in known_hosts (created 0600, parent 0700). An entry
 * naming any of line's hosts (name or address, with port) with another
 * key is replaced when replace is true
 * (device rekey), else BF_EEXISTS and nothing changes (device add must
 * not undo a pin another device relies on). Used only on explicit
 * request.
 */
int bf_ssh_known_hosts_add(const char *known_hosts, const char *line,
                           bool replace, struct bf_err *err);

#endif /* BF_SSH_H */
