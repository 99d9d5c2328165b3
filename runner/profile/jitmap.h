/*
 * jitmap.h -- a JIT's perf map (/tmp/perf-PID.map, "START SIZE NAME" lines
 * appended as code is made: node --perf-basic-prof) made fit for folding.
 *
 * The map is append-only: code that was freed keeps its line, and the new
 * code placed at the same addresses gets another, so perf, which takes the
 * file as a set, names a frame after whichever of the overlapping lines it
 * picks -- measured here: 227 overlaps in a 4,889-line map of the pg
 * adapter, its stacks showing module bodies ("Eval:~ node:net:1:1") where
 * pg's parser ran. For the folding, the runner sets the map aside and puts
 * in its place a copy where a line overlapped by a later one is dropped
 * (the later code is the live one), then puts the original back: the
 * process goes on appending to the original throughout (its file
 * descriptor follows the renamed file). The runner's thread only, between
 * groups.
 */
#ifndef PGCB_JITMAP_H
#define PGCB_JITMAP_H

#include <stddef.h>

/* Filter the lines of map text `in` (len bytes) as above into a new string
 * (the caller frees it), lines kept in their order; *dropped counts the
 * others. Lines that do not parse are kept. */
char *pgcb_jitmap_filter(const char *in, size_t len, size_t *dropped);

/* Set /tmp/perf-PID.map aside (as .pgcb-orig) and write the filtered copy
 * in its place. Returns 1 when swapped (pgcb_jitmap_restore must follow), 0
 * when there is no map, -1 on an error (the original is left in place). */
int pgcb_jitmap_swap(int pid);
void pgcb_jitmap_restore(int pid);

#endif
