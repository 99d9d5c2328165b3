/*
 * cells.c -- see cells.h. The figures of one driver's cell in a group, and
 * the row and checksum checks within and across its drivers.
 */
#include "cells.h"
#include "wiretap/wt_count.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pct.h"
#include "stats.h"
#include "sys/steal.h"
#include "util.h"

void pgcb_cells_fail(struct pgcb_res_cell *c, const char *fmt, ...)
{
    char buf[PGCB_ERRLEN + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->status = PGCB_CELL_FAILED;
    free(c->error);
    c->error = pgcb_xstrdup(buf);
}

void pgcb_cells_collect(const struct pgcb_host_shared *sh, uint32_t nthreads,
                        struct pgcb_gstate *gs, struct pgcb_res_cell *cell)
{
    for (uint32_t t = 0; t < nthreads; t++) {
        const struct pgcb_host_thread *ht = &sh->threads[t];
        gs->batches += ht->batches;
        gs->cpu_ns += ht->cpu_ns;
        gs->rows_bad += ht->rows_bad;
        gs->sum_bad += ht->sum_bad;
        gs->blocks += ht->blocks;
        gs->overhead_ns += ht->overhead_ns;
        gs->overhead_cpu_ns += ht->overhead_cpu_ns;
        gs->nivcsw += ht->nivcsw;
        gs->nvcsw += ht->nvcsw;
        gs->minflt += ht->minflt;
        gs->load_wall_ns += ht->load_wall_ns;
        gs->late_ns = ht->late_ns > gs->late_ns ? ht->late_ns : gs->late_ns;
        if (ht->nfirst) {
            if (gs->nfirsts + ht->nfirst > gs->capfirsts) {
                gs->capfirsts = 2 * (gs->nfirsts + ht->nfirst);
                gs->firsts = pgcb_xrealloc(gs->firsts, gs->capfirsts * sizeof *gs->firsts);
            }
            memcpy(gs->firsts + gs->nfirsts, ht->first_ns, ht->nfirst * sizeof *gs->firsts);
            gs->nfirsts += ht->nfirst;
            gs->stream_rows = ht->stream_rows;
        }
        if (ht->idiom[0])
            memcpy(gs->idiom, ht->idiom, sizeof gs->idiom);
        if (ht->rc != PGCB_OK && !gs->failed) {
            gs->failed = 1;
            pgcb_cells_fail(cell, "%s", ht->err);
        }
    }
}

/* The noise figures of a cell (issue 13): context switches and steal. */
static void cell_noise(struct pgcb_res_cell *c, const struct pgcb_gstate *gs)
{
    const double tick = pgcb_steal_tick_ns();
    c->noise_known = gs->noise_orders > 0;
    c->involuntary_switches = gs->nivcsw;
    c->voluntary_switches = gs->nvcsw;
    c->timed_minor_faults = gs->minflt;
    c->steal_window_ns = c->steal_cpus_ns = c->steal_cpus_pct = NAN;
    c->steal_machine_ns = c->steal_machine_pct = NAN;
    if (!c->noise_known)
        return;
    c->steal_window_ns = (double)gs->steal_wall_ns;
    if (gs->steal_failed || !gs->steal_cpu_ns_x || !gs->steal_machine_x)
        return;
    c->steal_cpus_ns = (double)gs->steal_cpus * tick;
    c->steal_machine_ns = (double)gs->steal_machine * tick;
    c->steal_cpus_pct = 100.0 * c->steal_cpus_ns / (double)gs->steal_cpu_ns_x;
    c->steal_machine_pct = 100.0 * c->steal_machine_ns / (double)gs->steal_machine_x;
}

void pgcb_cells_figures(struct pgcb_res_cell *c, const struct pgcb_gstate *gs, uint32_t depth,
                        uint32_t threads, const char *set_why)
{
    pgcb_result_cell_spread(c);
    cell_noise(c, gs);
    const struct pgcb_hist *h = &gs->pooled;
    pgcb_backend_figures(&gs->bk, h->n * depth, set_why, &c->backend);
    c->samples = h->n;
    c->queries = h->n * depth;
    c->checksum = gs->expect_sum;
    c->blocks = gs->blocks;
    c->overhead_ns_per_block = c->overhead_cpu_ns_per_block = NAN;
    if (gs->blocks) {
        c->overhead_ns_per_block = (double)gs->overhead_ns / (double)gs->blocks;
        c->overhead_cpu_ns_per_block = (double)gs->overhead_cpu_ns / (double)gs->blocks;
    }
    pgcb_pct_fill(h, c->pct_ns); /* NAN without samples */
    if (h->n == 0) {
        c->mean_ns = c->sd_ns = c->rme_pct = c->median_ns = c->p99_ns = NAN;
        c->ops_per_s = c->queries_per_s = c->cpu_ns_per_query = NAN;
        c->server_cpu_ns_per_query = c->server_busy = NAN;
        return;
    }
    c->mean_ns = h->mean;
    c->sd_ns = pgcb_hist_stddev(h);
    c->rme_pct = pgcb_stats_rme_pct(c->mean_ns, c->sd_ns, h->n);
    c->median_ns = pgcb_hist_median(h);
    c->p99_ns = (double)pgcb_hist_quantile(h, 0.99);
    c->ncurve = pgcb_pct_curve(h, &c->curve);
    c->min_ns = h->min;
    c->max_ns = h->max;
    c->wall_ns = (uint64_t)(h->mean * (double)h->n + 0.5);
    /* Per thread, batches follow one another: 1e9 / mean per thread; the
     * threads run side by side for the same time. */
    c->ops_per_s = c->mean_ns > 0 ? 1e9 / c->mean_ns : NAN;
    c->queries_per_s = c->ops_per_s * depth * threads;
    c->cpu_ns_per_query = (double)gs->cpu_ns / (double)c->queries;
    c->server_cpu_ns_per_query = c->server_busy = NAN;
    if (gs->srv_known && gs->srv_wall_ns) {
        c->server_cpu_ns_per_query = (double)gs->srv_cpu_ns / (double)c->queries;
        c->server_busy = (double)gs->srv_cpu_ns / (double)gs->srv_wall_ns;
    }
}

void pgcb_cells_stream_figures(struct pgcb_res_cell *c, struct pgcb_gstate *gs)
{
    c->first_row_ns = gs->nfirsts ? pgcb_stats_median_u64(gs->firsts, gs->nfirsts) : NAN;
    c->stream_rows = gs->stream_rows;
    c->rows_per_s = gs->stream_rows && c->median_ns > 0
                        ? (double)gs->stream_rows * 1e9 / c->median_ns : NAN;
    free(c->idiom);
    c->idiom = gs->idiom[0] ? pgcb_xstrdup(gs->idiom) : NULL;
}

/* "; NOTE" after buf's n bytes when driver d's first batch has a note. */
static void append_note(char *buf, size_t size, int n, const struct pgcb_gstate *g)
{
    if (g->note[0] && n > 0 && (size_t)n < size)
        snprintf(buf + (size_t)n, size - (size_t)n, "; %s", g->note);
}

/* [bench] checksum_reference: when that driver measured this group with a
 * valid result, its checksum is the group's: every other client driver
 * that differs is invalid. Returns 1 when it decided, 0 when the majority
 * rule must (no reference, or it is not valid in this group). */
static int reference_checks(const struct pgcb_session *s, struct pgcb_res_group *gr,
                            const struct pgcb_gstate *gs)
{
    const char *ref = s->cfg->checksum_reference;
    size_t rd = SIZE_MAX;
    if (!ref)
        return 0;
    for (size_t d = 0; d < s->ndrivers; d++)
        if (strcmp(s->drivers[d].cfg->name, ref) == 0)
            rd = d;
    if (rd == SIZE_MAX || gr->cells[rd].status != PGCB_CELL_OK)
        return 0;
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        if (d == rd || c->status != PGCB_CELL_OK || (s->drivers[d].caps & PGCB_CAP_REFERENCE) ||
            gs[d].expect_sum == gs[rd].expect_sum)
            continue;
        char buf[640];
        int n = snprintf(buf, sizeof buf, "checksum %016llx differs from %016llx, %s's "
                         "([bench] checksum_reference)", (unsigned long long)gs[d].expect_sum,
                         (unsigned long long)gs[rd].expect_sum, ref);
        append_note(buf, sizeof buf, n, &gs[d]);
        c->status = PGCB_CELL_INVALID;
        c->error = pgcb_xstrdup(buf);
    }
    return 1;
}

/* Within each driver: its rows, its threads' checksums, its checksum
 * across its batches (check_sum). */
static void own_checks(const struct pgcb_session *s, struct pgcb_res_group *gr,
                       const struct pgcb_gstate *gs, int check_sum)
{
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        if (c->status != PGCB_CELL_OK)
            continue;
        char buf[320];
        if (gs[d].rows_bad) {
            snprintf(buf, sizeof buf, "%llu of %llu batches did not return %llu rows",
                     (unsigned long long)gs[d].rows_bad, (unsigned long long)gs[d].batches,
                     (unsigned long long)c->rows_per_batch);
        } else if (check_sum && gs[d].threads_disagree) {
            snprintf(buf, sizeof buf, "the measuring threads' connections returned different "
                     "checksums for the same batch");
        } else if (check_sum && gs[d].sum_bad && pgcb_sdriver_self_timed(&s->drivers[d])) {
            snprintf(buf, sizeof buf, "the fold of %llu of %llu batches did not match the rows "
                     "the client returned: the adapter did not consume every value alike in "
                     "every batch (or a non-deterministic query: set [query] check = rows)",
                     (unsigned long long)gs[d].sum_bad, (unsigned long long)gs[d].batches);
        } else if (check_sum && gs[d].sum_bad) {
            snprintf(buf, sizeof buf, "checksum changed in %llu of %llu batches (a "
                     "non-deterministic query? set [query] check = rows)",
                     (unsigned long long)gs[d].sum_bad, (unsigned long long)gs[d].batches);
        } else {
            continue;
        }
        c->status = PGCB_CELL_INVALID;
        c->error = pgcb_xstrdup(buf);
    }
}

/* Across drivers: the checksum most client drivers agree on is right;
 * without a strict majority, every client driver is suspect. */
static void majority_checks(const struct pgcb_session *s, struct pgcb_res_group *gr,
                            const struct pgcb_gstate *gs)
{
    size_t nclients = 0, best = SIZE_MAX, best_votes = 0;
    for (size_t d = 0; d < s->ndrivers; d++) {
        if (gr->cells[d].status != PGCB_CELL_OK ||
            (s->drivers[d].caps & PGCB_CAP_REFERENCE))
            continue;
        nclients++;
        size_t votes = 0;
        for (size_t k = 0; k < s->ndrivers; k++)
            if (gr->cells[k].status == PGCB_CELL_OK &&
                !(s->drivers[k].caps & PGCB_CAP_REFERENCE) &&
                gs[k].expect_sum == gs[d].expect_sum)
                votes++;
        if (votes > best_votes) {
            best_votes = votes;
            best = d;
        }
    }
    if (nclients < 2 || best_votes == nclients)
        return;
    int majority = 2 * best_votes > nclients;
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        if (c->status != PGCB_CELL_OK || (s->drivers[d].caps & PGCB_CAP_REFERENCE))
            continue;
        if (majority && gs[d].expect_sum == gs[best].expect_sum)
            continue;
        char buf[640];
        int n;
        if (majority)
            n = snprintf(buf, sizeof buf, "checksum %016llx differs from %016llx, which %zu of "
                         "%zu client drivers returned (%s among them)",
                         (unsigned long long)gs[d].expect_sum,
                         (unsigned long long)gs[best].expect_sum, best_votes, nclients,
                         s->drivers[best].cfg->name);
        else
            n = snprintf(buf, sizeof buf, "checksum %016llx: the client drivers disagree and no "
                         "checksum has a majority", (unsigned long long)gs[d].expect_sum);
        append_note(buf, sizeof buf, n, &gs[d]);
        c->status = PGCB_CELL_INVALID;
        c->error = pgcb_xstrdup(buf);
    }
}

void pgcb_cells_checks(struct pgcb_session *s, struct pgcb_result *r, size_t g,
                       struct pgcb_gstate *gs, int check_sum, int cross_sum)
{
    struct pgcb_res_group *gr = &r->groups[g];
    own_checks(s, gr, gs, check_sum);
    if (!cross_sum)
        return;
    if (reference_checks(s, gr, gs))
        return;
    majority_checks(s, gr, gs);
}

void pgcb_cells_transport(struct pgcb_res_cell *c, const struct pgcb_transport_seen *seen,
                          const char *asked)
{
    struct pgcb_res_transport *t = &c->transport;
    if (!seen->recorded)
        return;
    t->recorded = 1;
    t->asked = asked ? pgcb_xstrdup(asked) : NULL;
    t->seen = pgcb_xstrdup(seen->seen);
    t->why = seen->why[0] ? pgcb_xstrdup(seen->why) : NULL;
    t->tls_version = seen->version[0] ? pgcb_xstrdup(seen->version) : NULL;
    t->cipher = seen->cipher[0] ? pgcb_xstrdup(seen->cipher) : NULL;
    t->bits = seen->bits;
    t->client_addr = seen->client_addr[0] ? pgcb_xstrdup(seen->client_addr) : NULL;
    t->mismatch = asked && strcmp(seen->seen, "unknown") != 0 && strcmp(seen->seen, asked) != 0;
}

/* The message types of direction d counted in t, per query, into out. */
static size_t wire_types(const struct wt_totals *t, enum wt_dir d, double queries,
                         struct pgcb_res_wire_type *out)
{
    size_t n = 0;
    for (unsigned k = 0; k < WT_NTYPES && n < PGCB_WIRE_MAXTYPES; k++) {
        if (!t->by_type[d][k])
            continue;
        const char *name = wt_type_name(d, k);
        if (name)
            snprintf(out[n].name, sizeof out[n].name, "%s", name);
        else
            snprintf(out[n].name, sizeof out[n].name, "type-%u", k);
        out[n++].per_query = (double)t->by_type[d][k] / queries;
    }
    return n;
}

void pgcb_cells_wire_figures(struct pgcb_res_cell *c, const struct pgcb_gstate *gs)
{
    struct pgcb_res_wire *w = &c->wire;
    memset(w, 0, sizeof *w);
    w->expected_ns = NAN;
    if (!gs->wire_jobs || !c->queries)
        return;
    const struct wt_totals *t = &gs->wire;
    const double q = (double)c->queries;
    w->known = 1;
    w->round_trips = (double)t->round_trips / q;
    w->bytes_out = (double)t->bytes[WT_TO_SERVER] / q;
    w->bytes_in = (double)t->bytes[WT_TO_CLIENT] / q;
    w->msgs_out = (double)t->msgs[WT_TO_SERVER] / q;
    w->msgs_in = (double)t->msgs[WT_TO_CLIENT] / q;
    w->chunks_out = (double)t->chunks[WT_TO_SERVER] / q;
    w->chunks_in = (double)t->chunks[WT_TO_CLIENT] / q;
    w->nout = wire_types(t, WT_TO_SERVER, q, w->out);
    w->nin = wire_types(t, WT_TO_CLIENT, q, w->in);
    w->proxy_cpu_ns = gs->wire_cpu_lost ? NAN : (double)gs->wire_cpu_ns / q;
    uint64_t all = t->bytes[0] + t->bytes[1];
    w->opaque_share = all ? (double)(t->opaque_bytes[0] + t->opaque_bytes[1]) / (double)all : 0;
}

uint64_t pgcb_cells_stalls(const struct pgcb_hist *h)
{
    if (!h->n)
        return 0;
    const double med = pgcb_hist_median(h);
    const uint64_t lo_ns = (uint64_t)PGCB_STALL_LO_MS * 1000000u,
                   hi_ns = (uint64_t)PGCB_STALL_HI_MS * 1000000u;
    if (!(med < (double)lo_ns))
        return 0;
    return pgcb_hist_count_range(h, (uint64_t)med + lo_ns, (uint64_t)med + hi_ns);
}
