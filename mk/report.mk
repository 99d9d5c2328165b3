# mk/report.mk -- the HTML report (issue 30, docs/report.md): the files its
# pages inline, embedded into libpgcbcommon.a (so into aggregate and the
# runner) as $(B)/gen/html_assets.c, which scripts/report/embed.sh makes
# with xxd:
#
#   d3 and Observable Plot   npm, pinned by scripts/report/package-lock.json,
#                            installed by scripts/install-deps.sh (npm ci) into
#                            build/report/node_modules (build-san uses build's)
#   report.js, report.css    scripts/report/: the page's own code and style
#
# and the browser test's runner, $(B)/report/check-page (tests/report/).

REPORT_NODE   = build/report/node_modules
REPORT_ASSETS = pgcb_html_d3=$(REPORT_NODE)/d3/dist/d3.min.js \
                pgcb_html_plot=$(REPORT_NODE)/@observablehq/plot/dist/plot.umd.min.js \
                pgcb_html_js=scripts/report/report.js \
                pgcb_html_css=scripts/report/report.css
REPORT_ASSET_FILES = $(foreach a,$(REPORT_ASSETS),$(lastword $(subst =, ,$(a))))

$(B)/gen/html_assets.c: $(REPORT_ASSET_FILES) scripts/report/embed.sh
	@mkdir -p $(dir $@)
	scripts/report/embed.sh $@ $(REPORT_ASSETS)

$(B)/obj/gen/html_assets.o: $(B)/gen/html_assets.c common/html_assets.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/libpgcbcommon.a: $(B)/obj/gen/html_assets.o

# The npm packages are installed by scripts/install-deps.sh (make's deps
# step); `make -o deps` on a machine without them says so.
$(REPORT_NODE)/%:
	@echo "make: $@ is missing: run scripts/install-deps.sh (npm ci of scripts/report/package-lock.json)" >&2
	@exit 1
