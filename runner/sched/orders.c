/* orders.c -- see orders.h. */
#include "orders.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Next lexicographic permutation of p[0..n-1] in place; 0 after the last. */
static int next_permutation(size_t *p, size_t n)
{
    if (n < 2)
        return 0;
    size_t i = n - 1;
    while (i > 0 && p[i - 1] >= p[i])
        i--;
    if (i == 0)
        return 0;
    size_t j = n - 1;
    while (p[j] <= p[i - 1])
        j--;
    size_t t = p[i - 1];
    p[i - 1] = p[j];
    p[j] = t;
    for (size_t a = i, b = n - 1; a < b; a++, b--) {
        t = p[a];
        p[a] = p[b];
        p[b] = t;
    }
    return 1;
}

size_t **pgcb_orders_all(size_t n, size_t *count)
{
    size_t total = 1;
    for (size_t k = 2; k <= n; k++)
        total *= k;
    size_t **out = pgcb_xcalloc(total, sizeof *out);
    size_t *p = pgcb_xcalloc(n, sizeof *p);
    for (size_t k = 0; k < n; k++)
        p[k] = k;
    for (size_t o = 0; o < total; o++) {
        out[o] = pgcb_xcalloc(n, sizeof **out);
        for (size_t k = 0; k < n; k++)
            out[o][k] = p[k];
        next_permutation(p, n);
    }
    free(p);
    *count = total;
    return out;
}

/* ---- the balanced sequence ----------------------------------------------- */

/* The Williams first row: 0, 1, n-1, 2, n-2, 3, ... */
static void williams_row(size_t *w, size_t n)
{
    w[0] = 0;
    for (size_t j = 1; j < n; j++)
        w[j] = j % 2 ? (j + 1) / 2 : n - j / 2;
}

/* The head of the sequence: the classes of w and, for odd n, of w reversed
 * (normalised to start with 0). Returns how many (1 or 2); heads[h][n]. */
static size_t head_classes(size_t n, size_t *heads)
{
    size_t *w = heads, *r = heads + n;
    williams_row(w, n);
    if (n % 2 == 0)
        return 1;
    for (size_t j = 0; j < n; j++)
        r[j] = (w[n - 1 - j] + n - w[n - 1]) % n;
    return memcmp(w, r, n * sizeof *w) == 0 ? 1 : 2; /* n == 1: the same class */
}

static int is_head(const size_t *p, const size_t *heads, size_t nheads, size_t n)
{
    for (size_t h = 0; h < nheads; h++)
        if (memcmp(p, heads + h * n, n * sizeof *p) == 0)
            return 1;
    return 0;
}

size_t **pgcb_orders_sequence(size_t n, size_t count)
{
    size_t **out = pgcb_xcalloc(count, sizeof *out);
    size_t *heads = pgcb_xcalloc(2 * n, sizeof *heads);
    size_t nheads = head_classes(n, heads);
    size_t *p = pgcb_xcalloc(n, sizeof *p); /* the class representative, p[0] == 0 */
    size_t next_head = 0;  /* heads still to use before the lexicographic classes */
    int lex_started = 0;   /* p holds the last lexicographic class used */

    for (size_t o = 0; o < count; o += n) {
        /* Choose the next class. */
        if (next_head < nheads) {
            memcpy(p, heads + next_head * n, n * sizeof *p);
            next_head++;
        } else {
            int found = 0;
            while (!found) {
                if (!lex_started) {
                    for (size_t k = 0; k < n; k++)
                        p[k] = k;
                    lex_started = 1;
                } else if (!next_permutation(p + 1, n - 1)) {
                    /* Every class used: start the sequence over. */
                    next_head = 0;
                    lex_started = 0;
                    memcpy(p, heads, n * sizeof *p);
                    next_head = 1;
                    break;
                }
                found = !is_head(p, heads, nheads, n);
            }
        }
        /* Its members: row i = p + i (mod n), which starts with driver i. */
        for (size_t i = 0; i < n && o + i < count; i++) {
            out[o + i] = pgcb_xcalloc(n, sizeof **out);
            for (size_t k = 0; k < n; k++)
                out[o + i][k] = (p[k] + i) % n;
        }
    }
    free(p);
    free(heads);
    return out;
}

size_t **pgcb_orders_williams(size_t n, size_t *count)
{
    *count = n % 2 == 1 && n > 1 ? 2 * n : n;
    return pgcb_orders_sequence(n, *count);
}

size_t **pgcb_orders_repeat(size_t *const *orders, size_t count, size_t n, size_t times)
{
    size_t **out = pgcb_xcalloc(count * times, sizeof *out);
    for (size_t t = 0; t < times; t++)
        for (size_t o = 0; o < count; o++) {
            out[t * count + o] = pgcb_xcalloc(n, sizeof **out);
            memcpy(out[t * count + o], orders[o], n * sizeof **out);
        }
    return out;
}

/* ---- the selector -------------------------------------------------------- */

size_t **pgcb_orders_make(enum pgcb_orders_mode mode, size_t n_requested, size_t ndrivers,
                          size_t *count, char *err, size_t errlen)
{
    *count = 0;
    if (ndrivers == 0) {
        snprintf(err, errlen, "no drivers: no execution order to make");
        return NULL;
    }
    switch (mode) {
    case PGCB_ORDERS_AUTO:
        if (ndrivers <= 4)
            return pgcb_orders_all(ndrivers, count);
        return pgcb_orders_williams(ndrivers, count);
    case PGCB_ORDERS_ALL:
        if (ndrivers > PGCB_ORDERS_ALL_MAX_DRIVERS) {
            snprintf(err, errlen, "orders = all: %zu drivers would make %zu! execution orders "
                     "(at most %d drivers); use orders = balanced or a count",
                     ndrivers, ndrivers, PGCB_ORDERS_ALL_MAX_DRIVERS);
            return NULL;
        }
        return pgcb_orders_all(ndrivers, count);
    case PGCB_ORDERS_BALANCED:
        return pgcb_orders_williams(ndrivers, count);
    case PGCB_ORDERS_COUNT:
        if (n_requested < 1 || n_requested > PGCB_ORDERS_MAX) {
            snprintf(err, errlen, "orders = %zu: the count must be 1..%d", n_requested,
                     PGCB_ORDERS_MAX);
            return NULL;
        }
        *count = n_requested;
        return pgcb_orders_sequence(ndrivers, n_requested);
    }
    snprintf(err, errlen, "unknown orders mode %d", (int)mode);
    return NULL;
}

int pgcb_orders_parse(const char *s, enum pgcb_orders_mode *mode, size_t *n, char *err,
                      size_t errlen)
{
    *n = 0;
    if (strcmp(s, "auto") == 0) {
        *mode = PGCB_ORDERS_AUTO;
        return 0;
    }
    if (strcmp(s, "all") == 0) {
        *mode = PGCB_ORDERS_ALL;
        return 0;
    }
    if (strcmp(s, "balanced") == 0) {
        *mode = PGCB_ORDERS_BALANCED;
        return 0;
    }
    if (s[0] >= '0' && s[0] <= '9') {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (*end == '\0' && errno == 0 && v >= 1 && v <= PGCB_ORDERS_MAX) {
            *mode = PGCB_ORDERS_COUNT;
            *n = (size_t)v;
            return 0;
        }
    }
    snprintf(err, errlen, "'%s' is not an orders value (expected auto, all, balanced or a "
             "count 1..%d)", s, PGCB_ORDERS_MAX);
    return -1;
}

const char *pgcb_orders_mode_str(enum pgcb_orders_mode mode)
{
    switch (mode) {
    case PGCB_ORDERS_AUTO: return "auto";
    case PGCB_ORDERS_ALL: return "all";
    case PGCB_ORDERS_BALANCED: return "balanced";
    case PGCB_ORDERS_COUNT: return "count";
    }
    return "unknown";
}

void pgcb_orders_free(size_t **orders, size_t count)
{
    if (!orders)
        return;
    for (size_t o = 0; o < count; o++)
        free(orders[o]);
    free(orders);
}
