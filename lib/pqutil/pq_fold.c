/* pq_fold.c -- see pq_fold.h. */
#include "pq_fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/value.h>

#include "pq_errmsg.h"

int pgcb_pq_fold_result(const PGresult *res, const struct pgcb_stmt *st, locale_t c_locale,
                        struct pgcb_sum *sum, char *err, size_t errlen)
{
    const int nrows = PQntuples(res), ncols = st->ncols;
    const unsigned char *kinds = st->kinds;
    int r, i;

    if (PQnfields(res) != ncols) {
        pgcb_pq_errf(err, errlen, "result has %d columns; statement %s was described with %d",
                     PQnfields(res), st->name, ncols);
        return PGCB_ERR_PROTOCOL;
    }
    /* The kind says the format too (pgcb_value_kind_of): one loop for both.
     * A value of length 0 is the only one that can be NULL (PQgetlength
     * gives 0 for a NULL), so PQgetisnull is asked only then. The sum is
     * kept in a local, which the PQ* calls cannot reach, so that it stays in
     * registers across them. */
    struct pgcb_sum s = *sum;
    for (r = 0; r < nrows; r++) {
        for (i = 0; i < ncols; i++) {
            int len = PQgetlength(res, r, i);
            if (len == 0 && PQgetisnull(res, r, i))
                pgcb_sum_null(&s);
            else if (pgcb_value_fold(&s, (enum pgcb_value_kind)kinds[i], PQgetvalue(res, r, i),
                                     (size_t)len, c_locale))
                goto refused;
        }
        pgcb_sum_row(&s);
    }
    *sum = s;
    return PGCB_OK;

refused: {
        /* the result was read whole: the connection stays usable. Which
         * refusal: asked again, of the out-of-line kinds (the only ones
         * that can be PGCB_VALUE_UNSUPPORTED), so that pgcb_value_fold is
         * inlined once, into the loop */
        struct pgcb_sum scratch = {0, 0};
        enum pgcb_value_kind k = (enum pgcb_value_kind)kinds[i];
        int vr = k >= PGCB_VALUE_FIRST_MORE
                     ? pgcb_value_fold_more(&scratch, k, PQgetvalue(res, r, i),
                                            (size_t)PQgetlength(res, r, i), c_locale)
                     : -1;
        const char *tn = pgcb_value_type_name(PQftype(res, i));
        char oid[24];
        snprintf(oid, sizeof oid, "oid %u", PQftype(res, i));
        *sum = s;
        if (vr == PGCB_VALUE_UNSUPPORTED) {
            pgcb_pq_errf(err, errlen, "row %d column %d \"%s\": %s value with more than one "
                         "dimension: only one-dimensional arrays are converted", r + 1, i + 1,
                         PQfname(res, i), tn ? tn : oid);
            return PGCB_ERR_UNSUPPORTED;
        }
        pgcb_pq_errf(err, errlen, "row %d column %d \"%s\": malformed %s %s value", r + 1, i + 1,
                     PQfname(res, i), PQfformat(res, i) ? "binary" : "text", tn ? tn : oid);
        return PGCB_ERR_PROTOCOL;
    }
}

int pgcb_pq_stmt_new(const char *name, const PGresult *desc, int binary, struct pgcb_stmt **out,
                     char *err, size_t errlen)
{
    int ncols = PQnfields(desc);
    size_t namelen = strlen(name);
    struct pgcb_stmt *st;

    for (int i = 0; i < ncols; i++) {
        Oid oid = PQftype(desc, i);
        if (binary && !pgcb_value_binary_foldable(oid)) {
            const char *tn = pgcb_value_type_name(oid);
            pgcb_pq_errf(err, errlen,
                         "column %d \"%s\" has type %s%s%u%s, which result_format = binary "
                         "cannot fold as its text form; use result_format = text",
                         i + 1, PQfname(desc, i), tn ? tn : "oid ", tn ? " (oid " : "", oid,
                         tn ? ")" : "");
            return PGCB_ERR_UNSUPPORTED;
        }
    }

    st = malloc(sizeof *st + namelen + 1 + (size_t)ncols);
    if (!st) {
        pgcb_pq_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    st->next = NULL;
    memcpy(st->name, name, namelen + 1);
    st->ncols = ncols;
    st->kinds = (unsigned char *)st->name + namelen + 1;
    for (int i = 0; i < ncols; i++)
        st->kinds[i] = (unsigned char)pgcb_value_kind_of(PQftype(desc, i), binary);
    *out = st;
    return PGCB_OK;
}

void pgcb_pq_stmts_free(struct pgcb_stmt *list)
{
    while (list) {
        struct pgcb_stmt *next = list->next;
        free(list);
        list = next;
    }
}
