/*
 * br_run.c -- the `run` request: a single batch with a dump (run_batch,
 * run_batch_params) and a self-timed block (run_block). See br_conn.h and
 * docs/bridge-protocol.md, "run".
 *
 * A single batch always asks for a dump: its checksum is folded in C from
 * the values the client delivered, and the statement's expectation (rows,
 * fold, checksum at that depth) and kinds are taken from it. In a block,
 * each batch whose rows and fold match the expectation stands for the
 * dump's checksum; any other stands for a different one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "br_conn.h"

static uint64_t br_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int br_arrays(const struct pgcb_conn *c, const json_t *r, size_t n, uint64_t *samples,
              uint64_t *rows, uint32_t *folds, char *why, size_t whylen)
{
    return br_arrays_decode(c->arr, c->arr_len, r, n, samples, rows, folds, why, whylen);
}

json_t *br_kinds(const struct pgcb_stmt *s)
{
    if (!s->kinds)
        return json_null();
    json_t *a = json_array();
    for (uint32_t j = 0; j < s->ncols; j++)
        json_array_append_new(a, json_string(br_kind_name(s->kinds[j])));
    return a;
}

json_t *br_params(const struct pgcb_params *p, size_t nq, char *why, size_t whylen)
{
    if (!p || !p->nparams)
        return json_null();
    json_t *all = json_array();
    for (size_t q = 0; all && q < nq; q++) {
        json_t *one = json_array();
        for (uint32_t j = 0; one && j < p->nparams; j++) {
            size_t at = q * p->nparams + j;
            json_t *v = p->values[at] ? json_stringn(p->values[at], (size_t)p->lengths[at])
                                      : json_null();
            if (!v) {
                snprintf(why, whylen, "parameter $%u of execution %zu is not valid UTF-8 (the "
                         "bridge protocol carries text parameters as JSON strings)", j + 1, q + 1);
                json_decref(one);
                json_decref(all);
                return NULL;
            }
            json_array_append_new(one, v);
        }
        json_array_append_new(all, one);
    }
    return all;
}

static json_t *br_stmt_ref(const struct pgcb_stmt *s)
{
    return s ? json_integer(s->id) : json_null();
}

/* A run request. NULL with why when the parameters cannot be sent. */
static json_t *br_run_req(const struct pgcb_stmt *s, uint32_t depth, uint32_t batches,
                          const struct pgcb_stmt *begin, const struct pgcb_stmt *commit,
                          const struct pgcb_params *params, int dump, char *why, size_t whylen)
{
    json_t *pj = br_params(params, (size_t)batches * depth, why, whylen);
    if (!pj)
        return NULL;
    return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:b}", "op", "run", "stmt",
                     (json_int_t)s->id, "depth", (json_int_t)depth, "batches",
                     (json_int_t)batches, "begin", br_stmt_ref(begin), "commit",
                     br_stmt_ref(commit), "kinds", br_kinds(s), "params", pj, "dump", dump);
}

int br_run_batch(struct pgcb_conn *c, struct pgcb_stmt *s, uint32_t depth,
                 const struct pgcb_params *params, struct pgcb_sum *sum, char *err,
                 size_t errlen)
{
    char why[PGCB_ERRLEN];
    if (br_proc_pin(&c->proc, why, sizeof why) != 0)
        return br_conn_fail(c, err, errlen, "%s", why);
    json_t *req = br_run_req(s, depth, 1, NULL, NULL, params, 1, why, sizeof why);
    if (!req) {
        snprintf(err, errlen, "%s", why);
        return PGCB_ERR_UNSUPPORTED;
    }
    json_t *r;
    int rc = br_call(c, req, -1, &r, err, errlen);
    if (rc != PGCB_OK) {
        json_decref(r);
        return rc;
    }
    uint64_t rows, sample;
    uint32_t fold;
    struct br_dump d;
    int drc = 0;
    if (br_arrays(c, r, 1, &sample, &rows, &fold, why, sizeof why) ||
        (drc = br_dump_read(json_object_get(r, "results"), depth, c->hello.text_length,
                            c->c_locale, sum, &d, why, sizeof why)) != 0) {
        json_decref(r);
        if (drc == -2) { /* a value the fold does not take: the C drivers refuse it too */
            snprintf(err, errlen, "%s", why);
            return PGCB_ERR_UNSUPPORTED;
        }
        return br_conn_fail(c, err, errlen, "its dump of a batch is malformed: %s", why);
    }
    json_decref(r);
    if (d.total_rows != rows) {
        br_dump_free(&d);
        return br_conn_fail(c, err, errlen, "its dump says %llu rows, its results hold %llu",
                            (unsigned long long)rows, (unsigned long long)d.total_rows);
    }
    /* The expectation of later blocks: a batch on its own (not after a
     * BEGIN that folded something: none does, but be exact). */
    if (sum->hash == 0 && sum->rows == 0) {
        free(s->kinds);
        s->kinds = d.kinds;
        s->ncols = d.ncols;
        d.kinds = NULL;
        s->have_expect = 1;
        s->expect_depth = depth;
        s->expect_rows = d.total_rows;
        s->expect_fold = br_dump_fold(&d, s->kinds);
        s->expect_hash = d.sum.hash;
        snprintf(s->note, sizeof s->note, "%s", d.note);
    }
    *sum = d.sum;
    br_dump_free(&d);
    return PGCB_OK;
}

void br_sum_of(const struct pgcb_stmt *s, uint32_t depth, uint64_t rows, uint32_t fold,
               struct pgcb_sum *out)
{
    int known = s->have_expect && s->expect_depth == depth;
    out->rows = rows;
    if (known && rows == s->expect_rows && fold == s->expect_fold) {
        out->hash = s->expect_hash;
    } else {
        /* Another checksum, never the expected one. */
        uint64_t h = (known ? s->expect_hash : 0) ^ 0x9e3779b97f4a7c15ull ^
                     ((uint64_t)fold << 32 | (rows & 0xffffffffu));
        out->hash = known && h == s->expect_hash ? h ^ 1u : h;
    }
}

int br_run_block(struct pgcb_conn *c, const struct pgcb_block *b, struct pgcb_block_out *out,
                 char *err, size_t errlen)
{
    char why[PGCB_ERRLEN];
    struct pgcb_stmt *s = b->stmt;
    const uint32_t n = b->nbatches;
    out->done = 0;
    out->cpu_ns = out->outside_cpu_ns = 0;
    if (br_proc_pin(&c->proc, why, sizeof why) != 0)
        return br_conn_fail(c, err, errlen, "%s", why);
    json_t *req = br_run_req(s, b->depth, n, b->begin, b->commit, b->params, 0, why, sizeof why);
    if (!req) {
        snprintf(err, errlen, "%s", why);
        return PGCB_ERR_UNSUPPORTED;
    }
    uint64_t cpu0 = br_proc_cpu_ns(&c->proc), t0 = br_now_ns();
    json_t *r;
    int rc = br_call(c, req, -1, &r, err, errlen);
    uint64_t t1 = br_now_ns(), cpu1 = br_proc_cpu_ns(&c->proc);
    if (!r)
        return rc;
    uint64_t done = n;
    if (rc != PGCB_OK) {
        const json_t *dj = json_object_get(r, "done");
        if (!json_is_integer(dj) || json_integer_value(dj) < 0 ||
            json_integer_value(dj) >= (json_int_t)n) {
            json_decref(r);
            return br_conn_fail(c, err, errlen, "its failure in a block of %u batches has no "
                                "\"done\" in 0..%u", n, n - 1);
        }
        done = (uint64_t)json_integer_value(dj);
    }
    const json_t *cj = json_object_get(r, "cpu_ns");
    uint32_t *folds = malloc((done ? done : 1) * sizeof *folds);
    uint64_t *rows = malloc((done ? done : 1) * sizeof *rows);
    int bad = !folds || !rows || br_arrays(c, r, done, out->samples, rows, folds, why, sizeof why);
    if (!bad && (!json_is_integer(cj) || json_integer_value(cj) < 0)) {
        snprintf(why, sizeof why, "no \"cpu_ns\" (a non-negative integer)");
        bad = 1;
    }
    uint64_t cpu_ns = bad ? 0 : (uint64_t)json_integer_value(cj);
    json_decref(r);
    uint64_t total = 0;
    for (uint64_t i = 0; !bad && i < done; i++) {
        if (out->samples[i] == 0) {
            snprintf(why, sizeof why, "sample %llu is 0 ns", (unsigned long long)i + 1);
            bad = 1;
        }
        total += out->samples[i];
    }
    if (!bad && total > t1 - t0) {
        snprintf(why, sizeof why, "its %llu samples add up to %llu ns, more than the %llu ns "
                 "the whole exchange took", (unsigned long long)done, (unsigned long long)total,
                 (unsigned long long)(t1 - t0));
        bad = 1;
    }
    if (bad) {
        free(folds);
        free(rows);
        return br_conn_fail(c, err, errlen, "its reply to a block is malformed: %s", why);
    }
    for (uint64_t i = 0; i < done; i++)
        br_sum_of(s, b->depth, rows[i], folds[i], &out->sums[i]);
    free(folds);
    free(rows);
    out->done = (uint32_t)done;
    out->cpu_ns = cpu_ns;
    uint64_t spent = cpu1 > cpu0 ? cpu1 - cpu0 : 0;
    out->outside_cpu_ns = spent > out->cpu_ns ? spent - out->cpu_ns : 0;
    return rc;
}
