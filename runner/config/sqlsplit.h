/*
 * sqlsplit.h -- split an SQL script into statements, so that each is sent
 * on its own and an error names its line. Understands '...' (with ''),
 * E'...' (with backslash escapes), "...", $tag$...$tag$, -- and nested
 * block comments; a statement ends at a ';' outside all of them.
 */
#ifndef PGCB_SQLSPLIT_H
#define PGCB_SQLSPLIT_H

#include <stddef.h>

/* Called once per non-empty statement: its text (trimmed, without the ';',
 * NUL-terminated, valid only during the call) and the line it starts on.
 * Return 0 to go on, non-zero to stop (pgcb_sql_split then returns it). */
typedef int (*pgcb_sql_fn)(void *user, const char *stmt, int line);

/* Returns 0, the callback's non-zero value, or -1 if the text ends inside
 * a quote or comment (*bad_line: where it started). */
int pgcb_sql_split(const char *text, pgcb_sql_fn fn, void *user, int *bad_line);

#endif
