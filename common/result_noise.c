/*
 * result_noise.c -- the noise in the result JSON (issue 13), read
 * tolerantly (absent, null or mistyped: unknown): per cell the spread of
 * the per-order medians, steal and context switches; in the environment
 * the threshold, the pinned CPUs as sysfs shows them, the run's steal and
 * how idle CPUs waited ([bench] cpu_idle). See result.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "json_util.h"
#include "result.h"
#include "stats.h"
#include "util.h"

/* Issue 13, per cell: the spread of the per-order medians, and what the
 * runner recorded around the orders (null when it did not). */
void pgcb_result_cell_noise_json(json_t *j, const struct pgcb_res_cell *c)
{
    json_object_set_new(j, "order_spread",
                        json_pack("{s:o, s:o, s:o}", "robust_cv_pct",
                                  pgcb_json_real(c->spread_cv_pct), "min_ns",
                                  pgcb_json_real(c->spread_min_ns), "max_ns",
                                  pgcb_json_real(c->spread_max_ns)));
    json_t *steal = json_null();
    if (c->noise_known && isfinite(c->steal_window_ns))
        steal = json_pack("{s:o, s:o, s:o, s:o, s:o}", "window_ns",
                          pgcb_json_real(c->steal_window_ns), "cpus_ns",
                          pgcb_json_real(c->steal_cpus_ns), "cpus_pct",
                          pgcb_json_real(c->steal_cpus_pct), "machine_ns",
                          pgcb_json_real(c->steal_machine_ns), "machine_pct",
                          pgcb_json_real(c->steal_machine_pct));
    json_object_set_new(j, "steal", steal);
    json_t *inv = json_null(), *vol = json_null(), *per = json_null();
    if (c->noise_known) {
        inv = json_integer((json_int_t)c->involuntary_switches);
        vol = json_integer((json_int_t)c->voluntary_switches);
        if (c->queries)
            per = json_real(1000.0 * (double)c->involuntary_switches / (double)c->queries);
    }
    json_object_set_new(j, "involuntary_switches", inv);
    json_object_set_new(j, "voluntary_switches", vol);
    json_object_set_new(j, "timed_minor_faults",
                        c->noise_known ? json_integer((json_int_t)c->timed_minor_faults)
                                       : json_null());
    json_object_set_new(j, "involuntary_switches_per_1k_queries", per);
}

/* Issue 13, the environment's "noise": the threshold, each pinned CPU as
 * sysfs shows it (null: not shown by this machine), the steal time. */
json_t *pgcb_result_env_noise_json(const struct pgcb_result *r)
{
    json_t *cpus = json_array();
    for (size_t i = 0; i < r->nnoise_cpus; i++) {
        const struct pgcb_res_cpu *u = &r->noise_cpus[i];
        json_array_append_new(
            cpus, json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "cpu", u->cpu, "role",
                            pgcb_json_str(u->role), "governor", pgcb_json_str(u->governor),
                            "cur_khz", pgcb_json_real(u->cur_khz), "min_khz",
                            pgcb_json_real(u->min_khz), "max_khz", pgcb_json_real(u->max_khz),
                            "smt_siblings", pgcb_json_str(u->smt_siblings)));
    }
    json_t *n = json_pack("{s:o, s:o, s:o, s:o, s:o}", "warn_pct",
                          pgcb_json_real(r->noise_warn_pct > 0 ? r->noise_warn_pct : NAN), "cpus",
                          cpus, "steal_since_boot_pct", pgcb_json_real(r->steal_boot_pct),
                          "run_steal_ns", pgcb_json_real(r->run_steal_ns), "run_steal_pct",
                          pgcb_json_real(r->run_steal_pct));
    const struct pgcb_res_idle *i = &r->idle;
    if (n && i->asked)
        json_object_set_new(
            n, "cpu_idle",
            json_pack("{s:s, s:b, s:o, s:o, s:o, s:o, s:o}", "asked", i->asked, "polling",
                      i->polling, "why", pgcb_json_str(i->why), "driver", pgcb_json_str(i->driver),
                      "governor", pgcb_json_str(i->governor), "entries_poll",
                      pgcb_json_real(i->entries_poll), "entries_other",
                      pgcb_json_real(i->entries_other)));
    return n;
}

/* A non-negative integer into *out: 1, else 0. */
static int count_of(json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return 0;
    *out = (uint64_t)json_integer_value(v);
    return 1;
}

void pgcb_result_cell_spread(struct pgcb_res_cell *c)
{
    double *scratch = pgcb_xcalloc(c->norders ? c->norders : 1, sizeof *scratch);
    struct pgcb_stats_spread sp;
    pgcb_stats_spread(c->order_medians_ns, c->norders, scratch, &sp);
    free(scratch);
    c->spread_cv_pct = sp.robust_cv_pct;
    c->spread_min_ns = sp.min;
    c->spread_max_ns = sp.max;
}

/* A cell's spread (recomputed from order_medians_ns when the file has none),
 * steal and context switches. */
void pgcb_result_cell_noise_read(json_t *o, struct pgcb_res_cell *c)
{
    json_t *sp = json_object_get(o, "order_spread");
    if (json_is_object(sp)) {
        c->spread_cv_pct = pgcb_json_num(json_object_get(sp, "robust_cv_pct"));
        c->spread_min_ns = pgcb_json_num(json_object_get(sp, "min_ns"));
        c->spread_max_ns = pgcb_json_num(json_object_get(sp, "max_ns"));
    } else {
        pgcb_result_cell_spread(c);
    }
    c->steal_window_ns = c->steal_cpus_ns = c->steal_cpus_pct = NAN;
    c->steal_machine_ns = c->steal_machine_pct = NAN;
    int inv = count_of(json_object_get(o, "involuntary_switches"), &c->involuntary_switches);
    int vol = count_of(json_object_get(o, "voluntary_switches"), &c->voluntary_switches);
    c->noise_known = inv && vol;
    count_of(json_object_get(o, "timed_minor_faults"), &c->timed_minor_faults);
    json_t *st = json_object_get(o, "steal");
    if (!c->noise_known || !json_is_object(st))
        return;
    c->steal_window_ns = pgcb_json_num(json_object_get(st, "window_ns"));
    c->steal_cpus_ns = pgcb_json_num(json_object_get(st, "cpus_ns"));
    c->steal_cpus_pct = pgcb_json_num(json_object_get(st, "cpus_pct"));
    c->steal_machine_ns = pgcb_json_num(json_object_get(st, "machine_ns"));
    c->steal_machine_pct = pgcb_json_num(json_object_get(st, "machine_pct"));
}

/* The environment's "noise" object; absent: all unknown. */
void pgcb_result_env_noise_read(json_t *env, struct pgcb_result *r)
{
    json_t *n = json_object_get(env, "noise");
    r->noise_warn_pct = pgcb_json_num(json_object_get(n, "warn_pct"));
    r->steal_boot_pct = pgcb_json_num(json_object_get(n, "steal_since_boot_pct"));
    r->run_steal_ns = pgcb_json_num(json_object_get(n, "run_steal_ns"));
    r->run_steal_pct = pgcb_json_num(json_object_get(n, "run_steal_pct"));
    json_t *idle = json_object_get(n, "cpu_idle");
    r->idle.entries_poll = pgcb_json_num(json_object_get(idle, "entries_poll"));
    r->idle.entries_other = pgcb_json_num(json_object_get(idle, "entries_other"));
    if (json_is_object(idle)) {
        r->idle.asked = pgcb_json_dup_str(idle, "asked");
        r->idle.polling = json_is_true(json_object_get(idle, "polling"));
        r->idle.why = pgcb_json_dup_str(idle, "why");
        r->idle.driver = pgcb_json_dup_str(idle, "driver");
        r->idle.governor = pgcb_json_dup_str(idle, "governor");
    }
    json_t *cpus = json_object_get(n, "cpus");
    size_t i;
    json_t *u;
    r->noise_cpus = pgcb_xcalloc(json_array_size(cpus) ? json_array_size(cpus) : 1,
                                 sizeof *r->noise_cpus);
    json_array_foreach(cpus, i, u) {
        json_t *cpu = json_object_get(u, "cpu");
        if (r->nnoise_cpus == PGCB_MAX_CPUS)
            break; /* no machine has more pinned CPUs than a CPU list can name */
        if (!json_is_integer(cpu) || json_integer_value(cpu) < 0 ||
            json_integer_value(cpu) >= PGCB_MAX_CPUS)
            continue;
        struct pgcb_res_cpu *x = &r->noise_cpus[r->nnoise_cpus++];
        x->cpu = (int)json_integer_value(cpu);
        x->role = pgcb_json_dup_str(u, "role");
        x->governor = pgcb_json_dup_str(u, "governor");
        x->cur_khz = pgcb_json_num(json_object_get(u, "cur_khz"));
        x->min_khz = pgcb_json_num(json_object_get(u, "min_khz"));
        x->max_khz = pgcb_json_num(json_object_get(u, "max_khz"));
        x->smt_siblings = pgcb_json_dup_str(u, "smt_siblings");
    }
}

void pgcb_result_noise_free(struct pgcb_result *r)
{
    for (size_t i = 0; r->noise_cpus && i < r->nnoise_cpus; i++) {
        free(r->noise_cpus[i].role);
        free(r->noise_cpus[i].governor);
        free(r->noise_cpus[i].smt_siblings);
    }
    free(r->noise_cpus);
    free(r->idle.asked);
    free(r->idle.why);
    free(r->idle.driver);
    free(r->idle.governor);
}
