'use strict';
// Failures as the bridge protocol reports them (docs/bridge-protocol.md,
// "Frames"): {"ok": false, "kind": ..., "error": one line, "sqlstate": ...}.
//
// Contract: every failure reply of the adapter is built by failureReply();
// it makes the message one line, bounds it and replaces the connection's
// password (registerSecret) with "***", whatever produced the message.

const KINDS = new Set(['config', 'connect', 'query', 'io', 'protocol', 'unsupported']);

// A failure with a protocol kind. `sqlstate` only for kind "query".
class AdapterError extends Error {
    constructor(kind, message, sqlstate) {
        super(message);
        if (!KINDS.has(kind)) throw new TypeError(`bad failure kind ${kind}`);
        this.kind = kind;
        this.sqlstate = sqlstate || null;
    }
}

// Secrets that must never leave the process in a message (the password of
// `connect`). Longest first, so that a secret containing another is replaced
// whole.
const secrets = [];

function registerSecret(s) {
    if (typeof s !== 'string' || s.length === 0 || secrets.includes(s)) return;
    secrets.push(s);
    secrets.sort((a, b) => b.length - a.length);
}

// One line, at most `max` characters, secrets replaced by "***".
function oneLine(msg, max = 1000) {
    let s = typeof msg === 'string' ? msg : String(msg);
    for (const secret of secrets) s = s.split(secret).join('***');
    s = s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
    if (s.length === 0) s = 'unknown error';
    if (s.length > max) s = s.slice(0, max - 3) + '...';
    return s;
}

// The message of anything thrown (an Error, an AggregateError of a failed
// connection attempt to several addresses, a string).
function messageOf(err) {
    if (err == null) return 'unknown error';
    if (typeof err !== 'object') return String(err);
    let msg = typeof err.message === 'string' && err.message !== '' ? err.message : '';
    if (msg === '' && Array.isArray(err.errors) && err.errors.length > 0) {
        msg = err.errors.map(messageOf).join('; ');
    }
    if (msg === '' && typeof err.code === 'string') msg = err.code;
    if (msg === '') msg = String(err);
    return msg;
}

// The failure reply for `err` (an AdapterError, or anything else: kind
// `fallbackKind`). `extra` adds fields (a failed block's partial results).
function failureReply(err, fallbackKind, extra) {
    const kind = err instanceof AdapterError ? err.kind : fallbackKind;
    const reply = { ok: false, kind, error: oneLine(messageOf(err)) };
    const sqlstate = err instanceof AdapterError ? err.sqlstate : null;
    if (sqlstate) reply.sqlstate = sqlstate;
    if (extra) Object.assign(reply, extra);
    return reply;
}

// A SQLSTATE as the server sends it: five digits or upper-case letters.
function isSqlstate(s) {
    return typeof s === 'string' && /^[0-9A-Z]{5}$/.test(s);
}

module.exports = { AdapterError, registerSecret, oneLine, messageOf, failureReply, isSqlstate };
