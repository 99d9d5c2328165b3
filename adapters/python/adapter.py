"""pgclientbench's Python adapter: the entry point the bridge driver runs.

    /usr/bin/python3 -u build/adapters/python/adapter.py

speaks the bridge protocol (docs/bridge-protocol.md, version 1) on the file
descriptor PGCB_BRIDGE_FD (3) and exits 0 when it reaches end of file or after
`close`. Everything lives in the package pgcb_adapter next to this file; this
file only makes that package importable from its own directory (wherever make
copied it) and runs it. Nothing is written to disk: no __pycache__ in the
source or build tree.
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pgcb_adapter.session import main  # noqa: E402  (needs the path above)

if __name__ == "__main__":
    sys.exit(main())
