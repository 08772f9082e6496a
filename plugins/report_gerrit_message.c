#include "report_gerrit_int.h"

#include <ctype.h>
#include <stdlib.h>

#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "report_util.h"

/*
 * The gerrit review's message: plain text, the headline, the
 * regressions, the infrastructure failures apart, the improvements and
 * the link, every name in a block indented by four spaces, under
 * Gerrit's 16 KiB limit for a comment (report_gerrit.c's top says why).
 */

#define MSG_DEVICES   1000 /* bytes of the device list */
#define MSG_LINK_MAX  1000 /* a longer link is left out, not cut */
#define MSG_REG_END   8000 /* where the regressions must end */
#define MSG_INFRA_END 11500 /* the infrastructure failures */
#define MSG_IMP_END   13500 /* the improvements; then ~1.2 KB of tail */
#define MSG_MORE      40 /* room kept for "... and N more" */

void bf_gerrit_plain(struct bf_buf *b, const char *s, size_t max)
{
	struct bf_buf cut = BF_BUF_INIT;
	size_t hidden;
	unsigned cp;

	bf_rep_add_cut(&cut, s, max);
	for (size_t i = 0; i < cut.len; i++) {
		unsigned char c = (unsigned char)cut.buf[i];

		if ((hidden = bf_text_hidden_len(cut.buf + i, &cp))) {
			bf_buf_addf(b, "\\u{%04X}", cp);
			i += hidden - 1;
			continue;
		}
		bf_buf_addch(b, c < 0x20 || c == 0x7f ? ' ' : (char)c);
	}
	bf_buf_release(&cut);
}

/* A list in the message that must end before byte end. */
struct section {
	struct bf_buf *b;
	size_t end;
	size_t omitted;
};

/* Append line, or count it once the section is full (order is kept). */
static void sec_add(struct section *s, struct bf_buf *line)
{
	if (s->omitted || s->b->len + line->len + MSG_MORE > s->end)
		s->omitted++;
	else
		bf_buf_add(s->b, line->buf, line->len);
	bf_buf_reset(line);
}

static void sec_end(struct section *s)
{
	if (s->omitted)
		bf_buf_addf(s->b, "    * ... and %zu more\n", s->omitted);
}

bool bf_gerrit_is_verdict(const json_t *r, const char *verdict)
{
	return !strcmp(bf_rep_verdict(r), verdict);
}

static void add_results(struct section *s, const json_t *results,
                        const char *verdict)
{
	struct bf_buf line = BF_BUF_INIT, t = BF_BUF_INIT;
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r)
	{
		if (!bf_gerrit_is_verdict(r, verdict))
			continue;
		bf_rep_title(&t, r);
		bf_buf_addstr(&line, "    * ");
		bf_gerrit_plain(&line, t.buf, BF_GERRIT_NAME_MAX);
		bf_buf_addstr(&line, ": ");
		if (!strcmp(verdict, "error")) {
			bf_buf_addstr(&line, "not measured: ");
			bf_gerrit_plain(
			        &line, bf_json_str_or(r, "error", "no samples"),
			        BF_GERRIT_NAME_MAX);
		} else if (!strcmp(verdict, "missing")) {
			bf_rep_add_missing(&line, r);
			bf_buf_addstr(&line, ": ");
			bf_gerrit_plain(&line, bf_json_str_or(r, "error", ""),
			                BF_GERRIT_NAME_MAX);
		} else {
			bf_rep_change(&line, r);
		}
		bf_buf_addch(&line, '\n');
		sec_add(s, &line);
		bf_buf_reset(&t);
	}
	bf_buf_release(&line);
	bf_buf_release(&t);
}

static void add_infra(struct section *s, const json_t *result,
                      const json_t *results)
{
	struct bf_buf line = BF_BUF_INIT;
	const char *stop = bf_json_str_or(result, "infra_error", NULL);
	size_t i;
	json_t *e;

	if (stop) {
		bf_buf_addstr(&line, "    * stopped early: ");
		bf_gerrit_plain(&line, stop, 1000);
		bf_buf_addch(&line, '\n');
		sec_add(s, &line);
	}
	json_array_foreach(bf_rep_devices_out(result), i, e)
	{
		struct bf_buf t = BF_BUF_INIT;

		bf_rep_add_device_out(&t, e);
		bf_buf_addstr(&line, "    * device out of the pool: ");
		bf_gerrit_plain(&line, t.buf, 1000);
		bf_buf_addch(&line, '\n');
		sec_add(s, &line);
		bf_buf_release(&t);
	}
	json_array_foreach(json_object_get(result, "errors"), i, e)
	{
		bf_buf_addstr(&line, "    * ");
		bf_gerrit_plain(&line, bf_json_str_or(e, "benchmark", "?"),
		                BF_GERRIT_NAME_MAX);
		bf_buf_addstr(&line, " (");
		bf_gerrit_plain(&line, bf_json_str_or(e, "side", "?"), 20);
		bf_buf_addstr(&line, ", ");
		bf_rep_add_run(&line, e);
		bf_buf_addstr(&line, "): ");
		bf_gerrit_plain(&line, bf_json_str_or(e, "message", ""), 1000);
		bf_buf_addch(&line, '\n');
		sec_add(s, &line);
	}
	bf_buf_release(&line);
	add_results(s, results, "error");
}

static void add_headline(struct bf_buf *b, const json_t *result,
                         const json_t *results, const char *check)
{
	size_t reg = bf_rep_count(results, "regressed");
	size_t imp = bf_rep_count(results, "improved");
	size_t all = bf_rep_count(results, "missing");
	/* under missing_series: ignore they are said after the verdict */
	size_t miss = bf_rep_missing_counts(result) ? all : 0;
	bool infra = bf_rep_has_infra(result);

	bf_buf_addstr(b, "benchfarm (");
	bf_gerrit_plain(b, check, 100);
	bf_buf_addstr(b, "): ");
	if (infra)
		bf_buf_addstr(b, "incomplete, infrastructure failures; ");
	if (reg)
		bf_buf_addf(b, "%zu regression%s", reg, reg == 1 ? "" : "s");
	if (miss)
		bf_buf_addf(b, "%s%zu series missing on one side",
		            reg ? ", " : "", miss);
	if (!reg && !miss && bf_rep_compared_nothing(results))
		bf_buf_addstr(b, "nothing was compared");
	else if (!reg && !miss && infra)
		bf_buf_addstr(b, "nothing regressed among what was measured");
	else if (!reg && !miss)
		bf_rep_add_no_regressions(b, results, false);
	if (all && !miss)
		bf_buf_addf(b, ", %zu series missing on one side", all);
	if (imp)
		bf_buf_addf(b, ", %zu improvement%s", imp, imp == 1 ? "" : "s");
	bf_buf_addstr(b, "\n\n");
}

/* A commit's first 12 characters; anything but a letter or digit is '?'. */
static void add_commit(struct bf_buf *b, const json_t *side)
{
	const char *c = bf_json_str_or(side, "commit", "?");

	for (size_t i = 0; c[i] && i < 12; i++)
		bf_buf_addch(b, isalnum((unsigned char)c[i]) ? c[i] : '?');
}

/*
 * "    base X -> patch Y, N runs per side on DEVICES.\n" ("M to N runs
 * per side (adaptive)" with adaptive repeats, "M to N runs per side by
 * benchmark" when the benchmarks' counts differ)
 */
static void add_setup(struct bf_buf *b, const json_t *result)
{
	const json_t *devices = json_object_get(result, "devices"), *dev;
	const json_t *set = json_object_get(result, "settings");
	bool duet = !strcmp(bf_json_str_or(set, "run_mode", ""), "duet");
	struct bf_rep_repeats r;
	size_t i, start;

	bf_rep_repeats(&r, set);
	bf_buf_addstr(b, "    base ");
	add_commit(b, json_object_get(result, "base"));
	bf_buf_addstr(b, " -> patch ");
	add_commit(b, json_object_get(result, "patch"));
	if (!strcmp(bf_json_str_or(set, "mode", "fixed"), "adaptive"))
		bf_buf_addf(b, ", %lld to %lld runs per side (adaptive) on ",
		            (long long)json_integer_value(
		                    json_object_get(set, "min_repeats")),
		            (long long)json_integer_value(
		                    json_object_get(set, "max_repeats")));
	else if (r.lo != r.hi)
		bf_buf_addf(b, ", %lld to %lld %s by benchmark on ", r.lo, r.hi,
		            duet ? "duet rounds (base and patch at once)"
		                 : "runs per side");
	else
		bf_buf_addf(b, ", %lld %s on ", r.most,
		            duet ? "duet rounds (base and patch at once)"
		                 : "runs per side");
	start = b->len;
	json_array_foreach(devices, i, dev)
	{
		if (b->len - start > MSG_DEVICES) {
			bf_buf_addf(b, "and %zu more",
			            json_array_size(devices) - i);
			break;
		}
		if (i)
			bf_buf_addstr(b, ", ");
		bf_gerrit_plain(b, bf_json_str_or(dev, "name", "?"),
		                BF_GERRIT_NAME_MAX);
	}
	if (!json_array_size(devices))
		bf_buf_addstr(b, "no device");
	bf_buf_addstr(b, ".\n");
}

char *bf_gerrit_message(const json_t *result, const json_t *results,
                        const struct bf_report_opts *o, const char *check)
{
	struct bf_buf b = BF_BUF_INIT;
	struct section s = { &b, 0, 0 };

	add_headline(&b, result, results, check);
	add_setup(&b, result);
	if (json_is_true(json_object_get(result, "same_build")))
		bf_buf_addstr(&b, "\nSame build: base and patch ship the same "
		                  "code, so any difference is the machine; "
		                  "nothing is called regressed or improved.\n");
	if (bf_rep_count(results, "regressed")) {
		bf_buf_addstr(&b, "\nRegressions:\n\n");
		s.end = MSG_REG_END;
		add_results(&s, results, "regressed");
		sec_end(&s);
	}
	if (bf_rep_count(results, "missing")) {
		bf_buf_addstr(&b, "\nMissing on one side (renamed, left out "
		                  "or failing there):\n\n");
		s.end = MSG_REG_END;
		s.omitted = 0;
		add_results(&s, results, "missing");
		sec_end(&s);
	}
	if (bf_rep_has_infra(result) || bf_rep_devices_out(result)) {
		bf_buf_addstr(&b,
		              "\nInfrastructure failures (not results; what "
		              "they touched was not compared):\n\n");
		s.end = MSG_INFRA_END;
		s.omitted = 0;
		add_infra(&s, result, results);
		sec_end(&s);
	}
	if (bf_rep_count(results, "improved")) {
		bf_buf_addstr(&b, "\nImprovements:\n\n");
		s.end = MSG_IMP_END;
		s.omitted = 0;
		add_results(&s, results, "improved");
		sec_end(&s);
	}
	bf_buf_addf(&b, "\nUnchanged: %zu; not conclusive: %zu.\n",
	            bf_rep_count(results, "same"),
	            bf_rep_count(results, "unknown"));
	if (o->link && *o->link && strlen(o->link) <= MSG_LINK_MAX) {
		bf_buf_addstr(&b, "\nFull results: ");
		bf_gerrit_plain(&b, o->link, MSG_LINK_MAX);
		bf_buf_addch(&b, '\n');
	}
	return bf_buf_detach(&b, NULL);
}
