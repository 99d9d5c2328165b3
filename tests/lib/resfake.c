/* resfake.c -- see resfake.h. */
#include "resfake.h"

#include "util.h"

void resfake_init(struct pgcb_result *r, const char *const *labels, size_t n, size_t norders)
{
    *r = (struct pgcb_result){0};
    r->ndrivers = n;
    r->drivers = pgcb_xcalloc(n, sizeof *r->drivers);
    for (size_t d = 0; d < n; d++) {
        r->drivers[d].label = pgcb_xstrdup(labels[d]);
        r->drivers[d].name = pgcb_xstrdup(labels[d]);
        r->drivers[d].version = pgcb_xstrdup("1");
        r->drivers[d].links = pgcb_xstrdup("");
        r->drivers[d].path = pgcb_xstrdup("x.so");
    }
    r->norders = norders;
    r->orders = pgcb_xcalloc(norders, sizeof *r->orders);
    for (size_t o = 0; o < norders; o++) {
        r->orders[o] = pgcb_xcalloc(n, sizeof **r->orders);
        for (size_t k = 0; k < n; k++)
            r->orders[o][k] = k;
    }
}
