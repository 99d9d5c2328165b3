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
# its length in bytes (String#bytesize: hello says text_length "bytes"), `any`
# 0. The columns are rows.transpose, and each column's count and sum run in
# Ruby's C methods (Array#count, #compact, #sum, #map(&:bytesize)): every value
# of every row is read in every batch, none is converted again. A value of
# another type than its kind says (a String in an `int` column) raises
# TypeError, which fails the batch.
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

    # The `kinds` of a request (nil or an Array of "int"/"bool"/"str"/"any") as
    # an Array of codes for fold_batch; a column beyond them is ANY. Raises
    # ArgumentError for anything else.
    def self.compile(kinds)
      return [].freeze if kinds.nil?
      raise ArgumentError, "kinds must be null or an array" unless kinds.is_a?(Array)
      kinds.map do |k|
        CODES.fetch(k) { raise ArgumentError, "unknown kind #{k.inspect} (known: any, bool, int, str)" }
      end.freeze
    end

    # [fold, rows] of one batch: results is an Array of the executions' row
    # Arrays (PG::Result#values), kinds from compile. The hot path.
    def self.batch(results, kinds)
      h = BASIS
      total = 0
      results.each do |rows|
        n = rows.length
        total += n
        h = ((h ^ n) * PRIME) & MASK
        next if n.zero?
        j = 0
        rows.transpose.each do |col|
          h = ((h ^ col.count(nil)) * PRIME) & MASK
          x = case kinds[j]
              when SUM then col.compact.sum & MASK
              when BOOL then col.count(true)
              when LEN then col.compact.map!(&:bytesize).sum & MASK
              else 0
              end
          h = ((h ^ x) * PRIME) & MASK
          j += 1
        end
      end
      [h, total]
    end
  end
end
