/* loader.c -- see loader.h. */
#include "loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

/* The ABI 1.0 operations every driver must set, with their offsets. */
static const struct {
    const char *name;
    size_t offset;
} required_ops[] = {
    {"open", offsetof(struct pgcb_driver, open)},
    {"close", offsetof(struct pgcb_driver, close)},
    {"prepare", offsetof(struct pgcb_driver, prepare)},
    {"run_batch", offsetof(struct pgcb_driver, run_batch)},
};

static int reject(void *handle, char *err, size_t errlen, const char *label, const char *path,
                  const char *reason)
{
    /* reason may point into dlerror()'s buffer: format before dlclose(). */
    snprintf(err, errlen, "driver %s (%s): %s", label, path, reason);
    if (handle)
        dlclose(handle);
    return -1;
}

static int valid_driver_name(const char *s)
{
    if (!s[0])
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

int pgcb_loader_open(const char *label, const char *path, struct pgcb_loaded *out,
                     char *err, size_t errlen)
{
    char why[PGCB_ERRLEN];
    struct stat st;
    *out = (struct pgcb_loaded){0};

    if (stat(path, &st) != 0) {
        snprintf(why, sizeof why, "cannot open: %s (build it with 'make'?)", strerror(errno));
        return reject(NULL, err, errlen, label, path, why);
    }
    if (!S_ISREG(st.st_mode))
        return reject(NULL, err, errlen, label, path, "not a regular file");

    /* dlopen() searches the library path for names without a slash. */
    char *full = strchr(path, '/') ? pgcb_xstrdup(path) : pgcb_xasprintf("./%s", path);
    void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    free(full);
    if (!h) {
        const char *e = dlerror();
        /* A symbol of ours the driver did not link: pgcb/value.h's out-of-line
         * conversions live in libpgcbvalue.a. */
        const char *hint = e && strstr(e, "undefined symbol: pgcb_")
                               ? " (the driver uses pgcb/value.h's conversions without "
                                 "linking their library: link it with `pkg-config --libs "
                                 "pgclientbench`, i.e. -lpgcbvalue; docs/install.md)"
                               : "";
        snprintf(why, sizeof why, "dlopen failed: %s%s", e ? e : "unknown error", hint);
        return reject(NULL, err, errlen, label, path, why);
    }

    dlerror();
    void *sym = dlsym(h, PGCB_DRIVER_ENTRY_SYMBOL);
    if (!sym)
        return reject(h, err, errlen, label, path,
                      "no entry symbol " PGCB_DRIVER_ENTRY_SYMBOL "(): not a pgclientbench "
                      "driver, or built without PGCB_EXPORT");
    pgcb_driver_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* object pointer to function pointer */
    const struct pgcb_driver *d = entry();
    if (!d)
        return reject(h, err, errlen, label, path, PGCB_DRIVER_ENTRY_SYMBOL "() returned NULL");

    if (d->magic != PGCB_DRIVER_MAGIC) {
        snprintf(why, sizeof why, "bad magic 0x%08x (expected 0x%08x): not a pgclientbench "
                 "driver descriptor", (unsigned)d->magic, PGCB_DRIVER_MAGIC);
        return reject(h, err, errlen, label, path, why);
    }
    if (d->abi_major != PGCB_ABI_MAJOR) {
        snprintf(why, sizeof why, "ABI major version mismatch: runner has %d.%d, driver has "
                 "%u.%u; rebuild the driver against this include/pgcb/driver.h",
                 PGCB_ABI_MAJOR, PGCB_ABI_MINOR, (unsigned)d->abi_major,
                 (unsigned)d->abi_minor);
        return reject(h, err, errlen, label, path, why);
    }
    if (d->struct_size < PGCB_DRIVER_SIZE_1_0) {
        snprintf(why, sizeof why, "descriptor too small: struct_size %u, ABI %d.0 needs at "
                 "least %zu", (unsigned)d->struct_size, PGCB_ABI_MAJOR,
                 (size_t)PGCB_DRIVER_SIZE_1_0);
        return reject(h, err, errlen, label, path, why);
    }
    if (!d->name || !valid_driver_name(d->name))
        return reject(h, err, errlen, label, path,
                      "descriptor has no valid name (required, [a-z0-9_]+)");
    if (!d->version || !d->links)
        return reject(h, err, errlen, label, path,
                      "descriptor lacks version or links (both required)");
    for (size_t i = 0; i < sizeof required_ops / sizeof required_ops[0]; i++) {
        void (*op)(void);
        memcpy(&op, (const char *)d + required_ops[i].offset, sizeof op);
        if (!op) {
            snprintf(why, sizeof why, "required operation %s is missing (NULL)",
                     required_ops[i].name);
            return reject(h, err, errlen, label, path, why);
        }
    }
    if ((d->caps & PGCB_CAP_SELF_TIMED) && !PGCB_DRIVER_HAS(d, 2, run_block))
        return reject(h, err, errlen, label, path,
                      "required operation run_block is missing (NULL): the descriptor has "
                      "PGCB_CAP_SELF_TIMED (ABI 1.2)");
    out->handle = h;
    out->drv = d;
    return 0;
}

void pgcb_loader_close(struct pgcb_loaded *l)
{
    if (l->handle)
        dlclose(l->handle);
    *l = (struct pgcb_loaded){0};
}

void pgcb_loader_caps_str(unsigned caps, char *buf, size_t n)
{
    static const struct {
        unsigned bit;
        const char *word;
    } names[] = {{PGCB_CAP_PIPELINE, "pipeline"},
                 {PGCB_CAP_NO_IO, "no-io"},
                 {PGCB_CAP_REFERENCE, "reference"},
                 {PGCB_CAP_SELF_TIMED, "self-timed"}};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (caps & names[i].bit)
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     names[i].word);
    if (!buf[0])
        snprintf(buf, n, "none");
}
