/*
 * test_rawwire_tls.c -- rawwire's TLS against libpq's, two ways:
 *
 *   test_rawwire_tls                  (as tests/run.sh runs it, unix socket)
 *       over the PG* server's unix socket, libpq never uses TLS, whatever
 *       sslmode says: rawwire connects in clear text for every sslmode as
 *       libpq_sync does, refuses a bad sslmode value as libpq does, and
 *       channel_binding=require fails for both (no TLS to bind to).
 *   test_rawwire_tls probe DRIVER CONNINFO [SQL [DEPTH [FORMAT]]]
 *       (tests/server/rawwire_tls.sh) open with driver DRIVER (rawwire,
 *       libpq_sync ...), run SQL (default: what pg_stat_ssl says of this
 *       session) DEPTH times (default 1) with result_format FORMAT (default
 *       text), and print one line: "ok ROWS HASH" (the checksum) or
 *       "fail STATUS MESSAGE". Exit 0 either way (2 on bad usage): the
 *       script compares the two drivers' lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/driver.h>

#include "../lib/drvtest.h"

#define TLS_SQL \
    "SELECT ssl, coalesce(version, ''), coalesce(cipher, '') FROM pg_stat_ssl " \
    "WHERE pid = pg_backend_pid()"

/* Open, prepare, one batch; the outcome as one line into out. */
static void probe(const struct pgcb_driver *d, const char *conninfo, const char *sql,
                  uint32_t depth, const char *format, char *out, size_t outlen)
{
    struct pgcb_option opt = {"result_format", format};
    struct pgcb_conn *c = NULL;
    struct pgcb_stmt *st = NULL;
    struct pgcb_sum s = {0, 0};
    char err[PGCB_ERRLEN] = "";
    int rc = d->open(conninfo, &opt, 1, &c, err, sizeof err);

    if (rc == PGCB_OK && (rc = d->prepare(c, "q", sql, &st, err, sizeof err)) == PGCB_OK)
        rc = d->run_batch(c, st, depth, &s, err, sizeof err);
    if (rc == PGCB_OK)
        snprintf(out, outlen, "ok %llu %016llx", (unsigned long long)s.rows,
                 (unsigned long long)s.hash);
    else
        snprintf(out, outlen, "fail %d %s", rc, err);
    d->close(c);
}

static int usage(void)
{
    fprintf(stderr, "usage: test_rawwire_tls [probe DRIVER CONNINFO [SQL [DEPTH [FORMAT]]]]\n");
    return 2;
}

/* Over the unix socket: rawwire and libpq_sync agree on every case. */
static int unix_cases(const struct pgcb_driver *rw, const struct pgcb_driver *pq)
{
    static const char *const cases[] = {
        "sslmode=disable", "sslmode=allow", "sslmode=prefer", "sslmode=require",
        "sslmode=verify-ca", "sslmode=verify-full", "sslmode=require sslrootcert=/nonexistent",
        "sslmode=require sslcert=/nonexistent sslkey=/nonexistent", "requiressl=1",
        "sslmode=bogus", "ssl_min_protocol_version=TLSv9", "channel_binding=require",
        "channel_binding=prefer", "channel_binding=disable sslmode=require",
    };
    int failures = 0;

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char a[PGCB_ERRLEN + 64], b[PGCB_ERRLEN + 64];
        probe(rw, cases[i], TLS_SQL, 1, "text", a, sizeof a);
        probe(pq, cases[i], TLS_SQL, 1, "text", b, sizeof b);
        /* the same outcome: the same row (ssl = f), or both refused */
        if (strncmp(a, b, 4) != 0 || (a[0] == 'o' && strcmp(a, b) != 0)) {
            fprintf(stderr, "test_rawwire_tls: over the unix socket, %s: rawwire \"%s\", "
                            "libpq \"%s\"\n", cases[i], a, b);
            failures++;
        } else {
            printf("  ok   unix %-55s %s\n", cases[i], a[0] == 'o' ? "connected, no TLS" : "refused");
        }
    }
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct drvtest_drv rw = {0}, pq = {0};
    int rc = 1;

    if (argc > 1) {
        char line[PGCB_ERRLEN + 64];
        struct drvtest_drv t = {0};
        if (argc < 4 || argc > 7 || strcmp(argv[1], "probe") != 0)
            return usage();
        if (drvtest_load(&t, argv[2])) {
            drvtest_unload(&t);
            return 1;
        }
        probe(t.d, argv[3], argc > 4 ? argv[4] : TLS_SQL, argc > 5 ? (uint32_t)atoi(argv[5]) : 1,
              argc > 6 ? argv[6] : "text", line, sizeof line);
        printf("%s\n", line);
        drvtest_unload(&t);
        return 0;
    }
    if (drvtest_require_server("test_rawwire_tls"))
        return 1;
    if (drvtest_load(&rw, "rawwire") == 0 && drvtest_load(&pq, "libpq_sync") == 0)
        rc = unix_cases(rw.d, pq.d);
    drvtest_unload(&rw);
    drvtest_unload(&pq);
    return rc;
}
