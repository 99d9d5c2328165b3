# pgclientbench -- build, test and benchmark.
#
#   make            build the runner and the drivers (installs missing packages first)
#   make bench      + start a throw-away PostgreSQL, run conf/bench.ini, stop it
#   make test       the whole test suite (unit, server, sanitizer builds)
#   make check      the quick one: unit tests, a short real-server run, lint
#   make SAN=1 ...  the same with AddressSanitizer + UBSan, into build-san/
#
# Layout: everything built goes to $(B)/: the programs ($(B)/runner), the
# drivers ($(B)/drivers/NAME.so), the libraries ($(B)/lib/), the tests.
# `runner/` is the runner's source, so the program cannot sit beside it: run
# `build/runner -c conf/bench.ini`. The layers and what each may include:
# docs/layers.md (checked by `make lint`, scripts/lint-layers.py).

B        ?= build
CC       ?= cc
OPT      ?= -O2
CSTD      = -std=c11 -D_GNU_SOURCE
WARN      = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-missing-field-initializers
VERSION  := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)

ifeq ($(SAN),1)
B         = build-san
SANFLAGS  = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT       = -O1
endif

# Package flags are expanded when a recipe runs (recursive '='), after the
# deps step has installed what was missing.
PQ_CFLAGS  = $(shell pkg-config --cflags libpq)
PQ_LIBS    = $(shell pkg-config --libs libpq)
# libcrypto: the runner's journal hashes its config (SHA-256, runner/out/journal.c).
DEP_CFLAGS = $(PQ_CFLAGS) $(shell pkg-config --cflags inih jansson libcrypto)
DEP_LIBS   = $(PQ_LIBS) $(shell pkg-config --libs inih jansson libcrypto) -lm -lpthread -ldl

# -Ilib: drivers and the runner name a library's header with its folder
# ("pgwire/rw_conn.h", "pqutil/pq_errmsg.h"); scripts/lint-layers.py checks
# who may include what.
CFLAGS   += $(CSTD) $(WARN) $(OPT) -g $(SANFLAGS) -Iinclude -Ilib -Icommon -Irunner -MMD -MP
LDFLAGS  += $(SANFLAGS)
SOFLAGS   = -fPIC -shared -fvisibility=hidden

COMMON_SRC = $(wildcard common/*.c)
RUNNER_SRC = $(wildcard runner/*/*.c)
COMMON_OBJ = $(COMMON_SRC:%.c=$(B)/obj/%.o)
RUNNER_OBJ = $(RUNNER_SRC:%.c=$(B)/obj/%.o)
# The static libraries of lib/NAME/ ($(B)/lib/libNAME.a): code that several
# drivers (and, for pqutil, the runner) link. Compiled position-independent
# with hidden symbols, so a driver .so exports nothing of them.
SHLIBS     = $(patsubst lib/%/,%,$(sort $(dir $(wildcard lib/*/*.c))))
SHLIB_ARS  = $(SHLIBS:%=$(B)/lib/lib%.a)
PGWIRE_A   = $(B)/lib/libpgwire.a
PQUTIL_A   = $(B)/lib/libpqutil.a
# The conversions of pgcb/value.h's types beyond the inline ones: every user
# of pgcb_value_fold links it (installed as libpgcbvalue.a).
PGVALUE_A  = $(B)/lib/libpgvalue.a
# The event loop of a load over a pool (ABI 1.5 run_load), for the C drivers
# that run one.
PGLOAD_A   = $(B)/lib/libpgload.a
# pgwire's own libraries: libssl (TLS), libcrypto (SCRAM, MD5) and libidn (SASLprep).
PGWIRE_LIBS = $(shell pkg-config --libs libssl libcrypto libidn)

DRIVERS     = $(patsubst drivers/%/,%,$(sort $(dir $(wildcard drivers/*/*.c))))
DRIVER_SOS  = $(DRIVERS:%=$(B)/drivers/%.so)
# Per driver: the static libraries of lib/ it links (DRIVER_AR_NAME, also
# prerequisites) and its other libraries (DRIVER_LIBS_NAME).
DRIVER_AR_libpq_sync       = $(PQUTIL_A) $(PGVALUE_A)
DRIVER_AR_libpq_pipeline   = $(PQUTIL_A) $(PGVALUE_A) $(PGLOAD_A)
DRIVER_AR_rawwire          = $(PGWIRE_A) $(PGVALUE_A) $(PGLOAD_A)
DRIVER_AR_floor            = $(PGWIRE_A) $(PGVALUE_A)
DRIVER_AR_bridge           = $(PQUTIL_A) $(PGVALUE_A)
DRIVER_AR_null             = $(PGVALUE_A) $(PGLOAD_A)
DRIVER_LIBS_libpq_sync     = $(PQ_LIBS)
DRIVER_LIBS_libpq_pipeline = $(PQ_LIBS)
DRIVER_LIBS_rawwire        = $(PGWIRE_LIBS)
DRIVER_LIBS_floor          = $(PGWIRE_LIBS)
DRIVER_LIBS_bridge         = $(PQ_LIBS) $(shell pkg-config --libs jansson libcrypto)

# unlinked_value.c is built without libpgvalue on purpose (mk/fixtures.mk).
FIXTURE_SRC = $(filter-out tests/fixtures/unlinked_value.c,$(wildcard tests/fixtures/*.c))
FIXTURE_SOS = $(FIXTURE_SRC:tests/fixtures/%.c=$(B)/tests/fixtures/%.so)

UNIT_SRC   = $(wildcard tests/unit/test_*.c)
UNIT_BIN   = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
SERVER_SRC = $(wildcard tests/server/test_*.c)
SERVER_BIN = $(SERVER_SRC:tests/server/%.c=$(B)/tests/%)
# The tests' own helpers (tests/lib/*.c), linked into every test binary.
TESTLIB_SRC = $(wildcard tests/lib/*.c)
TESTLIB_OBJ = $(TESTLIB_SRC:%.c=$(B)/obj/%.o)

AGG_SRC    = $(wildcard aggregate/*.c)
AGG_OBJ    = $(AGG_SRC:%.c=$(B)/obj/%.o)

# The wire proxy (proxy/: counts what crosses, adds an emulated round-trip
# time; the runner starts it for [suite] rtt_ms and wire counting).
PROXY_SRC  = $(wildcard proxy/*.c)
PROXY_OBJ  = $(PROXY_SRC:%.c=$(B)/obj/%.o)
WIRETAP_A  = $(B)/lib/libwiretap.a

PROGRAMS = $(B)/runner $(if $(AGG_SRC),$(B)/aggregate) $(B)/pgcb-proxy

# The shipped adapters of the bridge driver (adapters/LANG/, the protocol in
# docs/bridge-protocol.md), copied into $(B)/adapters/LANG/, where
# build/drivers/bridge.so finds them. Their Node.js packages are installed
# by scripts/install-deps.sh (`npm ci` from the committed lockfile) into
# build/adapters/node/node_modules, which another build directory links to.
ADAPTER_SRC = $(shell find adapters -type f \( -name '*.js' -o -name '*.mjs' -o -name '*.py' -o -name '*.rb' -o -name 'package*.json' -o -name 'release*.sh' -o -path 'adapters/*/releases/*' \) \
                -not -path '*/node_modules/*' -not -path '*/__pycache__/*' 2>/dev/null)
ADAPTER_OUT = $(ADAPTER_SRC:%=$(B)/%) $(B)/adapters/go/pgcb-adapter-go $(B)/adapters/go/pgcb-standalone-go \
              $(B)/adapters/go/pgcb-vectors-go
# QUICK=1 (make check's build): without the Rust adapter, whose release build
# takes about 2 minutes on 2 CPUs; its clients' tests are skipped there.
ifneq ($(QUICK),1)
ADAPTER_OUT += $(B)/adapters/rust/pgcb-adapter-rust $(B)/adapters/rust/pgcb-standalone-rust \
               $(B)/adapters/rust/pgcb-vectors-rust
endif
# The Java adapter builds in seconds (javac and jar): make check has it too.
ADAPTER_OUT += $(B)/adapters/java/pgcb-adapter-java.jar $(B)/adapters/java/pgcb-standalone-java.jar \
               $(B)/adapters/java/jvm.options $(B)/adapters/java/jdk $(B)/adapters/java/lib
NODE_MODULES = build/adapters/node/node_modules
# The adapters' self-tests against the shared vectors (tests/vectors/,
# run by tests/unit/test_adapter_vectors.c): built and copied with the
# adapters, never installed (mk/install.mk).
ADAPTER_SELFTESTS = $(filter %/test_vectors.js %/test_vectors.py %/vectors_test.rb %/pgcb-vectors-go \
                             %/pgcb-vectors-rust,$(ADAPTER_OUT))

# Extra targets `make test` runs after the test suites (lint, fuzzing ...),
# appended to by the fragments in mk/.
TEST_EXTRA =

.PHONY: FORCE all deps libs drivers adapters fixtures tests test check test-unit test-server test-san bench clean
all: deps $(PROGRAMS) drivers adapters

# Install what is missing (Debian packages); a no-op when everything is there.
deps:
	@scripts/install-deps.sh

drivers: $(DRIVER_SOS)
libs: $(SHLIB_ARS)
fixtures: $(FIXTURE_SOS)
tests: $(UNIT_BIN) $(SERVER_BIN) $(BENCH_BIN) fixtures drivers adapters $(PROGRAMS)

adapters: $(ADAPTER_OUT) $(if $(filter build,$(B)),,$(B)/adapters/node/node_modules $(B)/adapters/node/runtime/node_modules $(B)/adapters/python/venv)

$(B)/adapters/%: adapters/%
	@mkdir -p $(dir $@)
	cp $< $@

# The Go adapter: a static binary built in module mode, offline, from the
# committed go.mod + go.sum and the module cache adapters/go/install.sh fills
# from the Go module proxy (build/adapters/go/modcache; a no-op when it
# holds the same locks), always into build/ (another build directory,
# build-san, links build's binaries below: no sanitizer reaches Go code).
# Its release.sh (client = pgx@v4.18.3 ...) compiles the checkout's
# adapters/go sources, found from build/adapters/go/../../../adapters/go.
GO_DEPS = adapters/go/go.mod adapters/go/go.sum adapters/go/build.sh adapters/go/install.sh \
          adapters/go/release-src.sh
build/adapters/go/pgcb-adapter-go: $(wildcard adapters/go/*.go) $(GO_DEPS)
	adapters/go/install.sh build/adapters/go
	adapters/go/build.sh $@

# Its self-test against the shared vectors (vectors_test.go, a `go test -c`
# binary: tests/unit/test_adapter_vectors.c runs it).
build/adapters/go/pgcb-vectors-go: $(wildcard adapters/go/*.go) $(GO_DEPS)
	adapters/go/install.sh build/adapters/go
	adapters/go/build.sh --test $@

# Its standalone counterpart (scripts/compare-standalone.sh), built the same way.
build/adapters/go/pgcb-standalone-go: $(wildcard adapters/go/standalone/*.go) $(GO_DEPS)
	adapters/go/install.sh build/adapters/go
	adapters/go/build.sh $@ standalone
ifneq ($(B),build)
$(B)/adapters/go/%: build/adapters/go/%
	@mkdir -p $(dir $@)
	ln -sfn $(abspath $<) $@
endif

# The Rust adapter and its standalone counterpart: one release build with
# rustup's toolchain, offline (--locked), from the crates adapters/rust/install.sh
# fetched from crates.io into build/adapters/rust/cargo-home (build.sh runs it
# when Cargo.lock changed; about 100 s from nothing on 2 CPUs), always into
# build/; another build directory (build-san) links build's binaries instead
# of compiling them a second time.
RUST_SRC = $(wildcard adapters/rust/*.rs adapters/rust/src/*.rs adapters/rust/standalone/*.rs adapters/rust/tests/*.rs) \
           adapters/rust/Cargo.toml \
           adapters/rust/Cargo.lock adapters/rust/build.sh adapters/rust/install.sh adapters/rust/toolchain.sh
build/adapters/rust/pgcb-adapter-rust: $(RUST_SRC)
	adapters/rust/build.sh build/adapters/rust
build/adapters/rust/pgcb-standalone-rust: build/adapters/rust/pgcb-adapter-rust
build/adapters/rust/pgcb-vectors-rust: build/adapters/rust/pgcb-adapter-rust
ifneq ($(B),build)
$(B)/adapters/rust/%: build/adapters/rust/%
	@mkdir -p $(dir $@)
	ln -sfn $(abspath $<) $@
endif

# The Java adapter and its standalone counterpart: javac and jar with the
# newest JDK of /usr/lib/jvm, offline, against the jars adapters/java/install.sh
# resolved from Maven Central into build/adapters/java/lib (stamped by its
# copy of adapters/java/pom.xml; adapters/java/build.sh, a few seconds),
# always into build/; another build directory (build-san) links build's
# files, lib and the jdk symlink included. jvm.options (the JVM's flags,
# read by both through the launcher's @file) is written by build.sh.
JAVA_SRC = $(wildcard adapters/java/src/pgcb/adapter/*.java adapters/java/standalone/*.java) \
           adapters/java/build.sh
build/adapters/java/lib/.pom: adapters/java/pom.xml adapters/java/install.sh
	adapters/java/install.sh build/adapters/java
build/adapters/java/pgcb-adapter-java.jar: $(JAVA_SRC) build/adapters/java/lib/.pom
	adapters/java/build.sh build/adapters/java
build/adapters/java/pgcb-standalone-java.jar build/adapters/java/jdk build/adapters/java/lib: \
    build/adapters/java/pgcb-adapter-java.jar
ifneq ($(B),build)
$(B)/adapters/java/%: build/adapters/java/%
	@mkdir -p $(dir $@)
	ln -sfn $(abspath $<) $@
endif

# Another build directory (build-san) uses build's installed packages.
ifneq ($(B),build)
$(B)/adapters/node/node_modules:
	@mkdir -p $(dir $@)
	ln -sfn $(abspath $(NODE_MODULES)) $@
# ... and the Node.js the adapter runs on (install-deps.sh's, as bridge.so
# looks for it under its adapters directory).
$(B)/adapters/node/runtime/node_modules:
	@mkdir -p $(dir $@)
	ln -sfn $(abspath build/adapters/node/runtime/node_modules) $@
# ... and the Python adapter's venv (adapters/python/install.sh's: bridge.so
# runs python/venv/bin/python3 under its adapters directory).
$(B)/adapters/python/venv:
	@mkdir -p $(dir $@)
	ln -sfn $(abspath build/adapters/python/venv) $@
endif

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEP_CFLAGS) -c $< -o $@

# common/ (both programs link it) and the runner's own objects, apart: the
# aggregate program links common/ alone.
$(B)/libpgcbcommon.a: $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(B)/libpgcbrunner.a: $(RUNNER_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# What the runner (and a test of its parts) links, in link order.
RUNNER_LINK = $(B)/libpgcbrunner.a $(B)/libpgcbcommon.a $(PQUTIL_A) $(PGVALUE_A) $(WIRETAP_A)
AGG_LIBS    = $(shell pkg-config --libs jansson) -lm

# The version (git describe) is compiled into main.o, which is rebuilt when
# the stamp's content changes.
$(B)/obj/runner/main.o: CFLAGS += -DPGCB_VERSION='"$(VERSION)"'
$(B)/obj/runner/main.o: $(B)/version.stamp
$(B)/version.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION)' > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

$(B)/runner: $(B)/obj/runner/main.o $(B)/obj/runner/run.o $(RUNNER_LINK)
	$(CC) $(LDFLAGS) -o $@ $^ $(DEP_LIBS)

$(B)/aggregate: $(AGG_OBJ) $(B)/libpgcbcommon.a
	$(CC) $(LDFLAGS) -o $@ $^ $(AGG_LIBS)

$(B)/pgcb-proxy: $(PROXY_OBJ) $(WIRETAP_A)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

# A driver: every .c in drivers/NAME/ linked into $(B)/drivers/NAME.so,
# with the static libraries it names (DRIVER_AR_NAME).
.SECONDEXPANSION:
# Each .c of a driver or a library is compiled on its own
# (position-independent, hidden symbols) with its own dependency file.
PCT := %
$(B)/obj/drivers/%.pic.o: drivers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEP_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(B)/obj/lib/%.pic.o: lib/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEP_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(B)/lib/lib%.a: $$(patsubst lib/$$*/$$(PCT).c,$(B)/obj/lib/$$*/$$(PCT).pic.o,$$(wildcard lib/$$*/*.c))
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(B)/drivers/%.so: $$(patsubst drivers/$$*/$$(PCT).c,$(B)/obj/drivers/$$*/$$(PCT).pic.o,$$(wildcard drivers/$$*/*.c)) $$(DRIVER_AR_$$*)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(DRIVER_LIBS_$*)

$(B)/tests/fixtures/%.so: tests/fixtures/%.c include/pgcb/driver.h $(PGVALUE_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SOFLAGS) $(LDFLAGS) -o $@ $< $(PGVALUE_A)

$(B)/libpgcbtest.a: $(TESTLIB_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# A test links the code it tests: the runner's and common's libraries
# always, and what TEST_OBJS_<test> names (a driver's objects, a lib/
# library), with TEST_LIBS_<test> (their system libraries). Never a
# #included .c file.
RAWWIRE_OBJS = $(patsubst drivers/rawwire/%.c,$(B)/obj/drivers/rawwire/%.pic.o,$(wildcard drivers/rawwire/*.c))
TEST_OBJS_test_rawwire_conninfo_diff = $(PGWIRE_A)
TEST_OBJS_test_rawwire_conninfo      = $(PGWIRE_A)
TEST_OBJS_test_rawwire_scram         = $(PGWIRE_A)
TEST_OBJS_test_rawwire_codec         = $(B)/obj/drivers/rawwire/rw_reply.pic.o $(PGWIRE_A)
TEST_OBJS_test_rawwire_fake          = $(RAWWIRE_OBJS) $(PGWIRE_A) $(PGLOAD_A)
TEST_OBJS_test_rawwire_tls_fake      = $(RAWWIRE_OBJS) $(PGWIRE_A) $(PGLOAD_A)
TEST_OBJS_test_rawwire_copy          = $(B)/obj/drivers/rawwire/rw_copy_reply.pic.o $(PGWIRE_A)
TEST_OBJS_test_pl_loop               = $(PGLOAD_A)
TEST_OBJS_test_br_dump               = $(B)/obj/drivers/bridge/br_dump.pic.o $(PGVALUE_A) \
                                       $(B)/obj/drivers/bridge/br_dumpval.pic.o
TEST_OBJS_test_vectors               = $(B)/obj/drivers/bridge/br_dump.pic.o $(PGVALUE_A) \
                                       $(B)/obj/drivers/bridge/br_dumpval.pic.o \
                                       $(B)/obj/drivers/bridge/br_arrays.pic.o
$(foreach t,$(filter test_rawwire_%,$(notdir $(UNIT_BIN))),$(eval TEST_LIBS_$(t) = $(PGWIRE_LIBS)))

$(B)/tests/%: tests/unit/%.c $$(TEST_OBJS_$$*) $(B)/libpgcbtest.a $(RUNNER_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEP_CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_OBJS_$*) $(B)/libpgcbtest.a $(RUNNER_LINK) \
	    $(TEST_LIBS_$*) $(DEP_LIBS) -lcmocka

# Benchmarks of parts, apart from any run (not tests: never timed in make
# test): tests/bench/NAME.c -> $(B)/bench/NAME, linked as the runner is.
BENCH_SRC = $(wildcard tests/bench/*.c)
BENCH_BIN = $(BENCH_SRC:tests/bench/%.c=$(B)/bench/%)
$(B)/bench/%: tests/bench/%.c $(RUNNER_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEP_CFLAGS) $(LDFLAGS) -o $@ $< $(RUNNER_LINK) $(DEP_LIBS)

$(B)/tests/%: tests/server/%.c $(B)/libpgcbtest.a $(RUNNER_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEP_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpgcbtest.a $(RUNNER_LINK) $(DEP_LIBS) -lcmocka

# The whole suite (tests/all.sh): the unit and server tests (against a
# throw-away local PostgreSQL that tests/run.sh starts and removes), the same
# built with AddressSanitizer + UBSan, then the TEST_EXTRA targets (lint,
# fuzzing). Every step runs; the last line is the total, "all: N passed, N
# failed".
test: deps
	@tests/all.sh $(TEST_EXTRA)

# The quick suite for contributors (under 3 minutes): the plain build without
# the Rust adapter (QUICK=1), its unit tests, a short real-server run
# (tests/run.sh's SMOKE list) and the linters but cargo clippy
# (PGCB_LINT_QUICK=1).
check: deps
	@PGCB_LINT_QUICK=1 tests/all.sh --quick lint

test-san:
	@$(MAKE) --no-print-directory SAN=1 tests
	@tests/run.sh build-san

test-unit: tests
	@tests/run.sh $(B) unit

# The default benchmark on a throw-away local server (or on the server that
# PG* variables / PGCB_CONNINFO name).
bench: all
	@scripts/bench.sh conf/bench.ini

clean:
	rm -rf build build-san

# Fragments: one concern each (lint, fuzzing ...), may add to TEST_EXTRA.
-include $(wildcard mk/*.mk)

# The compilers' dependency files (-MMD): only build/obj and build/tests hold
# them (build/adapters/ holds other languages' caches, with *.d directories).
-include $(shell find $(B)/obj $(B)/tests $(B)/bench $(B)/fuzz -name '*.d' -type f 2>/dev/null)
