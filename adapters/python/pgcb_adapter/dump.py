"""Dump encoding: what a client delivered, as the protocol's JSON values
(docs/bridge-protocol.md, "Dumps"). Runs after the batch was timed and
folded, never in a timed block.

    None                       -> null
    bool                       -> true / false (checked before int: bool is an int)
    int, |v| <= 2^53           -> a JSON integer
    int beyond                 -> {"int": "<decimal>"}
    float                      -> a JSON number (repr: shortest round trip);
                                  NaN, inf, -inf, -0.0 -> {"float": "NaN" |
                                  "Infinity" | "-Infinity" | "-0"}
    str                        -> a string
    bytes/bytearray/memoryview -> {"bytes": "<lower-case hex>"}
    anything else              -> {"other": <text>, "type": type(v).__name__}
                                  text: str(v); for list/tuple/dict the JSON
                                  text of it (json.dumps, default=str)

By the column's type (its OID), so that the bridge can fold the types the C
drivers convert exactly when the client kept the value exactly:
    datetime, date, time       -> other: isoformat(" "), the server's output
                                  syntax with every digit the value holds
                                  (YYYY-MM-DD HH:MM:SS.ffffff+HH:MM)
    timedelta                  -> other: "D days HH:MM:SS.ffffff" (the
                                  server's interval syntax; a timedelta has
                                  no months, and normalises hours into days)
    Decimal                    -> other: format(v, "f"), every digit of it,
                                  no exponent; "NaN", "Infinity", "-Infinity"
    UUID                       -> other: str(v), the canonical text
    a json/jsonb value the client parsed (json_parsed) -> other: json.dumps(v,
                                  ensure_ascii=False), whatever it is (a str
                                  included): the re-serialised text, which is
                                  not in general the server's
    int4[]/int8[]/text[]/float8[] list -> a JSON array of the elements'
                                  encodings (nested lists nested)
"""
import datetime
import decimal
import json
import math
import uuid

_INT_EXACT = 1 << 53


def encode_value(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        v = int(v)
        return v if -_INT_EXACT <= v <= _INT_EXACT else {"int": str(v)}
    if isinstance(v, float):
        v = float(v)
        if v != v:
            return {"float": "NaN"}
        if v in (math.inf, -math.inf):
            return {"float": "Infinity" if v > 0 else "-Infinity"}
        if v == 0.0 and math.copysign(1.0, v) < 0:
            return {"float": "-0"}
        return v
    if isinstance(v, str):
        return str(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"bytes": bytes(v).hex()}
    if isinstance(v, (list, tuple, dict)):
        try:
            text = json.dumps(v, default=str, ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(v)
    else:
        text = str(v)
    return {"other": text, "type": type(v).__name__}


_JSON_OIDS = (114, 3802)
_ARRAY_OIDS = (1007, 1009, 1016, 1022)


def _interval_text(td):
    """A timedelta in the server's interval syntax (IntervalStyle postgres)."""
    secs, us = td.seconds, td.microseconds
    clock = "%02d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60)
    if us:
        clock += ".%06d" % us
    if td.days == 0:
        return clock
    return "%d day%s %s" % (td.days, "" if td.days == 1 else "s", clock)


def _other(text, v):
    return {"other": text, "type": type(v).__name__}


def encode_typed(v, oid, json_parsed=False):
    """A value of a column of type `oid` (see the module's docstring)."""
    if v is None:
        return None
    if oid in _JSON_OIDS and json_parsed:
        try:
            return _other(json.dumps(v, ensure_ascii=False), v)
        except (TypeError, ValueError):
            return _other(str(v), v)
    if oid in _ARRAY_OIDS and isinstance(v, (list, tuple)):
        return [encode_typed(e, oid) for e in v]
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return _other(v.isoformat(" ") if isinstance(v, datetime.datetime) else v.isoformat(), v)
    if isinstance(v, datetime.timedelta):
        return _other(_interval_text(v), v)
    if isinstance(v, decimal.Decimal):
        return _other(format(v, "f"), v)
    if isinstance(v, uuid.UUID):
        return _other(str(v), v)
    return encode_value(v)


def encode_result(columns, rows, json_parsed=False):
    """One execution's dump entry. columns: [(name, type_oid)]; rows: the rows
    as the client returned them (tuples, Records ...); json_parsed: the
    client delivers json/jsonb values parsed (psycopg), not as their text."""
    oids = [int(oid) for _, oid in columns]
    enc = encode_typed
    return {"columns": [{"name": str(name), "type": oid} for (name, _), oid in zip(columns, oids)],
            "rows": [[enc(v, oid, json_parsed) for v, oid in zip(row, oids)] for row in rows]}
