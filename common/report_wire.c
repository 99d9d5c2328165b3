/*
 * report_wire.c -- the wire under a group's table (issue 41): what each
 * client sent and received per query, message by message, as the proxy
 * counted it; its departures from the expectation at an RTT; and the
 * proxy's own accuracy (the delay it added to a round trip against the one
 * asked, and how late its deliveries were).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "report_int.h"
#include "result.h"

/* "Bind 1, Execute 1, Sync 1" (types below 0.005 per query left out). */
static void types_line(FILE *out, const struct pgcb_res_wire_type *t, size_t n)
{
    int first = 1;
    for (size_t k = 0; k < n; k++) {
        if (t[k].per_query < 0.005)
            continue;
        fprintf(out, "%s%s %.3g", first ? "" : ", ", t[k].name, t[k].per_query);
        first = 0;
    }
    if (first)
        fprintf(out, "none");
}

int pgcb_rep_wire_notes(FILE *out, const struct pgcb_result *r, size_t g, const char *bullet)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    int notes = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_wire *w = &gr->cells[d].wire;
        if (!w->known)
            continue;
        fprintf(out, "%swire, %s, per %s: %.3g round trips; sent ", bullet, r->drivers[d].label,
                gr->connect ? "connection" : "query", w->round_trips);
        types_line(out, w->out, w->nout);
        fprintf(out, " (%.0f B in %.3g writes); received ", w->bytes_out, w->chunks_out);
        types_line(out, w->in, w->nin);
        fprintf(out, " (%.0f B in %.3g reads of the proxy)", w->bytes_in, w->chunks_in);
        if (w->opaque_share > 0)
            fprintf(out, "; %.0f%% of the bytes in TLS, not parsed", 100 * w->opaque_share);
        if (isfinite(w->proxy_cpu_ns))
            fprintf(out, "; the proxy's CPU %.1f us", w->proxy_cpu_ns / 1e3);
        fputc('\n', out);
        notes++;
        if (w->note[0]) {
            fprintf(out, "%s%s departs from its expectation: %s\n", bullet, r->drivers[d].label,
                    w->note);
            notes++;
        }
    }
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (!c->stalls)
            continue;
        fprintf(out, "%s%s stalled: %llu of %llu samples %d-%d ms above its median (%.0f us): "
                     "a delayed ACK (40 ms) meeting Nagle's algorithm, a retransmission, or a "
                     "pause of the client's own (its garbage collector)\n",
                bullet, r->drivers[d].label, (unsigned long long)c->stalls,
                (unsigned long long)c->samples, PGCB_STALL_LO_MS, PGCB_STALL_HI_MS,
                c->median_ns / 1e3);
        notes++;
    }
    const struct pgcb_res_proxy *p = &gr->proxy;
    if (p->known) {
        fprintf(out, "%sproxy: rtt %g ms asked", bullet, gr->rtt_ms);
        if (isfinite(p->added_ns))
            fprintf(out, ", %.3f ms added to a round trip (SELECT 1: %.0f us straight, %.0f us "
                         "through it; medians of %d, before the run)",
                    p->added_ns / 1e6, p->direct_ns / 1e3, p->proxied_ns / 1e3, PGCB_PROBE_N);
        if (p->chunks && isfinite(p->late_mean_ns))
            fprintf(out, "; its %llu deliveries in the group late by %.1f us on average",
                    (unsigned long long)p->chunks, p->late_mean_ns / 1e3);
        if (p->refused || p->errors)
            fprintf(out, "; %llu connections refused, %llu ended by errors (the last: %s)",
                    (unsigned long long)p->refused, (unsigned long long)p->errors,
                    p->last_error[0] ? p->last_error : "?");
        fputc('\n', out);
        notes++;
    }
    return notes;
}
