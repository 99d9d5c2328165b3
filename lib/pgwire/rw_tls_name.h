/*
 * rw_tls_name.h -- sslmode=verify-full's host name check, with libpq 15's
 * rules (fe-secure-common.c, pgtls_verify_peer_name_matches_certificate_guts):
 *
 *   - the subject alternative names of type dNSName and iPAddress are
 *     examined in order; a dNSName matches the host ignoring case, or as a
 *     wildcard "*.rest" that stands for exactly one leftmost label; an
 *     iPAddress (4 or 16 bytes) matches a host that is that numeric address;
 *   - the common name is examined only when no alternative name has the
 *     host's type (iPAddress for a numeric host, dNSName otherwise);
 *   - a name with an embedded NUL is an error, never a match.
 *
 * OpenSSL's X509_check_host differs (partial wildcards, no common-name
 * fallback for an IP host): these are the rules libpq users rely on.
 */
#ifndef RW_TLS_NAME_H
#define RW_TLS_NAME_H

#include <stddef.h>

#include <openssl/x509.h>

/* Does the server certificate `peer` name `host`? PGCB_OK, or
 * PGCB_ERR_CONNECT with libpq's message in err ("server certificate for
 * \"a\" (and 1 other name) does not match host name \"b\"", "host name must
 * be specified for a verified SSL connection" ...). */
int rw_tls_name_check(X509 *peer, const char *host, char *err, size_t errlen);

#endif /* RW_TLS_NAME_H */
