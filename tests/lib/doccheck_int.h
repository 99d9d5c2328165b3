/*
 * doccheck_int.h -- what doccheck.c and doccheck_keys.c share; not for the
 * tests themselves (they use doccheck.h).
 */
#ifndef PGCB_TESTS_DOCCHECK_INT_H
#define PGCB_TESTS_DOCCHECK_INT_H

#include "doccheck.h"

/* Append "PAGE:LINE: message" to c->problems (d NULL: "docs"). */
void doccheck_problem(struct doccheck *c, const struct mdoc *d, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Write `text` to `path`; 0 or -1. */
int doccheck_write(const char *path, const char *text);

/* Run argv (argv[0] looked up in PATH) with stdin from /dev/null, its stdout
 * and stderr together into *out (malloc'd, the caller frees; NULL if it could
 * not be started). Returns the exit status, 128 + the signal, or -1. */
int doccheck_run(char *const argv[], char **out);

/* Fill c->sections from the loader's messages (doccheck_keys.c); 0 or -1. */
int doccheck_probe_loader(struct doccheck *c, char *err, size_t errlen);

#endif
