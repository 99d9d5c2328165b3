/* json.c -- the aggregate as JSON; see agg.h.
 *
 * {"runs_count", "ranked_drivers", "shared_groups",
 *  "notes": [sentence, ...],
 *  "runs": [{"run" (1-based), "file", "label", "cpu_model", "cores", "server_version",
 *            "libpq_version", "runner_version", "started_at", "complete",
 *            "profile": null | {"event", "frequency", "index": the flame graphs' index (or
 *            the profile directory) as a path from here},
 *            "groups_ranked", "groups_shared",
 *            "relative_latency": {driver: x|null}, "ranked_first": [driver, ...],
 *            "rankings": the run's own rankings, as in its result file,
 *            "conversion_cost": the run's, as in its result file ([] without
 *            [query] versus pairs; per run: a conversion's CPU is the machine's)}],
 *  "ranked_first": {driver: runs},
 *  "rankings": over all runs (rank.h pgcb_rank_rankings_json, left_out with "run"),
 *  "groups": [{"suite", "query", "depth", ["transport",] "runs": ranked in,
 *              "relative_latency": {driver: x|null}}],
 *  "baseline": null | {"label", "threshold_pct", "labels": [run label, ...],
 *     "drivers": {driver: {
 *        "steps": [{"suite", "query", "depth", "threads", "transaction", "ops": n|null,
 *                   "baseline_queries_per_s": x|null,
 *                   "runs": [CELL per label], "in_overall": every label has a value}],
 *        "overall": [CELL per label], "overall_steps": the steps it is over}}}}
 *  CELL: {"label", "ratio": x|null, "mark": "up"|"down"|null,
 *         "skipped": the driver skipped the step in that label's runs,
 *         "sla_failed": a background load missed its target rate there}
 */
#include <math.h>
#include <string.h>

#include "agg.h"

static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *runs_json(const struct pgcb_agg *a, json_t *ranked_first)
{
    const struct pgcb_ranking *rk = &a->overall;
    json_t *runs = json_array();
    for (size_t i = 0; i < a->nruns; i++) {
        const struct pgcb_result *r = a->res[i];
        json_t *o = json_object();
        json_object_set_new(o, "run", json_integer((json_int_t)i + 1));
        json_object_set_new(o, "file", json_string(a->runs[i].path));
        json_object_set_new(o, "label", json_string(a->runs[i].label));
        json_object_set_new(o, "cpu_model", str_or_null(r->cpu_model));
        json_object_set_new(o, "cores", json_integer(r->cores));
        json_object_set_new(o, "server_version", str_or_null(r->server_version));
        json_object_set_new(o, "libpq_version", str_or_null(r->libpq_version));
        json_object_set_new(o, "runner_version", str_or_null(r->runner_version));
        json_object_set_new(o, "started_at", str_or_null(r->started_at));
        json_object_set_new(o, "complete", json_boolean(r->complete));
        char *prof = pgcb_agg_profile_path(a, i);
        json_object_set_new(o, "profile", r->profile.profiled
                                              ? json_pack("{s:o, s:I, s:o}", "event",
                                                          str_or_null(r->profile.event),
                                                          "frequency",
                                                          (json_int_t)r->profile.frequency,
                                                          "index", str_or_null(prof))
                                              : json_null());
        free(prof);
        json_object_set_new(o, "groups_ranked", json_integer((json_int_t)a->runs[i].rank.ngroups));
        json_object_set_new(o, "groups_shared",
                            json_integer((json_int_t)a->runs[i].rank.ncandidates));
        json_t *rel = json_object(), *first = json_array();
        for (size_t k = 0; k < rk->nrows; k++) {
            int is_first;
            const char *d = rk->rows[k].driver;
            json_object_set_new(rel, d, real_or_null(pgcb_agg_run_rel(a, i, d, &is_first)));
            if (is_first) {
                json_array_append_new(first, json_string(d));
                json_t *n = json_object_get(ranked_first, d);
                json_integer_set(n, json_integer_value(n) + 1);
            }
        }
        json_object_set_new(o, "relative_latency", rel);
        json_object_set_new(o, "ranked_first", first);
        json_object_set_new(o, "rankings", pgcb_rank_rankings_json(&a->res[i], 1, &a->res[i], 1, 0));
        json_object_set_new(o, "conversion_cost", pgcb_result_conversion_cost_json(a->res[i]));
        json_array_append_new(runs, o);
    }
    return runs;
}

static json_t *groups_json(const struct pgcb_agg *a)
{
    struct pgcb_agg_grouprel *g;
    size_t n = pgcb_agg_grouprel(a, &g);
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *rel = json_object();
        for (size_t k = 0; k < a->overall.nrows; k++)
            json_object_set_new(rel, a->overall.rows[k].driver, real_or_null(g[i].rel[k]));
        json_t *one = json_pack("{s:s, s:s, s:I, s:I, s:o}", "suite", g[i].group->suite, "query",
                                g[i].group->query, "depth", (json_int_t)g[i].group->depth,
                                "runs", (json_int_t)g[i].nruns, "relative_latency", rel);
        if (one && g[i].group->transport) /* [suite] transport: one group each */
            json_object_set_new(one, "transport", json_string(g[i].group->transport));
        json_array_append_new(arr, one);
    }
    pgcb_agg_grouprel_free(g, n);
    return arr;
}

static json_t *bcell_json(const struct pgcb_agg_baseline *b, const char *label,
                         const struct pgcb_agg_bcell *c)
{
    const char *mark = pgcb_agg_baseline_mark(b, c->ratio);
    return json_pack("{s:s, s:o, s:o, s:b, s:b}", "label", label, "ratio",
                     real_or_null(c->ratio), "mark",
                     !*mark                    ? json_null()
                     : strcmp(mark, "▲") == 0 ? json_string("up")
                                               : json_string("down"),
                     "skipped", c->kind == PGCB_AGG_CELL_SKIPPED, "sla_failed", c->sla_failed);
}

static json_t *baseline_json(const struct pgcb_agg *a, const struct pgcb_agg_baseline *b)
{
    json_t *drivers = json_object();
    for (size_t d = 0; d < a->overall.nrows; d++) {
        json_t *steps = json_array();
        for (size_t g = 0; g < b->ngroups; g++) {
            const struct pgcb_res_group *gr = b->groups[g];
            json_t *runs = json_array();
            for (size_t l = 0; l < b->nlabels; l++)
                json_array_append_new(runs, bcell_json(b, b->labels[l],
                                                       pgcb_agg_baseline_cell(b, d, g, l)));
            json_array_append_new(
                steps, json_pack("{s:s, s:s, s:I, s:I, s:b, s:o, s:o, s:o, s:b}", "suite", gr->suite,
                                 "query", gr->query, "depth", (json_int_t)gr->depth, "threads",
                                 (json_int_t)gr->threads, "transaction", gr->transaction, "ops",
                                 gr->ops ? json_integer((json_int_t)gr->ops) : json_null(),
                                 "baseline_queries_per_s",
                                 real_or_null(b->base_qps[d * b->ngroups + g]), "runs", runs,
                                 "in_overall", b->in_overall[d * b->ngroups + g]));
        }
        json_t *overall = json_array();
        for (size_t l = 0; l < b->nlabels; l++)
            json_array_append_new(overall, bcell_json(b, b->labels[l],
                                                      pgcb_agg_baseline_cell(b, d, b->ngroups, l)));
        json_object_set_new(drivers, a->overall.rows[d].driver,
                            json_pack("{s:o, s:o, s:I}", "steps", steps, "overall", overall,
                                      "overall_steps", (json_int_t)b->overall_steps[d]));
    }
    json_t *labels = json_array();
    for (size_t l = 0; l < b->nlabels; l++)
        json_array_append_new(labels, json_string(b->labels[l]));
    return json_pack("{s:s, s:f, s:o, s:o}", "label", b->label, "threshold_pct",
                     b->threshold_pct, "labels", labels, "drivers", drivers);
}

json_t *pgcb_agg_json(const struct pgcb_agg *a, const struct pgcb_agg_baseline *b)
{
    json_t *j = json_object();
    json_object_set_new(j, "runs_count", json_integer((json_int_t)a->nruns));
    json_object_set_new(j, "ranked_drivers", json_integer((json_int_t)a->overall.nrows));
    json_object_set_new(j, "shared_groups",
                        json_integer((json_int_t)(a->overall.ncandidates / a->nruns)));
    json_t *notes = json_array();
    for (size_t i = 0; i < a->nnotes; i++)
        json_array_append_new(notes, json_string(a->notes[i]));
    json_object_set_new(j, "notes", notes);
    json_t *first = json_object();
    for (size_t k = 0; k < a->overall.nrows; k++)
        json_object_set_new(first, a->overall.rows[k].driver, json_integer(0));
    json_object_set_new(j, "runs", runs_json(a, first));
    json_object_set_new(j, "ranked_first", first);
    json_object_set_new(j, "rankings",
                        pgcb_rank_rankings_json(a->res, a->nruns, a->res, a->nruns, 1));
    json_object_set_new(j, "groups", groups_json(a));
    json_object_set_new(j, "baseline", b ? baseline_json(a, b) : json_null());
    return j;
}
