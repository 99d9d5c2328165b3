/*
 * rw_conninfo.h -- libpq connection strings without libpq.
 *
 * Both syntaxes libpq accepts: `key=value ...` (values bare, or single-
 * quoted with \' and \\ escapes; backslash escapes in bare values too) and
 * URIs `postgresql://[user[:password]@][host[:port][,...]][/dbname][?k=v&...]`
 * (also `postgres://`; percent-decoding; IPv6 in brackets). Then the PG*
 * environment variables for every key the string leaves out (a key given
 * even as '' is not looked up), then libpq's defaults (rw_params_defaults).
 *
 * TLS keys (sslmode, sslrootcert, sslcert, sslkey, sslpassword, sslcrl,
 * sslcrldir, sslsni, ssl_min/max_protocol_version, channel_binding) are
 * kept for rw_tls.h and rw_auth.h. Keys libpq knows but that mean nothing
 * without GSS/keepalive support are accepted and ignored, except where
 * ignoring them would weaken what the user asked for: gssencmode=require
 * and service are refused.
 * requiressl is libpq's deprecated spelling: a value starting with '1' sets
 * sslmode=require, any other sslmode=prefer (a later key wins, as in libpq);
 * PGREQUIRESSL starting with '1' means sslmode=require when neither sslmode
 * nor PGSSLMODE is given. requirepeer is kept for rw_conn's peer check.
 *
 * Ownership: struct rw_params owns every string it points to (malloc'd);
 * rw_params_free releases them. Error messages name keys, never values (a
 * value may be a password).
 */
#ifndef RW_CONNINFO_H
#define RW_CONNINFO_H

#include <stddef.h>

enum rw_param {
    RW_P_HOST,
    RW_P_HOSTADDR,
    RW_P_PORT,
    RW_P_USER,
    RW_P_DBNAME,
    RW_P_PASSWORD,
    RW_P_PASSFILE,
    RW_P_CONNECT_TIMEOUT,
    RW_P_APPLICATION_NAME,
    RW_P_FALLBACK_APPLICATION_NAME,
    RW_P_OPTIONS,
    RW_P_CLIENT_ENCODING,
    RW_P_SSLMODE,
    RW_P_GSSENCMODE,
    RW_P_CHANNEL_BINDING,
    RW_P_TARGET_SESSION_ATTRS,
    RW_P_SERVICE,
    RW_P_REQUIRESSL,
    RW_P_REQUIREPEER,
    RW_P_SSL_MIN_PROTOCOL_VERSION, /* checked as libpq checks them; rw_tls.h */
    RW_P_SSL_MAX_PROTOCOL_VERSION,
    RW_P_SSLROOTCERT,              /* the TLS files and settings (rw_tls.h) */
    RW_P_SSLCERT,
    RW_P_SSLKEY,
    RW_P_SSLPASSWORD,
    RW_P_SSLCRL,
    RW_P_SSLCRLDIR,
    RW_P_SSLSNI,
    RW_P_COUNT
};

struct rw_params {
    char *v[RW_P_COUNT]; /* NULL: not given */
    /* The string could hold a password (a password key, or a URI with an
     * '@'): later messages (a bad port) then quote no value of it. */
    int secret_in_string;
};

/* The keyword of a parameter ("host"). */
const char *rw_param_name(enum rw_param p);

/* The environment variable libpq reads for p (PGHOST ...), or NULL when
 * there is none (fallback_application_name). */
const char *rw_param_env(enum rw_param p);

/* Parse `conninfo` ("" allowed) into *p (zeroed first). 0, or -1 with err
 * set (and *p freed). */
int rw_conninfo_parse(const char *conninfo, struct rw_params *p, char *err, size_t errlen);

/* Fill every parameter still NULL from its PG* environment variable. -1 on
 * out of memory. */
int rw_params_from_env(struct rw_params *p);

/* Check values and fill the defaults: port 5432, user the OS user, dbname
 * the user. Refuses what libpq refuses when connecting (a value of sslmode,
 * gssencmode, channel_binding, target_session_attrs, ssl_*_protocol_version
 * or connect_timeout it does not accept, "" included), then what rawwire
 * cannot honour (GSS encryption, target_session_attrs other than any,
 * services). 0, or -1 with err set. */
int rw_params_finish(struct rw_params *p, char *err, size_t errlen);

void rw_params_free(struct rw_params *p);

/* One place to try: the lists in host / hostaddr / port split by commas,
 * as libpq does (port may be one value for all hosts). */
struct rw_target {
    char *host;     /* "" for the default socket directory; owned */
    char *hostaddr; /* numeric address or ""; owned */
    char *port;     /* decimal; owned */
};

/* The targets of *p (after rw_params_finish). 0 with a malloc'd array in
 * *out (free with rw_targets_free), or -1 with err set. */
int rw_params_targets(const struct rw_params *p, struct rw_target **out, size_t *n, char *err,
                      size_t errlen);
void rw_targets_free(struct rw_target *t, size_t n);

/* The default unix socket directory (Debian's libpq: /var/run/postgresql). */
#define RW_DEFAULT_SOCKET_DIR "/var/run/postgresql"

#endif /* RW_CONNINFO_H */
