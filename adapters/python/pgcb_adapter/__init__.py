"""The Python adapter of pgclientbench's bridge driver (docs/bridge-protocol.md).

Modules, one concern each:
    frames     length-prefixed JSON frames on the bridge's socket
    errors     the failure replies (kind, one-line message, SQLSTATE)
    session    the request loop: hello, connect, prepare, run, load, stream,
               phase, close
    block      the timed block loop and its sample storage
    fold       the per-batch fold (the protocol's checksum), and a streamed
               result's per-column fold
    stream     the timed reading of one whole result, buffered or streamed
    dump       encoding a client's values for dumps
    sqltext    SQL text helpers (LIMIT, placeholders, backend options)
    pgtext     PostgreSQL text input -> Python values (asyncpg parameters)
    malloc     glibc malloc's thresholds, held (asyncio's read buffers)
    load       the timed load of an asyncio client's pool
    threadload the timed load of a blocking client's pool, on threads (psycopg2)
    clients/   one module per client: psycopg, psycopg_python, asyncpg, psycopg2, null
"""
import sys

ADAPTER = "python"
ADAPTER_VERSION = "1.0.0"
PROTOCOL = 1


def runtime() -> str:
    """The interpreter, e.g. "Python 3.11.2" ("PyPy 3.9.16" on another one)."""
    name = "Python" if sys.implementation.name == "cpython" else sys.implementation.name
    v = sys.version_info
    return "%s %d.%d.%d" % (name, v[0], v[1], v[2])
