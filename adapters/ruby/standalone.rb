# standalone.rb -- the pg gem timed in the tightest plain loop Ruby allows,
# outside pgclientbench: no benchmark library, no bridge.
# scripts/compare-standalone.sh runs it before and after the runner measures
# the same client through the bridge, on the same server, query and pinning,
# to show that the bridge adds nothing to what it measures. It shares only
# the query text with the adapter (adapters/ruby/adapter.rb): nothing of
# pgcb/ is required; the client is set up here with its public API the way
# the adapter sets it up for its default options (pgcb/clients/pg_client.rb,
# docs/clients.md): PG.connect(host, port, user, dbname, password, sslmode),
# conn.type_map_for_results = PG::BasicTypeMapForResults.new(conn),
# conn.prepare("pgcb_standalone", sql) (a named server-side statement), text
# results. DEPTH 1: res = conn.exec_prepared(name, [], 0), rows = res.values,
# res.clear. DEPTH > 1: libpq's pipeline mode: enter_pipeline_mode, DEPTH x
# send_query_prepared, pipeline_sync, then per query get_result (values,
# clear) and the nil after it, the PIPELINE_SYNC result, exit_pipeline_mode.
#
#     /usr/bin/ruby standalone.rb pg DEPTH TIME_MS SQL
#
# DEPTH: executions per batch (an integer >= 1). TIME_MS: how long the timed
# loop runs. Connection: PGHOST (a socket directory; default
# /var/run/postgresql), PGPORT (default 5432), PGUSER, PGDATABASE,
# PGPASSWORD if set, PGSSLMODE if set (else disable, what the bridge hands
# the adapter for a connection without TLS). One priming batch (which names
# the columns), GC.start, then an untimed warm-up of 1 s and at least 200
# batches (no collection between it and the timed loop), then batches for
# TIME_MS: one Process.clock_gettime(CLOCK_MONOTONIC, :nanosecond) per batch
# (the end of one is the start of the next), each sample stored in a
# preallocated Array, every row consumed with the public benchmark's
# consume() (every value read, the sum checked: 1340 a row of
# benchmark_rows). The process's CPU time (CLOCK_PROCESS_CPUTIME_ID) is read
# just before the first batch and just after the last. Prints one JSON line:
# client, depth, batches, median_ns, mean_ns, p90_ns, cpu_ns_per_query,
# sink, links (as the adapter's hello says them).
# Bad arguments: a usage line, exit 2. A missing gem: the Debian package to
# install, exit 1. A failure of the client: one line, exit 1.
require "json"

PROG = "standalone.rb".freeze
USAGE = "usage: /usr/bin/ruby standalone.rb pg DEPTH TIME_MS SQL".freeze
CAP = 1 << 22 # samples at most, as the Node.js script
NAME = "pgcb_standalone".freeze

def clock = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
def cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)

def runtime
  s = +"#{RUBY_ENGINE == 'ruby' ? 'Ruby' : RUBY_ENGINE} #{RUBY_VERSION}p#{RUBY_PATCHLEVEL}"
  s << (RubyVM::YJIT.enabled? ? " (YJIT)" : " (no JIT)") if defined?(RubyVM::YJIT) && RubyVM::YJIT.respond_to?(:enabled?)
  s
end

def conn_settings
  s = { host: ENV.fetch("PGHOST", "") == "" ? "/var/run/postgresql" : ENV["PGHOST"],
        port: ENV.fetch("PGPORT", "") == "" ? "5432" : ENV["PGPORT"],
        sslmode: ENV.fetch("PGSSLMODE", "") == "" ? "disable" : ENV["PGSSLMODE"] }
  { user: "PGUSER", dbname: "PGDATABASE", password: "PGPASSWORD" }.each do |k, var|
    s[k] = ENV[var] if ENV[var] && !ENV[var].empty?
  end
  s
end

# The public benchmark's consume(): every value of every row, the sum
# checked; the columns' positions from their names, once.
def consumer(fields, sink)
  iv, sv, nv, bv = %w[int_value string_value null_value bool_value].map { |c| fields.index(c) }
  if [iv, sv, nv, bv].any?(&:nil?)
    raise "the query's columns #{fields.join(', ')} are not benchmark_rows' (int_value, string_value, null_value, bool_value)"
  end
  lambda do |rows|
    total = 0
    rows.each do |r|
      total += r[iv]
      total += r[sv].length
      total += r[nv] || 0
      total += 1 if r[bv]
    end
    raise "unexpected sum #{total} for #{rows.length} rows" if total != 1340 * rows.length
    sink[0] += total
  end
end

def timed(batch, time_ms)
  GC.start
  warm_until = clock + 1_000_000_000
  i = 0
  while i < 200 || clock < warm_until
    batch.call
    i += 1
  end
  samples = Array.new(CAP, 0)
  n = 0
  cpu0 = cpu
  stop = clock + (time_ms * 1e6).round
  t0 = clock
  loop do
    batch.call
    t1 = clock
    samples[n] = t1 - t0
    n += 1
    t0 = t1
    break if t1 >= stop || n == CAP
  end
  [samples, n, cpu - cpu0]
end

def run_pg(depth, time_ms, sql)
  v = PG.library_version
  links = "pg #{PG::VERSION} (C extension, libpq #{v / 10000}.#{v % 10000}), PG::BasicTypeMapForResults; #{runtime}"
  conn = PG.connect(conn_settings)
  conn.type_map_for_results = PG::BasicTypeMapForResults.new(conn)
  sink = [0]
  begin
    conn.prepare(NAME, sql)
    res = conn.exec_prepared(NAME, [], 0)
    consume = consumer(res.fields, sink)
    consume.call(res.values)
    res.clear
    empty = [].freeze
    batch = if depth == 1
              lambda do
                res = conn.exec_prepared(NAME, empty, 0)
                rows = res.values
                res.clear
                consume.call(rows)
              end
            else
              lambda do
                conn.enter_pipeline_mode
                depth.times { conn.send_query_prepared(NAME, empty, 0) }
                conn.pipeline_sync
                depth.times do
                  r = conn.get_result
                  r.check
                  rows = r.values
                  r.clear
                  conn.get_result
                  consume.call(rows)
                end
                conn.get_result.clear # PIPELINE_SYNC
                conn.exit_pipeline_mode
              end
            end
    samples, n, cpu_ns = timed(batch, time_ms)
  ensure
    conn.close
  end
  [samples, n, cpu_ns, sink[0], links]
end

def main(argv)
  depth = Integer(argv[1], exception: false) if argv.length == 4
  time_ms = Float(argv[2], exception: false) if argv.length == 4
  if argv.length != 4 || !%w[pg ruby-pg].include?(argv[0]) || argv[3].empty? || depth.nil? || depth < 1 ||
     time_ms.nil? || !(time_ms > 0) || time_ms.infinite?
    warn USAGE
    return 2
  end
  begin
    require "pg"
  rescue LoadError => e
    warn "#{PROG}: pg: cannot load the pg gem into /usr/bin/ruby (#{e.message}) (apt-get install ruby-pg)"
    return 1
  end
  begin
    samples, n, cpu_ns, sink, links = run_pg(depth, time_ms, argv[3])
  rescue StandardError => e
    msg = e.message.split.join(" ")
    warn "#{PROG}: pg: #{e.class}: #{msg.empty? ? e.class : msg}"
    return 1
  end
  s = samples[0, n].sort
  half = n / 2
  median = n.odd? ? s[half] : (s[half - 1] + s[half]) / 2.0
  puts JSON.generate({ client: "pg", depth: depth, batches: n, median_ns: median.round,
                       mean_ns: (s.sum.to_f / n).round, p90_ns: s[[n - 1, (0.9 * n).to_i].min],
                       cpu_ns_per_query: (cpu_ns.to_f / (n * depth)).round, sink: sink.positive?, links: links })
  0
end

exit(main(ARGV))
