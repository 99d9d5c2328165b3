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
"""
import json
import math

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


def encode_result(columns, rows):
    """One execution's dump entry. columns: [(name, type_oid)]; rows: the rows
    as the client returned them (tuples, Records ...)."""
    enc = encode_value
    return {"columns": [{"name": str(name), "type": int(oid)} for name, oid in columns],
            "rows": [[enc(v) for v in row] for row in rows]}
