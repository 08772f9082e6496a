#ifndef BF_REPORT_FIXTURE_H
#define BF_REPORT_FIXTURE_H

#include <stddef.h>

#include "benchfarm/plugin.h"

/*
 * What the reporter unit tests share: the result documents of
 * tests/fixtures/report, one plugin's primary output rendered with the
 * mock host (mocks/host_mock.h), and counting in an output. Each fails
 * the running cmocka test instead of returning an error.
 */

/*
 * The result document tests/fixtures/report/NAME.json (the test runner
 * starts tests at the repository's top). New reference; fails the test
 * when the file is missing or not JSON.
 */
json_t *report_fixture(const char *name);

/*
 * The primary output of plugin p on d with opts and a fresh mock host,
 * as a NUL-terminated string (caller frees). Fails the test, naming the
 * plugin and its error, when p refuses d, and when the primary output's
 * file name is not name.
 */
char *report_render_primary(const struct bf_plugin *p, const json_t *d,
                            const struct bf_report_opts *opts,
                            const char *name);

/* How many times needle starts in hay, overlapping ones included. */
size_t report_count(const char *hay, const char *needle);

#endif /* BF_REPORT_FIXTURE_H */
