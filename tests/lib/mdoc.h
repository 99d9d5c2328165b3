/*
 * mdoc.h -- the structure of one Markdown page, as the docs test needs it
 * (tests/unit/test_docs.c, tests/lib/doccheck.c): its fenced code blocks,
 * its pipe tables, its inline links and the anchors of its headings.
 *
 * It reads the subset of CommonMark / GitHub Flavored Markdown the project's
 * pages use: ``` and ~~~ fences (any indentation), code spans (a run of n
 * backticks closed by the next run of exactly n in the same paragraph: no
 * link inside one counts), inline links `[text](target)`, ATX headings, pipe
 * tables whose cells are split on unescaped `|`. Markers are HTML comments
 * on the lines right above a block or a table (`<!-- fragment -->`,
 * `<!-- keys: ... -->`), one per line, no blank line between.
 *
 * Ownership: mdoc_parse() and mdoc_read() fill a struct mdoc that owns every
 * string and array it points to; mdoc_free() releases them. Nothing here
 * prints.
 */
#ifndef PGCB_TESTS_MDOC_H
#define PGCB_TESTS_MDOC_H

#include <stddef.h>

#define MDOC_MAX_MARKS 4

/* A fenced code block. */
struct mdoc_block {
    char *info;                 /* the info string's first word ("ini", "sh", ""), lowercase */
    char *text;                 /* the lines between the fences, the fence's indent removed */
    int line;                   /* line of the opening fence (1-based) */
    char *marks[MDOC_MAX_MARKS];/* the comments above it, without "<!--" "-->", trimmed */
    size_t nmarks;
};

/* A pipe table: its rows (the header row included, the |---| row not). */
struct mdoc_table {
    char ***cells;              /* cells[r][c], trimmed */
    size_t *ncells;             /* per row */
    int *lines;                 /* per row */
    size_t nrows;
    char *marks[MDOC_MAX_MARKS];
    size_t nmarks;
};

struct mdoc_link {
    char *target;               /* as written: "docs/x.md#anchor", "#a", "https://..." */
    int line;
};

struct mdoc {
    char *path;                 /* as given to mdoc_read */
    char *text;                 /* the whole page */
    struct mdoc_block *blocks;
    size_t nblocks;
    struct mdoc_table *tables;
    size_t ntables;
    struct mdoc_link *links;
    size_t nlinks;
    char **anchors;             /* GitHub's anchors of the headings, in order */
    size_t nanchors;
};

/* Parse `text` (a page read from `path`, which is only recorded). Returns 0
 * (running out of memory aborts, as pgcb_xmalloc does). */
int mdoc_parse(const char *path, const char *text, struct mdoc *out);

/* Read and parse the file at `path`. Returns 0, or -1 (errno set) when it
 * cannot be read. */
int mdoc_read(const char *path, struct mdoc *out);

void mdoc_free(struct mdoc *d);

/* 1 if the page has a heading whose anchor is `anchor` (without '#'). */
int mdoc_has_anchor(const struct mdoc *d, const char *anchor);

/* GitHub's anchor of a heading's text: lowercased; ASCII letters, digits,
 * '-' and '_' kept, spaces made '-', other ASCII dropped; UTF-8 letters of
 * U+00C0..U+024F kept as they are, other non-ASCII characters (dashes,
 * symbols) dropped. Writes at most n bytes, NUL included. */
void mdoc_slug(const char *heading, char *out, size_t n);

/* 1 if the block or table has the marker `mark` (e.g. "fragment"). */
int mdoc_marked(char *const *marks, size_t nmarks, const char *mark);

/* The code spans of a table cell, one after another, as a list of words:
 * "`a` .. `b`" gives "a", "b" in out[0], out[1] (pointers into buf, which
 * receives copies). Returns how many (at most max). */
size_t mdoc_code_spans(const char *cell, char *buf, size_t buflen, const char **out,
                       size_t max);

#endif
