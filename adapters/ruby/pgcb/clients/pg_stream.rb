# The `pg` client's `stream` request (docs/bridge-protocol.md, "stream";
# pgcb/stream.rb), mixed into PgClient: one execution of a prepared
# statement, its values converted by the connection's type map as a run's
# are, in hello's result format.
#
#     buffered  res = conn.exec_prepared(name, params, format), rows =
#               res.values, res.clear (the run's depth-1 idiom): libpq holds
#               the whole result before the gem converts a value.
#     streamed  conn.send_query_prepared(name, params, format),
#               conn.set_single_row_mode, then the loop of the gem's
#               set_single_row_mode docs: res = conn.get_result until nil,
#               res.check, the row read (res.tuple_values(0): one Array, as
#               stream_each_row yields), res.clear. libpq hands over one
#               PGresult per row as it parses it, so memory stays bounded.
#               fetch is ignored: single-row mode has no chunk size (libpq
#               17's chunked mode is not in libpq 15 nor in this pg).
#
# Not PG::Result#stream_each_row, which the gem recommends (no PG::Result
# per row; about 2/3 of the loop's CPU here): in pg < 1.5.0 it compares the
# next result's column count before its status (fixed by "Move nfields-check
# of stream-methods after result status check", pg 1.5.0), so an error
# mid-result raises PG::InvalidChangeOfResultFields ("from 2 to 0") and the
# server's error and SQLSTATE are lost; Debian's ruby-pg is 1.4.5.
#
# When a row decides a column's kind (StreamFold::Columns) the loop stops
# after it and resumes with the next get_result: no row is read twice. A
# failure mid-result (the server's error in a result, a TypeError in the
# fold) drains what is left of the query (conn.discard_results) before it
# is raised, so that the connection takes the next request; a broken
# connection is left to the session (kind io).
require_relative "../stream"

module PGCB
  module Clients
    module PgStream
      # The row loop of single-row mode (StreamFold's iter; src: the connection).
      SINGLE_ROW = <<~RUBY.freeze
        while (res = src.get_result)
          if res.result_status != #{PG::PGRES_SINGLE_TUPLE}
            res.check # an error: raises it, SQLSTATE and all
            res.clear # the final PGRES_TUPLES_OK, no row; get_result gives nil next
            next
          end
          %{vars} = res.tuple_values(0)
          res.clear
          %{body}
        end
      RUBY

      def stream? = true

      def stream(st, mode, _fetch, params, sample)
        conn = @conn
        conn = @held = @pool.checkout if @pool
        prm = params || PgClient::EMPTY
        fmt = @format
        cols = sample.cols
        if mode == Stream::BUFFERED
          sample.start
          res = conn.exec_prepared(st.name, prm, fmt)
          rows = res.values
          res.clear
          cols.fold_array(rows)
          sample.finish
          return "PG::Connection#exec_prepared + PG::Result#values (the whole result in libpq's memory, then converted)"
        end
        sample.start
        conn.send_query_prepared(st.name, prm, fmt)
        conn.set_single_row_mode
        begin
          cols.fold_stream(conn, SINGLE_ROW)
        rescue StandardError
          drain(conn)
          raise
        end
        sample.finish
        "PG::Connection#send_query_prepared + #set_single_row_mode, #get_result per row " \
          "(libpq #{libpq} single-row mode: one row per PGresult, no fetch size)"
      end

      def drain(conn)
        conn.discard_results if !conn.finished? && conn.status == PG::CONNECTION_OK
      rescue PG::Error
        nil
      end
    end
  end
end
