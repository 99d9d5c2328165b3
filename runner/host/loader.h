/*
 * loader.h -- dlopen() a driver and check its descriptor, most basic first
 * (after PostgreSQL's dfmgr.c): file, dlopen, entry symbol, magic, ABI
 * major, struct size, required fields and operations.
 */
#ifndef PGCB_LOADER_H
#define PGCB_LOADER_H

#include <stddef.h>

#include "pgcb/driver.h"

struct pgcb_loaded {
    void *handle;                   /* from dlopen(); owned */
    const struct pgcb_driver *drv;  /* the descriptor; valid while handle is open */
};

/* Load the driver labelled `label` (its INI section name) from `path`.
 * On failure returns -1, leaves nothing open and writes one line into err:
 * "driver LABEL (PATH): REASON". */
int pgcb_loader_open(const char *label, const char *path, struct pgcb_loaded *out,
                     char *err, size_t errlen);

/* dlclose() the driver; accepts a zeroed struct. */
void pgcb_loader_close(struct pgcb_loaded *l);

/* Capability flags as words, e.g. "pipeline, reference" ("none" if 0). */
void pgcb_loader_caps_str(unsigned caps, char *buf, size_t n);

#endif
