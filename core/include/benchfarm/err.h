#ifndef BF_ERR_H
#define BF_ERR_H

#include "benchfarm/common.h"

/*
 * Error codes returned by every fallible function: 0 for success or one
 * of these. Append only; never renumber or remove (curl).
 */
enum bf_errcode {
	BF_OK = 0,
	BF_ERROR = -1, /* generic failure */
	BF_ENOTFOUND = -2, /* object, key or file does not exist */
	BF_EINVAL = -3, /* invalid argument or input */
	BF_EEXISTS = -4, /* object already exists */
	BF_ETIMEOUT = -5, /* operation timed out */
	BF_EAUTH = -6, /* authentication failed */
	BF_EPROTO = -7, /* protocol violation by a peer */
	BF_ESYS = -8, /* system call failed; see the message */
	BF_ETOOBIG = -9, /* input exceeds a size limit */
	BF_EVERSION = -10, /* incompatible version (schema, protocol) */
	BF_EBUSY = -11, /* resource held by someone else */
	BF_ECORRUPT = -12, /* stored data is damaged or not ours */
};

#define BF_ERR_SIZE 512

/*
 * Caller-owned error detail. Functions that detect a failure fill it in
 * once with bf_err_set(); callers propagate the code and leave the message.
 */
struct bf_err {
	int code;
	char msg[BF_ERR_SIZE];
};

#define BF_ERR_INIT       \
	{                 \
		0,        \
		{         \
			0 \
		}         \
	}

/* Text for a code; never NULL, cannot fail. */
const char *bf_strerror(int code);

/*
 * Record code and a formatted message in err (which may be NULL).
 * Returns code, so that `return bf_err_set(err, BF_EINVAL, ...)` works.
 */
int bf_err_set(struct bf_err *err, int code, const char *fmt, ...)
        BF_PRINTF(3, 4);

/*
 * Like bf_err_set(err, BF_ESYS, ...) but appends ": <strerror(errno)>".
 * Read errno before calling anything else. Returns BF_ESYS.
 */
int bf_err_sys(struct bf_err *err, const char *fmt, ...) BF_PRINTF(2, 3);

/* Prepend "prefix: " to an existing message (adds context). */
void bf_err_prefix(struct bf_err *err, const char *fmt, ...) BF_PRINTF(2, 3);

/* Reset err to no error. err may be NULL. */
void bf_err_clear(struct bf_err *err);

#endif /* BF_ERR_H */
