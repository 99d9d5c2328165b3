"""The clients hello can name, each in its own module, imported only when
named: a missing asyncpg does not break psycopg.

A client module defines `Client`, a subclass of base.Client. Importing it
imports its library; an ImportError then is hello's `config` failure naming
the module and the PyPI package that provides it (installed into
build/adapters/python/venv by adapters/python/install.sh from the hashed
lock adapters/python/requirements.txt).
"""
import importlib
import os
import sys

from ..errors import AdapterError

# client name -> (module of this package, Python module it needs, PyPI package)
CLIENTS = {
    "psycopg": ("psycopg_client", "psycopg", "psycopg[binary]"),
    "psycopg_python": ("psycopg_python_client", "psycopg", "psycopg"),
    "asyncpg": ("asyncpg_client", "asyncpg", "asyncpg"),
    "psycopg2": ("psycopg2_client", "psycopg2", "psycopg2-binary"),
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
            "config", "client %s: cannot import the Python module %s into %s (%s); it is "
            "PyPI's %s, which adapters/python/install.sh installs into "
            "build/adapters/python/venv: run scripts/install-deps.sh"
            % (name, needs, sys.executable, e, package)) from None


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
    # psycopg imports a C core, psycopg_c or psycopg_binary, from anywhere on
    # sys.path: without one in module_dir it would take the venv's (another
    # release's); the release then runs as installed, pure Python.
    if needs == "psycopg" and not any(os.path.isdir(os.path.join(module_dir, core))
                                      for core in ("psycopg_binary", "psycopg_c")):
        os.environ["PSYCOPG_IMPL"] = "python"
    sys.path.insert(0, module_dir)


def loaded_from(name: str) -> str:
    """The directory the client's library was imported from, or "?"."""
    entry = CLIENTS.get(name) if isinstance(name, str) else None
    mod = sys.modules.get(entry[1]) if entry and entry[1] else None
    f = getattr(mod, "__file__", None)
    return os.path.dirname(os.path.abspath(f)) if f else "?"
