# The timed load: up to `concurrency` queries in flight over a client's pool
# (docs/bridge-protocol.md, "load"), as Ruby applications hold many
# connections: `concurrency` threads (Puma's and Sidekiq's model) sharing one
# pool (the connection_pool gem, for the pg client), each thread one query
# at a time. Ruby's GVL runs one thread's Ruby code at a time; the pg gem
# releases it while a thread waits on its socket, so the queries are in
# flight together and their conversion and fold take turns on the one CPU.
#
# Load.run(spec, query, kinds, buf):
#     query    a lambda i -> the rows of query i (the client's pool idiom:
#              check a connection out, execute, read every value, check it
#              in); it raises to fail the query.
#     returns  [done, wall_ns, cpu_ns, late_ns, exc]: `done` queries
#              completed, their latencies, row counts and folds in buf's
#              arrays [0, done) in completion order; wall_ns from the load's
#              start to its last reply; cpu_ns the process's CPU time (every
#              thread) over the load; late_ns (rate mode) how far behind its
#              due time the last query was issued; exc the first failure or nil.
#
# closed: a thread issues its next query as soon as its last one is in (the
#         latency counts from the issue, before the pool's checkout: a wait
#         for a free connection is in it).
# rate:   query i is due at start + i / rate; the thread that takes it sleeps
#         until then; its latency counts from the due time.
# Issuing stops when (elapsed >= duration_ns and issued >= min_queries) or
# issued == max_queries (elapsed: the due time's, in rate mode). After a
# failure no thread issues again. Once the issuing has ended (a thread
# returned; or, min_queries 0, duration_ns has passed) the queries in flight
# are abandoned when none completed or failed for SETTLE_S: those threads
# are killed and the load fails with kind io saying how many never answered.
require_relative "errors"
require_relative "fold"
require_relative "block"

module PGCB
  module Load
    CLOSED = "closed".freeze
    RATE = "rate".freeze
    SETTLE_S = 2.0

    Spec = Struct.new(:mode, :concurrency, :rate, :duration_ns, :min_queries, :limit)

    def self.clock
      Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
    end

    # The shared state of one load's threads (guarded by @m).
    class State
      attr_reader :done, :failed, :failure, :max_due, :late, :last

      def initialize(spec, buf, start)
        @m = Mutex.new
        @cv = ConditionVariable.new
        @spec = spec
        @lat = buf.samples
        @rows = buf.rows
        @folds = buf.folds
        @issued = @done = @failed = @exited = 0
        @failure = nil
        @start = @last = start
        @end_by = start + spec.duration_ns
        @period = spec.mode == RATE ? 1e9 / spec.rate : 0.0
        @max_due = 0
        @last_i = -1
        @late = 0
      end

      # The next query to issue: [i, due] (due nil in closed mode), or nil
      # when the issuing is over.
      def take
        @m.synchronize do
          return nil if @failure || @issued >= @spec.limit
          i = @issued
          if @period.zero?
            return nil if Load.clock >= @end_by && i >= @spec.min_queries
            @issued = i + 1
            [i, nil]
          else
            due = @start + (i * @period).to_i
            return nil if due >= @end_by && i >= @spec.min_queries
            @issued = i + 1
            @max_due = due if due > @max_due
            [i, due]
          end
        end
      end

      def issued_late(i, due, now)
        @m.synchronize do
          if i > @last_i
            @last_i = i
            @late = now > due ? now - due : 0
          end
        end
      end

      def complete(t0, h, r)
        @m.synchronize do
          t1 = Load.clock
          d = @done
          @lat[d] = (t1 - t0).positive? ? t1 - t0 : 1
          @rows[d] = r
          @folds[d] = h
          @done = d + 1
          @last = t1
        end
      end

      def fail(exc)
        @m.synchronize do
          @failed += 1
          @failure ||= exc
        end
      end

      def exited
        @m.synchronize do
          @exited += 1
          @cv.signal
        end
      end

      # Wait until a thread has exited, or until `deadline` (nil: none).
      def wait_exit(deadline)
        @m.synchronize do
          while @exited.zero?
            left = deadline && (deadline - Load.clock) * 1e-9
            break if left && left <= 0
            @cv.wait(@m, left || 1.0) # never unbounded: Ruby would call that a deadlock
          end
        end
      end

      def progress = @m.synchronize { @done + @failed }

      def abandon(exc)
        @m.synchronize { @failure ||= exc }
      end
    end

    def self.run(spec, query, kinds, buf)
      n = [[spec.concurrency, spec.limit].min, 1].max
      cpu0 = Block.cpu_ns
      start = clock
      st = State.new(spec, buf, start)
      worker = lambda do
        acc = Fold::Acc.new(kinds) # this thread's, reset per query
        while (job = st.take)
          i, due = job
          if due
            now = clock
            if due > now
              sleep((due - now) * 1e-9)
              break if st.failure
              now = clock
            end
            st.issued_late(i, due, now)
            t0 = due
          else
            t0 = clock
          end
          begin
            acc.reset.add(query.call(i))
          rescue StandardError => e
            st.fail(e)
            break
          end
          st.complete(t0, acc.h, acc.rows)
        end
      ensure
        st.exited
      end
      threads = Array.new(n) { Thread.new(&worker) }
      # The issuing ends when a thread returns; a load bounded by its
      # duration alone has ended by then at the latest (all may be stuck).
      st.wait_exit(spec.min_queries.zero? ? start + spec.duration_ns : nil)
      seen = -1
      unsettled = []
      loop do
        unsettled = threads.select(&:alive?)
        progress = st.progress
        break if unsettled.empty? || (progress == seen && clock >= st.max_due)
        seen = progress
        deadline = clock + (SETTLE_S * 1e9).to_i + [st.max_due - clock, 0].max
        unsettled.each { |t| t.join([(deadline - clock) * 1e-9, 0].max) }
      end
      unless unsettled.empty?
        st.abandon(AdapterError.new("io", "#{unsettled.length} of the load's queries never answered: none completed " \
                                          "for #{(SETTLE_S * 1000).to_i} ms after the issuing ended (a connection " \
                                          "of the pool broke without an error from the client)"))
        unsettled.each(&:kill)
        unsettled.each { |t| t.join(SETTLE_S) }
      end
      cpu_ns = Block.cpu_ns - cpu0
      last = st.done.zero? ? clock : st.last
      [st.done, last - start, cpu_ns, st.late, st.failure]
    end
  end
end
