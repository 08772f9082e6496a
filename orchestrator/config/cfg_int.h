#ifndef BF_CFG_INT_H
#define BF_CFG_INT_H

#include <yaml.h>

#include "config/cfg.h"

/*
 * Shared between the files of the config module and nothing else:
 * libyaml nodes never leave the module. A file calls only files listed
 * after it here, so calls go one way: cfg_load.c (the file, libyaml's
 * parser), cfg_schema.c (the keys), cfg_detector.c (a detector's
 * keys), cfg_words.c (words of a fixed set), cfg_walk.c (nodes, typed
 * getters, tables), cfg_suggest.c (did-you-mean), cfg.c (defaults,
 * release, names). cfg_json.c (the config as JSON) calls only cfg.c.
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
extern const char *const bf_cfg__better_words[];
extern const char *const bf_cfg__fail_on_words[];
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
	BF_CFG__MAP, /* a nested mapping `sub`, filling the same object */
	BF_CFG__FN, /* anything else: `fn` loads it */
};

enum bf_cfg__flags {
	BF_CFG__REQUIRED = 1 << 0,
	BF_CFG__LO_OPEN = 1 << 1, /* DOUBLE: lo itself is not allowed */
	BF_CFG__HI_OPEN = 1 << 2, /* DOUBLE: hi itself is not allowed */
	BF_CFG__NONEMPTY = 1 << 3, /* ARGV: at least one item */
};

struct bf_cfg__table;

/* Loads node (the value of key `path`) into obj; 0 or BF_EINVAL. */
typedef int bf_cfg__load_fn(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                            const char *path);

struct bf_cfg__field {
	const char *key;
	enum bf_cfg__type type;
	size_t off;
	unsigned flags;
	double lo, hi; /* INT and DOUBLE; hi may be HUGE_VAL */
	const struct bf_cfg__table *sub;
	bf_cfg__load_fn *fn;
};

struct bf_cfg__table {
	const struct bf_cfg__field *fields;
	size_t n; /* at most 32 */
};

/*
 * text as the INT or DOUBLE field f's value: 0, BF_CFG__NOT_A_NUMBER
 * (err, which may be NULL, says why: not a number, out of range), or
 * BF_CFG__OUT_OF_RANGE with f's range in words ("between 1 and 100000")
 * in range. The YAML loader and bf_cfg_detector_option share it.
 */
enum { BF_CFG__NOT_A_NUMBER = 1, BF_CFG__OUT_OF_RANGE = 2 };
int bf_cfg__parse_number(const struct bf_cfg__field *f, const char *text,
                         double *out, char *range, size_t size,
                         struct bf_err *err);

/* Fills cfg from the document's root node (cfg_schema.c); 0 or BF_EINVAL. */
int bf_cfg__load_root(struct bf_cfg__ld *ld, yaml_node_t *root,
                      struct bf_cfg *cfg);

/*
 * A detector (cfg_detector.c): a name, or a mapping with a name and its
 * parameters, into d (replacing its name and defaults); 0 or BF_EINVAL.
 */
int bf_cfg__load_detector(struct bf_cfg__ld *ld, yaml_node_t *node,
                          const char *path, struct bf_cfg_detector *d);

/*
 * Walking and typed getters (cfg_walk.c, words in cfg_words.c). Each returns 0
 * or BF_EINVAL with "FILE:LINE:COL: message" in ld->err, at node's start.
 */
int bf_cfg__error(struct bf_cfg__ld *ld, const yaml_node_t *node,
                  const char *fmt, ...) BF_PRINTF(3, 4);
/* Load a mapping by table; a null node is an empty mapping. */
int bf_cfg__load_map(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                     const struct bf_cfg__table *t, void *obj);
/* Check that map's keys are non-empty strings, each used once. */
int bf_cfg__check_keys(struct bf_cfg__ld *ld, yaml_node_t *map,
                       const char *path);
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

/* A null scalar: empty, "~" or "null" written plain. */
bool bf_cfg__is_null(const yaml_node_t *node);
/* Describes node for messages ("'ten'", "a list"); returns buf. */
const char *bf_cfg__describe(const yaml_node_t *node, char *buf, size_t size);
/* "path.key" (or "key" at the top) into out, truncated to size. */
void bf_cfg__join(char *out, size_t size, const char *path, const char *key);

/* Fails with "'path' must be what, not <node described>". */
int bf_cfg__want(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                 const char *what);
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

#endif /* BF_CFG_INT_H */
