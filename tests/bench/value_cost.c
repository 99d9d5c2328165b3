/*
 * value_cost.c -- what pgcb/value.h's conversion of each type costs per
 * value, apart from any I/O: the noise-free complement of conf/types.ini's
 * "What converting costs" (whose figures are differences of two measured
 * groups, on a machine that changes between them).
 *
 *   build/bench/value_cost [REPS]          ns per value (thread CPU time)
 *   valgrind --tool=callgrind --collect-atstart=no build/bench/value_cost
 *                                          instructions: one dump per measurement
 *                                          (callgrind.out.PID.N, its "Desc: Trigger"
 *                                          names it; Ir / 1000 is per value)
 *
 * For each column of sql/types_schema.sql's pgcb_types (set up on the
 * server the PG* variables name; the program runs the setup itself), the
 * first 1000 rows are fetched in text and in binary (libpq), and then
 * folded REPS times (default 2000) with pgcb_value_fold as every shipped
 * driver folds them; the same for the column cast to text, folded as bytes.
 * Printed per column and format: ns per value, and that minus the text
 * twin's (what converting the type costs beyond folding its text). Under
 * callgrind (detected), each measurement is one toggled collection, and
 * the lines give instructions per value instead (REPS is then 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>
#include <valgrind/callgrind.h>

#include <pgcb/value.h>

#include "server/server.h"

#define NROWS 1000

static const char *const columns[] = {"i2", "i4",  "i8", "f4", "f8", "b",  "num", "ts",
                                      "tstz", "d", "tm", "iv", "u",  "j",  "jb",  "by",
                                      "a_i4", "a_i8", "a_t", "a_f8"};
#define NCOLS (sizeof columns / sizeof columns[0])

static locale_t c_loc;

struct vals {
    int n;
    enum pgcb_value_kind kind;
    const char *type;
    char **p;
    size_t *len;
};

static int fetch(PGconn *pg, const char *col, int cast, int fmt, struct vals *v)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT %s%s FROM pgcb_types WHERE %s IS NOT NULL ORDER BY id LIMIT %d",
             col, cast ? "::text" : "", col, NROWS);
    PGresult *res = PQexecParams(pg, sql, 0, NULL, NULL, NULL, NULL, fmt);
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        fprintf(stderr, "value_cost: %s: %s", sql, PQerrorMessage(pg));
        PQclear(res);
        return -1;
    }
    v->n = PQntuples(res);
    v->kind = pgcb_value_kind_of(PQftype(res, 0), fmt);
    v->type = pgcb_value_type_name(PQftype(res, 0));
    v->p = malloc((size_t)v->n * sizeof *v->p);
    v->len = malloc((size_t)v->n * sizeof *v->len);
    for (int r = 0; r < v->n; r++) {
        v->len[r] = (size_t)PQgetlength(res, r, 0);
        v->p[r] = malloc(v->len[r] + 1);
        memcpy(v->p[r], PQgetvalue(res, r, 0), v->len[r]);
    }
    PQclear(res);
    return 0;
}

static void vals_free(struct vals *v)
{
    for (int r = 0; r < v->n; r++)
        free(v->p[r]);
    free(v->p);
    free(v->len);
}

/* Fold every value reps times: ns (or, under callgrind, nothing: the
 * collection toggled around it is the figure) per value. */
static __attribute__((noinline)) double measure(const struct vals *v, long reps, uint64_t *sink,
                                                const char *label)
{
    struct timespec a, b;
    struct pgcb_sum s = {0, 0};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    CALLGRIND_TOGGLE_COLLECT;
    for (long k = 0; k < reps; k++)
        for (int r = 0; r < v->n; r++)
            if (pgcb_value_fold(&s, v->kind, v->p[r], v->len[r], c_loc))
                abort();
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT(label); /* one dump per measurement: its Ir alone */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    *sink ^= s.hash;
    return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
           ((double)reps * v->n);
}

int main(int argc, char **argv)
{
    long reps = argc > 1 ? atol(argv[1]) : 2000;
    int cg = RUNNING_ON_VALGRIND;
    char err[512];
    struct pgcb_server_info info;
    uint64_t sink = 0;

    if (cg)
        reps = 1;
    if (reps < 1) {
        fprintf(stderr, "usage: value_cost [REPS]\n");
        return 2;
    }
    if (pgcb_server_prepare("", "sql/types_schema.sql", &info, err, sizeof err)) {
        fprintf(stderr, "value_cost: %s\n", err);
        return 1;
    }
    c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    PGconn *pg = PQconnectdb("");
    if (PQstatus(pg) != CONNECTION_OK) {
        fprintf(stderr, "value_cost: %s", PQerrorMessage(pg));
        return 1;
    }
    printf("%s per value, %d values of each column, %ld repetitions\n",
           cg ? "callgrind: one dump per measurement (instructions per value: its Ir / values)"
              : "ns (thread CPU time)",
           NROWS, reps);
    printf("%-6s %-12s %10s %10s %10s %10s\n", "column", "type", "text", "binary", "as text",
           "text-twin");
    for (size_t i = 0; i < NCOLS; i++) {
        struct vals t, b, tw;
        if (fetch(pg, columns[i], 0, 0, &t) || fetch(pg, columns[i], 0, 1, &b) ||
            fetch(pg, columns[i], 1, 0, &tw))
            return 1;
        char lt[64], lb[64], ltw[64];
        snprintf(lt, sizeof lt, "%s text", columns[i]);
        snprintf(lb, sizeof lb, "%s binary", columns[i]);
        snprintf(ltw, sizeof ltw, "%s as text", columns[i]);
        double nt = measure(&t, reps, &sink, lt), nb = measure(&b, reps, &sink, lb),
               ntw = measure(&tw, reps, &sink, ltw);
        if (!cg)
            printf("%-6s %-12s %10.1f %10.1f %10.1f %+10.1f\n", columns[i], t.type ? t.type : "?",
                   nt, nb, ntw, nt - ntw);
        else
            printf("%-6s %-12s (3 dumps: text, binary, as text; %d values each)\n",
                   columns[i], t.type ? t.type : "?", t.n);
        vals_free(&t);
        vals_free(&b);
        vals_free(&tw);
    }
    PQfinish(pg);
    freelocale(c_loc);
    return sink == 42; /* never: keeps the folds */
}
