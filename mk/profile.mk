# mk/profile.mk -- the profile tools of --profile (issue 28), installed into
# $(B)/profile/ by `make` (docs/flamegraphs.md):
#
#   $(B)/profile/fold.py      perf script's handler: perf.data -> .folded + .top.tsv
#                             (with foldlib.py beside it, which it imports)
#   $(B)/profile/flame        folded stacks -> one self-contained HTML page
#   $(B)/profile/flame-dir    a profile directory -> a page per group + an index
#                             (both with flamelib.js, page.js and page.css beside them)
#
# The renderer's npm packages (d3-flame-graph and d3, pinned by
# scripts/profile/flame/package-lock.json) are installed by
# scripts/install-deps.sh (`npm ci`, the deps target) into
# build/profile/node_modules; another build directory (build-san) links to it.

PROFILE_COPY = fold.py foldlib.py flamelib.js page.js page.css
PROFILE_OUT  = $(PROFILE_COPY:%=$(B)/profile/%) $(B)/profile/flame $(B)/profile/flame-dir \
               $(if $(filter build,$(B)),,$(B)/profile/node_modules)

.PHONY: profile
profile: $(PROFILE_OUT)
all: profile
tests: profile

$(B)/profile/%: scripts/profile/%
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/profile/flame: scripts/profile/flame.js
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/profile/flame-dir: scripts/profile/flame-dir.js
	@mkdir -p $(dir $@)
	cp $< $@

ifneq ($(B),build)
$(B)/profile/node_modules:
	@mkdir -p $(dir $@)
	ln -sfn $(abspath build/profile/node_modules) $@
endif
