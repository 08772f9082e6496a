#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "benchfarm/parse.h"
#include "store/store.h"

/*
 * benchfarm store: operations on a whole store. `store copy` moves a
 * lab's store into another one (an SQLite file into PostgreSQL, say)
 * and verifies the counts afterwards (store_copy.c).
 */

static const char store_usage[] =
        "usage: benchfarm store copy --from SRC --to DST [--json]\n"
        "                            [--query-timeout SECONDS]\n"
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
        "A row of SRC whose value is not of its column's type (SQLite "
        "keeps any\n"
        "value anywhere: a text as a number, a name with a NUL byte, a "
        "blob) is\n"
        "refused, naming its table, row and column, and nothing is "
        "copied; so is\n"
        "a query of SRC that runs longer than --query-timeout (a "
        "recursive view).\n"
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
        "    --query-timeout SECONDS\n"
        "                 the bound of one query of SRC (default 600; "
        "0: none)\n"
        "\n"
        "Exit: 0 every count matches, 2 usage error, 3 a store failed or "
        "a\n"
        "count does not match.\n";

enum { OPT_FROM = 256, OPT_TO, OPT_QUERY_TIMEOUT };

/* The default bound of one query of the source, in seconds. */
#define QUERY_TIMEOUT_S 600.0

struct copy_opts {
	const char *from, *to;
	bool json;
	double query_timeout_s;
};

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
		{ "query-timeout", required_argument, NULL, OPT_QUERY_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bf_err err = BF_ERR_INIT;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == OPT_FROM)
			o->from = optarg;
		else if (c == OPT_TO)
			o->to = optarg;
		else if (c == 'j')
			o->json = true;
		else if (c == OPT_QUERY_TIMEOUT &&
		         (bf_parse_double(&o->query_timeout_s, optarg, false,
		                          &err) ||
		          o->query_timeout_s < 0))
			return bf_cmd_fail(BF_EXIT_USAGE, "store copy",
			                   "bad --query-timeout '%s': seconds, "
			                   "0 or more",
			                   optarg);
		else if (c == OPT_QUERY_TIMEOUT)
			continue;
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
 * Whether loc (of option opt) names a store as --db does
 * (bf_store_location_kind); *is_pg which backend. A usage error (exit
 * 2) otherwise, naming the option.
 */
static int check_kind(bool *is_pg, const char *opt, const char *loc)
{
	struct bf_err err = BF_ERR_INIT;

	if (bf_store_location_kind(is_pg, loc, &err))
		return bf_cmd_fail(BF_EXIT_USAGE, "store copy", "%s: %s", opt,
		                   err.msg);
	return 0;
}

/*
 * SRC and DST must name stores, an SQLite SRC must exist (opening would
 * create an empty one), and SRC and DST must be two stores. Locations
 * are named as every message names a store (bf_store_location_display:
 * no password).
 */
static int check_locations(const struct copy_opts *o, const char *from)
{
	struct stat st, st_to;
	bool from_pg = false, to_pg = false;
	int ret;

	if ((ret = check_kind(&from_pg, "--from", o->from)) ||
	    (ret = check_kind(&to_pg, "--to", o->to)))
		return ret;
	if (!from_pg && stat(o->from, &st))
		return bf_cmd_fail(BF_EXIT_USAGE, "store copy",
		                   "--from '%s': no such store file; give the "
		                   "path of an existing store (or a "
		                   "postgresql:// URI)",
		                   from);
	if (!strcmp(o->from, o->to) ||
	    (!from_pg && !to_pg && !stat(o->to, &st_to) &&
	     st.st_dev == st_to.st_dev && st.st_ino == st_to.st_ino))
		return bf_cmd_fail(BF_EXIT_USAGE, "store copy",
		                   "--from and --to name the same store '%s'",
		                   from);
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
	struct copy_opts o = { NULL, NULL, false, QUERY_TIMEOUT_S };
	struct bf_store_copy_result r;
	struct progress pr = { false, NULL };
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *src = NULL, *dst = NULL;
	char *from = NULL, *to = NULL;
	bool match = true;
	int ret = parse(&o, argc, argv);

	if (ret)
		return ret < 0 ? BF_EXIT_OK : ret;
	from = bf_store_location_display(o.from);
	to = bf_store_location_display(o.to);
	if ((ret = check_locations(&o, from)))
		goto out;
	if (bf_store_open(&src, o.from, &err) ||
	    bf_store_set_query_limit(src, o.query_timeout_s, &err) ||
	    bf_store_open(&dst, o.to, &err) ||
	    bf_store_copy(&r, dst, src,
	                  isatty(STDERR_FILENO) ? on_progress : NULL, &pr,
	                  &err)) {
		if (pr.shown)
			fputc('\n', stderr);
		/* a store's message names it without its password */
		ret = bf_cmd_fail(BF_EXIT_INFRA, "store copy", "%s", err.msg);
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
