/*
 * mdoc.c -- the structure of a Markdown page for the docs test; see mdoc.h.
 *
 * Two passes over the lines: the first finds the fenced blocks (and blanks
 * them out of a copy of the text, the "prose"), the second reads headings,
 * tables and reference links from the lines outside the fences. Code spans
 * are then blanked out of the prose, newlines kept, so that the inline links
 * left in it are real links and keep their line numbers.
 */
#include "mdoc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct line {
    const char *s;  /* into the page's text */
    size_t len;     /* without the '\n' */
};

static size_t split_lines(const char *text, struct line **out)
{
    size_t n = 0, cap = 64;
    struct line *v = pgcb_xmalloc(cap * sizeof *v);
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n == cap)
            v = pgcb_xrealloc(v, (cap *= 2) * sizeof *v);
        v[n++] = (struct line){p, len > 0 && p[len - 1] == '\r' ? len - 1 : len};
        p += e ? len + 1 : len;
    }
    *out = v;
    return n;
}

static size_t indent_of(const struct line *l)
{
    size_t i = 0;
    while (i < l->len && l->s[i] == ' ')
        i++;
    return i;
}

/* A fence line: 3 or more ` or ~ after the indent. Sets *ch and *n. */
static int fence(const struct line *l, char *ch, size_t *n)
{
    size_t i = indent_of(l), k = i;
    if (i >= l->len || (l->s[i] != '`' && l->s[i] != '~'))
        return 0;
    while (k < l->len && l->s[k] == l->s[i])
        k++;
    if (k - i < 3)
        return 0;
    *ch = l->s[i];
    *n = k - i;
    return 1;
}

/* The marker comments on the lines right above line i (0-based). */
static size_t marks_above(const struct line *v, size_t i, char **marks)
{
    size_t first = i;
    while (first > 0) {
        const struct line *l = &v[first - 1];
        size_t a = indent_of(l), b = l->len;
        while (b > a && isspace((unsigned char)l->s[b - 1]))
            b--;
        if (b - a < 7 || strncmp(l->s + a, "<!--", 4) != 0 || strncmp(l->s + b - 3, "-->", 3) != 0)
            break;
        first--;
    }
    if (i - first > MDOC_MAX_MARKS)
        first = i - MDOC_MAX_MARKS;
    size_t n = 0;
    for (size_t k = first; k < i; k++) {
        const struct line *l = &v[k];
        const char *a = strstr(l->s, "<!--") + 4;
        const char *b = l->s + l->len;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        b -= 3; /* "-->" */
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        marks[n++] = pgcb_xstrndup(a, (size_t)(b - a));
    }
    return n;
}

void mdoc_slug(const char *h, char *out, size_t n)
{
    size_t o = 0;
    if (n == 0)
        return;
    for (const unsigned char *p = (const unsigned char *)h; *p && o + 1 < n;) {
        if (*p < 0x80) {
            if (isalnum(*p) || *p == '-' || *p == '_')
                out[o++] = (char)tolower(*p);
            else if (*p == ' ')
                out[o++] = '-';
            p++;
            continue;
        }
        /* A UTF-8 sequence: its length from the lead byte. */
        size_t len = (*p & 0xE0) == 0xC0   ? 2
                     : (*p & 0xF0) == 0xE0 ? 3
                     : (*p & 0xF8) == 0xF0 ? 4
                                           : 1;
        unsigned cp = len == 2 ? ((unsigned)(p[0] & 0x1F) << 6) | (p[1] & 0x3F) : 0;
        int letter = len == 2 && cp >= 0xC0 && cp <= 0x24F && cp != 0xD7 && cp != 0xF7;
        for (size_t k = 0; k < len && p[k]; k++) {
            if (letter && o + 1 < n)
                out[o++] = (char)p[k];
        }
        for (size_t k = 0; k < len && *p; k++)
            p++;
    }
    out[o] = '\0';
}

/* An ATX heading: its text (into buf), or NULL. */
static const char *heading(const struct line *l, char *buf, size_t n)
{
    size_t i = indent_of(l), k = i;
    if (i > 3)
        return NULL;
    while (k < l->len && l->s[k] == '#')
        k++;
    if (k == i || k - i > 6 || (k < l->len && l->s[k] != ' '))
        return NULL;
    while (k < l->len && l->s[k] == ' ')
        k++;
    size_t e = l->len;
    while (e > k && (l->s[e - 1] == ' ' || l->s[e - 1] == '#'))
        e--;
    snprintf(buf, n, "%.*s", (int)(e - k), l->s + k);
    return buf;
}

/* Add a heading's anchor: its slug, or for the k-th repeat of a slug, slug-k
 * (as GitHub numbers them). `bases` holds the slugs seen so far. */
static void add_anchor(struct mdoc *d, char ***bases, const char *text)
{
    char slug[512], uniq[540];
    mdoc_slug(text, slug, sizeof slug);
    size_t seen = 0;
    for (size_t i = 0; i < d->nanchors; i++)
        if (strcmp((*bases)[i], slug) == 0)
            seen++;
    if (seen)
        snprintf(uniq, sizeof uniq, "%s-%zu", slug, seen);
    *bases = pgcb_xrealloc(*bases, (d->nanchors + 1) * sizeof **bases);
    (*bases)[d->nanchors] = pgcb_xstrdup(slug);
    d->anchors = pgcb_xrealloc(d->anchors, (d->nanchors + 1) * sizeof *d->anchors);
    d->anchors[d->nanchors++] = pgcb_xstrdup(seen ? uniq : slug);
}

static void add_link(struct mdoc *d, const char *s, size_t n, int line)
{
    d->links = pgcb_xrealloc(d->links, (d->nlinks + 1) * sizeof *d->links);
    d->links[d->nlinks++] = (struct mdoc_link){pgcb_xstrndup(s, n), line};
}

/* A row's cells: split on unescaped '|', `\|` made '|', trimmed. */
static size_t split_row(const struct line *l, char ***out)
{
    char **cells = NULL;
    size_t n = 0;
    size_t i = indent_of(l), e = l->len;
    while (e > i && isspace((unsigned char)l->s[e - 1]))
        e--;
    if (i < e && l->s[i] == '|')
        i++;
    if (e > i && l->s[e - 1] == '|' && !(e >= 2 && l->s[e - 2] == '\\'))
        e--;
    char *cell = pgcb_xmalloc(e - i + 1);
    size_t c = 0;
    for (size_t k = i;; k++) {
        if (k == e || (l->s[k] == '|' && !(k > i && l->s[k - 1] == '\\'))) {
            size_t a = 0, b = c;
            while (a < b && isspace((unsigned char)cell[a]))
                a++;
            while (b > a && isspace((unsigned char)cell[b - 1]))
                b--;
            cells = pgcb_xrealloc(cells, (n + 1) * sizeof *cells);
            cells[n++] = pgcb_xstrndup(cell + a, b - a);
            c = 0;
            if (k == e)
                break;
            continue;
        }
        if (l->s[k] == '\\' && k + 1 < e && l->s[k + 1] == '|')
            continue; /* the '|' follows */
        cell[c++] = l->s[k];
    }
    free(cell);
    *out = cells;
    return n;
}

static int separator_row(char **cells, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = cells[i];
        if (*s == ':')
            s++;
        if (*s != '-')
            return 0;
        while (*s == '-')
            s++;
        if (*s == ':')
            s++;
        if (*s)
            return 0;
    }
    return n > 0;
}

static void free_row(char **cells, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(cells[i]);
    free(cells);
}

/* Blank out code spans of the prose (newlines kept). */
static void blank_code_spans(char *p)
{
    while (*p) {
        if (*p != '`') {
            p++;
            continue;
        }
        size_t n = 0;
        while (p[n] == '`')
            n++;
        /* The closing run: exactly n backticks, before a blank line. */
        char *q = p + n, *close = NULL;
        while (*q) {
            if (q[0] == '\n') {
                const char *r = q + 1;
                while (*r == ' ' || *r == '\t' || *r == '\r')
                    r++;
                if (*r == '\n' || *r == '\0')
                    break; /* end of the paragraph */
            }
            if (*q == '`') {
                size_t m = 0;
                while (q[m] == '`')
                    m++;
                if (m == n) {
                    close = q;
                    break;
                }
                q += m;
                continue;
            }
            q++;
        }
        if (!close) {
            p += n; /* literal backticks */
            continue;
        }
        for (char *r = p; r < close + n; r++)
            if (*r != '\n')
                *r = ' ';
        p = close + n;
    }
}

int mdoc_parse(const char *path, const char *text, struct mdoc *d)
{
    memset(d, 0, sizeof *d);
    d->path = pgcb_xstrdup(path);
    d->text = pgcb_xstrdup(text);
    struct line *v;
    size_t nl = split_lines(d->text, &v);
    char *prose = pgcb_xstrdup(d->text);
    char *in_fence = pgcb_xcalloc(nl + 1, 1);

    /* Pass 1: fenced blocks. */
    for (size_t i = 0; i < nl; i++) {
        char ch;
        size_t flen;
        if (!fence(&v[i], &ch, &flen))
            continue;
        size_t ind = indent_of(&v[i]);
        const char *info = v[i].s + ind + flen;
        size_t ilen = 0;
        while (info + ilen < v[i].s + v[i].len && !isspace((unsigned char)info[ilen]) &&
               info[ilen] != '{')
            ilen++;
        struct mdoc_block b = {.line = (int)i + 1};
        b.info = pgcb_xstrndup(info, ilen);
        for (char *c = b.info; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        b.nmarks = marks_above(v, i, b.marks);
        size_t cap = 256, len = 0, k = i + 1;
        b.text = pgcb_xmalloc(cap);
        in_fence[i] = 1;
        for (; k < nl; k++) {
            char ch2;
            size_t f2;
            in_fence[k] = 1;
            if (fence(&v[k], &ch2, &f2) && ch2 == ch && f2 >= flen &&
                v[k].len == indent_of(&v[k]) + f2)
                break;
            size_t strip = indent_of(&v[k]) < ind ? indent_of(&v[k]) : ind;
            size_t add = v[k].len - strip + 1;
            while (len + add + 1 > cap)
                b.text = pgcb_xrealloc(b.text, cap *= 2);
            memcpy(b.text + len, v[k].s + strip, add - 1);
            len += add - 1;
            b.text[len++] = '\n';
        }
        b.text[len] = '\0';
        d->blocks = pgcb_xrealloc(d->blocks, (d->nblocks + 1) * sizeof *d->blocks);
        d->blocks[d->nblocks++] = b;
        i = k; /* the closing fence (or the end) */
    }
    for (size_t i = 0; i < nl; i++)
        if (in_fence[i])
            for (size_t k = 0; k < v[i].len; k++)
                prose[(size_t)(v[i].s - d->text) + k] = ' ';

    /* Pass 2: headings, tables and reference links outside the fences. */
    char hbuf[1024];
    char **bases = NULL;
    for (size_t i = 0; i < nl; i++) {
        if (in_fence[i])
            continue;
        const char *h = heading(&v[i], hbuf, sizeof hbuf);
        if (h) {
            add_anchor(d, &bases, h);
            continue;
        }
        size_t ind = indent_of(&v[i]);
        const char *s = v[i].s + ind;
        size_t rest = v[i].len - ind;
        if (rest && s[0] == '[') { /* [label]: target */
            const char *close = memchr(s, ']', rest);
            if (close && (size_t)(close - s) + 1 < rest && close[1] == ':') {
                const char *t = close + 2, *end = v[i].s + v[i].len;
                while (t < end && *t == ' ')
                    t++;
                size_t tl = 0;
                while (t + tl < end && !isspace((unsigned char)t[tl]))
                    tl++;
                if (tl)
                    add_link(d, t, tl, (int)i + 1);
            }
        }
        if (rest == 0 || s[0] != '|')
            continue;
        /* A table: this line and the following ones starting with '|'. */
        struct mdoc_table t = {0};
        t.nmarks = marks_above(v, i, t.marks);
        size_t k = i;
        for (; k < nl && !in_fence[k] && v[k].len > indent_of(&v[k]) &&
               v[k].s[indent_of(&v[k])] == '|';
             k++) {
            char **cells;
            size_t n = split_row(&v[k], &cells);
            if (separator_row(cells, n)) {
                free_row(cells, n);
                continue;
            }
            t.cells = pgcb_xrealloc(t.cells, (t.nrows + 1) * sizeof *t.cells);
            t.ncells = pgcb_xrealloc(t.ncells, (t.nrows + 1) * sizeof *t.ncells);
            t.lines = pgcb_xrealloc(t.lines, (t.nrows + 1) * sizeof *t.lines);
            t.cells[t.nrows] = cells;
            t.ncells[t.nrows] = n;
            t.lines[t.nrows++] = (int)k + 1;
        }
        d->tables = pgcb_xrealloc(d->tables, (d->ntables + 1) * sizeof *d->tables);
        d->tables[d->ntables++] = t;
        i = k - 1;
    }

    for (size_t i = 0; i < d->nanchors; i++)
        free(bases[i]);
    free(bases);

    /* Inline links in the prose, code spans blanked. */
    blank_code_spans(prose);
    int line = 1;
    for (const char *p = prose; *p; p++) {
        if (*p == '\n') {
            line++;
            continue;
        }
        if (p[0] != ']' || p[1] != '(')
            continue;
        const char *t = p + 2;
        size_t tl = 0;
        while (t[tl] && t[tl] != ')' && !isspace((unsigned char)t[tl]))
            tl++;
        if (t[tl] == ')' || isspace((unsigned char)t[tl]))
            add_link(d, t, tl, line);
    }
    free(prose);
    free(in_fence);
    free(v);
    return 0;
}

int mdoc_read(const char *path, struct mdoc *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 8192, len = 0, got;
    char *buf = pgcb_xmalloc(cap);
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap)
            buf = pgcb_xrealloc(buf, cap *= 2);
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        errno = EIO;
        return -1;
    }
    buf[len] = '\0';
    int rc = mdoc_parse(path, buf, out);
    free(buf);
    return rc;
}

static void free_marks(char **marks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(marks[i]);
}

void mdoc_free(struct mdoc *d)
{
    for (size_t i = 0; i < d->nblocks; i++) {
        free(d->blocks[i].info);
        free(d->blocks[i].text);
        free_marks(d->blocks[i].marks, d->blocks[i].nmarks);
    }
    free(d->blocks);
    for (size_t i = 0; i < d->ntables; i++) {
        for (size_t r = 0; r < d->tables[i].nrows; r++)
            free_row(d->tables[i].cells[r], d->tables[i].ncells[r]);
        free(d->tables[i].cells);
        free(d->tables[i].ncells);
        free(d->tables[i].lines);
        free_marks(d->tables[i].marks, d->tables[i].nmarks);
    }
    free(d->tables);
    for (size_t i = 0; i < d->nlinks; i++)
        free(d->links[i].target);
    free(d->links);
    for (size_t i = 0; i < d->nanchors; i++)
        free(d->anchors[i]);
    free(d->anchors);
    free(d->path);
    free(d->text);
    memset(d, 0, sizeof *d);
}

int mdoc_has_anchor(const struct mdoc *d, const char *anchor)
{
    for (size_t i = 0; i < d->nanchors; i++)
        if (strcmp(d->anchors[i], anchor) == 0)
            return 1;
    return 0;
}

int mdoc_marked(char *const *marks, size_t nmarks, const char *mark)
{
    for (size_t i = 0; i < nmarks; i++)
        if (strcmp(marks[i], mark) == 0)
            return 1;
    return 0;
}

size_t mdoc_code_spans(const char *cell, char *buf, size_t buflen, const char **out, size_t max)
{
    size_t n = 0, used = 0;
    const char *p = cell;
    while (n < max && (p = strchr(p, '`')) != NULL) {
        const char *e = strchr(p + 1, '`');
        if (!e)
            break;
        size_t len = (size_t)(e - p - 1);
        if (used + len + 1 > buflen)
            break;
        memcpy(buf + used, p + 1, len);
        buf[used + len] = '\0';
        out[n++] = buf + used;
        used += len + 1;
        p = e + 1;
    }
    return n;
}
