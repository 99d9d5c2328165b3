/* table.c -- text table renderer; see table.h. */
#include "table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pgcb_table {
    size_t ncols;
    char **headers;                 /* ncols strings */
    enum pgcb_table_align *align;   /* ncols */
    enum pgcb_table_style style;
    char ***rows;                   /* nrows rows of ncols; NULL = separator */
    size_t nrows, cap;
};

/* Line-drawing glyphs of one style: left, middle, right junction per rule. */
struct glyphs {
    const char *h, *v;
    const char *top[3], *mid[3], *bot[3];
};

static const struct glyphs box = {
    "─", "│", {"┌", "┬", "┐"}, {"├", "┼", "┤"}, {"└", "┴", "┘"},
};
static const struct glyphs ascii = {
    "-", "|", {"+", "+", "+"}, {"+", "+", "+"}, {"+", "+", "+"},
};

static void free_strings(char **s, size_t n)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

/* n copies of src[] (NULL entries become ""), or NULL on ENOMEM. */
static char **copy_strings(const char *const *src, size_t n)
{
    char **dst = calloc(n, sizeof *dst);

    if (dst == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        dst[i] = strdup(src[i] != NULL ? src[i] : "");
        if (dst[i] == NULL) {
            free_strings(dst, i);
            return NULL;
        }
    }
    return dst;
}

struct pgcb_table *pgcb_table_new(size_t ncols, const char *const *headers)
{
    struct pgcb_table *t;

    if (ncols == 0 || headers == NULL) {
        errno = EINVAL;
        return NULL;
    }
    t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->ncols = ncols;
    t->headers = copy_strings(headers, ncols);
    t->align = calloc(ncols, sizeof *t->align);   /* all PGCB_TABLE_LEFT */
    if (t->headers == NULL || t->align == NULL) {
        pgcb_table_free(t);
        return NULL;
    }
    return t;
}

int pgcb_table_set_align(struct pgcb_table *t, size_t col, enum pgcb_table_align a)
{
    if (col >= t->ncols || (a != PGCB_TABLE_LEFT && a != PGCB_TABLE_RIGHT))
        return -1;
    t->align[col] = a;
    return 0;
}

int pgcb_table_set_style(struct pgcb_table *t, enum pgcb_table_style s)
{
    if (s != PGCB_TABLE_BOX && s != PGCB_TABLE_ASCII && s != PGCB_TABLE_MARKDOWN)
        return -1;
    t->style = s;
    return 0;
}

/* Appends row (owned from now on; NULL = separator). */
static int push_row(struct pgcb_table *t, char **row)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 8;
        char ***rows = realloc(t->rows, cap * sizeof *rows);
        if (rows == NULL)
            return -1;
        t->rows = rows;
        t->cap = cap;
    }
    t->rows[t->nrows++] = row;
    return 0;
}

int pgcb_table_add_row(struct pgcb_table *t, const char *const *cells)
{
    char **row = copy_strings(cells, t->ncols);

    if (row == NULL)
        return -1;
    if (push_row(t, row) != 0) {
        free_strings(row, t->ncols);
        return -1;
    }
    return 0;
}

int pgcb_table_add_separator(struct pgcb_table *t)
{
    return push_row(t, NULL);
}

void pgcb_table_free(struct pgcb_table *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->nrows; i++)
        free_strings(t->rows[i], t->ncols);
    free(t->rows);
    free_strings(t->headers, t->ncols);
    free(t->align);
    free(t);
}

/* Width of s; with md, each '|' counts twice (it is written as "\|"). */
static size_t width(const char *s, int md)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t w = 0;

    while (*p != '\0') {
        unsigned c = *p, len, cp;

        if (c < 0x80)
            len = 1, cp = c;
        else if ((c & 0xE0) == 0xC0)
            len = 2, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0)
            len = 3, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0)
            len = 4, cp = c & 0x07;
        else
            len = 1, cp = 0xFFFD;
        /* A NUL is not a continuation byte, so this never reads past it. */
        for (unsigned i = 1; i < len; i++) {
            if ((p[i] & 0xC0) != 0x80) {
                len = 1, cp = 0xFFFD;
                break;
            }
            cp = cp << 6 | (p[i] & 0x3Fu);
        }
        w += (cp >= 0x1F300 && cp <= 0x1FAFF) ? 2 : 1;
        if (md && c == '|')
            w++;
        p += len;
    }
    return w;
}

size_t pgcb_table_text_width(const char *s)
{
    return width(s, 0);
}

static void repeat(FILE *f, const char *s, size_t n)
{
    while (n-- > 0)
        fputs(s, f);
}

/* A horizontal rule: j = left, middle, right junctions. */
static void rule(FILE *f, const struct glyphs *g, const char *const j[3],
                 const size_t *w, size_t ncols)
{
    fputs(j[0], f);
    for (size_t c = 0; c < ncols; c++) {
        repeat(f, g->h, w[c] + 2);
        fputs(c + 1 < ncols ? j[1] : j[2], f);
    }
    fputc('\n', f);
}

/* Markdown delimiter row: |-----|----:| */
static void md_rule(FILE *f, const struct pgcb_table *t, const size_t *w)
{
    fputc('|', f);
    for (size_t c = 0; c < t->ncols; c++) {
        if (t->align[c] == PGCB_TABLE_RIGHT) {
            repeat(f, "-", w[c] + 1);
            fputc(':', f);
        } else {
            repeat(f, "-", w[c] + 2);
        }
        fputc('|', f);
    }
    fputc('\n', f);
}

static void line(FILE *f, const struct pgcb_table *t, const char *v,
                 char *const *cells, const size_t *w)
{
    int md = t->style == PGCB_TABLE_MARKDOWN;

    fputs(v, f);
    for (size_t c = 0; c < t->ncols; c++) {
        size_t pad = w[c] - width(cells[c], md);

        fputc(' ', f);
        if (t->align[c] == PGCB_TABLE_RIGHT)
            repeat(f, " ", pad);
        for (const char *s = cells[c]; *s != '\0'; s++) {
            if (md && *s == '|')
                fputc('\\', f);
            fputc(*s, f);
        }
        if (t->align[c] == PGCB_TABLE_LEFT)
            repeat(f, " ", pad);
        fputc(' ', f);
        fputs(v, f);
    }
    fputc('\n', f);
}

/* Writes the table to f. 0 ok, -1 on ENOMEM or if f is in error. */
static int write_table(const struct pgcb_table *t, FILE *f)
{
    int md = t->style == PGCB_TABLE_MARKDOWN;
    const struct glyphs *g = t->style == PGCB_TABLE_BOX ? &box : &ascii;
    size_t *w = malloc(t->ncols * sizeof *w);

    if (w == NULL)
        return -1;
    for (size_t c = 0; c < t->ncols; c++) {
        w[c] = width(t->headers[c], md);
        for (size_t r = 0; r < t->nrows; r++) {
            if (t->rows[r] != NULL) {
                size_t cw = width(t->rows[r][c], md);
                if (cw > w[c])
                    w[c] = cw;
            }
        }
    }
    if (md) {
        line(f, t, "|", t->headers, w);
        md_rule(f, t, w);
    } else {
        rule(f, g, g->top, w, t->ncols);
        line(f, t, g->v, t->headers, w);
        if (t->nrows > 0)
            rule(f, g, g->mid, w, t->ncols);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        if (t->rows[r] != NULL)
            line(f, t, md ? "|" : g->v, t->rows[r], w);
        else if (!md)
            rule(f, g, g->mid, w, t->ncols);
    }
    if (!md)
        rule(f, g, g->bot, w, t->ncols);
    free(w);
    return ferror(f) ? -1 : 0;
}

char *pgcb_table_render(const struct pgcb_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc;

    if (f == NULL)
        return NULL;
    rc = write_table(t, f);
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int pgcb_table_print(const struct pgcb_table *t, FILE *out)
{
    return write_table(t, out);
}
