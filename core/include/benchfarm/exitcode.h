#ifndef BF_EXITCODE_H
#define BF_EXITCODE_H

/*
 * Exit codes of every benchfarm program (docs/architecture.md). Public
 * interface: CI pipelines branch on them. Never renumber.
 */
enum bf_exit {
	BF_EXIT_OK = 0, /* success, no regression */
	BF_EXIT_REGRESSION = 1, /* regression found and config fails on it */
	BF_EXIT_USAGE = 2, /* usage or config error */
	BF_EXIT_INFRA = 3, /* infrastructure failure */
};

#endif /* BF_EXITCODE_H */
