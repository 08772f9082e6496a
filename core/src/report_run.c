#include "benchfarm/report.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/utf8.h"

/*
 * Running one reporter over a result document and writing what it
 * produced. Depends on core only, so plugin unit tests link it with a
 * mock host (tests/mocks/host_mock.c).
 */

#define REPORT_OUT_MAX (64u * 1024 * 1024) /* per output */

struct bf_report_output {
	char *name;
	struct bf_buf buf;
};

struct bf_report {
	const json_t *result;
	const struct bf_report_opts *opts;
	const struct bf_host *host;
	struct bf_report_output *outs;
	size_t n, alloc;
};

struct bf_buf *bf_report_add_output(struct bf_report *r, const char *file_name)
{
	struct bf_report_output *o;

	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 4;
		r->outs = bf_xreallocarray(r->outs, r->alloc, sizeof(*r->outs));
	}
	o = &r->outs[r->n++];
	o->name = bf_xstrdup(file_name);
	bf_buf_init(&o->buf, REPORT_OUT_MAX);
	return &o->buf;
}

const json_t *bf_report_result(const struct bf_report *r)
{
	return r->result;
}

const struct bf_report_opts *bf_report_opts(const struct bf_report *r)
{
	return r->opts;
}

const struct bf_host *bf_report_host(const struct bf_report *r)
{
	return r->host;
}

size_t bf_report_noutputs(const struct bf_report *r)
{
	return r->n;
}

const char *bf_report_output_name(const struct bf_report *r, size_t i)
{
	return i < r->n ? r->outs[i].name : NULL;
}

const struct bf_buf *bf_report_output(const struct bf_report *r, size_t i)
{
	return i < r->n ? &r->outs[i].buf : NULL;
}

void bf_report_free(struct bf_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->outs[i].name);
		bf_buf_release(&r->outs[i].buf);
	}
	free(r->outs);
	free(r);
}

/* Does the comma-separated list kinds hold kind? */
static bool has_kind(const char *kinds, const char *kind)
{
	size_t len = strlen(kind);

	for (const char *p = kinds; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == len && !strncmp(p, kind, n))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/*
 * Whether this benchfarm reads a result written by version v: the same
 * major version (for 0.y, the same minor). A document without the field
 * (one made by hand) is read as it is.
 */
/*
 * v as MAJOR.MINOR.PATCH (numbers without leading zeros), optionally
 * followed by a "-" or "+" suffix: 0 and the first two numbers, or -1.
 */
static int parse_version(const char *v, unsigned long out[2])
{
	unsigned long n[3];
	const char *p = v;
	char *end;

	for (int i = 0; i < 3; i++) {
		if (i && *p++ != '.')
			return -1;
		if (!isdigit((unsigned char)p[0]) ||
		    (p[0] == '0' && isdigit((unsigned char)p[1])))
			return -1;
		errno = 0;
		n[i] = strtoul(p, &end, 10);
		if (errno)
			return -1;
		p = end;
	}
	if (*p && *p != '-' && *p != '+')
		return -1;
	out[0] = n[0];
	out[1] = n[1];
	return 0;
}

static bool readable_version(const char *v)
{
	unsigned long ours[2], theirs[2];

	if (!v)
		return true;
	if (parse_version(BF_VERSION, ours) || parse_version(v, theirs))
		return false;
	return ours[0] == theirs[0] && (ours[0] || ours[1] == theirs[1]);
}

/* The document's "benchfarm" version; "?" if it is not a string. */
static const char *version_of(const json_t *result)
{
	const json_t *v = json_object_get(result, "benchfarm");

	if (!v)
		return NULL;
	return json_is_string(v) ? json_string_value(v) : "?";
}

/*
 * The length of the UTF-8 sequence at s when it encodes a character that
 * is not a control character (C0, DEL or C1), else 0: a byte that starts
 * no sequence, a cut sequence, an overlong form, a surrogate, a code
 * point beyond U+10FFFF, or a control character.
 */
static size_t text_char(const unsigned char *s)
{
	size_t n = bf_utf8_len(s, SIZE_MAX);

	if (n == 1 && (s[0] < 0x20 || s[0] == 0x7f))
		return 0; /* C0 (NUL too) and DEL */
	if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0; /* C1: U+0080..U+009F */
	return n;
}

/* value (NULL: not given) is UTF-8 text without control characters. */
static int check_text(const char *value, const char *what, struct bf_err *err)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t n;

	for (; s && *s; s += n) {
		if (!(n = text_char(s)))
			return bf_err_set(
			        err, BF_EINVAL,
			        "%s is not UTF-8 text without control "
			        "characters (byte 0x%02x at offset %zu)",
			        what, *s,
			        (size_t)(s - (const unsigned char *)value));
	}
	return 0;
}

/*
 * The words of the command line and the config that reach a report: a
 * check name lands in JSON, XML and markdown, so each must be text there
 * (jansson refuses a string that is not UTF-8; XML 1.0 refuses most
 * control characters). Checked here once for every reporter; the
 * Gerrit change has its stricter rule in the gerrit reporter.
 */
static int check_opts(const struct bf_report_opts *o, struct bf_err *err)
{
	int ret;

	if ((ret = check_text(o->check_name,
	                      "the check name (--check-name, "
	                      "review.check_name)",
	                      err)) ||
	    (ret = check_text(o->link, "the link (review.link)", err)) ||
	    (ret = check_text(o->gerrit_label,
	                      "the Gerrit label (review.gerrit.label)", err)))
		return ret;
	return check_text(o->exec_name, "the exec reporter's NAME (exec:NAME)",
	                  err);
}

bool bf_plugin_renders(const struct bf_plugin *p, const char *kind)
{
	return kind && has_kind(p->kinds, kind);
}

int bf_report_check(const struct bf_plugin *p, const json_t *result,
                    const struct bf_report_opts *opts, struct bf_err *err)
{
	const char *kind = bf_json_str_or(result, "kind", NULL);
	int ret;

	if (p->abi != BF_PLUGIN_ABI)
		return bf_err_set(err, BF_EINVAL,
		                  "reporter '%s' is built for plugin ABI %d, "
		                  "this benchfarm has %d",
		                  p->name, p->abi, BF_PLUGIN_ABI);
	if ((ret = check_opts(opts, err)))
		return ret;
	if (!json_is_object(result) || !kind)
		return bf_err_set(err, BF_EINVAL,
		                  "not a benchfarm result: no \"kind\" "
		                  "(expected the JSON of 'benchfarm compare "
		                  "--json', 'benchfarm detect --json' or "
		                  "'benchfarm bisect --json')");
	if (!readable_version(version_of(result)))
		return bf_err_set(err, BF_EINVAL,
		                  "the result was written by benchfarm '%.40s' "
		                  "and this is benchfarm %s, which reads "
		                  "results of its own version: render it with "
		                  "that version, or run the comparison again",
		                  version_of(result), BF_VERSION);
	if (!has_kind(p->kinds, kind))
		return bf_err_set(err, BF_EINVAL,
		                  "reporter '%s' renders %s results, not "
		                  "'%.40s'",
		                  p->name, p->kinds, kind);
	if (!strcmp(kind, "detect") &&
	    !json_is_array(json_object_get(result, "alerts")))
		return bf_err_set(err, BF_EINVAL,
		                  "the detect result has no \"alerts\" array "
		                  "(expected the JSON of 'benchfarm detect "
		                  "--json')");
	return 0;
}

int bf_report_render(struct bf_report **out, const struct bf_plugin *p,
                     const json_t *result, const struct bf_report_opts *opts,
                     const struct bf_host *host, struct bf_err *err)
{
	struct bf_report *r;
	void *state = NULL;
	int ret;

	if ((ret = bf_report_check(p, result, opts, err)))
		return ret;
	if (p->init && (ret = p->init(&state, host, opts, err)))
		return ret;
	r = bf_xcalloc(1, sizeof(*r));
	r->result = result;
	r->opts = opts;
	r->host = host;
	ret = p->run(r, err, state);
	if (p->shutdown)
		p->shutdown(state);
	if (ret) {
		bf_report_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

int bf_report_write(const struct bf_report *r, const char *output,
                    const char *dir, struct bf_err *err)
{
	int ret = 0;

	if (output && r->n && !strcmp(output, "-")) {
		if (fwrite(r->outs[0].buf.buf, 1, r->outs[0].buf.len, stdout) !=
		            r->outs[0].buf.len ||
		    fflush(stdout))
			return bf_err_set(err, BF_ESYS, "writing stdout: %s",
			                  strerror(errno));
	} else if (output && r->n) {
		ret = bf_fs_write_atomic(output, r->outs[0].buf.buf,
		                         r->outs[0].buf.len, 0600, err);
	}
	if (!ret && dir)
		ret = bf_fs_mkdirs(dir, 0700, err);
	for (size_t i = 0; !ret && dir && i < r->n; i++) {
		char *path = bf_fs_join(dir, r->outs[i].name);

		ret = bf_fs_write_atomic(path, r->outs[i].buf.buf,
		                         r->outs[i].buf.len, 0600, err);
		free(path);
	}
	return ret;
}
