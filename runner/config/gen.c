/* gen.c -- see gen.h. */
#include "gen.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s)
        return -1;
    *out = v;
    return 0;
}

int pgcb_gen_parse(const char *spec, struct pgcb_gen *g, char *err, size_t errlen)
{
    *g = (struct pgcb_gen){0};
    char *copy = pgcb_xstrdup(spec), *save = NULL;
    char *tok[3] = {NULL, NULL, NULL};
    char *kind = strtok_r(copy, " \t\n", &save);
    int rc = -1;
    if (!kind) {
        snprintf(err, errlen, "empty: use seq START [STEP], uniform LO HI, list V1 V2 ... "
                              "or text LEN");
        goto out;
    }
    if (strcmp(kind, "list") == 0) {
        g->kind = PGCB_GEN_LIST;
        for (char *w = strtok_r(NULL, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
            if (strlen(w) > PGCB_GEN_WORD_MAX) {
                snprintf(err, errlen, "list: a word longer than %d bytes", PGCB_GEN_WORD_MAX);
                goto out;
            }
            g->words = pgcb_xrealloc(g->words, (g->nwords + 1) * sizeof *g->words);
            g->word_len = pgcb_xrealloc(g->word_len, (g->nwords + 1) * sizeof *g->word_len);
            g->words[g->nwords] = pgcb_xstrdup(w);
            g->word_len[g->nwords++] = (int)strlen(w);
        }
        if (g->nwords == 0) {
            snprintf(err, errlen, "list: no values (list V1 V2 ...)");
            goto out;
        }
        rc = 0;
        goto out;
    }
    size_t n = 0;
    for (char *w = strtok_r(NULL, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
        if (n == 3) {
            snprintf(err, errlen, "%s: too many arguments", kind);
            goto out;
        }
        tok[n++] = w;
    }
    if (strcmp(kind, "seq") == 0) {
        g->kind = PGCB_GEN_SEQ;
        g->b = 1;
        if (n < 1 || n > 2 || parse_i64(tok[0], &g->a) || (n == 2 && parse_i64(tok[1], &g->b)) ||
            g->b == 0) {
            snprintf(err, errlen, "seq: expected START [STEP], integers, STEP not 0");
            goto out;
        }
    } else if (strcmp(kind, "uniform") == 0) {
        g->kind = PGCB_GEN_UNIFORM;
        if (n != 2 || parse_i64(tok[0], &g->a) || parse_i64(tok[1], &g->b) || g->b < g->a) {
            snprintf(err, errlen, "uniform: expected LO HI, integers, LO <= HI");
            goto out;
        }
    } else if (strcmp(kind, "text") == 0) {
        g->kind = PGCB_GEN_TEXT;
        if (n != 1 || parse_i64(tok[0], &g->a) || g->a < 0 || g->a > PGCB_GEN_TEXT_MAX) {
            snprintf(err, errlen, "text: expected LEN, an integer from 0 to %d",
                     PGCB_GEN_TEXT_MAX);
            goto out;
        }
    } else {
        snprintf(err, errlen, "unknown generator '%.40s' (known: seq, uniform, list, text)",
                 kind);
        goto out;
    }
    rc = 0;
out:
    free(copy);
    if (rc)
        pgcb_gen_free(g);
    return rc;
}

void pgcb_gen_free(struct pgcb_gen *g)
{
    for (size_t i = 0; i < g->nwords; i++)
        free(g->words[i]);
    free(g->words);
    free(g->word_len);
    *g = (struct pgcb_gen){0};
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void pgcb_rng_seed(struct pgcb_rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c,
                   uint64_t d)
{
    uint64_t x = seed;
    uint64_t parts[4] = {a, b, c, d};
    for (int i = 0; i < 4; i++)
        x = splitmix64(&x) ^ parts[i];
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t pgcb_rng_next(struct pgcb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t pgcb_rng_below(struct pgcb_rng *r, uint64_t n)
{
    /* Lemire's multiply-shift with rejection of the biased low range. */
    unsigned __int128 m = (unsigned __int128)pgcb_rng_next(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            m = (unsigned __int128)pgcb_rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

size_t pgcb_gen_max_len(const struct pgcb_gen *g)
{
    switch (g->kind) {
    case PGCB_GEN_SEQ:
    case PGCB_GEN_UNIFORM: return 21; /* "-9223372036854775808" and a NUL */
    case PGCB_GEN_TEXT: return (size_t)g->a + 1;
    case PGCB_GEN_LIST: return 0;     /* points at the word */
    case PGCB_GEN_ROWS: return 0;     /* points into the rows */
    }
    return 0;
}

/* Decimal text of v at p; returns its length. */
static int put_i64(char *p, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do
        tmp[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    int len = 0;
    if (v < 0)
        p[len++] = '-';
    while (n)
        p[len++] = tmp[--n];
    p[len] = '\0';
    return len;
}

void pgcb_gen_fill(const struct pgcb_gen *gens, size_t ngens, struct pgcb_rng *r,
                   _Atomic int64_t *seqs, size_t n, const char **values, int *lengths,
                   char *arena)
{
    int64_t first[ngens ? ngens : 1];
    for (size_t j = 0; j < ngens; j++)
        if (gens[j].kind == PGCB_GEN_SEQ)
            first[j] = atomic_fetch_add(&seqs[gens[j].seq_slot], (int64_t)n);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < ngens; j++) {
            const struct pgcb_gen *g = &gens[j];
            size_t k = i * ngens + j;
            switch (g->kind) {
            case PGCB_GEN_SEQ:
                /* Wraps like the two's complement it is, never traps. */
                values[k] = arena;
                lengths[k] = put_i64(arena, (int64_t)((uint64_t)g->a +
                                     (uint64_t)g->b * (uint64_t)(first[j] + (int64_t)i)));
                arena += lengths[k] + 1;
                break;
            case PGCB_GEN_UNIFORM: {
                uint64_t span = (uint64_t)g->b - (uint64_t)g->a;
                uint64_t off = span == UINT64_MAX ? pgcb_rng_next(r) : pgcb_rng_below(r, span + 1);
                values[k] = arena;
                lengths[k] = put_i64(arena, (int64_t)((uint64_t)g->a + off));
                arena += lengths[k] + 1;
                break;
            }
            case PGCB_GEN_LIST: {
                size_t w = g->nwords == 1 ? 0 : (size_t)pgcb_rng_below(r, g->nwords);
                values[k] = g->words[w];
                lengths[k] = g->word_len[w];
                break;
            }
            case PGCB_GEN_TEXT:
                values[k] = arena;
                for (int64_t c = 0; c < g->a; c++)
                    arena[c] = (char)('a' + pgcb_rng_below(r, 26));
                arena[g->a] = '\0';
                lengths[k] = (int)g->a;
                arena += g->a + 1;
                break;
            case PGCB_GEN_ROWS: {
                size_t at = (i % g->rows->nrows) * g->rows->ncols + (size_t)g->a;
                values[k] = g->rows->values[at];
                lengths[k] = g->rows->lengths[at];
                break;
            }
            }
        }
    }
}
