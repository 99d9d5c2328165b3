# pgclientbench's Ruby adapter: the entry point the bridge driver runs.
#
#     /usr/bin/ruby build/adapters/ruby/adapter.rb
#
# speaks the bridge protocol (docs/bridge-protocol.md, version 1) on the file
# descriptor PGCB_BRIDGE_FD (3) and exits 0 when it reaches end of file or
# after `close`. Everything lives in pgcb/ next to this file (required by
# relative path, wherever make copied it); this file only runs it.
#
# Single-threaded: the request loop and every timed block run on the main
# thread. Ruby's GVL runs Ruby code on one thread at a time anyway; only a
# concurrency suite's load starts threads (pgcb/load.rb), and the pg gem
# releases the GVL while it waits on a socket.
require_relative "pgcb/session"

exit(PGCB::Session.main)
