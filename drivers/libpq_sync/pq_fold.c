/* pq_fold.c -- see pq_fold.h. */
#include "pq_fold.h"

#include "pq_decode.h"
#include "pq_errmsg.h"

int pgcb_pq_fold_result(const PGresult *res, const char *stmt_name, int ncols,
                        const unsigned char *kinds, int binary, locale_t c_locale,
                        struct pgcb_sum *sum, char *err, size_t errlen)
{
    const int nrows = PQntuples(res);
    int r, i;

    if (PQnfields(res) != ncols) {
        pgcb_pq_errf(err, errlen, "result has %d columns; statement %s was described with %d",
                     PQnfields(res), stmt_name, ncols);
        return PGCB_ERR_PROTOCOL;
    }
    /* Two copies of the loop so the format test is not made per value. */
    if (binary) {
        for (r = 0; r < nrows; r++) {
            for (i = 0; i < ncols; i++) {
                if (PQgetisnull(res, r, i))
                    pgcb_sum_null(sum);
                else if (pgcb_pq_fold_binary(sum, (enum pgcb_pq_kind)kinds[i],
                                             PQgetvalue(res, r, i),
                                             (size_t)PQgetlength(res, r, i)))
                    goto malformed;
            }
            pgcb_sum_row(sum);
        }
    } else {
        for (r = 0; r < nrows; r++) {
            for (i = 0; i < ncols; i++) {
                if (PQgetisnull(res, r, i))
                    pgcb_sum_null(sum);
                else if (pgcb_pq_fold_text(sum, (enum pgcb_pq_kind)kinds[i],
                                           PQgetvalue(res, r, i),
                                           (size_t)PQgetlength(res, r, i), c_locale))
                    goto malformed;
            }
            pgcb_sum_row(sum);
        }
    }
    return PGCB_OK;

malformed: {
        const char *tn = pgcb_pq_type_name(PQftype(res, i));
        pgcb_pq_errf(err, errlen, "row %d column %d \"%s\": malformed %s %s value", r + 1, i + 1,
                     PQfname(res, i), binary ? "binary" : "text", tn ? tn : "?");
        return PGCB_ERR_PROTOCOL;
    }
}
