"""The clients hello can name, each in its own module, imported only when
named: a missing asyncpg does not break psycopg.

A client module defines `Client`, a subclass of base.Client. Importing it
imports its library; an ImportError then is hello's `config` failure naming
the module and the Debian package that provides it.
"""
import importlib
import os
import sys

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


def use_module_dir(name: str, module_dir: str):
    """hello's module_dir (an A/B of two installs of one client,
    docs/regressions.md): module_dir goes first on sys.path, so the client's
    library is imported from there. AdapterError(config) naming the directory
    when it does not hold that library (DIR/MODULE/ or DIR/MODULE.py)."""
    entry = CLIENTS.get(name) if isinstance(name, str) else None
    needs = entry[1] if entry else None
    if needs is not None and not (os.path.isdir(os.path.join(module_dir, needs)) or
                                  os.path.isfile(os.path.join(module_dir, needs + ".py"))):
        raise AdapterError("config", "module_dir %s has no %s (no %s/ in it): not an install "
                           "of client %s" % (module_dir, needs, needs, name))
    sys.path.insert(0, module_dir)


def loaded_from(name: str) -> str:
    """The directory the client's library was imported from, or "?"."""
    entry = CLIENTS.get(name) if isinstance(name, str) else None
    mod = sys.modules.get(entry[1]) if entry and entry[1] else None
    f = getattr(mod, "__file__", None)
    return os.path.dirname(os.path.abspath(f)) if f else "?"
