#include "corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/err.h"

/*
 * The format, one record a line ('#' starts a comment line):
 *   series NAME UNIT
 *   c COMMIT V1 V2 ...        a commit of the last series, oldest first
 *   step NAME COMMIT SOURCE   a documented step: COMMIT is its first
 *                             commit, SOURCE where it is documented
 */

static void *grow(void *p, size_t n, size_t size)
{
	void *q = realloc(p, (n + 1) * size);

	if (!q)
		abort();
	return q;
}

static char *dup(const char *s)
{
	char *d = malloc(strlen(s) + 1);

	if (!d)
		abort();
	memcpy(d, s, strlen(s) + 1);
	return d;
}

static struct hc_series *find(struct hc_corpus *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].name, name))
			return &c->s[i];
	return NULL;
}

static int add_commit(struct hc_series *s, char *rest)
{
	char *save = NULL;
	char *tok = strtok_r(rest, " \t\n", &save);
	size_t nv = s->n ? s->off[s->n] : 0;

	if (!tok || strlen(tok) != 40)
		return -1;
	s->commit = grow(s->commit, s->n, sizeof(*s->commit));
	memcpy(s->commit[s->n], tok, 41);
	while ((tok = strtok_r(NULL, " \t\n", &save))) {
		char *end;
		double x = strtod(tok, &end);

		if (*end)
			return -1;
		s->v = grow(s->v, nv, sizeof(*s->v));
		s->v[nv++] = x;
	}
	s->off = grow(s->off, s->n + 1, sizeof(*s->off));
	if (!s->n)
		s->off[0] = 0;
	s->off[++s->n] = nv;
	return 0;
}

static int add_step(struct hc_corpus *c, char *rest)
{
	char *save = NULL;
	char *name = strtok_r(rest, " \t\n", &save);
	char *commit = strtok_r(NULL, " \t\n", &save);
	struct hc_series *s = name ? find(c, name) : NULL;

	if (!s || !commit)
		return -1;
	for (size_t k = 0; k < s->n; k++) {
		if (strcmp(s->commit[k], commit))
			continue;
		s->step = grow(s->step, s->nsteps, sizeof(*s->step));
		s->step[s->nsteps++] = k;
		return 0;
	}
	return -1;
}

int hc_load(struct hc_corpus *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	struct hc_series *cur = NULL;
	int lineno = 0, bad = 0;

	if (!f) {
		snprintf(err, errlen, "%s: cannot open", path);
		return -1;
	}
	while (!bad && fgets(line, sizeof(line), f)) {
		char name[256], unit[64];

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "series %255s %63s", name, unit) == 2) {
			c->s = grow(c->s, c->n, sizeof(*c->s));
			cur = &c->s[c->n++];
			memset(cur, 0, sizeof(*cur));
			cur->name = dup(name);
			cur->unit = dup(unit);
		} else if (!strncmp(line, "c ", 2) && cur) {
			bad = add_commit(cur, line + 2);
		} else if (!strncmp(line, "step ", 5)) {
			bad = add_step(c, line + 5);
		} else {
			bad = -1;
		}
	}
	fclose(f);
	if (bad)
		snprintf(err, errlen, "%s:%d: not a corpus line", path, lineno);
	return bad;
}

void hc_release(struct hc_corpus *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->s[i].name);
		free(c->s[i].unit);
		free(c->s[i].commit);
		free(c->s[i].v);
		free(c->s[i].off);
		free(c->s[i].step);
	}
	free(c->s);
	memset(c, 0, sizeof(*c));
}

int hc_score(struct hc_score *sc, const struct hc_series *s,
             const struct bf_detect_params *p)
{
	struct bf_change *ch = NULL;
	size_t nch = 0;
	struct bf_err err = { 0 };

	memset(sc, 0, sizeof(*sc));
	if (bf_detect_series_reps(&ch, &nch, p, s->v, s->off, s->n, &err))
		return -1;
	sc->alerts = nch;
	for (size_t j = 0; j < s->nsteps; j++) {
		int best = 2; /* 0 exact, 1 near, 2 missed */

		for (size_t i = 0; i < nch; i++) {
			size_t a = ch[i].index, b = s->step[j];
			size_t d = a > b ? a - b : b - a;

			if (d <= 1 && (int)d < best)
				best = (int)d;
		}
		sc->exact += best == 0;
		sc->near += best == 1;
		sc->missed += best == 2;
	}
	for (size_t i = 0; i < nch; i++) {
		int documented = 0;

		for (size_t j = 0; j < s->nsteps; j++) {
			size_t a = ch[i].index, b = s->step[j];

			documented |= (a > b ? a - b : b - a) <= 1;
		}
		sc->false_alerts += !documented;
	}
	free(ch);
	return 0;
}
