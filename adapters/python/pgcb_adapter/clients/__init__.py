"""The clients hello can name, each in its own module, imported only when
named: a missing asyncpg does not break psycopg.

A client module defines `Client`, a subclass of base.Client. Importing it
imports its library; an ImportError then is hello's `config` failure naming
the module and the Debian package that provides it.
"""
import importlib

from ..errors import AdapterError

# client name -> (module of this package, Python module it needs, Debian package)
CLIENTS = {
    "psycopg": ("psycopg_client", "psycopg", "python3-psycopg"),
    "asyncpg": ("asyncpg_client", "asyncpg", "python3-asyncpg"),
    "null": ("null_client", None, None),
}


def load(name: str):
    """The Client class of client `name`; AdapterError(config) when the name is
    unknown or its library cannot be imported."""
    entry = CLIENTS.get(name) if isinstance(name, str) else None
    if entry is None:
        raise AdapterError("config", "unknown client %r; the Python adapter knows: %s"
                           % (name, ", ".join(CLIENTS)))
    module, needs, package = entry
    try:
        return importlib.import_module("." + module, __name__).Client
    except ImportError as e:
        raise AdapterError(
            "config", "client %s: cannot import the Python module %s (%s); it is in the "
            "Debian package %s for /usr/bin/python3: run scripts/install-deps.sh"
            % (name, needs, e, package)) from None
