# The adapter's identity in hello's reply.
module PGCB
  ADAPTER = "ruby".freeze
  ADAPTER_VERSION = "1.0.0".freeze
  PROTOCOL = 1

  # The interpreter, e.g. "Ruby 3.1.2p20" (RUBY_ENGINE "ruby": CRuby; its YJIT
  # state when it has one).
  def self.runtime
    name = RUBY_ENGINE == "ruby" ? "Ruby" : RUBY_ENGINE
    s = "#{name} #{RUBY_VERSION}p#{RUBY_PATCHLEVEL}"
    if defined?(RubyVM::YJIT) && RubyVM::YJIT.respond_to?(:enabled?)
      s << (RubyVM::YJIT.enabled? ? " (YJIT)" : " (no JIT)")
    end
    s
  end
end
