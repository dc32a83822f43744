#!/usr/bin/env bash
# Everything the test suite needs on a fresh Debian machine, from the
# package registries only (apt, PyPI): the README's test command runs it,
# and so does CI (.ci/run).  Idempotent; run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: Debian's Python documentation (a real site the
# differential test reads) and redis-server (the shared-audit tests start
# their own on 127.0.0.1).  apt-get needs root; sudo is used if there.
need=()
[ -d /usr/share/doc/python3.11/html ] || need+=(python3.11-doc)
# ... and PostgreSQL's and GIO's (tests/test_groups_real.py: template findings)
[ -d /usr/share/doc/postgresql-doc-15/html ] || need+=(postgresql-doc-15)
[ -d /usr/share/gtk-doc/html/gio ] || need+=(libglib2.0-doc)
command -v redis-server >/dev/null || need+=(redis-server)
# the proof of --sources: Debian's jekyll and hugo build a Jekyll site and a
# Hugo one (tests/proof/sources.sh); npm fetches them (and the Nu HTML
# Checker below): Debian's, unless a Node.js with its npm is there already
command -v jekyll >/dev/null || need+=(jekyll)
command -v hugo >/dev/null || need+=(hugo)
command -v npm >/dev/null || need+=(npm)
# the HTML report's tests: headless Chromium, its driver, and Java for the
# Nu HTML Checker
command -v chromium >/dev/null || need+=(chromium)
[ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
command -v java >/dev/null || need+=(default-jre-headless)
# the oldest Python the project allows (requires-python): Debian 12's
# python3.11, 3.11.2, whose re misread the page scan's patterns once
# (tests/test_oldest_python.py runs the scan's tests on it)
[ -x /usr/bin/python3.11 ] || need+=(python3.11)
/usr/bin/python3.11 -c 'import ensurepip' 2>/dev/null || need+=(python3.11-venv)
if [ ${#need[@]} -gt 0 ]; then
  as_root=""; [ "$(id -u)" = 0 ] || as_root="sudo"
  $as_root apt-get install -y -q "${need[@]}" >/dev/null 2>&1 || {
    $as_root apt-get update -q >/dev/null
    $as_root apt-get install -y -q "${need[@]}" >/dev/null
  }
fi

# Public test data (web-platform-tests, UTS #46, html5lib-tests)
tests/data/fetch.sh

# The proof of --sources: real documentation projects from the registries,
# links broken on purpose, built with their own tools (tests/data/sources/)
bash tests/proof/sources.sh

# The Nu HTML Checker (vnu.jar, from npm; --ignore-scripts: the jar ships in
# the package, its postinstall would look for a Java runtime to download)
[ -f tests/data/vnu/node_modules/vnu-jar/build/dist/vnu.jar ] ||
  npm install --prefix tests/data/vnu --ignore-scripts --no-save --silent vnu-jar@26.9.27

# The project and its test tools, in .venv
python3 -m venv .venv
.venv/bin/pip install -q -r requirements-dev.txt -e .
# The pinned runtime requirements as wheels, for tests/test_wheel.py (which
# installs the built wheel into a fresh virtualenv, offline); downloaded
# again only when requirements.txt changes (its copy in the wheelhouse)
cmp -s requirements.txt tests/data/wheelhouse/requirements.txt || {
  .venv/bin/pip download -q --only-binary=:all: -r requirements.txt -d tests/data/wheelhouse
  cp requirements.txt tests/data/wheelhouse/requirements.txt
}
# ... and again on the oldest Python allowed, in .venv-oldest
/usr/bin/python3.11 -m venv .venv-oldest
.venv-oldest/bin/pip install -q -r requirements-dev.txt -e .
