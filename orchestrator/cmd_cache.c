#include "cmd.h"

#include <stdio.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "git/buildcache.h"

/*
 * `benchfarm cache list|prune`: the build cache (buildcache.h), where
 * compare, run, backfill and bisect export and build commits.
 */

static const char usage_text[] =
        "usage: benchfarm cache list [--json]\n"
        "   or: benchfarm cache prune [--max-size SIZE | --all]\n"
        "\n"
        "The build cache holds one exported and built tree per set of build\n"
        "inputs (tree, project.build, project.artifacts, build environment),\n"
        "in $BENCHFARM_CACHE, else $XDG_CACHE_HOME/benchfarm, else\n"
        "~/.cache/benchfarm. After each new build, entries not in use are\n"
        "removed, least recently used first, until the cache takes at most\n"
        "$BENCHFARM_CACHE_MAX_SIZE (default 5G; 0: no limit). An entry a\n"
        "running benchfarm holds is never removed.\n"
        "\n"
        "list: one line per entry, least recently used first: KEY (its\n"
        "first 12 digits), COMMIT, SIZE, LAST-USED, STATE (built, in use,\n"
        "incomplete, old layout) and BUILD.\n"
        "        --json           every entry with its inputs, sizes in "
        "bytes\n"
        "\n"
        "prune: remove entries not in use, least recently used first.\n"
        "        --max-size SIZE  until the cache takes at most SIZE "
        "(bytes, or\n"
        "                         with K, M, G or T: 512M, 5G); default:\n"
        "                         $BENCHFARM_CACHE_MAX_SIZE or 5G\n"
        "        --all            every entry not in use, and the "
        "directories\n"
        "                         of older benchfarm versions (work/, "
        "work2/)\n";

static const char *state_of(const struct bf_buildcache_entry *e)
{
	if (e->legacy)
		return "old layout";
	if (e->in_use)
		return "in use";
	return e->complete ? "built" : "incomplete";
}

/* The entry's build command as one line; "" when not known. */
static char *build_of(const struct bf_buildcache_entry *e)
{
	json_t *b =
	        json_object_get(json_object_get(e->meta, "inputs"), "build");
	struct bf_argv a = BF_ARGV_INIT;
	size_t i;
	json_t *v;
	char *s;

	json_array_foreach(b, i, v) bf_argv_push(&a, json_string_value(v));
	s = a.argc ? bf_argv_to_display(&a) : bf_xstrdup("");
	bf_argv_release(&a);
	return s;
}

static json_t *entry_json(const struct bf_buildcache_entry *e)
{
	json_t *inputs = json_object_get(e->meta, "inputs");
	char *build = build_of(e);
	json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:b, s:b, s:I, s:I}", "key",
	                      e->name, "path", e->path, "state", state_of(e),
	                      "complete", e->complete, "in_use", e->in_use,
	                      "legacy", e->legacy, "bytes",
	                      (json_int_t)e->bytes, "last_used",
	                      (json_int_t)(e->last_used_ns / 1000000000));

	json_object_set_new(o, "commit",
	                    json_string(bf_json_str_or(e->meta, "commit", "")));
	json_object_set_new(o, "tree",
	                    json_string(bf_json_str_or(inputs, "tree", "")));
	json_object_set_new(o, "build", json_string(build));
	json_object_set(o, "inputs", inputs ? inputs : json_null());
	free(build);
	return o;
}

static void print_line(const struct bf_buildcache_entry *e, int64_t now)
{
	char size[32], used[32];
	char *build = build_of(e);
	int64_t d = now - e->last_used_ns / 1000000000;

	bf_size_format(size, sizeof(size), e->bytes);
	if (!e->last_used_ns)
		snprintf(used, sizeof(used), "unknown");
	else if (d < 3600)
		snprintf(used, sizeof(used), "%lldm ago",
		         (long long)(d < 0 ? 0 : d / 60));
	else if (d < 86400)
		snprintf(used, sizeof(used), "%lldh ago",
		         (long long)(d / 3600));
	else
		snprintf(used, sizeof(used), "%lldd ago",
		         (long long)(d / 86400));
	bf_text_printf(stdout, "%-12.12s  %-12.12s  %10s  %-9s  %-10s  %s\n",
	               e->name, bf_json_str_or(e->meta, "commit", "-"), size,
	               used, state_of(e), build);
	free(build);
}

static int cache_list(int argc, char **argv)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_buildcache_list l = { 0 };
	char *cache = NULL;
	char total[32], limit[32];
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t max = 0;
	int c, ret = BF_EXIT_OK;
	bool json = false;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'j')
			return bf_cmd_fail(BF_EXIT_USAGE, "cache",
			                   "list takes only --json; see "
			                   "'benchfarm cache -h'");
		json = true;
	}
	if (optind < argc)
		return bf_cmd_fail(BF_EXIT_USAGE, "cache",
		                   "list: unexpected argument '%s'",
		                   argv[optind]);
	if (bf_buildcache_max_size(&max, &err) ||
	    bf_fs_cache_dir(&cache, &err) ||
	    bf_buildcache_list_load(&l, cache, &err)) {
		ret = bf_cmd_fail(BF_EXIT_INFRA, "cache", "%s", err.msg);
		goto out;
	}
	if (json) {
		json_t *o = json_pack("{s:s, s:I, s:o, s:[]}", "cache", cache,
		                      "bytes", (json_int_t)l.bytes, "max_bytes",
		                      max == UINT64_MAX
		                              ? json_null()
		                              : json_integer((json_int_t)max),
		                      "entries");
		json_t *a = json_object_get(o, "entries");

		for (size_t i = 0; i < l.n; i++)
			json_array_append_new(a, entry_json(&l.v[i]));
		bf_json_print(o, stdout);
		json_decref(o);
		goto out;
	}
	bf_size_format(total, sizeof(total), l.bytes);
	if (max == UINT64_MAX)
		snprintf(limit, sizeof(limit), "no limit");
	else
		bf_size_format(limit, sizeof(limit), max);
	printf("%s: %zu entries, %s (limit %s)\n", cache, l.n, total, limit);
	if (l.n)
		printf("%-12s  %-12s  %10s  %-9s  %-10s  %s\n", "KEY", "COMMIT",
		       "SIZE", "LAST-USED", "STATE", "BUILD");
	for (size_t i = 0; i < l.n; i++)
		print_line(&l.v[i], (int64_t)time(NULL));
out:
	bf_buildcache_list_release(&l);
	free(cache);
	return ret;
}

static int cache_prune(int argc, char **argv)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_buildcache_pruned pr;
	char *cache = NULL;
	char freed[32], left[32];
	const char *size = NULL;
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "max-size", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t max = 0;
	bool all = false;
	int c, ret = BF_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'a')
			all = true;
		else if (c == 's')
			size = optarg;
		else
			return bf_cmd_fail(BF_EXIT_USAGE, "cache",
			                   "prune takes --max-size SIZE or "
			                   "--all; see 'benchfarm cache -h'");
	}
	if (optind < argc)
		return bf_cmd_fail(BF_EXIT_USAGE, "cache",
		                   "prune: unexpected argument '%s'",
		                   argv[optind]);
	if (all && size)
		return bf_cmd_fail(BF_EXIT_USAGE, "cache",
		                   "prune: give --max-size or --all, not both");
	if (size && bf_size_parse(&max, size, &err))
		return bf_cmd_fail(BF_EXIT_USAGE, "cache", "--max-size: %s",
		                   err.msg);
	if ((!size && !all && bf_buildcache_max_size(&max, &err)) ||
	    bf_fs_cache_dir(&cache, &err) ||
	    bf_buildcache_prune(&pr, cache, max, all, &err)) {
		ret = bf_cmd_fail(BF_EXIT_INFRA, "cache", "%s", err.msg);
		goto out;
	}
	bf_size_format(freed, sizeof(freed), pr.freed);
	bf_size_format(left, sizeof(left), pr.left);
	printf("removed %zu %s (%s); %s left", pr.removed,
	       pr.removed == 1 ? "entry" : "entries", freed, left);
	if (pr.kept_in_use)
		printf("; kept %zu in use by a running benchfarm",
		       pr.kept_in_use);
	putchar('\n');
out:
	free(cache);
	return ret;
}

int cmd_cache(int argc, char **argv, struct bf_ctx *ctx)
{
	(void)ctx;
	if (bf_cmd_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return BF_EXIT_OK;
	}
	if (argc >= 2 && !strcmp(argv[1], "list"))
		return cache_list(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "prune"))
		return cache_prune(argc - 1, argv + 1);
	if (argc >= 2)
		fprintf(stderr, "benchfarm: cache: unknown subcommand '%s'\n",
		        argv[1]);
	fputs(usage_text, stderr);
	return BF_EXIT_USAGE;
}
