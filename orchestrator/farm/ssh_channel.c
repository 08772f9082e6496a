#include "farm/ssh.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"
#include "benchfarm/proto.h"
#include "benchfarm/spawn.h"
#include "farm/agentconn.h"
#include "farm/ssh_int.h"

/*
 * Exec channels: commands run on the device (bf_ssh_exec) and the agent
 * protocol over a channel's stdin/stdout (struct bf_conn_ops "ssh").
 */

#define EXEC_OUT_MAX    (1024u * 1024)
#define OPEN_TIMEOUT_S  30.0
#define SEND_TIMEOUT_S  60.0
#define AGENT_CLOSE_S   5.0
#define STDERR_LOG_MAX  (16u * 1024) /* stderr bytes logged per channel */
#define STDERR_LINE_MAX 240
#define ZERO_READS_MAX  16

/* The channel's stderr: logged at debug level, the last line kept. */
struct errlog {
	const char *name; /* device, borrowed */
	char line[STDERR_LINE_MAX + 1]; /* current or last complete line */
	size_t len;
	size_t logged; /* bytes logged so far */
	bool complete; /* line holds a finished line */
};

#define SAFE_WORD                                                        \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" \
	"_-.,/:+@%"

char *bf_ssh_quote_argv(const char *const *argv)
{
	struct bf_buf b = BF_BUF_INIT;

	if (!argv || !argv[0])
		BF_BUG("bf_ssh_quote_argv: empty argv");
	for (size_t i = 0; argv[i]; i++) {
		const char *p = argv[i];

		if (i)
			bf_buf_addch(&b, ' ');
		/*
		 * A word of only these characters means the same to every
		 * shell and to Gerrit's own command parser, bare.
		 */
		if (*p && strspn(p, SAFE_WORD) == strlen(p)) {
			bf_buf_addstr(&b, p);
			continue;
		}
		bf_buf_addch(&b, '\'');
		for (; *p; p++) {
			if (*p == '\'')
				bf_buf_addstr(&b, "'\\''");
			else
				bf_buf_addch(&b, *p);
		}
		bf_buf_addch(&b, '\'');
	}
	return bf_buf_detach(&b, NULL);
}

static void errlog_add(struct errlog *l, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (l->complete) {
			l->len = 0;
			l->complete = false;
		}
		if (data[i] != '\n') {
			if (l->len < STDERR_LINE_MAX)
				l->line[l->len++] = data[i];
			continue;
		}
		l->line[l->len] = '\0';
		l->complete = true;
		if (l->logged < STDERR_LOG_MAX)
			BF_LOG_DEBUG("'%s' stderr: %s", l->name, l->line);
		l->logged += l->len + 1;
	}
	l->line[l->len] = '\0';
}

/*
 * Read what stderr has now. Returns 1 when something was read, 0 when
 * nothing was, or an error code (the connection dropped).
 */
static int drain_stderr(struct bf_ssh *s, LIBSSH2_CHANNEL *ch, struct errlog *l,
                        struct bf_err *err)
{
	char chunk[4096];
	ssize_t n;
	int got = 0;

	while ((n = libssh2_channel_read_stderr(ch, chunk, sizeof(chunk))) >
	       0) {
		errlog_add(l, chunk, (size_t)n);
		got = 1;
	}
	if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
		return bf_ssh__fail(s, (int)n, "reading stderr", err);
	return got;
}

/*
 * Read up to len bytes of stdout into buf: *got bytes (0 when none yet),
 * *eof at end of output. Waits until deadline for something to happen.
 */
static int chan_read(size_t *got, bool *eof, char *buf, size_t len,
                     struct bf_ssh *s, LIBSSH2_CHANNEL *ch, struct errlog *l,
                     double deadline, struct bf_err *err)
{
	int zero_reads = 0, drained;
	ssize_t n;

	*got = 0;
	for (;;) {
		n = libssh2_channel_read(ch, buf, len);
		if (n > 0) {
			*got = (size_t)n;
			return 0;
		}
		if ((drained = drain_stderr(s, ch, l, err)) < 0)
			return drained;
		if (n == 0 && libssh2_channel_eof(ch)) {
			*eof = true;
			return 0;
		}
		if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
			return bf_ssh__fail(s, (int)n, "reading output", err);
		if (drained || (n == 0 && ++zero_reads < ZERO_READS_MAX))
			continue;
		zero_reads = 0;
		if (bf_ssh__wait_idle(s, deadline, err))
			return BF_ETIMEOUT;
	}
}

/*
 * Free ch. libssh2 frees a channel only once the device has closed it
 * too, which waits for the command to end: a channel whose command
 * still runs is kept in s->closing and freed later, never waited for.
 */
static void chan_free(struct bf_ssh *s, LIBSSH2_CHANNEL *ch)
{
	if (libssh2_channel_free(ch) != LIBSSH2_ERROR_EAGAIN)
		return;
	if (s->nclosing == s->closing_alloc) {
		s->closing_alloc = s->closing_alloc ? 2 * s->closing_alloc : 4;
		s->closing = bf_xreallocarray(s->closing, s->closing_alloc,
		                              sizeof(*s->closing));
	}
	s->closing[s->nclosing++] = ch;
}

/* Free the channels in s->closing that the device has closed since. */
static void reap_closing(struct bf_ssh *s)
{
	size_t i = 0;

	while (i < s->nclosing) {
		if (libssh2_channel_free(s->closing[i]) ==
		    LIBSSH2_ERROR_EAGAIN) {
			i++;
			continue;
		}
		s->closing[i] = s->closing[--s->nclosing];
	}
}

/*
 * Close ch and wait at most grace_s for the device to close it too,
 * which it does once the command has ended, after its exit status:
 * true when it did. Output still arriving is read and dropped (a
 * command still writing gets SIGPIPE).
 */
static bool chan_close(struct bf_ssh *s, LIBSSH2_CHANNEL *ch, double grace_s)
{
	double deadline = bf_now_monotonic() + grace_s;
	struct errlog l = { s->name, "", 0, 0, false };
	bool eof = false;
	char chunk[4096];
	size_t got;
	int rc;

	if (s->dead)
		return false;
	while ((rc = libssh2_channel_close(ch)) == LIBSSH2_ERROR_EAGAIN)
		if (bf_ssh__wait_idle(s, deadline, NULL))
			return false;
	/* libssh2 may return before the device's close has arrived. */
	while (!rc && !eof)
		if (chan_read(&got, &eof, chunk, sizeof(chunk), s, ch, &l,
		              deadline, NULL))
			return false;
	while (!rc &&
	       (rc = libssh2_channel_wait_closed(ch)) == LIBSSH2_ERROR_EAGAIN)
		if (bf_ssh__wait_idle(s, deadline, NULL))
			return false;
	return rc == 0;
}

/* Open a session channel and start cmd on it. */
static int chan_open(LIBSSH2_CHANNEL **out, struct bf_ssh *s, const char *cmd,
                     double deadline, struct bf_err *err)
{
	LIBSSH2_CHANNEL *ch;
	int rc, ret;

	if ((ret = bf_ssh__check_alive(s, err)))
		return ret;
	reap_closing(s);
	while (!(ch = libssh2_channel_open_session(s->session))) {
		rc = libssh2_session_last_errno(s->session);
		if (rc != LIBSSH2_ERROR_EAGAIN)
			return bf_ssh__fail(s, rc, "opening a channel", err);
		if ((ret = bf_ssh__wait(s, deadline, err)))
			return ret;
	}
	while ((rc = libssh2_channel_exec(ch, cmd)) == LIBSSH2_ERROR_EAGAIN)
		if ((ret = bf_ssh__wait(s, deadline, err)))
			break;
	if (!ret && rc)
		ret = bf_ssh__fail(s, rc, "starting a command", err);
	if (ret)
		chan_free(s, ch);
	else
		*out = ch;
	return ret;
}

/* The exit status once the channel is closed: -1 for a signal. */
static int exit_status(LIBSSH2_CHANNEL *ch, struct bf_ssh *s)
{
	char *sig = NULL;
	size_t len = 0;

	libssh2_channel_get_exit_signal(ch, &sig, &len, NULL, NULL, NULL, NULL);
	if (sig) {
		BF_LOG_DEBUG("'%s': command killed by SIG%s", s->name, sig);
		libssh2_free(s->session, sig);
		return -1;
	}
	return libssh2_channel_get_exit_status(ch);
}

/* What exec_collect reads past its cap, at most, before closing. */
#define DRAIN_MAX (64 * 1024)
#define DRAIN_S   1.0

/* Collect stdout into out until its end; BF_ETOOBIG beyond cap bytes. */
static int exec_collect(struct bf_buf *out, size_t cap, struct bf_ssh *s,
                        LIBSSH2_CHANNEL *ch, struct errlog *l, double deadline,
                        struct bf_err *err)
{
	char chunk[16384];
	bool eof = false, over = false;
	double until;
	size_t got;
	int ret;

	while (!eof) {
		ret = chan_read(&got, &eof, chunk, sizeof(chunk), s, ch, l,
		                deadline, err);
		if (ret)
			return ret;
		if (out->len + got > cap) {
			over = true;
			got = cap > out->len ? cap - out->len : 0;
		}
		if (got && bf_buf_add(out, chunk, got))
			over = true;
		if (over)
			break;
	}
	if (!over)
		return 0;
	/*
	 * Read on a little, keeping nothing: a command that has printed
	 * all it will then ends by itself with its own status (closing
	 * first raced with its exit and could kill it); one that keeps
	 * writing, or says nothing more, is ended by closing the channel
	 * after DRAIN_MAX bytes or DRAIN_S seconds.
	 */
	until = bf_now_monotonic() + DRAIN_S;
	if (deadline && deadline < until)
		until = deadline;
	for (size_t drained = 0; !eof && drained < DRAIN_MAX; drained += got)
		if (chan_read(&got, &eof, chunk, sizeof(chunk), s, ch, l, until,
		              NULL))
			break;
	return BF_ETOOBIG;
}

/* Send all of data to the command's stdin, then end of input. */
static int chan_send_input(struct bf_ssh *s, LIBSSH2_CHANNEL *ch,
                           const char *data, size_t len, double deadline,
                           struct bf_err *err)
{
	double until =
	        deadline ? deadline : bf_now_monotonic() + SEND_TIMEOUT_S;
	ssize_t n;
	int rc, ret;

	while (len) {
		n = libssh2_channel_write(ch, data, len);
		if (n == LIBSSH2_ERROR_EAGAIN) {
			if ((ret = bf_ssh__wait(s, until, err)))
				return ret;
			continue;
		}
		if (n < 0)
			return bf_ssh__fail(s, (int)n, "sending input", err);
		data += n;
		len -= (size_t)n;
	}
	while ((rc = libssh2_channel_send_eof(ch)) == LIBSSH2_ERROR_EAGAIN)
		if ((ret = bf_ssh__wait(s, until, err)))
			return ret;
	if (rc < 0)
		return bf_ssh__fail(s, rc, "ending input", err);
	return 0;
}

int bf_ssh_exec(int *status_out, struct bf_buf *out, struct bf_ssh *s,
                const char *const *argv, double timeout_s, struct bf_err *err)
{
	return bf_ssh_exec_input(status_out, out, s, argv, NULL, 0, timeout_s,
	                         err);
}

int bf_ssh_exec_input(int *status_out, struct bf_buf *out, struct bf_ssh *s,
                      const char *const *argv, const char *input,
                      size_t input_len, double timeout_s, struct bf_err *err)
{
	double deadline = timeout_s > 0 ? bf_now_monotonic() + timeout_s : 0;
	struct errlog l = { s->name, "", 0, 0, false };
	size_t cap = out->max ? out->max : EXEC_OUT_MAX;
	LIBSSH2_CHANNEL *ch = NULL;
	bool closed;
	char *cmd;
	int ret;

	if (!argv || !argv[0])
		return bf_err_set(err, BF_EINVAL, "'%s': empty command",
		                  s->name);
	cmd = bf_ssh_quote_argv(argv);
	ret = chan_open(
	        &ch, s, cmd,
	        deadline ? deadline : bf_now_monotonic() + OPEN_TIMEOUT_S, err);
	if (ret)
		goto out;
	if (input)
		ret = chan_send_input(s, ch, input, input_len, deadline, err);
	if (!ret)
		ret = exec_collect(out, cap, s, ch, &l, deadline, err);
	if (ret == BF_ETIMEOUT)
		bf_err_set(err, BF_ETIMEOUT,
		           "'%s' on '%s' did not finish within %g s", argv[0],
		           s->name, timeout_s);
	else if (ret == BF_ETOOBIG)
		bf_err_set(err, BF_ETOOBIG,
		           "output of '%s' on '%s' is longer than %zu bytes",
		           argv[0], s->name, cap);
	/* After a timeout the command still runs: do not wait for it. */
	closed = ret != BF_ETIMEOUT && chan_close(s, ch, AGENT_CLOSE_S);
	if (closed && (!ret || ret == BF_ETOOBIG)) {
		*status_out = exit_status(ch, s);
		/* a failed command's last word, for the person reading */
		if (*status_out && l.line[0])
			BF_LOG_WARN("'%s' on '%s': %s", argv[0], s->name,
			            l.line);
	} else if (!ret)
		ret = bf_err_set(err, BF_EPROTO,
		                 "'%s' on '%s' ended without an exit status",
		                 argv[0], s->name);
	chan_free(s, ch);
out:
	free(cmd);
	return ret;
}

/* The agent transport: the agent's stdin/stdout over one channel. */
struct agent_chan {
	struct bf_ssh *s; /* borrowed; outlives the channel */
	LIBSSH2_CHANNEL *ch;
	struct bf_buf in; /* received, not yet returned */
	size_t start; /* offset of the next line in in */
	bool eof;
	bool skipping; /* discarding the rest of an oversized line */
	struct errlog log;
	char *tail; /* gets the last stderr line on close, or NULL */
};

static void agent_compact(struct agent_chan *a)
{
	/* Never write into the shared empty buffer (threads share it). */
	if (!a->in.alloc)
		return;
	memmove(a->in.buf, a->in.buf + a->start, a->in.len - a->start);
	a->in.len -= a->start;
	a->in.buf[a->in.len] = '\0';
	a->start = 0;
}

/* The next complete line in the buffer, if any (bf_linereader rules). */
static int agent_take_line(struct agent_chan *a, const char **line, size_t *len,
                           struct bf_err *err)
{
	char *base = a->in.buf + a->start;
	size_t avail = a->in.len - a->start;
	char *nl = memchr(base, '\n', avail);

	if (!nl) {
		if (a->skipping) {
			a->start = a->in.len;
		} else if (avail > BF_PROTO_LINE_MAX) {
			a->skipping = true;
			a->start = a->in.len;
			return bf_err_set(err, BF_ETOOBIG,
			                  "line longer than %d bytes",
			                  BF_PROTO_LINE_MAX);
		}
		return 1;
	}
	a->start += (size_t)(nl - base) + 1;
	if (a->skipping) {
		a->skipping = false;
		return 1;
	}
	if ((size_t)(nl - base) > BF_PROTO_LINE_MAX)
		return bf_err_set(err, BF_ETOOBIG, "line longer than %d bytes",
		                  BF_PROTO_LINE_MAX);
	*nl = '\0';
	*line = base;
	*len = (size_t)(nl - base);
	return 0;
}

static int agent_recv(void *state, const char **line, size_t *len,
                      double deadline, struct bf_err *err)
{
	struct agent_chan *a = state;
	char chunk[65536];
	size_t got;
	int ret;

	for (;;) {
		ret = agent_take_line(a, line, len, err);
		if (ret <= 0)
			return ret;
		if (a->eof)
			return BF_ENOTFOUND;
		agent_compact(a);
		ret = chan_read(&got, &a->eof, chunk, sizeof(chunk), a->s,
		                a->ch, &a->log, deadline, err);
		if (ret)
			return ret;
		bf_buf_add(&a->in, chunk, got);
	}
}

static int agent_send(void *state, const char *data, size_t len,
                      struct bf_err *err)
{
	struct agent_chan *a = state;
	double deadline = bf_now_monotonic() + SEND_TIMEOUT_S;
	ssize_t n;
	int ret;

	if ((ret = bf_ssh__check_alive(a->s, err)))
		return ret;
	while (len) {
		n = libssh2_channel_write(a->ch, data, len);
		if (n == LIBSSH2_ERROR_EAGAIN) {
			if ((ret = bf_ssh__wait(a->s, deadline, err)))
				return ret;
			continue;
		}
		if (n < 0)
			return bf_ssh__fail(a->s, (int)n,
			                    "sending to the agent", err);
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* End of input: the agent exits; wait a little for it, as locally. */
static void agent_close(void *state)
{
	struct agent_chan *a = state;
	double deadline = bf_now_monotonic() + AGENT_CLOSE_S;
	char chunk[4096];
	size_t got;
	int rc;

	if (!a)
		return;
	while (!a->s->dead &&
	       (rc = libssh2_channel_send_eof(a->ch)) == LIBSSH2_ERROR_EAGAIN)
		if (bf_ssh__wait_idle(a->s, deadline, NULL))
			break;
	while (!a->s->dead && !a->eof &&
	       !chan_read(&got, &a->eof, chunk, sizeof(chunk), a->s, a->ch,
	                  &a->log, deadline, NULL))
		;
	chan_close(a->s, a->ch, deadline - bf_now_monotonic());
	if (a->tail)
		bf_strlcpy(a->tail, a->log.line, STDERR_LINE_MAX + 1);
	chan_free(a->s, a->ch);
	bf_buf_release(&a->in);
	free(a);
}

static const struct bf_conn_ops ssh_ops = {
	"ssh",
	agent_send,
	agent_recv,
	agent_close,
};

int bf_ssh_open_agent(struct bf_agentconn **out, struct bf_ssh *s,
                      const char *agent_path, const char *const *extra_args,
                      struct bf_err *err)
{
	struct agent_chan *a = bf_xcalloc(1, sizeof(*a));
	struct bf_argv argv = BF_ARGV_INIT;
	char tail[STDERR_LINE_MAX + 1] = "";
	char *cmd;
	size_t len;
	int ret;

	bf_argv_push(&argv, agent_path ? agent_path : "benchfarm-agent");
	bf_argv_push(&argv, "serve");
	if (extra_args)
		bf_argv_pushv(&argv, extra_args);
	cmd = bf_ssh_quote_argv((const char *const *)argv.argv);
	a->s = s;
	a->log.name = s->name;
	a->tail = tail;
	bf_buf_init(&a->in, 0);
	ret = chan_open(&a->ch, s, cmd, bf_now_monotonic() + OPEN_TIMEOUT_S,
	                err);
	if (ret) {
		free(a);
		goto out;
	}
	/* attach owns a from here, and frees it on failure. */
	ret = bf_agentconn_attach(out, &ssh_ops, a, s->name, err);
	if (!ret)
		a->tail = NULL;
	else if (*tail && err && (len = strlen(err->msg)) < sizeof(err->msg))
		snprintf(err->msg + len, sizeof(err->msg) - len, " (%s)", tail);
out:
	free(cmd);
	bf_argv_release(&argv);
	return ret;
}
