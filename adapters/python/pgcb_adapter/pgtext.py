"""PostgreSQL text input -> the Python values a typed client binds (asyncpg).

The bridge sends parameters as text, as the C drivers send them. asyncpg
encodes every parameter itself in binary, from a Python value of the
parameter's type (an int for int4 ...), and refuses a str there. So the
adapter converts each text to the type the prepared statement declares
(PreparedStatement.get_parameters()), as PostgreSQL's input function would
read it, raising ParamError with the SQLSTATE and message the server gives for
text it refuses (22P02 invalid syntax, 22003 out of range, 22007 bad
date/time). Conversions run before the timed batches (see clients/asyncpg_client).

converter(type_name) -> a function str -> value, or None when asyncpg takes
the text itself (text, varchar, name, json, jsonb, uuid, numeric ... and
every type this module does not know: asyncpg then decides, and refuses with
its DataError, SQLSTATE 22000).
"""
import datetime
import re

_WS = " \t\n\v\f\r"


class ParamError(Exception):
    def __init__(self, sqlstate, message):
        super().__init__(message)
        self.sqlstate = sqlstate
        self.message = message


_INT_RE = re.compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+[ \t\n\v\f\r]*\Z")
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_FLOAT_WORDS = {"nan": float("nan"), "infinity": float("inf"), "+infinity": float("inf"),
                "-infinity": float("-inf"), "inf": float("inf"), "+inf": float("inf"),
                "-inf": float("-inf")}


def _int(sqlname, lo, hi):
    def conv(s):
        if not _INT_RE.match(s):
            raise ParamError("22P02", 'invalid input syntax for type %s: "%s"' % (sqlname, s))
        v = int(s)
        if not lo <= v <= hi:
            raise ParamError("22003", 'value "%s" is out of range for type %s' % (s, sqlname))
        return v
    return conv


def _float(sqlname):
    def conv(s):
        t = s.strip(_WS)
        word = _FLOAT_WORDS.get(t.lower())
        if word is not None:
            return word
        if not _FLOAT_RE.match(t):
            raise ParamError("22P02", 'invalid input syntax for type %s: "%s"' % (sqlname, s))
        v = float(t)
        if v in (float("inf"), float("-inf")):
            raise ParamError("22003", '"%s" is out of range for type %s' % (t, sqlname))
        return v
    return conv


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def _bool(s):
    """PostgreSQL's parse_bool: a prefix of true/false/yes/no (at least two
    letters for on/off), 1 or 0; case-insensitive, whitespace trimmed."""
    t = s.strip(_WS).lower()
    if t:
        if t in ("on", "1") or (t[0] in "ty" and ("true".startswith(t) or "yes".startswith(t))):
            return True
        if t in ("0", "of", "off") or (t[0] in "fn" and ("false".startswith(t) or "no".startswith(t))):
            return False
    raise ParamError("22P02", 'invalid input syntax for type boolean: "%s"' % s)


def _bytea(s):
    """bytea's hex form \\x... or its escape form (\\\\ and \\ooo octal)."""
    if s.startswith("\\x"):
        try:
            return bytes.fromhex(s[2:])
        except ValueError:
            raise ParamError("22P02", 'invalid hexadecimal data: "%s"' % s) from None
    out = bytearray()
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
        elif s.startswith("\\\\", i):
            out.append(0x5C)
            i += 2
        elif re.match(r"\\[0-3][0-7][0-7]", s[i:i + 4]):
            out.append(int(s[i + 1:i + 4], 8))
            i += 4
        else:
            raise ParamError("22P02", "invalid input syntax for type bytea")
    return bytes(out)


def _datetime(sqlname, parse):
    def conv(s):
        try:
            return parse(s.strip(_WS))
        except ValueError:
            raise ParamError("22007", 'invalid input syntax for type %s: "%s"' % (sqlname, s)) from None
    return conv


_CONVERTERS = {
    "int2": _int("smallint", -(1 << 15), (1 << 15) - 1),
    "int4": _int("integer", -(1 << 31), (1 << 31) - 1),
    "int8": _int("bigint", -(1 << 63), (1 << 63) - 1),
    "oid": _int("oid", 0, (1 << 32) - 1),
    "float4": _float("real"),
    "float8": _float("double precision"),
    "bool": _bool,
    "bytea": _bytea,
    "date": _datetime("date", datetime.date.fromisoformat),
    "time": _datetime("time without time zone", datetime.time.fromisoformat),
    "timestamp": _datetime("timestamp without time zone", datetime.datetime.fromisoformat),
    "timestamptz": _datetime("timestamp with time zone", datetime.datetime.fromisoformat),
}


def converter(type_name: str, schema: str = "pg_catalog", kind: str = "scalar"):
    """The text -> value function for a parameter of this type, or None (pass
    the text: see the module docstring)."""
    if schema != "pg_catalog" or kind != "scalar":
        return None
    return _CONVERTERS.get(type_name)
