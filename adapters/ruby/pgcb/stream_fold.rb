# The fold of a `stream` request (docs/bridge-protocol.md, "stream"): per
# result column [kind, nulls, sum mod 2^32], the kind chosen from the first
# non-null value the client delivers in the column (true/false: bool, an
# Integer: int, a text String: str, anything else, a binary String and a
# column with no non-null value: any), contributions as in "The fold"
# (pgcb/fold.rb): int the value, bool 1 for true, str String#bytesize.
#
# Columns is fed a result's rows as the client delivers them:
#     each(src, iter)  folds the rows that iter, the client's row loop as
#                      Ruby source, reads from src, with the fold's code for
#                      the kinds known so far spliced in; returns nil when
#                      src has given them all, or, without folding or
#                      counting it, the first row that decides a kind not
#                      yet known (before any row: the first row itself),
#                      after which it stopped (`break`: the caller resumes
#                      after that row).
#     row(r)           folds that one row the slow way, choosing the kinds
#                      it decides; the first row's time is read after it.
# An iter is a frozen String with %{vars} (what a row is destructured
# into: "v0, v1," or "r"; a block's |%{vars}| or an assignment's left side)
# and %{body} (the fold of one row, which may `break`); EACH is a held
# result's (an Array of rows). So the kinds are looked at once per column,
# never per value: each loop has straight-line code per column (as
# Fold.generate's), and a column whose kind is unknown costs a nil test (its
# values are all nil until the row that stops the loop). rows, first and
# columns are read afterwards; rows is right after a failure too (the loop
# stores its counters on the way out).
require_relative "fold"

module PGCB
  module StreamFold
    UNKNOWN = -1
    NAMES = { Fold::ANY => "any", Fold::SUM => "int", Fold::BOOL => "bool", Fold::LEN => "str",
              UNKNOWN => "any" }.freeze
    MASK = Fold::MASK
    EACH = "src.each do |%{vars}|\n%{body}\nend".freeze

    # Row loops by [codes, iter] (codes nil: the loop that takes the first
    # row), for the process's life: generated once per shape of result.
    LOOPS = {}

    def self.kind_of(value)
      case value
      when true, false then Fold::BOOL
      when Integer then Fold::SUM
      when String then value.encoding == Encoding::BINARY ? Fold::ANY : Fold::LEN
      else Fold::ANY
      end
    end

    def self.loop_for(codes, iter)
      codes = codes.dup.freeze if codes # a key that never changes
      LOOPS[[codes, iter]] ||= generate(codes, iter)
    end

    # The lambda (src, st) -> found row or nil; st = [rows, nulls0, sum0,
    # nulls1, sum1, ...], loaded into locals and stored back on the way out
    # (sums masked: no Bignum survives a call).
    def self.generate(codes, iter)
      if codes.nil?
        rows = format(iter, vars: "r", body: "found = r\nbreak")
        return module_eval("lambda do |src, _st|\nfound = nil\n#{rows}\nfound\nend", __FILE__, __LINE__)
      end
      init = ["n = st[0]"]
      store = ["st[0] = n"]
      body = []
      unknown = []
      codes.each_with_index do |code, j|
        c = "c#{j}"
        s = "s#{j}"
        v = "v#{j}"
        init << "#{c} = st[#{1 + 2 * j}]"
        store << "st[#{1 + 2 * j}] = #{c}"
        case code
        when Fold::SUM then body << "if #{v} then #{s} += #{v} else #{c} += 1 end"
        when Fold::BOOL then body << "if #{v} then #{s} += 1 elsif #{v}.nil? then #{c} += 1 end"
        when Fold::LEN then body << "if #{v} then #{s} += #{v}.bytesize else #{c} += 1 end"
        when Fold::ANY then body << "#{c} += 1 if #{v}.nil?"
        else # UNKNOWN: nil here, the test before the body made sure
          unknown << v
          body << "#{c} += 1"
        end
        next unless [Fold::SUM, Fold::BOOL, Fold::LEN].include?(code)

        init << "#{s} = st[#{2 + 2 * j}]"
        store << "st[#{2 + 2 * j}] = #{s} & #{MASK}"
      end
      vs = Array.new(codes.length) { |j| "v#{j}" }
      body.unshift("n += 1")
      body.unshift("if #{unknown.join(' || ')} then found = [#{vs.join(', ')}]; break end") unless unknown.empty?
      # the trailing comma: a row of one column is destructured too
      vars = vs.empty? ? "_" : vs.map { |v| "#{v}," }.join(" ")
      rows = format(iter, vars: vars, body: body.join("\n"))
      src = "lambda do |src, st|\n#{init.join("\n")}\nfound = nil\nbegin\n#{rows}\n" \
            "ensure\n#{store.join("\n")}\nend\nfound\nend"
      module_eval(src, __FILE__, __LINE__)
    end

    class Columns
      attr_reader :first # the monotonic clock (ns) after the first row was folded; nil before

      def initialize
        @codes = nil # per column, from the first row on
        @st = [0]
        @first = nil
        @loops = {} # iter -> the loop for the kinds known now
      end

      def rows = @st[0]

      def each(src, iter)
        (@loops[iter] ||= StreamFold.loop_for(@codes, iter)).call(src, @st)
      end

      def row(r)
        st = @st
        if @codes.nil?
          @codes = Array.new(r.length, UNKNOWN)
          @st = st = Array.new(1 + 2 * r.length, 0)
        end
        codes = @codes
        r.each_with_index do |v, j|
          if v.nil?
            st[1 + 2 * j] += 1
            next
          end
          code = codes[j]
          code = codes[j] = StreamFold.kind_of(v) if code == UNKNOWN
          case code
          when Fold::SUM then st[2 + 2 * j] = (st[2 + 2 * j] + v) & MASK
          when Fold::BOOL then st[2 + 2 * j] += 1 if v
          when Fold::LEN then st[2 + 2 * j] += v.bytesize
          end
        end
        st[0] += 1
        @loops.clear # called for a row that decided kinds (or the first)
        @first ||= Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
        nil
      end

      # A held result (an Array of row Arrays) folded whole.
      def fold_array(rows)
        src = rows
        while (found = each(src, EACH))
          row(found)
          n = @st[0] # found was rows[n - 1]
          src = rows[n, rows.length - n]
        end
      end

      # A stream's rows folded as iter reads them from src, which goes on
      # where it stopped (a connection's next result).
      def fold_stream(src, iter)
        while (found = each(src, iter))
          row(found)
        end
      end

      # [[kind, nulls, sum], ...]; [] when there were no rows.
      def columns
        return [] if rows.zero?
        @codes.each_with_index.map { |code, j| [NAMES[code], @st[1 + 2 * j], @st[2 + 2 * j] & MASK] }
      end
    end
  end
end
