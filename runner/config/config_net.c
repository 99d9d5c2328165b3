/*
 * config_net.c -- a [suite.NAME]'s distance key (issue 41): rtt_ms = a list
 * of round-trip times in milliseconds, one group each (the innermost
 * dimension, after the transport), measured through the wire proxy
 * (build/pgcb-proxy, runner/server/wproxy.h) with half the RTT added each
 * way; 0 is loopback TCP through the proxy with no delay, the baseline of
 * every other RTT's expectation. [bench] rtt_ms is every suite's that has
 * none of its own (a suite with transport = unix alone keeps the socket).
 * See config_int.h for the contracts.
 */
#include "config_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int pgcb_cfgi_net_apply(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_rtts *s, const char *value)
{
    free(s->rtts);
    s->rtts = NULL;
    s->nrtts = 0;
    s->rtt_line = c->lineno;
    char *copy = pgcb_xstrdup(value), *save = NULL;
    int ok = 1;
    for (char *tok = strtok_r(copy, ", \t\n", &save); tok && ok;
         tok = strtok_r(NULL, ", \t\n", &save)) {
        char *end = NULL;
        double v = strtod(tok, &end);
        if (end == tok || *end || !isfinite(v) || v < 0 || v > PGCB_MAX_RTT_MS) {
            pgcb_cfgi_fail(c, "[%s] rtt_ms: '%s' is not a round-trip time in milliseconds from "
                              "0 to %d", c->section, tok, PGCB_MAX_RTT_MS);
            ok = 0;
            break;
        }
        for (size_t i = 0; i < s->nrtts; i++)
            if (s->rtts[i] == v) {
                pgcb_cfgi_fail(c, "[%s] rtt_ms: %s listed twice", c->section, tok);
                ok = 0;
            }
        if (ok && s->nrtts == PGCB_MAX_RTTS) {
            pgcb_cfgi_fail(c, "[%s] rtt_ms: more than %d values", c->section, PGCB_MAX_RTTS);
            ok = 0;
        }
        if (ok) {
            s->rtts = pgcb_xrealloc(s->rtts, (s->nrtts + 1) * sizeof *s->rtts);
            s->rtts[s->nrtts++] = v;
        }
    }
    free(copy);
    if (ok && s->nrtts == 0) {
        pgcb_cfgi_fail(c, "[%s] rtt_ms: empty (give round-trip times in milliseconds, or leave "
                          "the key out)", c->section);
        ok = 0;
    }
    return ok;
}

int pgcb_cfgi_net_check(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s)
{
    const struct pgcb_cfg_rtts *run = &c->cfg->rtt;
    if (!s->rtt.nrtts && run->nrtts && !(s->ntransports == 1 &&
                                         s->transports[0] == PGCB_TRANSPORT_UNIX)) {
        /* [bench] rtt_ms: every suite without its own (but one that asked
         * for the unix socket alone, which keeps it) */
        s->rtt.rtts = pgcb_xmalloc(run->nrtts * sizeof *s->rtt.rtts);
        memcpy(s->rtt.rtts, run->rtts, run->nrtts * sizeof *s->rtt.rtts);
        s->rtt.nrtts = run->nrtts;
        s->rtt.rtt_line = run->rtt_line;
    }
    if (!s->rtt.nrtts)
        return 0;
    if (s->ntransports == 0) {
        /* the proxy listens on TCP: the suite's transport is TCP */
        s->transports = pgcb_xmalloc(sizeof *s->transports);
        s->transports[0] = PGCB_TRANSPORT_TCP;
        s->ntransports = 1;
        s->transport_line = s->rtt.rtt_line;
        s->transport_by_rtt = 1;
        return 0;
    }
    for (size_t k = 0; k < s->ntransports; k++)
        if (s->transports[k] == PGCB_TRANSPORT_UNIX)
            PGCB_CFGI_FAIL_AT(c, s->rtt.rtt_line, "[suite.%s] rtt_ms: not with transport = unix "
                              "(line %d): the round-trip time is added by a proxy on "
                              "127.0.0.1, which clients reach over TCP", s->name,
                              s->transport_line);
    return 0;
}
