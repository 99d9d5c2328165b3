"""psycopg2's readings of one whole result (the `stream` request, on the
client's one autocommit connection).

buffered   cursor.execute(sql, params) then fetchall(), as a `run` executes
           (PQexec: libpq holds the whole result, fetchall() converts every
           row into a list of tuples).
streamed   a named cursor, conn.cursor(name) with itersize = fetch,
           iterated: psycopg2 sends BEGIN, then DECLARE name CURSOR WITHOUT
           HOLD FOR <the query> at execute(), and FETCH FORWARD `fetch` each
           time the rows of the last FETCH are used up (one PGresult of at
           most `fetch` rows at a time, each row converted as the iteration
           reaches it), until a FETCH returns none; then close() (CLOSE) and
           commit() (COMMIT), inside the timing. A named cursor refuses
           autocommit (without WITH HOLD, which would materialise the whole
           result at the COMMIT), so read() turns the connection's
           autocommit off around the reading, no I/O, and back on after.
           After a failure the cursor is closed (psycopg2 sends no CLOSE in
           a failed transaction) and the transaction rolled back.
"""
import psycopg2
import psycopg2.extensions

from ..stream import BUFFERED, FOLD_ROWS, Idiom, read_sync

NAME = "pgcb_stream"
IDLE = psycopg2.extensions.TRANSACTION_STATUS_IDLE


def idiom(conn, cur, st, mode, fetch, params, reader):
    """The Idiom (stream.py) of one execution of st (psycopg2_client's
    Statement); cur: a client-side cursor for buffered; params: None, a list
    or a dict as psycopg2 takes them; reader: psycopg2_client._reader(cur,
    st)."""
    sql = st.sql if params is None else st.pysql
    if mode == BUFFERED:
        ex = cur.execute

        def open_():
            ex(sql, params)
            return reader()
        return Idiom(open_, "psycopg2 cursor.execute() + fetchall()")
    named = conn.cursor(NAME)  # no I/O until execute
    named.itersize = fetch

    def open_():
        named.execute(sql, params)
        return named

    def finish():
        named.close()
        conn.commit()

    def abort():
        for undo in (named.close, conn.rollback):
            try:
                undo()
            except psycopg2.Error:
                pass  # a broken connection: failure() says so
    return Idiom(open_, "psycopg2 named cursor (DECLARE ... CURSOR in a transaction) iterated, "
                 "itersize %d: FETCH FORWARD %d per round trip" % (fetch, fetch),
                 min(fetch, FOLD_ROWS), finish=finish, abort=abort, streamed=True)


def read(conn, idiom, fold):
    """read_sync(idiom, fold), a streamed idiom with the connection's
    autocommit off for it (psycopg2 begins the transaction at execute)."""
    if not idiom.streamed:
        return read_sync(idiom, fold)
    conn.autocommit = False
    try:
        return read_sync(idiom, fold)
    finally:
        if not conn.closed:
            try:
                if conn.info.transaction_status != IDLE:
                    conn.rollback()
                conn.autocommit = True
            except psycopg2.Error:
                pass  # broken since: the failure says io
