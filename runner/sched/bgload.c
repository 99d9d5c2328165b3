/*
 * bgload.c -- see bgload.h. The [background.NAME] loads of a group: their
 * hosts started, their jobs sent before the warm-up and stopped after the
 * last order, what they achieved recorded in the group.
 */
#include "bgload.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "group_int.h"
#include "session_int.h"
#include "util.h"

struct pgcb_host_spec pgcb_bgload_spec(struct pgcb_session *s, size_t b)
{
    const struct pgcb_cfg_background *cb = s->bgs[b].cfg;
    /* Background load is load on the server: [server] conninfo, whatever
     * the group's transport. */
    return (struct pgcb_host_spec){.drv = pgcb_session_host_driver(&s->bgs[b].sd),
                                   .nthreads = cb->connections,
                                   .cpus = cb->cpus, .ncpus = cb->ncpus,
                                   .role = "background", .conninfo = s->cfg->conninfo};
}

void pgcb_bgload_start(struct pgcb_session *s, struct pgcb_res_group *gr, size_t g,
                       size_t ngroups, const struct pgcb_cfg_suite *su)
{
    const struct pgcb_host_tick tick = pgcb_session_tick(s);
    const struct pgcb_host_env env = pgcb_session_env(s);
    gr->nbackgrounds = su->nbackgrounds;
    gr->backgrounds = pgcb_xcalloc(su->nbackgrounds ? su->nbackgrounds : 1,
                                   sizeof *gr->backgrounds);
    for (size_t k = 0; k < su->nbackgrounds; k++) {
        size_t b = su->backgrounds[k];
        const struct pgcb_cfg_background *cb = s->bgs[b].cfg;
        struct pgcb_host *h = &s->bgs[b].sd.host;
        struct pgcb_res_background *rb = &gr->backgrounds[k];
        *rb = (struct pgcb_res_background){
            .name = pgcb_xstrdup(cb->name),
            .driver = pgcb_xstrdup(s->bgs[b].sd.cfg->name),
            .query = pgcb_xstrdup(s->cfg->queries[cb->query].name),
            .connections = cb->connections,
            .target_rate = cb->rate * cb->connections,
            .achieved_rate = NAN, .elapsed_s = NAN,
            .median_ns = NAN, .p99_ns = NAN, .max_ns = NAN,
            .sla = cb->sla,
        };
        char cpus[256];
        pgcb_cpus_format(cb->cpus, cb->ncpus, cpus, sizeof cpus);
        rb->cpus = pgcb_xstrdup(cpus);
        char why[PGCB_ERRLEN + 256];
        struct pgcb_host_spec spec = pgcb_bgload_spec(s, b);
        if (h->pid == 0 && pgcb_host_start(h, &env, &spec, 0, &tick, why, sizeof why) != 0) {
            rb->error = pgcb_xasprintf("restart failed: %s", why);
            continue;
        }
        struct pgcb_job *job = &h->sh->job;
        *job = (struct pgcb_job){.kind = PGCB_JOB_BACKGROUND, .query = cb->query, .group = g,
                                 .ngroups = ngroups, .depth = 1, .nthreads = cb->connections,
                                 .stream = PGCB_STREAM_BACKGROUND, .rate = cb->rate};
        snprintf(job->label, sizeof job->label, "background %s", cb->name);
        if (pgcb_host_send(h, &env, why, sizeof why) != 0)
            rb->error = pgcb_xasprintf("background %s %s", cb->name, why);
    }
}

void pgcb_bgload_stop(struct pgcb_session *s, struct pgcb_res_group *gr,
                      const struct pgcb_cfg_suite *su)
{
    const struct pgcb_host_tick tick = pgcb_session_tick(s);
    const struct pgcb_host_env env = pgcb_session_env(s);
    struct pgcb_hist lat;
    if (pgcb_hist_init(&lat) != 0) {
        fprintf(stderr, "runner: out of memory for a histogram\n");
        exit(70);
    }
    for (size_t k = 0; k < su->nbackgrounds; k++) {
        size_t b = su->backgrounds[k];
        struct pgcb_host *h = &s->bgs[b].sd.host;
        struct pgcb_res_background *rb = &gr->backgrounds[k];
        if (!rb->error) {
            char why[PGCB_ERRLEN + 256];
            atomic_store(&h->sh->bg_stop, 1);
            if (pgcb_host_wait(h, &env, &tick, why, sizeof why) != 0)
                rb->error = pgcb_xasprintf("background %s %s", rb->name, why);
        }
        if (!rb->error) {
            pgcb_hist_reset(&lat);
            double elapsed = 0;
            for (uint32_t t = 0; t < rb->connections; t++) {
                const struct pgcb_host_thread *ht = &h->sh->threads[t];
                if (ht->rc != PGCB_OK && !rb->error)
                    rb->error = pgcb_xstrdup(ht->err);
                rb->executions += ht->batches;
                pgcb_hist_merge(&lat, &ht->hist);
                if ((double)ht->elapsed_ns > elapsed)
                    elapsed = (double)ht->elapsed_ns;
            }
            /* Every execution over the load's whole span (the longest
             * connection's, from its first scheduled execution to the stop):
             * a connection that failed early counts for the time it was
             * missing, instead of a per-connection rate ending with it. */
            rb->achieved_rate = elapsed > 0 ? (double)rb->executions * 1e9 / elapsed : 0;
            rb->elapsed_s = elapsed / 1e9;
            if (lat.n) {
                rb->median_ns = pgcb_hist_median(&lat);
                rb->p99_ns = (double)pgcb_hist_quantile(&lat, 0.99);
                rb->max_ns = (double)lat.max;
            }
        }
        rb->sla_met = !rb->error && rb->achieved_rate >= rb->sla * rb->target_rate;
        gr->sla_failed |= !rb->sla_met;
    }
    pgcb_hist_free(&lat);
}
