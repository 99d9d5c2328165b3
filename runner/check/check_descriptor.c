/*
 * check_descriptor.c -- the driver conformance suite (check.h): the tasks
 * load (the runner's loader accepts the file) and descriptor (each field of
 * struct pgcb_driver: magic, ABI, size, name, version, links, description,
 * capabilities, options). Neither needs a server.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"
#include "proto.h"
#include "host/loader.h"
#include "util.h"

/* A string of the descriptor: printable, one line (UTF-8 allowed). */
static int printable_line(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

static int valid_key(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

/* A slot (instance, protocol) refused the section's options: the load
 * check fails with the driver's message, quoted as the checks quote. */
static void slot_refused(struct chk *c, size_t i, const char *slot, const char *why)
{
    char qm[300];
    pgcb_chk_result(c, i, 0, "%s() refused the options: %s", slot,
                    pgcb_chk_quote_msg(qm, sizeof qm, why, PGCB_ERRLEN));
}

/* Fill an error buffer of errlen bytes plus the canary. */
void pgcb_chk_task_load(struct chk *c)
{
    char err[PGCB_ERRLEN], caps[96];
    size_t i = pgcb_chk_plan(c, "load");
    pgcb_chk_begin(c, i);
    pgcb_chk_phase(c, "load");
    if (pgcb_loader_open(c->label, c->path, &c->ld, err, sizeof err) != 0) {
        /* Refused: say whether the file loads at all. */
        char *full = strchr(c->path, '/') ? pgcb_xstrdup(c->path)
                                          : pgcb_xasprintf("./%s", c->path);
        void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
        free(full);
        if (!h)
            pgcb_chk_send(c, 'D', "unloadable");
        pgcb_chk_result(c, i, 0, "%s", err);
        return;
    }
    const struct pgcb_driver *d = c->ld.drv;
    /* What a run makes of it with these options (ABI 1.2 instance). */
    unsigned dcaps = d->caps;
    char links[PGCB_LINKS_LEN + 16] = "";
    if (PGCB_DRIVER_HAS(d, 2, instance)) {
        struct pgcb_instance in;
        memset(&in, 0, sizeof in);
        char why[PGCB_ERRLEN + CHK_CANARY];
        pgcb_chk_phase(c, "instance");
        int rc = d->instance(c->opts, c->nopts, &in, pgcb_chk_err_reset(why, PGCB_ERRLEN),
                             PGCB_ERRLEN);
        if (rc != PGCB_OK) {
            slot_refused(c, i, "instance", why);
            return;
        }
        dcaps = in.caps;
        in.links[sizeof in.links - 1] = '\0';
        if (in.links[0])
            snprintf(links, sizeof links, ", links: %s", in.links);
    }
    if ((dcaps & PGCB_CAP_SELF_TIMED) && !PGCB_DRIVER_HAS(d, 2, run_block)) {
        pgcb_chk_result(c, i, 0, "instance() says self-timed, but run_block is NULL");
        return;
    }
    /* What its connections ask of the server (ABI 1.3 protocol). */
    char asks[256] = "";
    if (PGCB_DRIVER_HAS(d, 3, protocol)) {
        struct pgcb_protocol pr;
        memset(&pr, 0, sizeof pr);
        char why[PGCB_ERRLEN + CHK_CANARY], odd[64];
        pgcb_chk_phase(c, "protocol");
        int rc = d->protocol(c->opts, c->nopts, &pr, pgcb_chk_err_reset(why, PGCB_ERRLEN),
                             PGCB_ERRLEN);
        if (rc != PGCB_OK) {
            slot_refused(c, i, "protocol", why);
            return;
        }
        if (pgcb_proto_out_of_range(&pr, odd, sizeof odd)) {
            pgcb_chk_result(c, i, 0, "protocol() says %s, which ABI %d.%d does not know", odd,
                            PGCB_ABI_MAJOR, PGCB_ABI_MINOR);
            return;
        }
        strcpy(asks, "; asks the server for: ");
        pgcb_proto_phrases(&pr, (1u << PGCB_PROTO_NFIELDS) - 1, asks + strlen(asks),
                           sizeof asks - strlen(asks));
    }
    pgcb_loader_caps_str(dcaps, caps, sizeof caps);
    pgcb_chk_send(c, 'D', "caps %u", dcaps);
    pgcb_chk_send(c, 'D', "abi_minor %u params %d block %d phase %d", (unsigned)d->abi_minor,
                  PGCB_DRIVER_HAS(d, 1, run_batch_params) ? 1 : 0,
                  (dcaps & PGCB_CAP_SELF_TIMED) ? 1 : 0, PGCB_DRIVER_HAS(d, 2, phase) ? 1 : 0);
    pgcb_chk_send(c, 'D', "copy %d", PGCB_DRIVER_HAS(d, 4, run_copy) ? 1 : 0);
    pgcb_chk_send(c, 'D', "load %d",
                  PGCB_DRIVER_HAS(d, 5, pool_open) && PGCB_DRIVER_HAS(d, 5, run_load) ? 1 : 0);
    pgcb_chk_result(c, i, 1, "%s %s (ABI %u.%u), caps: %s%s%s%s", d->name, d->version,
                    (unsigned)d->abi_major, (unsigned)d->abi_minor, caps, links, asks,
                    PGCB_DRIVER_HAS(d, 4, run_copy) ? "; COPY FROM STDIN (run_copy)" : "");
}

void pgcb_chk_task_descriptor(struct chk *c)
{
    size_t i_magic = pgcb_chk_plan(c, "magic"), i_abi = pgcb_chk_plan(c, "abi"),
           i_size = pgcb_chk_plan(c, "struct_size"), i_name = pgcb_chk_plan(c, "name"),
           i_version = pgcb_chk_plan(c, "version"), i_links = pgcb_chk_plan(c, "links"),
           i_desc = pgcb_chk_plan(c, "description"), i_caps = pgcb_chk_plan(c, "caps"),
           i_opts = pgcb_chk_plan(c, "options");
    const struct pgcb_driver *d = pgcb_chk_load_checked(c);
    if (!d)
        return;

    pgcb_chk_begin(c, i_magic);
    pgcb_chk_result(c, i_magic, d->magic == PGCB_DRIVER_MAGIC, "0x%08x%s", (unsigned)d->magic,
                    d->magic == PGCB_DRIVER_MAGIC ? " (\"PGCB\")" : ", expected PGCB_DRIVER_MAGIC");

    pgcb_chk_begin(c, i_abi);
    if (d->abi_major != PGCB_ABI_MAJOR)
        pgcb_chk_result(c, i_abi, 0, "%u.%u: this runner has ABI %d.%d", (unsigned)d->abi_major,
                        (unsigned)d->abi_minor, PGCB_ABI_MAJOR, PGCB_ABI_MINOR);
    else if (d->abi_minor > PGCB_ABI_MINOR)
        pgcb_chk_result(c, i_abi, 1, "%u.%u (this runner: %d.%d; slots added later are not used)",
                        (unsigned)d->abi_major, (unsigned)d->abi_minor, PGCB_ABI_MAJOR,
                        PGCB_ABI_MINOR);
    else
        pgcb_chk_result(c, i_abi, 1, "%u.%u (this runner: %d.%d)", (unsigned)d->abi_major,
                        (unsigned)d->abi_minor, PGCB_ABI_MAJOR, PGCB_ABI_MINOR);

    pgcb_chk_begin(c, i_size);
    size_t ours = sizeof(struct pgcb_driver);
    if (d->struct_size < PGCB_DRIVER_SIZE_1_0)
        pgcb_chk_result(c, i_size, 0, "%u bytes, smaller than an ABI %d.0 descriptor (%zu)",
                        (unsigned)d->struct_size, PGCB_ABI_MAJOR, (size_t)PGCB_DRIVER_SIZE_1_0);
    else if (d->abi_minor == PGCB_ABI_MINOR && d->struct_size != ours)
        pgcb_chk_result(c, i_size, 0, "%u bytes, but sizeof(struct pgcb_driver) is %zu for "
                        "ABI %d.%d: set .struct_size = sizeof(struct pgcb_driver)",
                        (unsigned)d->struct_size, ours, PGCB_ABI_MAJOR, PGCB_ABI_MINOR);
    else if (d->abi_minor > PGCB_ABI_MINOR && d->struct_size < ours)
        pgcb_chk_result(c, i_size, 0, "%u bytes for ABI %u.%u, less than this runner's %zu",
                        (unsigned)d->struct_size, (unsigned)d->abi_major, (unsigned)d->abi_minor,
                        ours);
    else
        pgcb_chk_result(c, i_size, 1, "%u bytes (sizeof(struct pgcb_driver) here: %zu)",
                        (unsigned)d->struct_size, ours);

    pgcb_chk_begin(c, i_name);
    pgcb_chk_result(c, i_name, d->name && valid_key(d->name), "\"%s\"%s",
                    d->name ? d->name : "(null)",
                    d->name && valid_key(d->name) ? " ([a-z0-9_]+)" : ": must be [a-z0-9_]+");

    pgcb_chk_begin(c, i_version);
    if (!d->version)
        pgcb_chk_result(c, i_version, 0, "NULL (required, e.g. \"1.0.0\")");
    else if (!d->version[0])
        pgcb_chk_result(c, i_version, 0, "empty (required, e.g. \"1.0.0\")");
    else if (!printable_line(d->version))
        pgcb_chk_result(c, i_version, 0, "contains control characters (one printable line)");
    else
        pgcb_chk_result(c, i_version, 1, "\"%s\"", d->version);

    pgcb_chk_begin(c, i_links);
    if (!d->links)
        pgcb_chk_result(c, i_links, 0, "NULL (required; \"\" for nothing)");
    else if (!printable_line(d->links))
        pgcb_chk_result(c, i_links, 0, "contains control characters (one printable line)");
    else
        pgcb_chk_result(c, i_links, 1, "\"%s\"%s", d->links,
                        d->links[0] ? "" : " (links nothing)");

    pgcb_chk_begin(c, i_desc);
    if (!d->description)
        pgcb_chk_result(c, i_desc, 1, "none (optional)");
    else if (!d->description[0] || !printable_line(d->description))
        pgcb_chk_result(c, i_desc, 0, "must be NULL or one non-empty printable line");
    else
        pgcb_chk_result(c, i_desc, 1, "\"%s\"", d->description);

    pgcb_chk_begin(c, i_caps);
    unsigned known = PGCB_CAP_PIPELINE | PGCB_CAP_NO_IO | PGCB_CAP_REFERENCE |
                     PGCB_CAP_SELF_TIMED;
    char caps[96];
    pgcb_loader_caps_str(d->caps & known, caps, sizeof caps);
    if (d->caps & ~known)
        pgcb_chk_result(c, i_caps, 0, "unknown capability bits 0x%x (known: pipeline 0x%x, "
                        "no-io 0x%x, reference 0x%x, self-timed 0x%x)",
                        (unsigned)(d->caps & ~known), PGCB_CAP_PIPELINE, PGCB_CAP_NO_IO,
                        PGCB_CAP_REFERENCE, PGCB_CAP_SELF_TIMED);
    else if ((d->caps & PGCB_CAP_SELF_TIMED) && !PGCB_DRIVER_HAS(d, 2, run_block))
        pgcb_chk_result(c, i_caps, 0, "self-timed, but run_block is not set (ABI 1.2)");
    else
        pgcb_chk_result(c, i_caps, 1, "%s", caps);

    pgcb_chk_begin(c, i_opts);
    if (!d->options) {
        pgcb_chk_result(c, i_opts, 1, "none");
        return;
    }
    size_t n = 0;
    const struct pgcb_option_spec *o = d->options;
    for (; o[n].key; n++) {
        const struct pgcb_option_spec *s = &o[n];
        if (n >= 256) {
            pgcb_chk_result(c, i_opts, 0, "no NULL-key entry within 256 options: the array "
                            "must end with {NULL, NULL, NULL}");
            return;
        }
        if (!valid_key(s->key)) {
            pgcb_chk_result(c, i_opts, 0, "option %zu: key \"%s\" is not [a-z0-9_]+", n + 1,
                            s->key);
            return;
        }
        if (strcmp(s->key, "path") == 0) {
            pgcb_chk_result(c, i_opts, 0, "option \"path\": the runner's own key, never passed "
                            "to a driver");
            return;
        }
        for (size_t k = 0; k < n; k++)
            if (strcmp(o[k].key, s->key) == 0) {
                pgcb_chk_result(c, i_opts, 0, "option \"%s\" declared twice", s->key);
                return;
            }
        if (!s->help || !s->help[0] || !printable_line(s->help)) {
            pgcb_chk_result(c, i_opts, 0, "option \"%s\": help must be one non-empty line", s->key);
            return;
        }
        if (s->default_value && !printable_line(s->default_value)) {
            pgcb_chk_result(c, i_opts, 0, "option \"%s\": default must be one line", s->key);
            return;
        }
    }
    char keys[256] = "";
    for (size_t k = 0; k < n; k++)
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", k ? ", " : "",
                 o[k].key);
    pgcb_chk_result(c, i_opts, 1, "%zu (%s): keys unique, each with help, NULL-terminated", n,
                    n ? keys : "empty list");
}
