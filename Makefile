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
