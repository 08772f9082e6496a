#ifndef BF_CFG_INT_H
#define BF_CFG_INT_H

#include <yaml.h>

#include "config/cfg.h"

/*
 * Shared between the files of the config module and nothing else:
 * libyaml nodes never leave the module. A file calls only files listed
 * after it here, so calls go one way: cfg_load.c (the file, libyaml's
 * parser), cfg_schema.c (the keys), cfg_detector.c (a detector's
 * keys), cfg_runs.c (the rules of the counts of runs), cfg_table.c (a mapping
 * by its table), cfg_words.c (words of a fixed set), cfg_walk.c (nodes, typed
 * getters), cfg_suggest.c (did-you-mean), cfg.c (defaults, release, names).
 * cfg_json.c (the config as JSON) calls only cfg.c.
 */

/* Size of a key's dotted path in messages ("benchmarks[0].metrics.x"). */
#define BF_CFG__PATH_SIZE 160

/* Loader state for one document. */
struct bf_cfg__ld {
	yaml_document_t *doc; /* borrowed */
	const char *name; /* file name used in messages; borrowed */
	struct bf_err *err; /* may be NULL; gets the first error */
	struct bf_argv *all; /* may be NULL; gets every error */
	size_t nerrors;
};

/* Allowed words, NULL-terminated; an enum's value is its word's index. */
extern const char *const bf_cfg__format_words[];
extern const char *const bf_cfg__output_words[];
extern const char *const bf_cfg__measure_words[];
extern const char *const bf_cfg__better_words[];
extern const char *const bf_cfg__fail_on_words[];
extern const char *const bf_cfg__missing_series_words[];
extern const char *const bf_cfg__build_identity_words[];
extern const char *const bf_cfg__build_sandbox_words[];
extern const char *const bf_cfg__same_machine_words[];
extern const char *const bf_cfg__duet_isolation_words[];
extern const char *const bf_cfg__check_words[];
extern const char *const bf_cfg__report_words[];
/* Detectors and skia's variants: bf_detector_names, bf_skia_algo_names. */

/* Defaults of one step detector, and the keys a detector mapping takes. */
struct bf_cfg__detector_def {
	const char *name;
	int width;
	double threshold;
	double min_change;
	double max_pvalue;
	double stddev_threshold;
	const char *const *keys; /* NULL-terminated */
};

/* Indexed like bf_detector_names (enum bf_detector). */
extern const struct bf_cfg__detector_def bf_cfg__detectors[];

/* Replace d with def's name and defaults. Cannot fail. */
void bf_cfg__detector_set(struct bf_cfg_detector *d,
                          const struct bf_cfg__detector_def *def);
/* Defaults of a benchmark entry (no strings). Cannot fail. */
void bf_cfg__benchmark_init(struct bf_cfg_benchmark *b);

/*
 * Schema tables. A field maps one key to a member at `off` bytes into
 * the object being filled; the loader checks its type and range.
 */
enum bf_cfg__type {
	BF_CFG__STR, /* char *, a non-empty string */
	BF_CFG__INT, /* int in [lo, hi] */
	BF_CFG__U64, /* uint64_t */
	BF_CFG__DOUBLE, /* double in lo..hi, ends open per flags */
	BF_CFG__BOOL, /* bool: true or false */
	BF_CFG__ARGV, /* struct bf_argv: a list of strings */
	BF_CFG__WORD, /* an int-sized enum: the index of one of `words` */
	BF_CFG__WORDS, /* struct bf_argv: distinct items of `words` */
	BF_CFG__MAP, /* a nested mapping `sub`, filling the same object */
	BF_CFG__FN, /* anything else: `fn` loads it */
};

enum bf_cfg__flags {
	BF_CFG__REQUIRED = 1 << 0,
	BF_CFG__LO_OPEN = 1 << 1, /* DOUBLE: lo itself is not allowed */
	BF_CFG__HI_OPEN = 1 << 2, /* DOUBLE: hi itself is not allowed */
	BF_CFG__NONEMPTY = 1 << 3, /* ARGV: at least one item */
	BF_CFG__EXEC_OK = 1 << 4, /* WORDS: "exec:NAME" is one too */
};

struct bf_cfg__table;

/*
 * Loads node (the value of key `path`) into the member at the field's
 * `off` in the object being filled (off 0: the object itself); 0 or
 * BF_EINVAL.
 */
typedef int bf_cfg__load_fn(struct bf_cfg__ld *ld, yaml_node_t *node,
                            void *member, const char *path);

struct bf_cfg__field {
	const char *key;
	enum bf_cfg__type type;
	size_t off;
	unsigned flags;
	double lo, hi; /* INT and DOUBLE; hi may be HUGE_VAL */
	const struct bf_cfg__table *sub; /* MAP */
	bf_cfg__load_fn *fn; /* FN */
	const char *const *words; /* WORD, WORDS: NULL-terminated */
	const char *what; /* WORD, WORDS: the kind, e.g. "format" */
};

/*
 * A table's rows, one a key, at member offset o of the object being
 * filled; fl: enum bf_cfg__flags.
 */
#define BF_CFG__STR_KEY(k, o, fl)                                          \
	{                                                                  \
		.key = (k), .type = BF_CFG__STR, .off = (o), .flags = (fl) \
	}
#define BF_CFG__BOOL_KEY(k, o)                               \
	{                                                    \
		.key = (k), .type = BF_CFG__BOOL, .off = (o) \
	}
#define BF_CFG__U64_KEY(k, o)                               \
	{                                                   \
		.key = (k), .type = BF_CFG__U64, .off = (o) \
	}
#define BF_CFG__ARGV_KEY(k, o, fl)                                          \
	{                                                                   \
		.key = (k), .type = BF_CFG__ARGV, .off = (o), .flags = (fl) \
	}
#define BF_CFG__INT_KEY(k, o, l, h)                                     \
	{                                                               \
		.key = (k), .type = BF_CFG__INT, .off = (o), .lo = (l), \
		.hi = (h)                                               \
	}
#define BF_CFG__DOUBLE_KEY(k, o, fl, l, h)                                     \
	{                                                                      \
		.key = (k), .type = BF_CFG__DOUBLE, .off = (o), .flags = (fl), \
		.lo = (l), .hi = (h)                                           \
	}
#define BF_CFG__WORD_KEY(k, o, w, kind)                                     \
	{                                                                   \
		.key = (k), .type = BF_CFG__WORD, .off = (o), .words = (w), \
		.what = (kind)                                              \
	}
#define BF_CFG__WORDS_KEY(k, o, fl, w, kind)                                  \
	{                                                                     \
		.key = (k), .type = BF_CFG__WORDS, .off = (o), .flags = (fl), \
		.words = (w), .what = (kind)                                  \
	}
#define BF_CFG__MAP_KEY(k, fl, t)                                          \
	{                                                                  \
		.key = (k), .type = BF_CFG__MAP, .flags = (fl), .sub = (t) \
	}
#define BF_CFG__FN_KEY(k, o, fl, f)                                        \
	{                                                                  \
		.key = (k), .type = BF_CFG__FN, .off = (o), .flags = (fl), \
		.fn = (f)                                                  \
	}

struct bf_cfg__table {
	const struct bf_cfg__field *fields;
	size_t n; /* at most 32 */
};

/*
 * text as the INT or DOUBLE field f's value into out (an int or a
 * double): 0, or BF_EINVAL with err (which may be NULL) saying why: not
 * a number, or "must be RANGE (as NAME), not TEXT" (without " (as NAME)"
 * when name is NULL). bf_cfg_detector_option and bf_cfg_parse_setting
 * share it with the YAML loader.
 */
int bf_cfg__set_number(void *out, const struct bf_cfg__field *f,
                       const char *text, const char *name, struct bf_err *err);

/* Fills cfg from the document's root node (cfg_schema.c); 0 or BF_EINVAL. */
int bf_cfg__load_root(struct bf_cfg__ld *ld, yaml_node_t *root,
                      struct bf_cfg *cfg);

/*
 * A detector (cfg_detector.c): a name, or a mapping with a name and its
 * parameters, into the struct bf_cfg_detector d (replacing its name and
 * defaults); a table's BF_CFG__FN. 0 or BF_EINVAL.
 */
bf_cfg__load_fn bf_cfg__load_detector;

/*
 * The counts of runs (cfg_runs.c). bf_cfg__load_bench_repeats: a
 * benchmark's repeats: (a number, not auto) into its int member, a
 * table's BF_CFG__FN. bf_cfg__runs_rules, once every key is loaded:
 * the measure: instructions defaults of runs.repeats and runs.warmup,
 * each benchmark's repeats and warmup resolved (configs/README.md),
 * and the rules of runs.repeats: auto. 0 or BF_EINVAL.
 */
bf_cfg__load_fn bf_cfg__load_bench_repeats;
int bf_cfg__runs_rules(struct bf_cfg__ld *ld, yaml_node_t *root,
                       struct bf_cfg *cfg);

/*
 * Walking and typed getters (cfg_walk.c), tables (cfg_table.c), words
 * (cfg_words.c). Each returns 0 or BF_EINVAL with "FILE:LINE:COL:
 * message" in ld->err, at node's start.
 */
int bf_cfg__error(struct bf_cfg__ld *ld, const yaml_node_t *node,
                  const char *fmt, ...) BF_PRINTF(3, 4);
/* Load a mapping by table (cfg_table.c); a null node is an empty mapping. */
int bf_cfg__load_map(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                     const struct bf_cfg__table *t, void *obj);
/* Check that map's keys are non-empty strings, each used once. */
int bf_cfg__check_keys(struct bf_cfg__ld *ld, yaml_node_t *map,
                       const char *path);
/*
 * A mapping keyed by names (metrics, env): its number of pairs in *n (0
 * for a null node), or BF_EINVAL when it is not a mapping ("'path' must
 * be a mapping of WHAT") or a key is bad (bf_cfg__check_keys).
 */
int bf_cfg__get_names(struct bf_cfg__ld *ld, yaml_node_t *node,
                      const char *path, const char *what, size_t *n);
/* The value of key in map, or NULL. Borrowed. */
yaml_node_t *bf_cfg__find_key(struct bf_cfg__ld *ld, yaml_node_t *map,
                              const char *key);
/* Key and value nodes of a mapping's i-th pair. */
yaml_node_t *bf_cfg__pair_key(struct bf_cfg__ld *ld, yaml_node_t *map,
                              size_t i);
yaml_node_t *bf_cfg__pair_value(struct bf_cfg__ld *ld, yaml_node_t *map,
                                size_t i);
size_t bf_cfg__map_size(const yaml_node_t *map);
/* The i-th item of a sequence, and the number of items. */
yaml_node_t *bf_cfg__item(struct bf_cfg__ld *ld, yaml_node_t *seq, size_t i);
size_t bf_cfg__seq_size(const yaml_node_t *seq);

/* A scalar node's text. Borrowed. */
static inline const char *bf_cfg__scalar(const yaml_node_t *node)
{
	return (const char *)node->data.scalar.value;
}

/* A null scalar: empty, "~" or "null" written plain. */
bool bf_cfg__is_null(const yaml_node_t *node);
/* Describes node for messages ("'ten'", "a list"); returns buf. */
const char *bf_cfg__describe(const yaml_node_t *node, char *buf, size_t size);
/* "path.key" (or "key" at the top) into out, truncated to size. */
void bf_cfg__join(char *out, size_t size, const char *path, const char *key);

/* Fails with "'path' must be what, not <node described>". */
int bf_cfg__want(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                 const char *what);
/*
 * The value of field f of a type that needs no table (STR, INT, U64,
 * DOUBLE, BOOL, ARGV) into its member p.
 */
int bf_cfg__get_value(struct bf_cfg__ld *ld, const struct bf_cfg__field *f,
                      yaml_node_t *node, void *p, const char *path);
/* A list of strings into out (replacing it); flags: BF_CFG__NONEMPTY. */
int bf_cfg__get_argv(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                     unsigned flags, struct bf_argv *out);
/* A non-empty string; replaces (and frees) *out. */
int bf_cfg__get_str(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                    char **out);
/*
 * One of words (what names the kind in messages, e.g. "format");
 * *idx_out is its index. A close miss gets a suggestion.
 */
int bf_cfg__get_word(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                     const char *const *words, const char *what,
                     size_t *idx_out);
/*
 * A list of distinct words into out (replacing it); with exec_ok,
 * "exec:NAME" is accepted too.
 */
int bf_cfg__get_words(struct bf_cfg__ld *ld, yaml_node_t *node,
                      const char *path, const char *const *words,
                      const char *what, bool exec_ok, struct bf_argv *out);

/*
 * The closest of words to s within a small edit distance, or NULL
 * (cfg_suggest.c).
 */
const char *bf_cfg__suggest(const char *s, const char *const *words);

/* benchmarks[].gate: a word or a list of metrics (cfg_gate.c). */
extern const char *const bf_cfg__gate_words[];
int bf_cfg__load_gate(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                      const char *path);

#endif /* BF_CFG_INT_H */
