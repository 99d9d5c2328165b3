/*
 * rw_tls_name.c -- see rw_tls_name.h.
 */
#include "rw_tls_name.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/x509v3.h>

#include <pgcb/driver.h>

#include "rw_err.h"

static int rw_is_ip(const char *host)
{
    unsigned char buf[16];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

/* libpq's wildcard_certificate_match: "*.rest" matches "label.rest" where
 * label has no dot. */
static int rw_wildcard_match(const char *pattern, const char *s)
{
    size_t lp = strlen(pattern), ls = strlen(s);

    if (lp < 3 || pattern[0] != '*' || pattern[1] != '.' || lp > ls)
        return 0;
    if (strcasecmp(pattern + 1, s + ls - lp + 1) != 0)
        return 0;
    return !(strchr(s, '.') < s + ls - lp);
}

/* One dNSName or common name: 1 match, 0 not, -1 error (err set). *name
 * gets a malloc'd NUL-terminated copy for the message (or NULL). */
static int rw_name_match(const ASN1_STRING *entry, const char *host, char **name, char *err,
                         size_t errlen)
{
    const unsigned char *d;
    int len;

    *name = NULL;
    if (!entry) {
        rw_errf(err, errlen, "SSL certificate's name entry is missing");
        return -1;
    }
    d = ASN1_STRING_get0_data(entry);
    len = ASN1_STRING_length(entry);
    if (len < 0 || !(*name = malloc((size_t)len + 1))) {
        rw_errf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(*name, d, (size_t)len);
    (*name)[len] = '\0';
    if (strlen(*name) != (size_t)len) {
        free(*name);
        *name = NULL;
        rw_errf(err, errlen, "SSL certificate's name contains embedded null");
        return -1;
    }
    return strcasecmp(*name, host) == 0 || rw_wildcard_match(*name, host);
}

/* One iPAddress: as rw_name_match. */
static int rw_ip_match(const ASN1_OCTET_STRING *ip, const char *host, char **name, char *err,
                       size_t errlen)
{
    const unsigned char *d = ASN1_STRING_get0_data(ip);
    int len = ASN1_STRING_length(ip), match = 0, family;
    unsigned char want[16];
    char text[64];

    *name = NULL;
    if (len == 4) {
        family = AF_INET;
        match = inet_pton(AF_INET, host, want) == 1 && memcmp(d, want, 4) == 0;
    } else if (len == 16) {
        family = AF_INET6;
        match = inet_pton(AF_INET6, host, want) == 1 && memcmp(d, want, 16) == 0;
    } else {
        rw_errf(err, errlen, "certificate contains IP address with invalid length %d", len);
        return -1;
    }
    if (!inet_ntop(family, d, text, sizeof text) || !(*name = strdup(text))) {
        rw_errf(err, errlen, "could not convert certificate's IP address to string");
        return -1;
    }
    return match;
}

/* Keep the first name seen (for the message); free the others. */
static void rw_keep_first(char **first, char *name)
{
    if (!*first)
        *first = name;
    else
        free(name);
}

int rw_tls_name_check(X509 *peer, const char *host, char *err, size_t errlen)
{
    GENERAL_NAMES *sans;
    int host_type, check_cn = 1, rc = 0, examined = 0;
    char *first = NULL;

    if (!host || !*host) {
        rw_errf(err, errlen, "host name must be specified for a verified SSL connection");
        return PGCB_ERR_CONNECT;
    }
    host_type = rw_is_ip(host) ? GEN_IPADD : GEN_DNS;
    sans = X509_get_ext_d2i(peer, NID_subject_alt_name, NULL, NULL);
    for (int i = 0; sans && i < sk_GENERAL_NAME_num(sans); i++) {
        const GENERAL_NAME *g = sk_GENERAL_NAME_value(sans, i);
        char *name = NULL;
        if (g->type == host_type)
            check_cn = 0;
        if (g->type == GEN_DNS) {
            examined++;
            rc = rw_name_match(g->d.dNSName, host, &name, err, errlen);
        } else if (g->type == GEN_IPADD) {
            examined++;
            rc = rw_ip_match(g->d.iPAddress, host, &name, err, errlen);
        }
        rw_keep_first(&first, name);
        if (rc != 0) { /* a match or an error: no common name */
            check_cn = 0;
            break;
        }
    }
    GENERAL_NAMES_free(sans);
    if (check_cn) {
        X509_NAME *subject = X509_get_subject_name(peer);
        int idx = subject ? X509_NAME_get_index_by_NID(subject, NID_commonName, -1) : -1;
        if (idx >= 0) {
            char *name = NULL;
            examined++;
            rc = rw_name_match(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, idx)), host,
                               &name, err, errlen);
            rw_keep_first(&first, name);
        }
    }
    if (rc == 0) {
        if (examined > 1)
            rw_errf(err, errlen, "server certificate for \"%s\" (and %d other name%s) does not match "
                                 "host name \"%s\"", first, examined - 1, examined == 2 ? "" : "s",
                    host);
        else if (examined == 1)
            rw_errf(err, errlen, "server certificate for \"%s\" does not match host name \"%s\"",
                    first, host);
        else
            rw_errf(err, errlen, "could not get server's host name from server certificate");
    }
    free(first);
    return rc == 1 ? PGCB_OK : PGCB_ERR_CONNECT;
}
