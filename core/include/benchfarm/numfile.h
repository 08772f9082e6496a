#ifndef BF_NUMFILE_H
#define BF_NUMFILE_H

#include "benchfarm/common.h"

struct bf_err;

/*
 * Reads a file of numbers, one a line ("-" is stdin). Blank lines and
 * lines starting with '#' are skipped. Anything else that is not one
 * finite number is an error "FILE:LINE: ...". *out is a new array the
 * caller frees; *n_out its length. Files are capped at 256 MiB.
 */
int bf_numfile_read(double **out, size_t *n_out, const char *path,
                    struct bf_err *err);

/*
 * Reads a series: one number a line as above, or "commit,value" CSV
 * lines (a first line whose value is a name, like "commit,value" or
 * "Commit,Value", is a header). Every CSV line needs both columns; a
 * value that is not one finite number (nan, inf, text) is an error
 * "FILE:LINE: ...", and so is a file without any value "FILE: ...". *labels_out
 * gets the commits (NULL entries for plain numbers); free with
 * bf_numfile_labels_free().
 */
int bf_numfile_read_series(double **out, char ***labels_out, size_t *n_out,
                           const char *path, struct bf_err *err);
void bf_numfile_labels_free(char **labels, size_t n);

#endif /* BF_NUMFILE_H */
