# Developer commands.  `make screenshot`: the demo site audited and its HTML
# report photographed in headless Chromium (build/report.png, the page itself
# beside it), to look at the report's design.

PYTHON ?= .venv/bin/python
LINKAUDIT ?= .venv/bin/linkaudit
BUILD ?= build

.PHONY: screenshot
# linkaudit exits 1 on the demo: it has broken links, as it should
screenshot:
	mkdir -p $(BUILD)
	$(LINKAUDIT) --demo --check-fragments --report $(BUILD)/demo-report.json || test $$? -eq 1
	$(PYTHON) bench/screenshot.py $(BUILD)/demo-report.json $(BUILD)/report.png \
		--html $(BUILD)/report.html

# Property-based tests with fresh randomness (the suite's default profile,
# ci, replays a fixed seed and the saved examples).  FUZZ_EXAMPLES examples
# per test that does not set its own count (the whole-crawl fuzz test is
# one), rounds of fresh examples until FUZZ_SECONDS are up (0: one round);
# the first failure stops it, its example saved in tests/data/hypothesis:
# commit it, and CI replays it.  make fuzz FUZZ_SECONDS=3600 FUZZ_EXAMPLES=50
FUZZ_EXAMPLES ?= 200
FUZZ_SECONDS ?= 0
FUZZ_TESTS ?= tests

.PHONY: fuzz
fuzz:
	end=$$(( $$(date +%s) + $(FUZZ_SECONDS) )); \
	while :; do \
		HYPOTHESIS_PROFILE=fuzz LINKAUDIT_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) \
			$(PYTHON) -m pytest -m hypothesis -o timeout=0 $(FUZZ_TESTS) || exit $$?; \
		[ $$(date +%s) -lt $$end ] || break; \
	done
