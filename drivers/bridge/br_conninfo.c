/*
 * br_conninfo.c -- the runner's conninfo, resolved by libpq exactly as the
 * C drivers' libpq resolves it (the PG* variables, service and password
 * files, several hosts): one connection is opened and closed, and what it
 * connected with becomes the protocol's "conn" object. See br_conn.h.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "br_conn.h"

/* A quiet libpq: its notices are not the bridge's to print. */
static void br_ignore_notice(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

json_t *br_conninfo_resolve(const char *conninfo, char **password, char *err, size_t errlen)
{
    *password = NULL;
    PGconn *pc = PQconnectdb(conninfo ? conninfo : "");
    if (!pc || PQstatus(pc) != CONNECTION_OK) {
        const char *m = pc ? PQerrorMessage(pc) : "out of memory";
        snprintf(err, errlen, "libpq (resolving the conninfo for the adapter): %s", m);
        for (char *p = err; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        size_t n = strlen(err);
        while (n && err[n - 1] == ' ')
            err[--n] = '\0';
        PQfinish(pc);
        return NULL;
    }
    PQsetNoticeProcessor(pc, br_ignore_notice, NULL);
    json_t *o = json_object();
    json_object_set_new(o, "host", json_string(PQhost(pc)));
    json_object_set_new(o, "port", json_string(PQport(pc)));
    json_object_set_new(o, "user", json_string(PQuser(pc)));
    json_object_set_new(o, "dbname", json_string(PQdb(pc)));
    json_object_set_new(o, "sslmode", json_string(PQsslInUse(pc) ? "require" : "disable"));
    const char *pw = PQpass(pc);
    if (pw && *pw) {
        json_object_set_new(o, "password", json_string(pw));
        *password = strdup(pw);
    }
    PQconninfoOption *opts = PQconninfo(pc);
    for (PQconninfoOption *k = opts; k && k->keyword; k++)
        if ((strcmp(k->keyword, "application_name") == 0 || strcmp(k->keyword, "options") == 0) &&
            k->val && *k->val)
            json_object_set_new(o, k->keyword, json_string(k->val));
    PQconninfoFree(opts);
    PQfinish(pc);
    return o;
}
