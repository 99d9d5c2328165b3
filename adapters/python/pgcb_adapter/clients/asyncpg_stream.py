"""asyncpg's readings of one whole result (the `stream` request, on the
client's one connection).

buffered   await PreparedStatement.fetch(*args): asyncpg reads the whole
           result, every row decoded into a Record, into one list.
streamed   PreparedStatement.cursor(*args, prefetch=fetch) iterated with
           `async for` inside Connection.transaction() (asyncpg's cursors
           need a transaction): Bind to a named portal, then Execute with a
           row limit of `fetch` per round trip (PortalSuspended between
           them), the Records of each held in the iterator's deque and
           handed out one per __anext__. The transaction's BEGIN and COMMIT
           are inside the timing; after a failure it is rolled back
           (Transaction.rollback(): asyncpg's own bookkeeping of the
           connection's transaction stays right), and a backend gone makes
           that rollback fail quietly (failure() says io).
"""
from ..stream import BUFFERED, FOLD_ROWS, Idiom


def idiom(conn, ps, mode, fetch, args):
    """The Idiom (stream.py, read_async) of one execution of the prepared
    statement ps (asyncpg's PreparedStatement) on conn with the typed
    arguments args (a tuple)."""
    if mode == BUFFERED:
        fetch_all = ps.fetch

        async def open_():
            return await fetch_all(*args)
        return Idiom(open_, "asyncpg PreparedStatement.fetch()")
    tr = conn.transaction()

    async def open_():
        await tr.start()
        return ps.cursor(*args, prefetch=fetch)

    async def abort():
        try:
            await tr.rollback()
        except Exception:
            pass  # the connection broke, or the transaction never began

    return Idiom(open_, "asyncpg PreparedStatement.cursor(prefetch=%d) iterated (async for) in "
                 "Connection.transaction()" % fetch,
                 min(fetch, FOLD_ROWS), finish=tr.commit, abort=abort, streamed=True)
