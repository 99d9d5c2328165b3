# The timed block: `n` batches back to back, each timed, its rows counted and
# its values folded (docs/bridge-protocol.md, "run").
#
# Block.run(n, batch, kinds, buf):
#     batch    a lambda (i, acc): batch i (the client's idiom for `depth`
#              executions, begin/commit around them when asked), each
#              execution's row Array handed to acc.add (a Fold::Acc, reset
#              before the batch) as soon as the client has it; it raises to
#              fail the batch.
#     returns  [done, cpu_ns, exc]: `done` batches completed, their samples,
#              rows and folds in buf's arrays [0, done); cpu_ns the process's
#              CPU time (CLOCK_PROCESS_CPUTIME_ID: every thread) from just
#              before the first batch to just after the last (or the
#              failure); exc the exception that ended the block early, or nil.
#
# Timing: Process.clock_gettime(CLOCK_MONOTONIC, :nanosecond), one read per
# batch: the end of one batch is the start of the next. Between the first read
# and the last the loop does nothing but the batches and three stores into
# preallocated Arrays of Integers (small integers: no allocation): no I/O, no
# printing, no forced GC (Ruby's own GC runs when it must, as it would in the
# application: the language's cost). A batch is timed with its fold, as the C
# drivers fold inside run_batch.
require_relative "fold"

module PGCB
  # Samples (u64 ns), rows (u64) and folds (u32) of one block or load, reused;
  # grown (never shrunk) to the largest seen.
  class Buffers
    attr_reader :samples, :rows, :folds

    def initialize
      @cap = 0
      reserve(1024)
    end

    def reserve(n)
      return if n <= @cap
      @cap = n
      @samples = Array.new(n, 0)
      @rows = Array.new(n, 0)
      @folds = Array.new(n, 0)
    end

    # The arrays frame's payload of the first `done` entries
    # (docs/bridge-protocol.md, "arrays": "frame"): samples and rows as
    # little-endian u64, then folds as little-endian u32.
    def raw(done)
      @samples[0, done].pack("Q<*") << @rows[0, done].pack("Q<*") << @folds[0, done].pack("L<*")
    end

    # The reply fields of the first `done` entries as base64 of the same
    # little-endian integers (the protocol's typed-array form).
    def encoded(done)
      { "samples" => [@samples[0, done].pack("Q<*")].pack("m0"),
        "rows" => [@rows[0, done].pack("Q<*")].pack("m0"),
        "folds" => [@folds[0, done].pack("L<*")].pack("m0") }
    end
  end

  module Block
    def self.cpu_ns
      Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)
    end

    def self.run(n, batch, kinds, buf)
      samples = buf.samples
      rows = buf.rows
      folds = buf.folds
      acc = Fold::Acc.new(kinds)
      i = 0
      cpu0 = cpu_ns
      t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
      begin
        while i < n
          batch.call(i, acc.reset)
          t1 = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
          samples[i] = t1 - t0
          rows[i] = acc.rows
          folds[i] = acc.h
          t0 = t1
          i += 1
        end
      rescue StandardError => e # the batch failed: the block ends with it
        return [i, cpu_ns - cpu0, e]
      end
      [n, cpu_ns - cpu0, nil]
    end
  end
end
