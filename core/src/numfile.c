#include "benchfarm/numfile.h"

#include <ctype.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"

#define NUMFILE_MAX (256u * 1024 * 1024)

static int parse_lines(double **v, size_t *n, char *text, const char *path,
                       struct bf_err *err)
{
	size_t alloc = 0, lineno = 0;
	char *line = text;

	while (line && *line) {
		char *nl = strchr(line, '\n');
		char *end;
		double x;

		lineno++;
		if (nl)
			*nl = '\0';
		end = line + strlen(line);
		while (end > line && strchr(" \t\r", end[-1]))
			*--end = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line && *line != '#') {
			if (bf_parse_double(&x, line, false, NULL))
				return bf_err_set(err, BF_EINVAL,
				                  "%s:%zu: '%.40s' is not a "
				                  "finite number",
				                  path, lineno, line);
			if (*n == alloc) {
				alloc = alloc ? alloc * 2 : 64;
				*v = bf_xreallocarray(*v, alloc, sizeof(**v));
			}
			(*v)[(*n)++] = x;
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

int bf_numfile_read(double **out, size_t *n_out, const char *path,
                    struct bf_err *err)
{
	const char *name = strcmp(path, "-") ? path : "/dev/stdin";
	double *v = NULL;
	size_t n = 0;
	struct bf_buf b;
	int ret;

	bf_buf_init(&b, NUMFILE_MAX);
	ret = bf_buf_read_file(&b, name, err);
	if (!ret && memchr(b.buf, '\0', b.len))
		ret = bf_err_set(err, BF_EINVAL, "%s: binary data, not numbers",
		                 path);
	if (!ret)
		ret = parse_lines(&v, &n, b.buf, path, err);
	bf_buf_release(&b);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*n_out = n;
	return 0;
}

struct series {
	double *v;
	char **labels;
	size_t n, alloc;
	int columns; /* 1 or 2 once the first line is read, else 0 */
};

static void series_push(struct series *s, double x, const char *label,
                        size_t len)
{
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 64;
		s->v = bf_xreallocarray(s->v, s->alloc, sizeof(*s->v));
		s->labels = bf_xreallocarray(s->labels, s->alloc,
		                             sizeof(*s->labels));
	}
	s->v[s->n] = x;
	s->labels[s->n++] = label ? bf_xstrndup(label, len) : NULL;
}

static char *trim(char *p)
{
	char *end = p + strlen(p);

	while (*p == ' ' || *p == '\t')
		p++;
	while (end > p && strchr(" \t\r", end[-1]))
		*--end = '\0';
	return p;
}

/*
 * A header's value column: a name ("value", "Value", "time_ns"), not a
 * number and not nan or inf (which are values, refused as such).
 */
static bool is_header_name(const char *v)
{
	double x;

	if (!isalpha((unsigned char)*v) || !bf_parse_double(&x, v, true, NULL))
		return false;
	for (; *v; v++)
		if (!isalnum((unsigned char)*v) && *v != '_')
			return false;
	return true;
}

/* One non-blank, non-comment line of a series file. */
static int series_line(struct series *s, char *line, size_t lineno,
                       const char *path, struct bf_err *err)
{
	char *comma = strchr(line, ',');
	char *value = comma ? trim(comma + 1) : line;
	char *label = comma ? line : NULL;
	int columns = comma ? 2 : 1;
	double x;

	if (s->columns && columns != s->columns)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s:%zu: %d column%s where earlier lines have "
		        "%d (expected %s on every line)",
		        path, lineno, columns, columns == 1 ? "" : "s",
		        s->columns,
		        s->columns == 2 ? "'commit,value'" : "one number");
	s->columns = columns;
	if (comma) {
		*comma = '\0';
		label = trim(label);
		if (strchr(value, ','))
			return bf_err_set(err, BF_EINVAL,
			                  "%s:%zu: expected 2 columns "
			                  "'commit,value', got more",
			                  path, lineno);
		if (!*label || !*value)
			return bf_err_set(err, BF_EINVAL,
			                  "%s:%zu: the %s column is empty "
			                  "(expected 'commit,value')",
			                  path, lineno,
			                  *label ? "value" : "commit");
	}
	if (bf_parse_double(&x, value, false, NULL)) {
		if (comma && lineno == 1 && s->n == 0 && is_header_name(value))
			return 0; /* a header */
		return bf_err_set(err, BF_EINVAL,
		                  "%s:%zu: '%.40s' is not a finite number",
		                  path, lineno, value);
	}
	series_push(s, x, label, label ? strlen(label) : 0);
	return 0;
}

void bf_numfile_labels_free(char **labels, size_t n)
{
	for (size_t i = 0; labels && i < n; i++)
		free(labels[i]);
	free(labels);
}

int bf_numfile_read_series(double **out, char ***labels_out, size_t *n_out,
                           const char *path, struct bf_err *err)
{
	const char *name = strcmp(path, "-") ? path : "/dev/stdin";
	struct series s = { NULL, NULL, 0, 0, 0 };
	size_t lineno = 0;
	struct bf_buf b;
	char *line;
	int ret;

	bf_buf_init(&b, NUMFILE_MAX);
	ret = bf_buf_read_file(&b, name, err);
	if (!ret && memchr(b.buf, '\0', b.len))
		ret = bf_err_set(err, BF_EINVAL, "%s: binary data, not numbers",
		                 path);
	for (line = ret ? NULL : b.buf; !ret && line && *line;) {
		char *nl = strchr(line, '\n');
		char *t;

		lineno++;
		if (nl)
			*nl = '\0';
		t = trim(line);
		if (*t && *t != '#')
			ret = series_line(&s, t, lineno, path, err);
		line = nl ? nl + 1 : NULL;
	}
	bf_buf_release(&b);
	if (!ret && !s.n)
		ret = bf_err_set(
		        err, BF_EINVAL,
		        "%s: no values (the file is empty, or has only "
		        "a header, blank lines or comments)",
		        path);
	if (ret) {
		free(s.v);
		bf_numfile_labels_free(s.labels, s.n);
		return ret;
	}
	*out = s.v;
	*labels_out = s.labels;
	*n_out = s.n;
	return 0;
}
