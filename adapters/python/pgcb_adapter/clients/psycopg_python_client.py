"""The `psycopg_python` client: the `psycopg` client (psycopg_client.py, the
same idiom, options, pool and wire) with psycopg forced to its pure-Python
implementation, as a client of its own: what psycopg's C core (the
`psycopg` client, psycopg-binary) buys.

PSYCOPG_IMPL=python is set before psycopg is first imported (psycopg reads it
once, at import: psycopg.pq then wraps the system's libpq5 with ctypes, and
every adapter and loader is Python code). The adapter runs one client per
process, so nothing else imported psycopg before. A psycopg that loaded
another implementation anyway is hello's config failure.
"""
import os
import sys

if "psycopg" not in sys.modules:
    os.environ["PSYCOPG_IMPL"] = "python"

from psycopg import pq  # noqa: E402  (after PSYCOPG_IMPL)

from ..errors import AdapterError  # noqa: E402
from .psycopg_client import Client as PsycopgClient  # noqa: E402


class Client(PsycopgClient):
    name = "psycopg_python"

    def __init__(self, options, result_format=None):
        if pq.__impl__ != "python":
            raise AdapterError("config", "client psycopg_python: psycopg loaded its %r "
                               "implementation, not the pure-Python one (PSYCOPG_IMPL=python "
                               "came after psycopg's import)" % pq.__impl__)
        super().__init__(options, result_format)
