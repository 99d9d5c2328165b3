/* resfake.c -- see resfake.h. */
#include "resfake.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

json_t *resfake_roundtrip(const struct pgcb_result *r, struct pgcb_result *back, char *err,
                          size_t errlen)
{
    char dir[] = "/tmp/pgcb_resfake_XXXXXX", path[64];
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "mkdtemp failed");
        return NULL;
    }
    snprintf(path, sizeof path, "%s/r.json", dir);
    json_t *j = NULL;
    json_error_t je;
    if (pgcb_result_write(r, path, err, errlen) == 0 &&
        pgcb_result_read(path, back, err, errlen) == 0 &&
        !(j = json_load_file(path, 0, &je))) {
        snprintf(err, errlen, "%s: %s", path, je.text);
        pgcb_result_free(back);
    }
    unlink(path);
    rmdir(dir);
    return j;
}
