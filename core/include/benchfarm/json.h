#ifndef BF_JSON_H
#define BF_JSON_H

#include <jansson.h>
#include <stdio.h>

#include "benchfarm/common.h"

struct bf_err;

/*
 * Helpers over jansson. Ownership follows one rule everywhere: a json_t *
 * returned through **out is a new reference the caller json_decref()s;
 * getters return borrowed pointers valid while the parent lives.
 */

/*
 * Parse text of len bytes into *out. what names the input in errors:
 * "WHAT:LINE:COL: message". BF_EINVAL on bad JSON.
 */
int bf_json_parse(json_t **out, const char *text, size_t len, const char *what,
                  struct bf_err *err);

/* Parse a file; errors name the path. */
int bf_json_load_file(json_t **out, const char *path, struct bf_err *err);

/*
 * Typed getters of obj[key]: 0, BF_ENOTFOUND when missing (message set
 * only if required), BF_EINVAL for a wrong type. what names the object in
 * messages ("sample", "benchmark 'x'").
 */
int bf_json_get_str(const char **out, const json_t *obj, const char *key,
                    const char *what, struct bf_err *err);
int bf_json_get_num(double *out, const json_t *obj, const char *key,
                    const char *what, struct bf_err *err);
int bf_json_get_int(int64_t *out, const json_t *obj, const char *key,
                    const char *what, struct bf_err *err);

/* obj[key] as a string, or def when missing or not a string. Borrowed. */
const char *bf_json_str_or(const json_t *obj, const char *key, const char *def);

/* A new JSON string of s, or JSON null when s is NULL. */
json_t *bf_json_str_or_null(const char *s);

struct bf_argv;
/* A new JSON array of a's words, in order. */
json_t *bf_json_argv(const struct bf_argv *a);

/*
 * Write value as JSON to path with bf_fs_write_atomic() (temp file +
 * rename; a device or FIFO is written in place), with mode 0600 when
 * private is set, else 0644. Indented when pretty.
 */
int bf_json_write_file(const json_t *value, const char *path, bool pretty,
                       bool private, struct bf_err *err);

/* Print value as indented JSON and a newline on f (stdout for --json). */
void bf_json_print(const json_t *value, FILE *f);

#endif /* BF_JSON_H */
