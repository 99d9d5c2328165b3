/* orders.c -- see orders.h. */
#include "orders.h"

#include <stdlib.h>

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

void pgcb_orders_free(size_t **orders, size_t count)
{
    for (size_t o = 0; o < count; o++)
        free(orders[o]);
    free(orders);
}
