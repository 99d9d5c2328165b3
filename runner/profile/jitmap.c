/*
 * jitmap.c -- see jitmap.h.
 */
#include "jitmap.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

struct line {
    uint64_t start, end;
    size_t idx;                   /* its place in the file */
    const char *text;             /* into the input */
    size_t len;                   /* with its '\n' if any */
    int ok, dead;
};

static int by_start(const void *a, const void *b)
{
    const struct line *x = *(const struct line *const *)a, *y = *(const struct line *const *)b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->idx > y->idx) - (x->idx < y->idx);
}

char *pgcb_jitmap_filter(const char *in, size_t len, size_t *dropped)
{
    size_t n = 0, cap = 1024;
    struct line *ls = pgcb_xcalloc(cap, sizeof *ls);
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(in + at, '\n', len - at);
        size_t l = nl ? (size_t)(nl - (in + at)) + 1 : len - at;
        if (n == cap) {
            cap *= 2;
            ls = realloc(ls, cap * sizeof *ls);
            if (!ls) {
                fprintf(stderr, "runner: out of memory\n");
                exit(70);
            }
        }
        struct line *e = &ls[n];
        *e = (struct line){.idx = n, .text = in + at, .len = l};
        uint64_t start, size;
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)(l < 63 ? l : 63), in + at);
        if (sscanf(buf, "%" SCNx64 " %" SCNx64, &start, &size) == 2 && size > 0) {
            e->ok = 1;
            e->start = start;
            e->end = start + size;
        }
        n++;
        at += l;
    }
    struct line **sorted = pgcb_xcalloc(n ? n : 1, sizeof *sorted);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (ls[i].ok)
            sorted[m++] = &ls[i];
    qsort(sorted, m, sizeof *sorted, by_start);
    /* Every overlapping pair (sorted by start: k after i overlaps i while
     * it starts before i ends): the earlier line of the file is dead. */
    for (size_t i = 0; i < m; i++)
        for (size_t k = i + 1; k < m && sorted[k]->start < sorted[i]->end; k++) {
            if (sorted[k]->idx > sorted[i]->idx)
                sorted[i]->dead = 1;
            else
                sorted[k]->dead = 1;
        }
    char *out = pgcb_xcalloc(len + 1, 1);
    size_t o = 0;
    *dropped = 0;
    for (size_t i = 0; i < n; i++) {
        if (ls[i].dead) {
            (*dropped)++;
            continue;
        }
        memcpy(out + o, ls[i].text, ls[i].len);
        o += ls[i].len;
    }
    out[o] = '\0';
    free(sorted);
    free(ls);
    return out;
}

/* Process pid's JIT map and where swap keeps the original while it folds. */
static void jitmap_paths(int pid, char map[64], char orig[80])
{
    snprintf(map, 64, "/tmp/perf-%d.map", pid);
    snprintf(orig, 80, "%s.pgcb-orig", map);
}

int pgcb_jitmap_swap(int pid)
{
    char map[64], orig[80];
    jitmap_paths(pid, map, orig);
    FILE *f = fopen(map, "r");
    if (!f)
        return 0;
    size_t cap = 1 << 16, len = 0;
    char *text = pgcb_xcalloc(cap, 1);
    size_t got;
    while ((got = fread(text + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            text = pgcb_xrealloc(text, cap);
        }
    }
    fclose(f);
    size_t dropped;
    char *kept = pgcb_jitmap_filter(text, len, &dropped);
    free(text);
    int rc = -1;
    if (rename(map, orig) == 0) {
        FILE *w = fopen(map, "w");
        if (w && fputs(kept, w) >= 0 && fclose(w) == 0)
            rc = 1;
        else {
            if (w)
                fclose(w);
            rename(orig, map);
        }
    }
    free(kept);
    return rc;
}

void pgcb_jitmap_restore(int pid)
{
    char map[64], orig[80];
    jitmap_paths(pid, map, orig);
    rename(orig, map);
}
