/*
 * resfake.h -- the start of a hand-made struct pgcb_result for the report
 * and summary unit tests: its drivers and execution orders, which every one
 * of them built the same way. The test adds its groups and cells, and frees
 * the whole with pgcb_result_free().
 */
#ifndef PGCB_TESTS_RESFAKE_H
#define PGCB_TESTS_RESFAKE_H

#include <stddef.h>

#include <jansson.h>

#include "result.h"

/* *r zeroed, then n drivers: label and name labels[d], version "1", links
 * "", path "x.so", no caps; and norders execution orders, each the drivers
 * in their order (0 .. n-1). Everything allocated belongs to r. */
void resfake_init(struct pgcb_result *r, const char *const *labels, size_t n, size_t norders);

/* r written as a result file (pgcb_result_write) in a new temporary
 * directory, read back into *back (pgcb_result_read; the caller frees it)
 * and loaded as JSON; the file and the directory are removed. Returns the
 * JSON document (the caller json_decref()s it), or NULL with the step that
 * failed in err (and *back not to be freed). */
json_t *resfake_roundtrip(const struct pgcb_result *r, struct pgcb_result *back, char *err,
                          size_t errlen);

#endif
