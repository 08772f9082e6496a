#include "benchfarm/json.h"

#include <stdio.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"

#define JSON_FILE_MAX (256u * 1024 * 1024)

int bf_json_parse(json_t **out, const char *text, size_t len, const char *what,
                  struct bf_err *err)
{
	json_error_t je;
	json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);

	if (!v)
		return bf_err_set(err, BF_EINVAL, "%s:%d:%d: %s", what, je.line,
		                  je.column, je.text);
	*out = v;
	return 0;
}

int bf_json_load_file(json_t **out, const char *path, struct bf_err *err)
{
	struct bf_buf b;
	int ret;

	bf_buf_init(&b, JSON_FILE_MAX);
	ret = bf_buf_read_file(&b, path, err);
	if (!ret)
		ret = bf_json_parse(out, b.buf, b.len, path, err);
	bf_buf_release(&b);
	return ret;
}

static int get_member(const json_t **out, const json_t *obj, const char *key,
                      const char *what, struct bf_err *err)
{
	const json_t *v =
	        json_is_object(obj) ? json_object_get(obj, key) : NULL;

	if (!v || json_is_null(v))
		return bf_err_set(err, BF_ENOTFOUND, "%s: missing '%s'", what,
		                  key);
	*out = v;
	return 0;
}

int bf_json_get_str(const char **out, const json_t *obj, const char *key,
                    const char *what, struct bf_err *err)
{
	const json_t *v = NULL;
	int ret = get_member(&v, obj, key, what, err);

	if (ret)
		return ret;
	if (!json_is_string(v))
		return bf_err_set(err, BF_EINVAL, "%s: '%s' is not a string",
		                  what, key);
	*out = json_string_value(v);
	return 0;
}

int bf_json_get_num(double *out, const json_t *obj, const char *key,
                    const char *what, struct bf_err *err)
{
	const json_t *v = NULL;
	int ret = get_member(&v, obj, key, what, err);

	if (ret)
		return ret;
	if (!json_is_number(v))
		return bf_err_set(err, BF_EINVAL, "%s: '%s' is not a number",
		                  what, key);
	*out = json_number_value(v);
	return 0;
}

int bf_json_get_int(int64_t *out, const json_t *obj, const char *key,
                    const char *what, struct bf_err *err)
{
	const json_t *v = NULL;
	int ret = get_member(&v, obj, key, what, err);

	if (ret)
		return ret;
	if (!json_is_integer(v))
		return bf_err_set(err, BF_EINVAL, "%s: '%s' is not an integer",
		                  what, key);
	*out = (int64_t)json_integer_value(v);
	return 0;
}

const char *bf_json_str_or(const json_t *obj, const char *key, const char *def)
{
	const json_t *v =
	        json_is_object(obj) ? json_object_get(obj, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : def;
}

int bf_json_write_file(const json_t *value, const char *path, bool pretty,
                       bool private, struct bf_err *err)
{
	size_t flags = JSON_PRESERVE_ORDER | (pretty ? JSON_INDENT(2) : 0);
	char *text = json_dumps(value, flags);
	char *line;
	int ret;

	if (!text)
		return bf_err_set(err, BF_ERROR, "cannot encode JSON for '%s'",
		                  path);
	line = bf_xasprintf("%s\n", text);
	ret = bf_fs_write_atomic(path, line, strlen(line),
	                         private ? 0600 : 0644, err);
	free(line);
	free(text);
	return ret;
}

void bf_json_print(const json_t *value, FILE *f)
{
	char *text = json_dumps(value, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	if (text)
		fprintf(f, "%s\n", text);
	free(text);
}

json_t *bf_json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *bf_json_argv(const struct bf_argv *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < a->argc; i++)
		json_array_append_new(arr, json_string(a->argv[i]));
	return arr;
}
