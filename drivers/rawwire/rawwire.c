/*
 * rawwire.c -- the "rawwire" driver: PostgreSQL's v3 wire protocol spoken
 * directly (no libpq), pipelined. The descriptor and the ABI operations;
 * the work is in rw_conn.c (connect, startup, auth), rw_prepare.c (Parse +
 * Describe once; the batch's bytes, with or without parameters), rw_batch.c
 * + rw_reply.c (run_batch and run_batch_params: one write, replies parsed in
 * place), rw_copy.c (run_copy: the COPY in one write).
 */
#include <pthread.h>
#include <stdio.h>

#include <openssl/crypto.h>

#include <pgcb/driver.h>

#include "rw_batch.h"
#include "rw_copy.h"
#include "rw_pool.h"
#include "rw_stream.h"
#include "pgwire/rw_conn.h"
#include "pgwire/rw_options.h"

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void);

static int rawwire_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                        struct pgcb_conn **out, char *err, size_t errlen)
{
    struct rw_options o;
    int rc;

    *out = NULL;
    if ((rc = rw_parse_options("rawwire", opts, nopts, &o, err, errlen)) != PGCB_OK)
        return rc;
    return rw_conn_open(conninfo, &o, out, err, errlen);
}

static int rawwire_pool_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                             uint32_t nconns, struct pgcb_conn **out, char *err, size_t errlen)
{
    struct rw_options o;
    int rc;

    *out = NULL;
    if ((rc = rw_parse_options("rawwire", opts, nopts, &o, err, errlen)) != PGCB_OK)
        return rc;
    return rw_pool_open(conninfo, &o, nconns, out, err, errlen);
}

static char rawwire_links[96]; /* written once by rawwire_links_init */
static pthread_once_t rawwire_links_once = PTHREAD_ONCE_INIT;

static void rawwire_links_init(void)
{
    snprintf(rawwire_links, sizeof rawwire_links, "own protocol 3.0 code; %s (hashes)",
             OpenSSL_version(OPENSSL_VERSION));
}

static int rawwire_protocol(const struct pgcb_option *opts, size_t nopts, struct pgcb_protocol *out,
                          char *err, size_t errlen)
{
    return rw_protocol("rawwire", opts, nopts, out, err, errlen);
}

static const struct pgcb_driver rawwire_driver = {
    .magic = PGCB_DRIVER_MAGIC,
    .abi_major = PGCB_ABI_MAJOR,
    .abi_minor = PGCB_ABI_MINOR,
    .struct_size = sizeof(struct pgcb_driver),
    .caps = PGCB_CAP_PIPELINE,
    .name = "rawwire",
    .version = "1.0.0",
    .links = rawwire_links,
    .description = "hand-written v3 wire protocol: pipelined Bind/Execute/Sync, replies parsed in place",
    .options = rw_option_specs,
    .protocol = rawwire_protocol,
    .open = rawwire_open,
    .close = rw_pool_close,
    .prepare = rw_pool_prepare,
    .run_batch = rw_run_batch,
    .run_batch_params = rw_run_batch_params,
    .run_copy = rw_run_copy,
    .pool_open = rawwire_pool_open,
    .run_load = rw_pool_run_load,
    .run_stream = rw_run_stream,
};

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void)
{
    pthread_once(&rawwire_links_once, rawwire_links_init);
    return &rawwire_driver;
}
