#include "cmd.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "store/store.h"

/*
 * benchfarm store: operations on a whole store. `store copy` moves a
 * lab's store into another one (an SQLite file into PostgreSQL, say)
 * and verifies the counts afterwards (store_copy.c).
 */

static const char store_usage[] =
        "usage: benchfarm store copy --from SRC --to DST [--json]\n"
        "\n"
        "Copy the store SRC into the store DST: devices (with their "
        "pinned host\n"
        "keys and settings), runs with their samples and device check "
        "results,\n"
        "and alerts. Leases are live state and are not copied: a copied "
        "device\n"
        "is idle. A row DST already has is skipped (a device by name, a "
        "run by\n"
        "kind, start time, device, commits, config digest and seed, an "
        "alert by\n"
        "its series and commit range), so a second copy adds nothing and "
        "DST's\n"
        "other rows stay. SRC is only read; DST is written in one "
        "transaction:\n"
        "all or nothing. The counts are verified afterwards and printed.\n"
        "\n"
        "SRC and DST are stores as --db names them: an SQLite file (DST "
        "is\n"
        "created when missing; SRC must exist), or a PostgreSQL "
        "postgresql://\n"
        "URI or libpq key=value connection string. An older SRC is "
        "migrated\n"
        "when opened, as by any command; a newer one is refused.\n"
        "\n"
        "    --from SRC   the store to copy\n"
        "    --to DST     the store to copy into\n"
        "    --json       the counts as JSON on stdout, for machines\n"
        "\n"
        "Exit: 0 every count matches, 2 usage error, 3 a store failed or "
        "a\n"
        "count does not match.\n";

enum { OPT_FROM = 256, OPT_TO };

struct copy_opts {
	const char *from, *to;
	bool json;
};

/* Whether loc is a PostgreSQL URI or libpq key=value string. */
static bool is_connstr(const char *loc)
{
	const char *p = loc;

	if (!strncmp(loc, "postgresql://", 13) ||
	    !strncmp(loc, "postgres://", 11))
		return true;
	while (isspace((unsigned char)*p))
		p++;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return false;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	while (isspace((unsigned char)*p))
		p++;
	return *p == '=';
}

/* Mask the value that starts at *p (quoted with '...' or up to a space
 * or '&'), appending "***" to out. */
static const char *mask_value(char *out, size_t *o, const char *p)
{
	memcpy(out + *o, "***", 3);
	*o += 3;
	if (*p == '\'') {
		for (p++; *p && *p != '\''; p++)
			if (*p == '\\' && p[1])
				p++;
		return *p ? p + 1 : p;
	}
	while (*p && !isspace((unsigned char)*p) && *p != '&')
		p++;
	return p;
}

/* The passwords a location holds, as spans of its text. */
struct secrets {
	size_t n;
	struct {
		const char *p;
		size_t len;
	} at[8];
};

static void secret_add(struct secrets *sec, const char *p, const char *end)
{
	if (sec && end > p && sec->n < BF_ARRAY_SIZE(sec->at)) {
		sec->at[sec->n].p = p;
		sec->at[sec->n].len = (size_t)(end - p);
		sec->n++;
	}
}

/*
 * The store's location as it may be printed: a password in a URI's
 * user part or in a password= parameter becomes "***"; sec (may be
 * NULL) gets where the passwords were. A caller frees.
 */
static char *printable(const char *loc, struct secrets *sec)
{
	char *out = bf_xcalloc(strlen(loc) + 4 * strlen(loc) / 3 + 8, 1);
	const char *p = loc, *at, *colon, *end;
	size_t o = 0;

	if (!is_connstr(loc)) {
		free(out);
		return bf_xstrdup(loc);
	}
	if (strstr(loc, "://")) {
		p = strstr(loc, "://") + 3;
		end = p + strcspn(p, "/?");
		at = memchr(p, '@', (size_t)(end - p));
		colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
		memcpy(out, loc, (size_t)(p - loc));
		o = (size_t)(p - loc);
		if (colon) {
			memcpy(out + o, p, (size_t)(colon - p) + 1);
			o += (size_t)(colon - p) + 1;
			memcpy(out + o, "***", 3);
			o += 3;
			secret_add(sec, colon + 1, at);
			p = at;
		}
	}
	while (*p) {
		bool start = p == loc || isspace((unsigned char)p[-1]) ||
		             p[-1] == '?' || p[-1] == '&';

		if (start && !strncmp(p, "password", 8)) {
			const char *q = p + 8;

			while (isspace((unsigned char)*q))
				q++;
			if (*q == '=') {
				q++;
				while (isspace((unsigned char)*q))
					q++;
				memcpy(out + o, "password=", 9);
				o += 9;
				p = mask_value(out, &o, q);
				if (*q == '\'')
					secret_add(sec, q + 1,
					           p > q + 1 && p[-1] == '\''
					                   ? p - 1
					                   : p);
				else
					secret_add(sec, q, p);
				continue;
			}
		}
		out[o++] = *p++;
	}
	out[o] = '\0';
	return out;
}

/*
 * msg with every occurrence of what (n bytes) replaced by with. A
 * caller frees.
 */
static char *replace(const char *msg, const char *what, size_t n,
                     const char *with)
{
	size_t k = strlen(with), len = 0;
	const char *p;
	char *out;

	for (p = msg; n && (p = strstr(p, what)); p += n)
		len++;
	out = bf_xcalloc(strlen(msg) + len * k + 1, 1);
	for (len = 0, p = msg; *p;) {
		if (n && !strncmp(p, what, n)) {
			memcpy(out + len, with, k);
			len += k;
			p += n;
		} else {
			out[len++] = *p++;
		}
	}
	return out;
}

/*
 * msg with the location raw replaced by its printable form and any
 * password it holds by ***, so that a store's error quoting the
 * location, or part of it, shows no password. A caller frees.
 */
static char *scrub(const char *msg, const char *raw)
{
	struct secrets sec = { 0 };
	char *shown = printable(raw, &sec);
	char *out = replace(msg, raw, strlen(raw), shown), *next;
	char what[BF_ERR_SIZE];

	for (size_t i = 0; i < sec.n; i++) {
		if (sec.at[i].len >= sizeof(what))
			continue;
		memcpy(what, sec.at[i].p, sec.at[i].len);
		what[sec.at[i].len] = '\0';
		next = replace(out, what, sec.at[i].len, "***");
		free(out);
		out = next;
	}
	free(shown);
	return out;
}

/* Print a store's error msg with no password of o's: exit 3. */
static int fail_scrubbed(const char *msg, const struct copy_opts *o)
{
	char *m1 = scrub(msg, o->from);
	char *m2 = scrub(m1, o->to);
	int ret = bf_cmd_fail(BF_EXIT_INFRA, "store copy", "%s", m2);

	free(m2);
	free(m1);
	return ret;
}

struct progress {
	bool shown;
	const char *table;
};

/* One line on a terminal, rewritten in place; nothing elsewhere. */
static void on_progress(const char *table, int64_t done, int64_t total,
                        void *payload)
{
	struct progress *p = payload;

	if (p->table == table && done != total && done % 256)
		return;
	p->table = table;
	p->shown = true;
	fprintf(stderr, "\rbenchfarm: store copy: %-8s %lld/%lld   ", table,
	        (long long)done, (long long)total);
	fflush(stderr);
}

static int parse(struct copy_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == OPT_FROM)
			o->from = optarg;
		else if (c == OPT_TO)
			o->to = optarg;
		else if (c == 'j')
			o->json = true;
		else if (c == 'h')
			return fputs(store_usage, stdout), -1;
		else
			return fputs(store_usage, stderr), BF_EXIT_USAGE;
	}
	if (optind != argc)
		return bf_cmd_fail(BF_EXIT_USAGE, "store copy",
		                   "unexpected argument '%s'", argv[optind]);
	if (!o->from || !*o->from || !o->to || !*o->to)
		return bf_cmd_fail(BF_EXIT_USAGE, "store copy",
		                   "give the store to copy with --from SRC and "
		                   "the one to copy into with --to DST");
	return 0;
}

/*
 * An SQLite SRC must exist (opening would create an empty one), and
 * SRC and DST must be two stores.
 */
static int check_locations(const struct copy_opts *o)
{
	struct stat st, st_to;

	if (!is_connstr(o->from) && stat(o->from, &st))
		return bf_cmd_fail(BF_EXIT_USAGE, "store copy",
		                   "--from '%s': no such store file; give the "
		                   "path of an existing store (or a "
		                   "postgresql:// URI)",
		                   o->from);
	if (!strcmp(o->from, o->to) ||
	    (!is_connstr(o->from) && !is_connstr(o->to) &&
	     !stat(o->to, &st_to) && st.st_dev == st_to.st_dev &&
	     st.st_ino == st_to.st_ino))
		return bf_cmd_fail(BF_EXIT_USAGE, "store copy",
		                   "--from and --to name the same store '%s'",
		                   o->from);
	return 0;
}

static json_t *counts_json(const struct bf_store_copy_result *r,
                           const char *from, const char *to, bool match)
{
	json_t *tables = json_object();

	for (int i = 0; i < BF_STORE_COPY_TABLES; i++) {
		const struct bf_store_copy_table *t = &r->t[i];

		json_object_set_new(
		        tables, t->name,
		        json_pack("{s:I, s:I, s:I, s:I, s:I, s:b}", "source",
		                  (json_int_t)t->source, "copied",
		                  (json_int_t)t->copied, "present",
		                  (json_int_t)t->present, "dest_before",
		                  (json_int_t)t->dest_before, "dest_after",
		                  (json_int_t)t->dest_after, "match",
		                  bf_store_copy_matches(t)));
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:b}", "benchfarm",
	                 BF_VERSION, "kind", "store-copy", "from", from, "to",
	                 to, "tables", tables, "match", match);
}

static void print_counts(const struct bf_store_copy_result *r, const char *from,
                         const char *to)
{
	printf("copied '%s' into '%s':\n", from, to);
	printf("%-8s %10s %10s %10s %10s %10s\n", "TABLE", "SOURCE", "COPIED",
	       "PRESENT", "BEFORE", "AFTER");
	for (int i = 0; i < BF_STORE_COPY_TABLES; i++) {
		const struct bf_store_copy_table *t = &r->t[i];

		printf("%-8s %10lld %10lld %10lld %10lld %10lld  %s\n", t->name,
		       (long long)t->source, (long long)t->copied,
		       (long long)t->present, (long long)t->dest_before,
		       (long long)t->dest_after,
		       bf_store_copy_matches(t) ? "ok" : "MISMATCH");
	}
}

static int store_copy(int argc, char **argv)
{
	struct copy_opts o = { 0 };
	struct bf_store_copy_result r;
	struct progress pr = { false, NULL };
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *src = NULL, *dst = NULL;
	char *from = NULL, *to = NULL;
	bool match = true;
	int ret = parse(&o, argc, argv);

	if (ret)
		return ret < 0 ? BF_EXIT_OK : ret;
	if ((ret = check_locations(&o)))
		return ret;
	from = printable(o.from, NULL);
	to = printable(o.to, NULL);
	if (bf_store_open(&src, o.from, &err) ||
	    bf_store_open(&dst, o.to, &err) ||
	    bf_store_copy(&r, dst, src,
	                  isatty(STDERR_FILENO) ? on_progress : NULL, &pr,
	                  &err)) {
		if (pr.shown)
			fputc('\n', stderr);
		ret = fail_scrubbed(err.msg, &o);
		goto out;
	}
	if (pr.shown)
		fputc('\n', stderr);
	for (int i = 0; i < BF_STORE_COPY_TABLES; i++)
		if (!bf_store_copy_matches(&r.t[i])) {
			match = false;
			bf_cmd_fail(
			        BF_EXIT_INFRA, "store copy",
			        "the %s do not add up: %lld in '%s', %lld "
			        "copied and %lld already there; '%s' went "
			        "from %lld to %lld; was either store written "
			        "to during the copy? Run the copy again",
			        r.t[i].name, (long long)r.t[i].source, from,
			        (long long)r.t[i].copied,
			        (long long)r.t[i].present, to,
			        (long long)r.t[i].dest_before,
			        (long long)r.t[i].dest_after);
		}
	if (o.json) {
		json_t *doc = counts_json(&r, from, to, match);

		bf_json_print(doc, stdout);
		json_decref(doc);
	} else {
		print_counts(&r, from, to);
	}
	ret = match ? BF_EXIT_OK : BF_EXIT_INFRA;
out:
	bf_store_close(dst);
	bf_store_close(src);
	free(from);
	free(to);
	return ret;
}

int cmd_store(int argc, char **argv, struct bf_ctx *ctx)
{
	(void)ctx;
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(store_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? BF_EXIT_USAGE : BF_EXIT_OK;
	}
	if (!strcmp(argv[1], "copy"))
		return store_copy(argc - 1, argv + 1);
	fputs(store_usage, stderr);
	return bf_cmd_fail(BF_EXIT_USAGE, "store",
	                   "'%s' is not a store command; the one there is "
	                   "is 'copy'",
	                   argv[1]);
}
