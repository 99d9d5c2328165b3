"""Failure replies.

An AdapterError is what a request handler raises to fail the request: it
carries the protocol's `kind` (config, connect, query, io, protocol,
unsupported), a message and, for `query`, the SQLSTATE. The session turns it
into {"ok": false, "kind": ..., "error": ..., "sqlstate": ...}; every message
goes through one_line() and the session's password scrubbing first.
"""

KINDS = ("config", "connect", "query", "io", "protocol", "unsupported")

# Longest message sent; the rest is cut with "...".
MAX_ERROR_CHARS = 1000


class AdapterError(Exception):
    """A failed request. kind: one of KINDS; sqlstate: required for "query"."""

    def __init__(self, kind, error, sqlstate=None):
        assert kind in KINDS, kind
        super().__init__(error)
        self.kind = kind
        self.error = str(error)
        self.sqlstate = sqlstate

    def reply(self, scrub=None):
        """The failure reply (a dict), its message one line and scrubbed."""
        msg = one_line(self.error)
        if scrub:
            msg = scrub(msg)
        out = {"ok": False, "kind": self.kind, "error": msg or self.kind + " error"}
        if self.sqlstate:
            out["sqlstate"] = self.sqlstate
        elif self.kind == "query":
            out["sqlstate"] = "XX000"  # the spec requires one; never expected here
        return out


def one_line(text) -> str:
    """text's non-empty lines, stripped, joined with "; ", at most MAX_ERROR_CHARS."""
    s = "; ".join(ln.strip() for ln in str(text).splitlines() if ln.strip())
    if len(s) > MAX_ERROR_CHARS:
        s = s[: MAX_ERROR_CHARS - 3] + "..."
    return s


def describe_exception(exc) -> str:
    """"TypeName: message" of an unexpected exception, for internal errors."""
    msg = one_line(exc)
    return type(exc).__name__ + (": " + msg if msg else "")
