/*
 * doccheck.h -- the checks that keep README.md and the docs/ pages true, against
 * the tree and the built programs (tests/unit/test_docs.c runs them on the
 * real pages and on planted ones). Each check takes parsed pages (mdoc.h),
 * appends one line per problem to the context's `problems` ("PAGE:LINE:
 * what is wrong") and returns how many it found. Nothing here prints.
 *
 * What is checked (docs/tests.md, "The docs test", says it for readers):
 *   links      every relative link names an existing file; one with an
 *              #anchor into a Markdown page, an existing heading's anchor
 *   paths      every conf/NAME.ini, sql/NAME.sql and scripts/NAME.sh named
 *              anywhere in a page exists in the tree
 *   ini        every ```ini block is a complete config, as if saved in
 *              conf/, that BUILD/runner -c FILE --list-drivers accepts; one
 *              marked <!-- fragment --> is parsed with inih and each key
 *              checked against what its section accepts (a [driver.NAME]'s
 *              against the options of the driver its `path` names)
 *   keys       the table marked <!-- keys: config --> names exactly the keys
 *              the runner's loader accepts, section by section (and every
 *              section); a table marked <!-- keys: driver NAME --> exactly the
 *              options BUILD/drivers/NAME.so declares, and every built driver
 *              with options has one
 *   json       every ```json block not marked fragment parses (jansson)
 *   c          every ```c block not marked fragment compiles with the ABI
 *              header ($CC or cc -std=c11 -fsyntax-only), its operations
 *              my_open, my_close, my_prepare, my_run_batch declared for it
 *   sh         every flag given to build/runner or build/aggregate in a
 *              ```sh block is in that program's --help
 *
 * The loader's keys come from the loader itself: the message it gives for an
 * unknown key lists the known ones ("(known: a, b)"), and that for an unknown
 * section the known sections. A driver section's own keys (path, measure)
 * are the loader's fixed ones; every other key there goes to the driver.
 *
 * Ownership: doccheck_init() sets up a context (a scratch directory, the
 * programs' help texts, the loader's keys) that doccheck_fini() removes.
 */
#ifndef PGCB_TESTS_DOCCHECK_H
#define PGCB_TESTS_DOCCHECK_H

#include <stddef.h>

#include "mdoc.h"

#define DOCCHECK_MAX_KEYS 64

/* The keys one kind of section accepts ("bench", "query" ...). */
struct doccheck_section {
    char name[32];
    char *keys[DOCCHECK_MAX_KEYS];
    size_t nkeys;
    int named;                  /* written [name.NAME] ([driver.NAME]), not [name] */
    int params;                 /* also param1 .. param64 */
};

struct doccheck {
    char top[1024];             /* the source tree: the working directory */
    char build[1024];           /* $PGCB_BUILD (default "build"), absolute */
    char tmp[256];              /* scratch: tmp/conf/, tmp/build -> build, tmp/sql -> top/sql */
    char *runner_help, *aggregate_help;
    struct doccheck_section sections[8];
    size_t nsections;
    char *problems;             /* one line per problem found, "" if none */
    size_t plen, pcap;
    size_t nproblems;
    unsigned seq;               /* names of scratch files */
};

/* Set up the context; 0, or -1 with a message in err (no build directory, a
 * loader message that no longer lists its keys ...). */
int doccheck_init(struct doccheck *c, char *err, size_t errlen);
void doccheck_fini(struct doccheck *c);

/* Forget the problems found so far. */
void doccheck_reset(struct doccheck *c);

size_t doccheck_links(struct doccheck *c, const struct mdoc *d);
size_t doccheck_paths(struct doccheck *c, const struct mdoc *d);
size_t doccheck_ini(struct doccheck *c, const struct mdoc *d);
size_t doccheck_json(struct doccheck *c, const struct mdoc *d);
size_t doccheck_c(struct doccheck *c, const struct mdoc *d);
size_t doccheck_sh(struct doccheck *c, const struct mdoc *d);
/* Over all the pages together: one config table, a table per driver. */
size_t doccheck_keys(struct doccheck *c, const struct mdoc *docs, size_t ndocs);

#endif
