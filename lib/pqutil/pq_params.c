/* pq_params.c -- see pq_params.h. */
#include "pq_params.h"

#include <stdlib.h>
#include <string.h>

#include "pq_errmsg.h"

void pgcb_pq_params_free(struct pgcb_pq_params *pp)
{
    free(pp->buf);
    free(pp->vals);
    memset(pp, 0, sizeof *pp);
}

int pgcb_pq_params_reserve(struct pgcb_pq_params *pp, const struct pgcb_params *p,
                           uint32_t depth, char *err, size_t errlen)
{
    size_t most = 0; /* bytes of the largest query's copies, NULs included */

    if (!p || p->nparams == 0)
        return PGCB_OK;
    if (p->nparams > PGCB_PQ_MAX_PARAMS) {
        pgcb_pq_errf(err, errlen, "%u parameters per query: libpq sends at most %u",
                     p->nparams, PGCB_PQ_MAX_PARAMS);
        return PGCB_ERR_UNSUPPORTED;
    }
    if (!p->values || !p->lengths) {
        pgcb_pq_errf(err, errlen, "%u parameters per query, but no %s array", p->nparams,
                     p->values ? "lengths" : "values");
        return PGCB_ERR_UNSUPPORTED;
    }
    for (uint32_t i = 0; i < depth; i++) {
        size_t bytes = 0;
        for (uint32_t j = 0; j < p->nparams; j++) {
            size_t k = (size_t)i * p->nparams + j;
            if (!p->values[k])
                continue;
            if (p->lengths[k] < 0) {
                pgcb_pq_errf(err, errlen, "parameter $%u of query %u: negative length %d",
                             j + 1, i + 1, p->lengths[k]);
                return PGCB_ERR_UNSUPPORTED;
            }
            bytes += (size_t)p->lengths[k] + 1;
        }
        if (bytes > most)
            most = bytes;
    }
    if (most > pp->cap) {
        char *b = realloc(pp->buf, most);
        if (!b)
            goto nomem;
        pp->buf = b;
        pp->cap = most;
    }
    if (p->nparams > pp->vcap) {
        const char **v = realloc(pp->vals, p->nparams * sizeof *v);
        if (!v)
            goto nomem;
        pp->vals = v;
        pp->vcap = p->nparams;
    }
    return PGCB_OK;
nomem:
    pgcb_pq_errf(err, errlen, "out of memory (parameters of a batch of %u queries)", depth);
    return PGCB_ERR_NOMEM;
}

const char *const *pgcb_pq_params_query(struct pgcb_pq_params *pp, const struct pgcb_params *p,
                                        uint32_t i, const int **lengths)
{
    char *o = pp->buf;

    if (!p || p->nparams == 0) {
        *lengths = NULL;
        return NULL;
    }
    const char *const *v = p->values + (size_t)i * p->nparams;
    const int *len = p->lengths + (size_t)i * p->nparams;
    for (uint32_t j = 0; j < p->nparams; j++) {
        if (!v[j]) {
            pp->vals[j] = NULL;
            continue;
        }
        memcpy(o, v[j], (size_t)len[j]);
        o[len[j]] = '\0';
        pp->vals[j] = o;
        o += (size_t)len[j] + 1;
    }
    *lengths = len;
    return pp->vals;
}
