# The `null` client: no server, no I/O (hello `no_io: true`): what the bridge,
# Ruby and the adapter's own loop and fold cost per sample.
#
# A statement yields the rows of the benchmark table: n = the last whole-word
# `LIMIT <digits>` of its SQL (case-insensitive; without one, option rows,
# default 1); row i (1-based) = [i, 1337, "wat", nil, false], columns id,
# int_value, string_value, null_value, bool_value of types 23, 23, 25, 25,
# 16. The rows are built once per statement. A batch is `depth`
# "executions" that each return them, folded as real results are. begin,
# commit and parameters are accepted and ignored, as drivers/null does.
#
# Pool (connect with "pool": P, hello `load: true`): P tokens in a Queue; a
# query of a load pops one (waiting, as a real pool's users do, when all P
# are out), passes the GVL once (Thread.pass: the one hand-over every real
# client's query costs), returns the rows and pushes the token back.
#
# Options (as drivers/null):
#     rows = N        rows per execution without a LIMIT (default 1)
#     fail_after = N  every batch (or load query) after the first N successful
#                     ones of the connection fails: kind query, SQLSTATE
#                     XX000, "null client: injected failure" (default 0: never)
#     hang_after = N  every query of a load after the first N successful ones
#                     is never answered (a pool connection broken without an
#                     error: the load's settle time; default 0: never)
require_relative "base"
require_relative "../version"

module PGCB
  module Clients
    class NullClient < Base
      NAME = "null".freeze
      OPTIONS = { "rows" => ["1", nil, "rows per execution when the SQL has no LIMIT <n>"],
                  "fail_after" => ["0", nil, "fail every batch after this many successful ones"],
                  "hang_after" => ["0", nil, "never answer a load's query after this many"] }.freeze
      COLUMNS = [["id", 23], ["int_value", 23], ["string_value", 25], ["null_value", 25],
                 ["bool_value", 16]].freeze
      MAX_ROWS = 4294967295
      # drivers/null/null.c's rule: "limit" not preceded by a word character,
      # whitespace, digits not followed by a word character; case-insensitive.
      LIMIT = /(?<![A-Za-z0-9_\u0080-\u{10ffff}])limit[ \t\n\v\f\r]+([0-9]+)(?![A-Za-z0-9_\u0080-\u{10ffff}])/i

      class InjectedFailure < StandardError; end

      def self.count(key, value)
        unless value.match?(/\A[0-9]+\z/) && value.to_i <= MAX_ROWS
          raise AdapterError.new("config", "option #{key} = #{value.inspect}: expected an integer 0..#{MAX_ROWS}")
        end
        value.to_i
      end

      def initialize(options, result_format)
        super
        @rows = NullClient.count("rows", @opts["rows"])
        @fail_after = NullClient.count("fail_after", @opts["fail_after"])
        @hang_after = NullClient.count("hang_after", @opts["hang_after"])
        @ok = 0
        @tokens = nil
      end

      def no_io? = true
      def load? = true

      def info
        { "client_version" => ADAPTER_VERSION, "pipeline" => false,
          "links" => "null (no I/O: rows from memory); #{PGCB.runtime}" }
      end

      def connect(_conn, pool)
        return unless pool
        @tokens = Queue.new
        pool.times { |k| @tokens << k }
      end

      def prepare(_number, _name, sql, _nparams)
        n = nil
        sql.scan(LIMIT) { n = Regexp.last_match(1).to_i }
        n ||= @rows
        raise AdapterError.new("unsupported", "null client: LIMIT above #{MAX_ROWS} rows") if n > MAX_ROWS
        (1..n).map { |i| [i, 1337, "wat", nil, false] }
      end

      def counted
        raise InjectedFailure if @fail_after.positive? && @ok >= @fail_after
        @ok += 1
      end

      def plan(rows, depth, _begin, _commit, _params, dump)
        results = Array.new(depth, rows)
        plan = Plan.new(nil, nil, Array.new(depth, COLUMNS))
        plan.kept = results if dump
        plan.batch = if @fail_after.zero?
                       ->(_i, acc) { results.each { |r| acc.add(r) } }
                     else
                       ->(_i, acc) { counted; results.each { |r| acc.add(r) } }
                     end
        plan
      end

      def run_load(rows, spec, _params, kinds, buf)
        tokens = @tokens
        query = lambda do |_i|
          token = tokens.pop
          begin
            Thread.pass
            if @hang_after.positive?
              sleep if @ok >= @hang_after # never woken: a query never answered
              @ok += 1
            end
            counted if @fail_after.positive?
            rows
          ensure
            tokens << token
          end
        end
        Load.run(spec, query, kinds, buf)
      end

      def failure(exc)
        return AdapterError.new("query", "null client: injected failure", "XX000") if exc.is_a?(InjectedFailure)
        AdapterError.new("protocol", "internal error: #{PGCB.describe(exc)}")
      end
    end
  end
end
