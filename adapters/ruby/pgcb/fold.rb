# The fold of a batch (docs/bridge-protocol.md, "The fold").
#
#     mix(h, x) = ((h ^ (x mod 2^32)) * 16777619) mod 2^32     (FNV-1a, 32 bits)
#     h = 2166136261
#     for each execution's result (an Array of rows, each an Array of values):
#         h = mix(h, number of rows)
#         if it has rows, for each column j, in order:
#             h = mix(h, number of nils in column j)
#             h = mix(h, sum of column j's contributions mod 2^32)
#
# Contributions by the column's kind: `int` the value, `bool` 1 for true, `str`
# its length in bytes (String#bytesize, O(1): hello says text_length "bytes"),
# `any` 0.
#
# Ruby has no C-speed column primitives that do not cost more than they save
# (rows.transpose plus Array#compact/#sum per column took three times the
# standalone script's consume() over the same rows; Array#count(nil) calls ==
# per value). So the fold is one plain loop over the rows, as consume() is,
# generated once per run and result width from the kinds: per column two
# local counters and straight-line code, no dispatch on the kind per value
# (Folder#for). Every value of every row is read in every batch, none is
# converted again. A value of another type than its kind says (a String in an
# `int` column) raises TypeError, which fails the batch.
module PGCB
  module Fold
    ANY = 0
    SUM = 1
    BOOL = 2
    LEN = 3
    CODES = { "any" => ANY, "int" => SUM, "bool" => BOOL, "str" => LEN }.freeze
    BASIS = 2166136261
    PRIME = 16777619
    MASK = 0xFFFFFFFF

    # Every row loop generated, by [codes, width], for the process's life: a
    # statement's kinds recur in every run, so the loop is generated once, in
    # the first batch that needs it (the priming or warm-up, never again).
    LOOPS = {}

    # One run's kinds and the row loops for them, by result width.
    class Folder
      def initialize(codes)
        @codes = codes
        @by_width = {}
      end

      # The lambda (rows, h) -> h for rows of `width` columns.
      def for(width)
        @by_width[width] ||= (LOOPS[[@codes, width]] ||= Fold.generate(@codes, width))
      end
    end

    # The `kinds` of a request (nil or an Array of "int"/"bool"/"str"/"any") as
    # a Folder; a column beyond them is ANY. Raises ArgumentError for anything
    # else.
    def self.compile(kinds)
      return Folder.new([]) if kinds.nil?
      raise ArgumentError, "kinds must be null or an array" unless kinds.is_a?(Array)
      Folder.new(kinds.map do |k|
        CODES.fetch(k) { raise ArgumentError, "unknown kind #{k.inspect} (known: any, bool, int, str)" }
      end)
    end

    # The Ruby source of the row loop for `width` columns of these codes,
    # evaluated into a lambda. Each row is destructured into the block's
    # parameters (|v0, v1, ...,|: the trailing comma destructures a row of
    # one column too), which the VM does in C: 12.6 us per 100 rows of
    # benchmark_rows against 17.4 us for v = r[j] per value (consume():
    # 10.2 us for its four columns).
    def self.generate(codes, width)
      init = []
      body = []
      mix = []
      width.times do |j|
        init << "c#{j} = 0"
        case codes[j] || ANY
        when SUM
          init << "s#{j} = 0"
          body << "if v#{j} then s#{j} += v#{j} else c#{j} += 1 end"
        when BOOL
          init << "s#{j} = 0"
          body << "if v#{j} then s#{j} += 1 elsif v#{j}.nil? then c#{j} += 1 end"
        when LEN
          init << "s#{j} = 0"
          body << "if v#{j} then s#{j} += v#{j}.bytesize else c#{j} += 1 end"
        else
          body << "c#{j} += 1 if v#{j}.nil?"
        end
        # the constants as literals: no constant lookup per mix
        sum = codes[j].to_i == ANY ? "0" : "(s#{j} & #{MASK})"
        mix << "h = ((h ^ c#{j}) * #{PRIME}) & #{MASK}; h = ((h ^ #{sum}) * #{PRIME}) & #{MASK}"
      end
      params = Array.new(width) { |j| "v#{j}," }.join(" ")
      src = "lambda do |rows, h|\n#{init.join("\n")}\nrows.each do |#{params}|\n#{body.join("\n")}\nend\n" \
            "#{mix.join("\n")}\nh\nend"
      module_eval(src, __FILE__, __LINE__)
    end

    # The fold of one batch, fed one execution's rows at a time (add), in
    # the order of the executions, as the client reads them: a client that
    # reads a pipeline's results one by one folds each before it reads the
    # next, as the C drivers fold inside run_batch and as a plain loop
    # consumes them. The server then sends the next result while this one
    # is folded, and the rows of one result only are alive at a time.
    # Folding after the last result instead cost the pg gem 25-30% more
    # wall time and 10% more CPU at pipelined LIMIT 100 (docs/clients.md,
    # "Ruby: a result folded as it is read"). One Acc per run, reset per
    # batch: no allocation of its own in the timed loop.
    class Acc
      attr_reader :h, :rows

      def initialize(folder)
        @folder = folder
        @width = -1 # the width of the last result, and its row loop
        @loop = nil
        reset
      end

      def reset
        @h = BASIS
        @rows = 0
        self
      end

      # One execution's rows (PG::Result#values: an Array of row Arrays).
      # The hot path.
      def add(rows)
        n = rows.length
        @rows += n
        h = ((@h ^ n) * PRIME) & MASK
        if n.positive?
          width = rows[0].length
          if width != @width
            @loop = @folder.for(width)
            @width = width
          end
          h = @loop.call(rows, h)
        end
        @h = h
        self
      end
    end
  end
end
