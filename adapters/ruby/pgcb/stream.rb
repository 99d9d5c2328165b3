# The `stream` request's measurement (docs/bridge-protocol.md, "stream"): one
# execution of a statement, its whole result read by the client's idiom
# (buffered: held whole, then folded; streamed: each row folded as it
# arrives, then dropped) and folded per column (StreamFold::Columns).
#
# A client's stream(st, mode, fetch, params, sample) calls sample.start just
# before it issues the query, hands the rows to sample.cols as the client
# delivers them, and calls sample.finish once the client has reported the
# result complete; it returns its idiom line, or raises. Between start and
# finish nothing else happens (no I/O with the bridge, no forced GC).
#
# Clock and CPU as Block.run's: CLOCK_MONOTONIC in ns (t0 at start, the
# first row's time when Columns folded it, end at finish; a result of no
# rows: its first row's time is its end), the process's CPU time
# (CLOCK_PROCESS_CPUTIME_ID: every thread) from start to finish.
require_relative "block"
require_relative "stream_fold"

module PGCB
  module Stream
    BUFFERED = "buffered".freeze
    STREAMED = "streamed".freeze
    MODES = [BUFFERED, STREAMED].freeze

    def self.clock
      Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
    end

    class Sample
      attr_reader :cols

      def initialize
        @cols = StreamFold::Columns.new
        @cpu0 = @t0 = @t1 = @cpu = nil
      end

      def start
        @cpu0 = Block.cpu_ns
        @t0 = Stream.clock
      end

      def finish
        @t1 = Stream.clock
        @cpu = Block.cpu_ns - @cpu0
      end

      def rows = @cols.rows

      # The ok reply of a finished sample (both times > 0, first <= total).
      def reply(idiom)
        total = [@t1 - @t0, 1].max
        first = [[(@cols.first || @t1) - @t0, 1].max, total].min
        { "ok" => true, "rows" => rows, "first_row_ns" => first, "total_ns" => total,
          "cpu_ns" => @cpu, "idiom" => idiom, "columns" => @cols.columns }
      end
    end
  end
end
