/*
 * cells.h -- the figures of a group's cells and the checks of their rows and
 * checksums (module prefix pgcb_cells_). Internal to the runner's group
 * measurement (group.c, group_order.c): a cell is one driver's outcome in
 * one group (struct pgcb_res_cell, result.h), figured from what the group
 * gathered for that driver (struct pgcb_gstate, group_int.h). Every string a
 * cell is given here is its own (pgcb_xstrdup), freed with the result.
 */
#ifndef PGCB_CELLS_H
#define PGCB_CELLS_H

#include <stdint.h>

#include "group_int.h"

/* Fail cell c with a message (printf format; replaces any earlier one). */
void pgcb_cells_fail(struct pgcb_res_cell *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* After a job on a host: its nthreads threads' counts are summed into gs;
 * the first thread error fails the cell (and marks gs failed). */
void pgcb_cells_collect(const struct pgcb_host_shared *sh, uint32_t nthreads,
                        struct pgcb_gstate *gs, struct pgcb_res_cell *cell);

/* A group at an RTT (issue 41): cell c's wire figures from what its proxy
 * counted over the measured jobs (gs->wire), per query of the cell
 * (c->queries, set by pgcb_cells_figures before). Nothing when no job was
 * counted. */
void pgcb_cells_wire_figures(struct pgcb_res_cell *c, const struct pgcb_gstate *gs);

/* Samples of h PGCB_STALL_LO_MS .. PGCB_STALL_HI_MS above its median, when
 * the median is below PGCB_STALL_LO_MS (result.h); else 0. */
uint64_t pgcb_cells_stalls(const struct pgcb_hist *h);

/* A streaming group's figures of cell c (after pgcb_cells_figures): the
 * median time to first row of gs's measured reads (it sorts gs->firsts),
 * the rows of a read, rows per second at the median read, the idiom. */
void pgcb_cells_stream_figures(struct pgcb_res_cell *c, struct pgcb_gstate *gs);

/* The figures of cell c from gs's pooled samples and counts (noise, backends,
 * percentiles, rates). set_why: why the driver's host's backends are unknown
 * ("" if they are known or it does no I/O). */
void pgcb_cells_figures(struct pgcb_res_cell *c, const struct pgcb_gstate *gs, uint32_t depth,
                        uint32_t threads, const char *set_why);

/* Rows and checksums of group g's cells (gs: one per driver of s): within
 * each driver, then (cross_sum) across the client drivers, by [bench]
 * checksum_reference or else by majority. A cell that fails a check becomes
 * INVALID with the reason. */
void pgcb_cells_checks(struct pgcb_session *s, struct pgcb_result *r, size_t g,
                       struct pgcb_gstate *gs, int check_sum, int cross_sum);

/* What a driver's connections used, as its host's last look at them found
 * (pgcb_session_find_backends), into cell c of a group that asked for
 * `asked` (NULL: the suite did not ask). Nothing when seen is not recorded. */
void pgcb_cells_transport(struct pgcb_res_cell *c, const struct pgcb_transport_seen *seen,
                          const char *asked);

#endif
