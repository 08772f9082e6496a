#ifndef BF_CFG_H
#define BF_CFG_H

#include "benchfarm/argv.h"
#include "benchfarm/common.h"
#include "benchfarm/stats.h"

struct bf_err;

/*
 * The YAML config (configs/README.md lists every key), loaded into
 * plain structs. All defaults live in the BF_CFG_DEFAULT_* and _INIT
 * macros below, applied by bf_cfg_init(); the loader starts from them
 * and overwrites what the file sets. Keys are documented in
 * configs/README.md.
 */

enum bf_better {
	BF_BETTER_LOWER = 0,
	BF_BETTER_HIGHER = 1,
};

/* "lower" or "higher"; NULL if b is out of range. */
const char *bf_better_name(enum bf_better b);

struct bf_cfg_detector {
	char *name; /* jetpack | skia | perfherder | edivisive */
	int width; /* jetpack WIDTH, skia radius, windows */
	double threshold; /* jetpack 25, skia interesting, t > 7 */
	double min_change; /* perfherder minimum relative change */
	double max_pvalue; /* edivisive */
	/* skia: original|absolute|percent|cohen|mannwhitneyu; NULL original */
	char *variant;
	double stddev_threshold; /* skia minimum stddev (0.001) */
};

/*
 * A detector outside a config file (analyze step), with the config's
 * rules. bf_cfg_detector_init: d = detector NAME with its defaults
 * (configs/README.md), BF_EINVAL if NAME is unknown; release with
 * bf_cfg_detector_release. bf_cfg_detector_option: one parameter by its
 * config key ("width", "threshold", "variant", "stddev_threshold",
 * "min_change", "max_pvalue") from text, refused when d's detector does
 * not take that key or the value is outside the key's range. Then
 * bf_cfg_detector_finish: a skia variant's threshold rule (its default
 * when none was given; absolute needs one; mannwhitneyu's below 1).
 */
int bf_cfg_detector_init(struct bf_cfg_detector *d, const char *name,
                         struct bf_err *err);
int bf_cfg_detector_option(struct bf_cfg_detector *d, const char *key,
                           const char *value, struct bf_err *err);
int bf_cfg_detector_finish(struct bf_cfg_detector *d, bool have_threshold,
                           struct bf_err *err);
void bf_cfg_detector_release(struct bf_cfg_detector *d);

struct bf_cfg_metric {
	char *name; /* e.g. "real_time" */
	enum bf_better better; /* direction */
	struct bf_cfg_detector detector; /* name NULL: the benchmark's */
};

enum bf_format {
	BF_FORMAT_GBENCH = 0,
	BF_FORMAT_JETPACK,
	BF_FORMAT_HYPERFINE,
	BF_FORMAT_NATIVE,
	BF_FORMAT_LINES,
};

/* Name of a format as written in configs ("gbench"); NULL if invalid. */
const char *bf_format_name(enum bf_format f);
/* Parse a format name; 0 or BF_EINVAL. Cannot fail otherwise. */
int bf_format_parse(enum bf_format *out, const char *name);

/*
 * Which of a benchmark's streams its parser reads: standard output (the
 * default), standard error, or both (output, then error: for the line
 * formats, as the two are not interleaved).
 */
enum bf_output {
	BF_OUTPUT_STDOUT = 0,
	BF_OUTPUT_STDERR,
	BF_OUTPUT_BOTH,
};

/* "stdout", "stderr" or "both"; NULL if o is out of range. */
const char *bf_output_name(enum bf_output o);

/*
 * What a benchmark's runs measure: its own output's metrics beside the
 * device's perf counters (time, the default), or only the counts of
 * Valgrind's cachegrind (instructions: deterministic, a few runs enough).
 */
enum bf_measure {
	BF_MEASURE_TIME = 0,
	BF_MEASURE_INSTRUCTIONS,
};

/* "time" or "instructions"; NULL if m is out of range. */
const char *bf_measure_name(enum bf_measure m);

/*
 * benchmarks[].gate: which metrics decide the gate (cfg_gate.c):
 * primary, the one that measures the benchmark's work (the default);
 * all; or those of a list (gate_metrics).
 */
enum bf_gate {
	BF_GATE_PRIMARY = 0,
	BF_GATE_ALL,
	BF_GATE_LIST,
};

/* "primary", "all"; NULL for BF_GATE_LIST and out of range. */
const char *bf_gate_name(enum bf_gate g);

struct bf_cfg_benchmark {
	char *name;
	struct bf_argv command; /* argv run on the device, relative to export */
	char *workdir; /* relative to the export; NULL = its root */
	struct bf_argv env; /* "NAME=VALUE" set for its runs (env:) */
	char *source; /* "FILE[:LINE]" of its code, for review annotations */
	enum bf_format format;
	enum bf_output output; /* the stream(s) parsed */
	enum bf_measure measure; /* measure: */
	bool counters; /* counters: keep the run's perf counters as metrics */
	int timeout_s;
	/*
	 * Measured runs per side (duet: rounds) and discarded runs before
	 * them, as the loader resolved them: the entry's repeats: and
	 * warmup:, else runs.repeats and runs.warmup when the file sets
	 * them, else 3 and 0 under measure: instructions and the runs'
	 * defaults for the rest. repeats is unused when runs.adaptive.
	 */
	int repeats, warmup;
	struct bf_cfg_metric
	        *metrics; /* empty: every metric (bf_cfg_metric_wanted) */
	size_t nmetrics;
	struct bf_cfg_detector detector; /* name NULL: postsubmit's */
	enum bf_gate gate; /* gate: */
	struct bf_argv gate_metrics; /* gate: [names], for BF_GATE_LIST */
	int line; /* where the entry starts in the file, for messages */
};

#define BF_CFG_BENCHMARK_TIMEOUT_DEFAULT 300

/*
 * How two builds are told apart: code compares each ELF file's sections
 * that are loaded at run time (other files by content), bytes every
 * file's whole content.
 */
enum bf_build_identity {
	BF_BUILD_IDENTITY_CODE,
	BF_BUILD_IDENTITY_BYTES,
};

const char *bf_build_identity_name(enum bf_build_identity b);

/*
 * Where the build runs: auto in a bubblewrap sandbox when bwrap can run
 * here and unsandboxed (said in the output and the result) when it
 * cannot, require only in the sandbox (a build that cannot have it
 * fails), off never sandboxed.
 */
enum bf_build_sandbox {
	BF_BUILD_SANDBOX_AUTO,
	BF_BUILD_SANDBOX_REQUIRE,
	BF_BUILD_SANDBOX_OFF,
};

const char *bf_build_sandbox_name(enum bf_build_sandbox s);

enum bf_fail_on {
	BF_FAIL_ON_REGRESSION = 0,
	BF_FAIL_ON_NEVER = 1,
};

/* "regression" or "never"; NULL if f is out of range. */
const char *bf_fail_on_name(enum bf_fail_on f);

/*
 * presubmit.missing_series: what a series that one side reports and the
 * other does not (renamed, left out, or failing on that side) does to
 * the gate. fail: its verdict "missing" fails it as a regression does
 * (under fail_on: regression); ignore: it is reported, and passes.
 */
enum bf_missing_series {
	BF_MISSING_SERIES_FAIL = 0,
	BF_MISSING_SERIES_IGNORE = 1,
};

/* "fail" or "ignore"; NULL if m is out of range. */
const char *bf_missing_series_name(enum bf_missing_series m);

/*
 * devices.same_machine: what a job does with leased devices that are
 * one machine (farm/machine.h): measure on one of them at a time
 * (serial, the default), or on all at once (parallel).
 */
enum bf_same_machine {
	BF_SAME_MACHINE_SERIAL = 0,
	BF_SAME_MACHINE_PARALLEL = 1,
};

/* "serial" or "parallel"; NULL if m is out of range. */
const char *bf_same_machine_name(enum bf_same_machine m);

/*
 * runs.duet_isolation: how far apart a duet keeps its two sides (each
 * in its own PID namespace, each held on its core) and what it does
 * where the device cannot: best_effort (the default: what the device
 * allows, and the result says what it did not), none (not at all),
 * processes (refuse a device that cannot give each side its own PID
 * namespace), full (nor hold each side on its core).
 */
enum bf_duet_isolation {
	BF_DUET_ISOLATION_BEST_EFFORT = 0,
	BF_DUET_ISOLATION_NONE = 1,
	BF_DUET_ISOLATION_PROCESSES = 2,
	BF_DUET_ISOLATION_FULL = 3,
};

/* The word of m ("best_effort", ...); NULL if m is out of range. */
const char *bf_duet_isolation_name(enum bf_duet_isolation m);

struct bf_cfg_checks {
	int battery_min; /* percent; 0 disables */
	bool require_charging;
	bool require_all_cores;
	bool require_locked_clocks;
	double thermal_max; /* degrees C */
	double throttle_tolerance; /* fraction slower than baseline, 0.10 */
	double load_max; /* runnable tasks besides the agent, per core */
	struct bf_argv suppress; /* check ids turned into warnings */
	int wait_max_s; /* wait for cool-down / recharge; 0 = fail */
	int load_wait_s; /* wait for the load to settle; 0 = fail */
	int throttle_retries; /* re-measures of a throttle; 0 = fail */
	int throttle_sleep_s; /* sleep before each re-measure */
};

#define BF_CFG_CHECKS_INIT                                                  \
	{                                                                   \
		.battery_min = 25, .require_charging = false,               \
		.require_all_cores = true, .require_locked_clocks = false,  \
		.thermal_max = 70.0, .throttle_tolerance = 0.10,            \
		.load_max = 1.0, .suppress = BF_ARGV_INIT, .wait_max_s = 0, \
		.load_wait_s = 30, .throttle_retries = 2,                   \
		.throttle_sleep_s = 90,                                     \
	}

/*
 * A detector's parameters that it does not use are 0. Defaults per
 * detector: jetpack width 5 threshold 25; skia width (radius) 7
 * threshold 50 stddev_threshold 0.001 (a skia variant other than
 * original has its own threshold default: percent 0.1, cohen 2,
 * mannwhitneyu 0.05; absolute has none and must set one); perfherder
 * width 12 threshold 7 min_change 0.02; edivisive width 50 max_pvalue
 * 0.001; pooled width 8 threshold 4 min_change 0.02. The default
 * detector is pooled.
 */

struct bf_cfg {
	int version; /* must be 1 */
	char *path; /* the file loaded, for messages */
	/*
	 * The store's location (store:), or NULL. An SQLite path is
	 * made relative to the config's directory when loaded; --db and
	 * $BENCHFARM_DB take precedence over it.
	 */
	char *store;

	struct {
		char *repo; /* path or URL, relative to the config dir */
		char *target_branch; /* "main" */
		char *commit_url; /* "https://.../commit/{commit}" or NULL */
		struct bf_argv build;
		struct bf_argv artifacts;
		int build_timeout_s;
		/*
		 * What makes two builds the same (artifacts.h): their
		 * executable code (the default) or their bytes.
		 */
		enum bf_build_identity build_identity;
		enum bf_build_sandbox build_sandbox; /* auto */
		bool build_network; /* the sandbox shares the network */
	} project;

	struct bf_cfg_benchmark *benchmarks;
	size_t nbenchmarks;

	struct {
		char *pool; /* "local" or a label */
		/*
		 * Seconds a device's lease lasts unless renewed; a running
		 * job renews it every lease_time_s / 3.
		 */
		int lease_time_s;
		/* Seconds a job waits its turn for a busy pool; 0: none. */
		int wait_s;
		enum bf_same_machine same_machine;
	} devices;

	struct {
		int repeats; /* fixed runs per side; unused when adaptive */
		/*
		 * repeats: auto: stop after the interleaved block that
		 * decides every metric (group-sequential, stats_seq.h), at
		 * least min_repeats and at most max_repeats runs per side.
		 */
		bool adaptive;
		int min_repeats, max_repeats;
		int warmup;
		bool interleave;
		/*
		 * runs.mode: duet: each round runs base and patch at the
		 * same time on two cores of one device, judged on the
		 * per-round ratios (stats_paired.h); false: "interleaved",
		 * one run at a time.
		 */
		bool duet;
		enum bf_duet_isolation duet_isolation;
		uint64_t seed; /* 0 = choose one and record it */
		int retries;
		int samples_max; /* samples one run may send */
	} runs;

	struct bf_cfg_checks checks;

	struct {
		double alpha;
		double min_effect;
		enum bf_fail_on fail_on;
		enum bf_missing_series missing_series;
	} presubmit;

	struct {
		struct bf_cfg_detector detector;
	} postsubmit;

	struct bf_argv report; /* formats, e.g. "markdown" */

	struct {
		char *check_name; /* stable check / comment marker name */
		char *link; /* URL of the full results, or NULL */
		struct {
			char *host; /* NULL: do not post to Gerrit */
			int port; /* 0: 29418 */
			char *user, *key; /* NULL: $USER, ~/.ssh/id_ed25519 */
			char *label; /* e.g. "Performance-Verified"; NULL: none
			              */
			int vote_fail, vote_pass; /* -1 and +1 */
			char *change; /* "CHANGE,PATCHSET" or commit; NULL */
		} gerrit;
	} review;
};

/*
 * Defaults, in one place. Strings are filled in by bf_cfg_init() (they
 * must be heap copies so that bf_cfg_release() can free them).
 */
#define BF_CFG_DEFAULT_REPEATS 10
#define BF_CFG_DEFAULT_WARMUP  1
/*
 * repeats: auto. The first look at 6 runs per side can already stop a
 * large change (a 20% shift at 1% noise); 30 is the usual fixed count
 * the adaptive mode saves on. min_repeats' floor: with fewer than 4
 * runs per side the first look's t quantile (at its tiny nominal level)
 * is so wide that no look could decide anything. max_repeats' ceiling
 * keeps the looks (one per block of 2 runs) within BF_SEQ_MAX_LOOKS.
 */
#define BF_CFG_DEFAULT_MIN_REPEATS 6
#define BF_CFG_DEFAULT_MAX_REPEATS 30
#define BF_CFG_MIN_MIN_REPEATS     4
#define BF_CFG_MAX_MAX_REPEATS     250
/*
 * A benchmark with measure: instructions (deterministic counts), and
 * runs.repeats and runs.warmup when every benchmark has it.
 */
#define BF_CFG_INSTRUCTIONS_REPEATS  3
#define BF_CFG_INSTRUCTIONS_WARMUP   0
#define BF_CFG_DEFAULT_ALPHA         BF_COMPARE_DEFAULT_ALPHA
#define BF_CFG_DEFAULT_MIN_EFFECT    BF_COMPARE_DEFAULT_MIN_EFFECT
#define BF_CFG_DEFAULT_BRANCH        "main"
#define BF_CFG_DEFAULT_BUILD_TIMEOUT 600
#define BF_CFG_DEFAULT_POOL          "local"
#define BF_CFG_DEFAULT_LEASE_TIME    600
#define BF_CFG_MAX_LEASE_TIME        86400
#define BF_CFG_DEFAULT_WAIT          300
#define BF_CFG_DEFAULT_RETRIES       2
#define BF_CFG_DEFAULT_SAMPLES_MAX   100000
#define BF_CFG_DEFAULT_DETECTOR      "jetpack"
#define BF_CFG_DEFAULT_REPORT        "markdown"
/* Bounds the loader enforces (configs/README.md). */
#define BF_CFG_MAX_REPEATS 10000
#define BF_CFG_MAX_WARMUP  1000
#define BF_CFG_MAX_SAMPLES 10000000 /* runs.samples_max */
#define BF_CFG_MAX_TIMEOUT BF_RUN_TIMEOUT_MAX /* seconds: one week */
/*
 * Deepest nesting of mappings and sequences a config may have (the
 * schema needs 5); deeper is refused before the document is built:
 * libyaml's cost grows with the square of the depth.
 */
#define BF_CFG_MAX_DEPTH 64
/* Largest config file bf_cfg_load() reads. */
#define BF_CFG_MAX_FILE_SIZE (1024 * 1024)

/*
 * A command-line value of the numeric config setting `key` ("runs.repeats",
 * "runs.warmup", "runs.seed", "presubmit.alpha", "presubmit.min_effect"):
 * parsed with the config's own type and range, so an option and its key
 * accept the same values. out is an int, double or uint64_t as the key's
 * type is. 0, or BF_EINVAL with "must be between 2 and 10000 (as
 * runs.repeats), not 1" or the parser's "'x' is not an integer" in err.
 * An unknown key is a programming error (BF_BUG).
 */
int bf_cfg_parse_setting(void *out, const char *key, const char *text,
                         struct bf_err *err);

/* Initialise cfg with every default. Cannot fail. */
void bf_cfg_init(struct bf_cfg *cfg);
/*
 * Free everything cfg owns and zero it; cfg may be NULL. Releasing twice
 * is harmless.
 */
void bf_cfg_release(struct bf_cfg *cfg);

/*
 * Load and validate path into cfg (which bf_cfg_load initialises).
 * Errors are BF_EINVAL (or BF_ENOTFOUND / BF_ESYS / BF_ETOOBIG for the
 * file) with a message "FILE:LINE:COL: what is wrong" (1-based),
 * suggesting the closest key for a misspelt one. On failure cfg is
 * released (all zero), so releasing it again is harmless. Relative
 * paths in the config (project.repo, workdir, artifacts) are kept as
 * written; the caller resolves them against the config's directory.
 */
int bf_cfg_load(struct bf_cfg *cfg, const char *path, struct bf_err *err);
/*
 * bf_cfg_load, and every error into all (when not NULL; one message a
 * string, "FILE:LINE:COL: ...", in the order met): the loader goes on
 * past an error in one key or benchmark to the next, so one run names
 * them all. err gets the first. A YAML syntax error stops the parse:
 * then it is the only one.
 */
int bf_cfg_load_all(struct bf_cfg *cfg, const char *path, struct bf_argv *all,
                    struct bf_err *err);
/* Same from a string; name is used in messages in place of the path. */
int bf_cfg_load_string(struct bf_cfg *cfg, const char *name, const char *text,
                       size_t len, struct bf_err *err);

/*
 * The effective config as pretty JSON text (every key, defaults
 * included, in file order; a benchmark's repeats and warmup only where
 * they differ from the runs'), for `benchfarm config check`. Keys are the
 * YAML key names; an unset workdir is null; a seed above INT64_MAX is
 * written as a decimal string. Never returns NULL (aborts when out of
 * memory, like bf_x*). Caller frees with free().
 */
char *bf_cfg_to_json(const struct bf_cfg *cfg);

/* The benchmark called name, or NULL. Borrowed. */
const struct bf_cfg_benchmark *bf_cfg_find_benchmark(const struct bf_cfg *cfg,
                                                     const char *name);

/*
 * Whether metric METRIC (of unit UNIT) of benchmark b is measured, and
 * in *higher whether higher values are better: with a metrics: list,
 * only the metrics it names, in the direction of their better: (lower
 * by default); without one, every metric, higher-is-better for rates (a
 * unit ending in "/s", as gbench's *_per_second counters have) and
 * lower-is-better for the rest. b NULL (a benchmark the config no
 * longer has, for stored history): as without a list. compare, run,
 * detect and history all decide with this, so they agree.
 */
bool bf_cfg_metric_wanted(const struct bf_cfg_benchmark *b, const char *metric,
                          const char *unit, bool *higher);

/*
 * Whether metric METRIC of the series SERIES (the benchmark's own name
 * for it, e.g. "BM_sort/64/threads:4") of benchmark b decides the gate,
 * by b's gate: (cfg_gate.c). b NULL: every metric gates.
 */
bool bf_cfg_metric_gates(const struct bf_cfg_benchmark *b, const char *series,
                         const char *metric);

#endif /* BF_CFG_H */
