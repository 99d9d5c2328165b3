# The `pg` client: the pg gem (Debian's ruby-pg: pg 1.4.5 on libpq 15), the
# way Rails' PostgreSQL adapter uses it.
#
# Connection: PG.connect with exactly the keys of the `connect` request
# (libpq fills in the rest from the environment it inherits, as the bridge's
# own libpq did), then conn.type_map_for_results =
# PG::BasicTypeMapForResults.new(conn): values converted by the gem's C
# decoders into Ruby's (Integer, Float, true/false, String, BigDecimal for
# numeric, Time for timestamp/timestamptz, Date, a parsed Hash/Array for
# json/jsonb, Arrays for arrays, a binary String for bytea; uuid, interval and
# time stay Strings). Option type_map=none leaves the gem's plain default: every
# value the server's text as a String.
#
# Statements: `prepare` is conn.prepare(name, sql): a named server-side
# statement; every execution runs it by name. Results in text (the gem's
# default and libpq_sync's), binary with hello's result_format = binary.
#
# Batches (depth D):
#     depth 1, no begin/commit: res = conn.exec_prepared(name, params, format),
#         rows = res.values, res.clear (ActiveRecord's exec_query idiom).
#     pipeline=auto (the default), D > 1 or begin/commit: libpq's pipeline
#         mode through the gem (pg >= 1.3 on libpq >= 14): enter_pipeline_mode,
#         D x send_query_prepared, pipeline_sync, then get_result for each
#         (res.values, res.clear; nil after each), the PIPELINE_SYNC result,
#         exit_pipeline_mode: D queries in flight, one Sync. The gem keeps
#         libpq non-blocking and flushes by waiting for the socket to be
#         readable or writable, so a depth-1000 batch cannot deadlock.
#     pipeline=no: the D exec_prepared one after another.
#
# Pool (connect with "pool": P): P connections opened at once, each with its
# type map, handed to a ConnectionPool (the connection_pool gem, Debian's
# ruby-connection-pool) of size P; a load's threads check one out per query
# (pool.with); a run holds one for its batches.
#
# Stream requests (one whole result, buffered or in libpq's single-row
# mode): pg_stream.rb.
require "pg"
require_relative "base"
require_relative "pg_stream"
require_relative "../load"

begin
  require "connection_pool"
rescue LoadError
  nil # loads unsupported; hello says load: false and links why
end

module PGCB
  module Clients
    class PgClient < Base
      include PgStream

      NAME = "pg".freeze
      OPTIONS = { "pipeline" => ["auto", %w[auto no], "auto: pipeline mode for a batch of more than one statement"],
                  "type_map" => ["basic", %w[basic none], "basic: PG::BasicTypeMapForResults (Rails' conversions); " \
                                                          "none: every value a String"] }.freeze
      EMPTY = [].freeze
      # SQLSTATEs after which the connection is gone.
      GONE = %w[57P01 57P02 57P03].freeze

      Statement = Struct.new(:name, :sql)

      def initialize(options, result_format)
        super
        @format = result_format == "binary" ? 1 : 0
        @pipeline = @opts["pipeline"] == "auto" && PG::Connection.method_defined?(:enter_pipeline_mode)
        @pipeline_off = @opts["pipeline"] == "auto" && !@pipeline ? "pg #{PG::VERSION} has no pipeline mode" : nil
        @conn = nil
        @conns = nil
        @pool = nil
        @held = nil
      end

      def load? = defined?(::ConnectionPool) ? true : false

      def libpq
        v = PG.library_version
        "#{v / 10000}.#{v % 10000}"
      end

      def info
        links = +"pg #{PG::VERSION} (C extension, libpq #{libpq}), "
        links << (@opts["type_map"] == "basic" ? "PG::BasicTypeMapForResults" : "no type map (Strings)")
        links << " [no pipeline mode: #{@pipeline_off}]" if @pipeline_off
        links << if load?
                   "; connection_pool #{ConnectionPool::VERSION} (one thread per query in flight)"
                 else
                   "; no connection_pool gem (apt-get install ruby-connection-pool): no loads"
                 end
        links << "; #{PGCB.runtime}"
        { "client_version" => PG::VERSION, "links" => links, "pipeline" => @pipeline }
      end

      # libpq's PQsendQueryPrepared sends Bind, Describe portal, Execute with
      # every execution (and a Sync outside pipeline mode); in pipeline mode
      # one pipeline_sync ends the batch.
      def wire
        { "result_format" => @format == 1 ? "binary" : "text", "describe" => "per_execution",
          "sync" => @pipeline ? "per_batch" : "per_query", "statements" => "named" }
      end

      def open_one(conn)
        c = PG.connect(conn)
        c.type_map_for_results = PG::BasicTypeMapForResults.new(c) if @opts["type_map"] == "basic"
        c
      rescue PG::Error => e
        c&.close
        raise AdapterError.new("connect", e.message)
      end

      def connect(conn, pool)
        check_conn(conn)
        if pool.nil?
          @conn = open_one(conn)
          return
        end
        raise AdapterError.new("config", "client pg: no connection_pool gem (apt-get install ruby-connection-pool)") unless load?
        @conns = []
        pool.times { @conns << open_one(conn) }
        spare = @conns.dup
        # Every connection is open already: the pool's lazy creation only
        # hands them out. Its checkout timeout is long: a wait for a free
        # connection is part of a query's latency, never an error.
        @pool = ConnectionPool.new(size: pool, timeout: 3600) { spare.pop }
      end

      def prepare(_number, name, sql, _nparams)
        (@conns || [@conn]).each { |c| c.prepare(name, sql) }
        Statement.new(name, sql)
      end

      def one(conn, st, params)
        res = conn.exec_prepared(st.name, params || EMPTY, @format)
        rows = res.values
        res.clear
        rows
      end

      # The columns [[name, oid]] of a result, for a dump.
      def columns_of(res)
        res.fields.each_with_index.map { |f, j| [f, res.ftype(j)] }
      end

      def plan(st, depth, begin_st, commit_st, params, dump)
        conn = @conn
        if @pool
          conn = @held = @pool.checkout
        end
        name = st.name
        fmt = @format
        prm = params
        plan = Plan.new(nil, nil, nil)
        if dump # the slow path of single batches: every result's columns kept
          plan.batch = lambda do |i, acc|
            stmts = []
            stmts << [begin_st, nil] if begin_st
            depth.times { |k| stmts << [st, prm && prm[i * depth + k]] }
            stmts << [commit_st, nil] if commit_st
            results = if @pipeline && stmts.length > 1
                        pipelined(conn, stmts, true)
                      else
                        stmts.map do |s, p|
                          res = conn.exec_prepared(s.name, p || EMPTY, fmt)
                          [res.values, columns_of(res)].tap { res.clear }
                        end
                      end
            results.shift if begin_st
            results.pop if commit_st
            plan.columns = results.map(&:last)
            plan.kept = results.map(&:first)
            plan.kept.each { |rows| acc.add(rows) }
          end
          return plan
        end
        if depth == 1 && begin_st.nil?
          plan.batch = if prm.nil?
                         lambda do |_i, acc|
                           res = conn.exec_prepared(name, EMPTY, fmt)
                           rows = res.values
                           res.clear
                           acc.add(rows)
                         end
                       else
                         lambda do |i, acc|
                           res = conn.exec_prepared(name, prm[i], fmt)
                           rows = res.values
                           res.clear
                           acc.add(rows)
                         end
                       end
        elsif @pipeline
          plan.batch = lambda do |i, acc|
            conn.enter_pipeline_mode
            conn.send_query_prepared(begin_st.name, EMPTY, fmt) if begin_st
            k = 0
            base = i * depth
            while k < depth
              conn.send_query_prepared(name, prm ? prm[base + k] : EMPTY, fmt)
              k += 1
            end
            conn.send_query_prepared(commit_st.name, EMPTY, fmt) if commit_st
            conn.pipeline_sync
            read_pipeline(conn, depth, begin_st, commit_st, acc)
          end
        else
          plan.batch = lambda do |i, acc|
            one(conn, begin_st, nil) if begin_st
            k = 0
            base = i * depth
            while k < depth
              acc.add(one(conn, st, prm && prm[base + k]))
              k += 1
            end
            one(conn, commit_st, nil) if commit_st
          end
        end
        plan
      end

      # The results of a pipeline whose statements were sent and synced:
      # begin (if any), depth executions, commit (if any). Every result is
      # read, each execution's rows handed to acc as soon as they are in
      # (folded while the server sends the next), the first failure raised
      # after the PIPELINE_SYNC (the rest of the pipeline aborted), pipeline
      # mode left.
      def read_pipeline(conn, depth, begin_st, commit_st, acc)
        err = nil
        err = take_result(conn, err, nil) if begin_st
        k = 0
        while k < depth
          err = take_result(conn, err, acc)
          k += 1
        end
        err = take_result(conn, err, nil) if commit_st
        finish_pipeline(conn)
        raise err if err
      end

      # One statement's result of a pipeline, its rows to acc (nil: not
      # folded) unless a statement before it failed; the first error kept.
      def take_result(conn, err, acc)
        res = conn.get_result
        raise PG::ConnectionBad, "connection lost in the middle of a pipeline" if res.nil?
        case res.result_status
        when PG::PGRES_TUPLES_OK, PG::PGRES_COMMAND_OK, PG::PGRES_SINGLE_TUPLE
          acc.add(res.values) if acc && err.nil?
          res.clear
        else # an error's result stays: the exception reads its SQLSTATE
          err ||= result_error(res)
        end
        conn.get_result # nil: the end of this statement's results
        err
      end

      # The exception of a failed pipeline result (res.check raises it).
      def result_error(res)
        res.check
        PG::Error.new("pipeline aborted")
      rescue PG::Error => e
        e
      end

      def finish_pipeline(conn)
        res = conn.get_result
        raise PG::ConnectionBad, "connection lost before the pipeline's Sync" if res.nil?
        status = res.result_status
        res.clear
        raise PG::Error, "pipeline: expected its Sync, got #{PG::Result.res_status(status)}" if status != PG::PGRES_PIPELINE_SYNC
        conn.exit_pipeline_mode
      end

      # For a dump: stmts [[statement, params]] through one pipeline, each
      # [rows, columns].
      def pipelined(conn, stmts, _keep)
        conn.enter_pipeline_mode
        stmts.each { |s, p| conn.send_query_prepared(s.name, p || EMPTY, @format) }
        conn.pipeline_sync
        err = nil
        out = stmts.map do
          res = conn.get_result
          raise PG::ConnectionBad, "connection lost in the middle of a pipeline" if res.nil?
          item = [EMPTY, EMPTY]
          if [PG::PGRES_TUPLES_OK, PG::PGRES_COMMAND_OK].include?(res.result_status)
            item = [res.values, columns_of(res)]
            res.clear
          else
            err ||= result_error(res)
          end
          conn.get_result
          item
        end
        finish_pipeline(conn)
        raise err if err
        out
      end

      def release_run
        return unless @held
        held = @held
        @held = nil
        @pool.checkin
        held
      end

      def sqlstate(exc)
        res = exc.respond_to?(:result) ? exc.result : nil
        res&.error_field(PG::Result::PG_DIAG_SQLSTATE)
      rescue StandardError
        nil
      end

      def primary(exc)
        res = exc.respond_to?(:result) ? exc.result : nil
        (res && res.error_field(PG::Result::PG_DIAG_MESSAGE_PRIMARY)) || exc.message
      rescue StandardError
        exc.message
      end

      # The failure of exc on conn (nil: the pool's), kind query with the
      # SQLSTATE when the server refused a statement and the connection still
      # works (a failed transaction rolled back, a pipeline left), io when it
      # broke.
      def classify(exc, conn)
        return exc if exc.is_a?(AdapterError)
        unless exc.is_a?(PG::Error)
          return AdapterError.new("protocol", "internal error: #{PGCB.describe(exc)}")
        end
        state = sqlstate(exc)
        broken = conn && (conn.finished? || conn.status != PG::CONNECTION_OK)
        if broken || state.nil? || GONE.include?(state) || state.start_with?("08") && !state.start_with?("08P01")
          return AdapterError.new("io", "connection lost: #{PGCB.describe(exc)}")
        end
        AdapterError.new("query", primary(exc), state)
      end

      def recover(conn)
        if conn.pipeline_status != PG::PQ_PIPELINE_OFF
          # a pipeline a non-PG exception left: read what is left of it
          while (res = conn.get_result) || conn.get_result
            st = res&.result_status
            res&.clear
            break if st == PG::PGRES_PIPELINE_SYNC
          end
          conn.exit_pipeline_mode
        end
        conn.exec("ROLLBACK") if conn.transaction_status != PG::PQTRANS_IDLE
        nil
      rescue PG::Error => e
        AdapterError.new("io", "connection lost: #{PGCB.describe(e)}")
      end

      def failure(exc)
        conn = @held || @conn
        err = classify(exc, conn)
        return err if err.kind == "io" || conn.nil?
        recover(conn) || err
      end

      def load_failure(exc)
        err = classify(exc, nil)
        if err.kind == "io" && !err.message.start_with?("a pool connection")
          return AdapterError.new("io", "a pool connection was lost: #{PGCB.describe(exc)}")
        end
        err
      end

      def run_load(st, spec, params, kinds, buf)
        pool = @pool
        name = st.name
        fmt = @format
        prm = params
        query = lambda do |i|
          pool.with do |c|
            res = c.exec_prepared(name, prm ? prm[i] : EMPTY, fmt)
            rows = res.values
            res.clear
            rows
          end
        end
        done, wall, cpu, late, exc = Load.run(spec, query, kinds, buf)
        # A query's failure left its connection as it was: a failed
        # transaction cannot be (autocommit), a broken one is reported io.
        [done, wall, cpu, late, exc]
      end

      def close
        release_run if @held
        (@conns || [@conn]).compact.each { |c| c.close unless c.finished? }
        @conn = @conns = @pool = nil
      end
    end
  end
end
