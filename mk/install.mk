# mk/install.mk -- `make install` and `make uninstall` (docs/install.md).
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [B=build]
#   make uninstall [PREFIX=/usr/local] [DESTDIR=]
#
# install copies what is ALREADY BUILT in $(B) -- the runner as
# bindir/pgclientbench, aggregate as bindir/pgclientbench-aggregate, the shipped
# drivers and the bridge's adapters under libdir/pgclientbench/ -- with the
# public headers, pgclientbench.pc, the configs (driver paths rewritten), the
# SQL, the docs and the driver template (templates/driver/). It never
# compiles: build first (`make`, or `make SAN=1 tests` for build-san), then
# `make install` (as root if need be); `make install SAN=1` or
# `make install B=build-san` installs build-san's files exactly as built.
# A missing file stops it before anything is written.
#
# uninstall removes exactly what install listed in its manifest,
# datarootdir/pgclientbench/install-manifest (under DESTDIR), so it takes the
# same PREFIX (or directories) and DESTDIR. scripts/install.sh does both and
# describes the layout.

PREFIX       ?= /usr/local
DESTDIR      ?=
bindir       ?= $(PREFIX)/bin
libdir       ?= $(PREFIX)/lib
includedir   ?= $(PREFIX)/include
datarootdir  ?= $(PREFIX)/share
pkgconfigdir ?= $(libdir)/pkgconfig

# The shipped drivers and adapters, as the Makefile builds them into $(B).
INSTALL_ENV = PGCB_B='$(B)' PGCB_DRIVERS='$(DRIVERS)' \
              PGCB_ADAPTERS='$(patsubst $(B)/adapters/%,%,$(filter-out $(ADAPTER_SELFTESTS),$(ADAPTER_OUT)))' \
              DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' bindir='$(bindir)' libdir='$(libdir)' \
              includedir='$(includedir)' datarootdir='$(datarootdir)' pkgconfigdir='$(pkgconfigdir)'

.PHONY: install uninstall
install:
	@$(INSTALL_ENV) scripts/install.sh install

uninstall:
	@$(INSTALL_ENV) scripts/install.sh uninstall
