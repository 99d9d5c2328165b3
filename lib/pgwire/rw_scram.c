/*
 * rw_scram.c -- see rw_scram.h.
 */
#include "rw_scram.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <stringprep.h>

#include "rw_err.h"

#define RW_SHA256_LEN 32
#define RW_NONCE_RAW 18

/* ---- base64 ------------------------------------------------------------- */

/* Encode n bytes into out (room for 4 * ((n + 2) / 3) + 1). */
static size_t rw_b64_encode(const unsigned char *in, size_t n, char *out)
{
    return (size_t)EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

/* Decode s[0..n) into out (room for 3 * n / 4); -1 if not base64. */
static int rw_b64_decode(const char *s, size_t n, unsigned char *out, size_t *outlen)
{
    int len;
    size_t pad = 0;

    if (n == 0 || n % 4 != 0 || n > 4096)
        return -1;
    len = EVP_DecodeBlock(out, (const unsigned char *)s, (int)n);
    if (len < 0)
        return -1;
    if (s[n - 1] == '=')
        pad++;
    if (s[n - 2] == '=')
        pad++;
    *outlen = (size_t)len - pad;
    return 0;
}

/* ---- helpers ------------------------------------------------------------ */

static int rw_hmac(const unsigned char *key, size_t keylen, const void *msg, size_t n,
                   unsigned char out[RW_SHA256_LEN])
{
    unsigned int len = 0;
    return HMAC(EVP_sha256(), key, (int)keylen, msg, n, out, &len) && len == RW_SHA256_LEN ? 0 : -1;
}

static int rw_sha256(const unsigned char *in, size_t n, unsigned char out[RW_SHA256_LEN])
{
    unsigned int len = 0;
    return EVP_Digest(in, n, out, &len, EVP_sha256(), NULL) && len == RW_SHA256_LEN ? 0 : -1;
}

/* The value of attribute `a` ("r", "s", "i" ...) in a comma-separated
 * SCRAM message, and its length; NULL if absent. */
static const char *rw_attr(const char *data, size_t n, char a, size_t *len)
{
    size_t i = 0;

    while (i < n) {
        size_t e = i;
        while (e < n && data[e] != ',')
            e++;
        if (e - i >= 2 && data[i] == a && data[i + 1] == '=') {
            *len = e - i - 2;
            return data + i + 2;
        }
        i = e + 1;
    }
    return NULL;
}

/* ---- SASLprep ----------------------------------------------------------- */

int rw_saslprep(const char *password, char **out, char *err, size_t errlen)
{
    const unsigned char *p = (const unsigned char *)password;
    char *prepped = NULL;
    int rc;

    while (*p && *p < 0x80)
        p++;
    if (*p) { /* non-ASCII: prepare it */
        rc = stringprep_profile(password, &prepped, "SASLprep", 0);
        if (rc == STRINGPREP_MALLOC_ERROR) {
            rw_errf(err, errlen, "out of memory (SASLprep)");
            return -1;
        }
        if (rc != STRINGPREP_OK || !prepped || !*prepped) {
            free(prepped); /* libpq: use the raw password */
            prepped = NULL;
        }
    }
    if (!prepped && !(prepped = strdup(password))) {
        rw_errf(err, errlen, "out of memory");
        return -1;
    }
    *out = prepped;
    return 0;
}

/* ---- the cost of the key derivation ------------------------------------- */

static long long rw_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* 0 if `iterations` PBKDF2 rounds fit in ns_left (< 0: no deadline), as
 * estimated from a timed derivation of RW_SCRAM_PROBE_ITERATIONS; -1 with
 * err set otherwise. */
static int rw_scram_check_cost(long iterations, long long ns_left, char *err, size_t errlen)
{
    unsigned char probe[RW_SHA256_LEN];
    long long t0, per;
    double est;

    if (ns_left < 0 || iterations <= RW_SCRAM_PROBE_ABOVE)
        return 0;
    t0 = rw_mono_ns();
    if (PKCS5_PBKDF2_HMAC("probe", 5, (const unsigned char *)"salt", 4, RW_SCRAM_PROBE_ITERATIONS,
                          EVP_sha256(), RW_SHA256_LEN, probe) != 1) {
        rw_errf(err, errlen, "SCRAM computation failed in libcrypto");
        return -1;
    }
    per = rw_mono_ns() - t0;
    est = (double)per * ((double)iterations / RW_SCRAM_PROBE_ITERATIONS);
    if (est + (double)per <= (double)ns_left)
        return 0;
    rw_errf(err, errlen, "timeout expired (connect_timeout): the server's SCRAM iteration count "
                         "%ld would take about %.1f s, %.1f s are left", iterations, est / 1e9,
            (double)(ns_left > 0 ? ns_left : 0) / 1e9);
    return -1;
}

/* ---- the exchange ------------------------------------------------------- */

int rw_scram_init(struct rw_scram *s, const char *user, const char *nonce,
                  const struct rw_scram_cb *cb, char *err, size_t errlen)
{
    char nbuf[4 * ((RW_NONCE_RAW + 2) / 3) + 1];
    const char *gs2 = "n,,";
    unsigned char cbin[64 + 32];
    size_t len, cblen;

    memset(s, 0, sizeof *s);
    if (!nonce) {
        unsigned char raw[RW_NONCE_RAW];
        if (RAND_bytes(raw, sizeof raw) != 1) {
            rw_errf(err, errlen, "could not generate a SCRAM nonce (RAND_bytes failed)");
            return -1;
        }
        rw_b64_encode(raw, sizeof raw, nbuf);
        nonce = nbuf;
    }
    if (strchr(user, ',') || strchr(user, '=')) {
        user = ""; /* would need =2C/=3D escaping; PostgreSQL ignores it anyway */
    }
    if (cb && cb->flag == 'y')
        gs2 = "y,,";
    else if (cb && cb->flag == 'p')
        gs2 = "p=tls-server-end-point,,";
    cblen = strlen(gs2);
    memcpy(cbin, gs2, cblen);
    if (cb && cb->flag == 'p') {
        if (cb->len > sizeof cbin - cblen) {
            rw_errf(err, errlen, "channel binding data too long (%zu bytes)", cb->len);
            return -1;
        }
        memcpy(cbin + cblen, cb->data, cb->len);
        cblen += cb->len;
    }
    len = strlen(gs2) + strlen(user) + strlen(nonce) + 16;
    s->client_nonce = strdup(nonce);
    s->client_first = malloc(len);
    s->cbind = malloc(4 * ((cblen + 2) / 3) + 1);
    if (!s->client_nonce || !s->client_first || !s->cbind) {
        rw_scram_free(s);
        rw_errf(err, errlen, "out of memory");
        return -1;
    }
    rw_b64_encode(cbin, cblen, s->cbind);
    snprintf(s->client_first, len, "%sn=%s,r=%s", gs2, user, nonce);
    s->client_first_bare = s->client_first + strlen(gs2);
    return 0;
}

int rw_scram_client_final(struct rw_scram *s, const char *password, const char *data, size_t n,
                          long long ns_left, char **out, size_t *outlen, char *err, size_t errlen)
{
    const char *r, *salt64, *iter;
    char *pw = NULL;
    size_t rlen, slen, ilen, cnlen = strlen(s->client_nonce);
    unsigned char salt[3072], salted[RW_SHA256_LEN], ckey[RW_SHA256_LEN], skey[RW_SHA256_LEN];
    unsigned char stored[RW_SHA256_LEN], csig[RW_SHA256_LEN], proof[RW_SHA256_LEN];
    size_t saltlen, authlen, wolen;
    char *authmsg = NULL, *final = NULL, itbuf[16], *end;
    long iterations;
    int rc = -1;

    *out = NULL;
    if (memchr(data, '\0', n) || rw_attr(data, n, 'm', &rlen)) {
        rw_errf(err, errlen, "malformed SCRAM server-first-message");
        return -1;
    }
    r = rw_attr(data, n, 'r', &rlen);
    salt64 = rw_attr(data, n, 's', &slen);
    iter = rw_attr(data, n, 'i', &ilen);
    if (!r || !salt64 || !iter || ilen == 0 || ilen >= sizeof itbuf) {
        rw_errf(err, errlen, "malformed SCRAM server-first-message");
        return -1;
    }
    if (rlen <= cnlen || memcmp(r, s->client_nonce, cnlen) != 0) {
        rw_errf(err, errlen, "SCRAM server nonce does not start with the client nonce");
        return -1;
    }
    memcpy(itbuf, iter, ilen);
    itbuf[ilen] = '\0';
    iterations = strtol(itbuf, &end, 10);
    if (*end || iterations < 1) {
        rw_errf(err, errlen, "malformed SCRAM iteration count");
        return -1;
    }
    if (iterations > RW_SCRAM_MAX_ITERATIONS) {
        rw_errf(err, errlen, "the server's SCRAM iteration count %ld is over rawwire's limit of %ld",
                iterations, RW_SCRAM_MAX_ITERATIONS);
        return -1;
    }
    if (slen > 4096 || rw_b64_decode(salt64, slen, salt, &saltlen) || saltlen == 0) {
        rw_errf(err, errlen, "malformed SCRAM salt");
        return -1;
    }
    if (rw_scram_check_cost(iterations, ns_left, err, errlen) ||
        rw_saslprep(password, &pw, err, errlen))
        return -1;

    /* client-final-message-without-proof = "c=" cbind ",r=" nonce (cbind is
     * "biws", b64("n,,"), without channel binding) */
    wolen = 2 + strlen(s->cbind) + 3 + rlen;
    authlen = strlen(s->client_first_bare) + 1 + n + 1 + wolen;
    authmsg = malloc(authlen + 1);
    final = malloc(wolen + 3 + 4 * ((RW_SHA256_LEN + 2) / 3) + 1);
    if (!authmsg || !final) {
        rw_errf(err, errlen, "out of memory");
        goto out;
    }
    memcpy(final, "c=", 2);
    memcpy(final + 2, s->cbind, strlen(s->cbind));
    memcpy(final + 2 + strlen(s->cbind), ",r=", 3);
    memcpy(final + wolen - rlen, r, rlen);
    snprintf(authmsg, authlen + 1, "%s,%.*s,%.*s", s->client_first_bare, (int)n, data, (int)wolen,
             final);

    if (PKCS5_PBKDF2_HMAC(pw, (int)strlen(pw), salt, (int)saltlen, (int)iterations, EVP_sha256(),
                          RW_SHA256_LEN, salted) != 1 ||
        rw_hmac(salted, RW_SHA256_LEN, "Client Key", 10, ckey) ||
        rw_sha256(ckey, RW_SHA256_LEN, stored) ||
        rw_hmac(stored, RW_SHA256_LEN, authmsg, authlen, csig) ||
        rw_hmac(salted, RW_SHA256_LEN, "Server Key", 10, skey) ||
        rw_hmac(skey, RW_SHA256_LEN, authmsg, authlen, s->server_signature)) {
        rw_errf(err, errlen, "SCRAM computation failed in libcrypto");
        goto out;
    }
    s->have_signature = 1;
    for (int i = 0; i < RW_SHA256_LEN; i++)
        proof[i] = ckey[i] ^ csig[i];
    memcpy(final + wolen, ",p=", 3);
    *outlen = wolen + 3 + rw_b64_encode(proof, RW_SHA256_LEN, final + wolen + 3);
    *out = final;
    final = NULL;
    rc = 0;
out:
    OPENSSL_cleanse(salted, sizeof salted);
    OPENSSL_cleanse(ckey, sizeof ckey);
    OPENSSL_cleanse(skey, sizeof skey);
    OPENSSL_cleanse(stored, sizeof stored);
    OPENSSL_cleanse(csig, sizeof csig);
    OPENSSL_cleanse(proof, sizeof proof);
    if (pw) {
        OPENSSL_cleanse(pw, strlen(pw));
        free(pw);
    }
    free(authmsg);
    free(final);
    return rc;
}

int rw_scram_verify_final(const struct rw_scram *s, const char *data, size_t n, char *err,
                          size_t errlen)
{
    const char *v;
    size_t vlen, siglen;
    unsigned char sig[64];

    if ((v = rw_attr(data, n, 'e', &vlen)) != NULL) {
        rw_errf(err, errlen, "SCRAM authentication failed: server error \"%.*s\"",
                (int)(vlen > 64 ? 64 : vlen), v);
        return -1;
    }
    v = rw_attr(data, n, 'v', &vlen);
    if (!v || !s->have_signature || vlen > 64 || rw_b64_decode(v, vlen, sig, &siglen)) {
        rw_errf(err, errlen, "malformed SCRAM server-final-message");
        return -1;
    }
    if (siglen != RW_SHA256_LEN || CRYPTO_memcmp(sig, s->server_signature, RW_SHA256_LEN) != 0) {
        rw_errf(err, errlen, "SCRAM server signature does not match: the server does not know "
                             "the password (or the exchange was tampered with)");
        return -1;
    }
    return 0;
}

void rw_scram_free(struct rw_scram *s)
{
    free(s->client_first);
    free(s->client_nonce);
    free(s->cbind);
    OPENSSL_cleanse(s->server_signature, sizeof s->server_signature);
    memset(s, 0, sizeof *s);
}

int rw_md5_password(const char *user, const char *password, const unsigned char salt[4], char out[36])
{
    static const char hex[] = "0123456789abcdef";
    size_t ul = strlen(user), pl = strlen(password);
    unsigned char dig[16], inner[32 + 4];
    unsigned int len;
    unsigned char *buf = malloc(pl + ul + 1);
    int ok;

    if (!buf)
        return -1;
    memcpy(buf, password, pl);
    memcpy(buf + pl, user, ul);
    ok = EVP_Digest(buf, pl + ul, dig, &len, EVP_md5(), NULL) && len == 16;
    OPENSSL_cleanse(buf, pl + ul);
    free(buf);
    if (!ok)
        return -1;
    for (int i = 0; i < 16; i++) {
        inner[2 * i] = (unsigned char)hex[dig[i] >> 4];
        inner[2 * i + 1] = (unsigned char)hex[dig[i] & 15];
    }
    memcpy(inner + 32, salt, 4);
    if (!EVP_Digest(inner, sizeof inner, dig, &len, EVP_md5(), NULL) || len != 16)
        return -1;
    memcpy(out, "md5", 3);
    for (int i = 0; i < 16; i++) {
        out[3 + 2 * i] = hex[dig[i] >> 4];
        out[4 + 2 * i] = hex[dig[i] & 15];
    }
    out[35] = '\0';
    OPENSSL_cleanse(inner, sizeof inner);
    return 0;
}
