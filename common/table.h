/*
 * table.h -- text table renderer: Unicode box drawing for the terminal,
 * ASCII as a fallback, GitHub Markdown for CI job summaries.
 *
 *   ┌─────────┬────────┐   +---------+--------+   | Task    |     ns |
 *   │ Task    │     ns │   | Task    |     ns |   |---------|-------:|
 *   ├─────────┼────────┤   +---------+--------+   | rawwire | 137410 |
 *   │ rawwire │ 137410 │   | rawwire | 137410 |
 *   └─────────┴────────┘   +---------+--------+
 *
 * Column width is the widest cell (header included) in displayed columns:
 * one per UTF-8 code point, two for emoji U+1F300..U+1FAFF; an invalid byte
 * counts as one. Cells are single-line text, padded with one space each side;
 * a header is aligned like its column. Markdown escapes '|' as "\|" and
 * drops separators (Markdown tables cannot have them). With no rows the
 * BOX/ASCII rule under the header is omitted.
 *
 * The table owns copies of every string it is given. Not thread-safe.
 * The library never prints except to the FILE * given to pgcb_table_print().
 */
#ifndef PGCB_TABLE_H
#define PGCB_TABLE_H

#include <stddef.h>
#include <stdio.h>

enum pgcb_table_align { PGCB_TABLE_LEFT, PGCB_TABLE_RIGHT };
enum pgcb_table_style { PGCB_TABLE_BOX, PGCB_TABLE_ASCII, PGCB_TABLE_MARKDOWN };

struct pgcb_table;

/*
 * A table of ncols (>= 1) columns, headers[0..ncols-1] copied (a NULL entry
 * is ""). All columns left-aligned, style BOX. NULL on ENOMEM, or with errno
 * EINVAL if ncols == 0 or headers == NULL.
 */
struct pgcb_table *pgcb_table_new(size_t ncols, const char *const *headers);
/* 0 ok, -1 if col >= ncols or a is not a valid alignment. */
int pgcb_table_set_align(struct pgcb_table *t, size_t col, enum pgcb_table_align a);
/* 0 ok, -1 if s is not a valid style. */
int pgcb_table_set_style(struct pgcb_table *t, enum pgcb_table_style s);
/* Appends a row of ncols cells (copied; a NULL entry is ""). 0 ok, -1 ENOMEM. */
int pgcb_table_add_row(struct pgcb_table *t, const char *const *cells);
/* Appends a horizontal rule between rows. 0 ok, -1 ENOMEM. */
int pgcb_table_add_separator(struct pgcb_table *t);
/*
 * The whole table as a NUL-terminated UTF-8 string, every line ending in
 * '\n'. malloc'd, the caller frees. NULL on ENOMEM. O(total cell bytes).
 */
char *pgcb_table_render(const struct pgcb_table *t);
/* Writes the rendering to out. 0 ok, -1 on ENOMEM or a write error. */
int pgcb_table_print(const struct pgcb_table *t, FILE *out);
/* Frees t and its strings; accepts NULL. */
void pgcb_table_free(struct pgcb_table *t);

/* Displayed width of s as defined above (without Markdown escaping). */
size_t pgcb_table_text_width(const char *s);

#endif
