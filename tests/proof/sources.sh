#!/usr/bin/env bash
# The proof of --sources (tests/test_sources_proof.py): real documentation
# projects nobody here wrote, fetched by name and version from the package
# registries, links broken on purpose in their sources (break_links.py
# writes unique sentinels and records where), then built with their own
# tools into tests/data/sources/NAME/.  tests/setup.sh calls this script;
# a project already built is left alone (delete its folder to build it
# again).  The builders live in their own virtualenv
# (tests/data/sources/venv), never in the project's .venv; npm packages are
# installed with --ignore-scripts.  Debian's jekyll and hugo come from apt
# (tests/setup.sh).
#
# With --published, the same projects are built as published, no link
# broken, into tests/data/sources/NAME-published/ (the benchmark's builds,
# bench/sources.py; tests/setup.sh does not build them).
set -euo pipefail
cd "$(dirname "$0")/../.."
here=tests/proof
data=tests/data/sources
mkdir -p "$data/download"

say() { printf 'proof: %s\n' "$*" >&2; }

# the builders, pinned (Sphinx 9.0.4 is the newest for Python 3.11; it
# keeps docutils below 0.23, which is why it is not the project's venv)
venv=$data/venv
if [ ! -x "$venv/bin/sphinx-build" ] || [ ! -x "$venv/bin/mkdocs" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check \
    sphinx==9.0.4 pallets-sphinx-themes==2.5.0 sphinxcontrib-log-cabinet==1.0.1 \
    sphinx-tabs==3.5.0 sphinx-notfound-page==1.1.0 myst-parser==5.2.0 \
    flask==3.1.3 click==8.5.1 itsdangerous==2.2.0 \
    mkdocs==1.6.1 mkdocs-material==9.8.2 mkdocs-print-site-plugin==2.9 \
    mkdocs-charts-plugin==0.0.13 mkdocs-git-revision-date-localized-plugin==1.7.2
fi

sdist() { # NAME VERSION -> the unpacked sdist's folder
  local name=$1 version=$2 file
  file=$(ls "$data/download/" 2>/dev/null | grep -i "^${name//-/[-_]}-${version}\.tar\.gz$" || true)
  if [ -z "$file" ]; then
    "$venv/bin/pip" download -q --disable-pip-version-check --no-deps --no-binary :all: \
      -d "$data/download" "$name==$version"
    file=$(ls "$data/download/" | grep -i "^${name//-/[-_]}-${version}\.tar\.gz$")
  fi
  tar --no-same-owner -xzf "$data/download/$file" -C "$data/download"
  printf '%s\n' "$data/download/${file%.tar.gz}"
}

npm_pack() { # SPEC -> the unpacked package's folder
  local spec=$1 into
  into=$data/download/npm-$(printf '%s' "$spec" | tr '/@' '__')
  rm -rf "$into" && mkdir -p "$into"
  (cd "$into" && npm pack --silent "$spec" >/dev/null && tar --no-same-owner -xzf ./*.tgz && rm -f ./*.tgz)
  printf '%s\n' "$into/package"
}

fresh() { # NAME FROM: the project's pristine copy in $data/NAME/project
  rm -rf "$data/$1"
  mkdir -p "$data/$1"
  cp -a "$2" "$data/$1/project"
}

built() { [ -f "$data/$1/expected.json" ] && [ -f "$data/$1/built" ]; }

as=""
[ "${1:-}" = "--published" ] && as="-published"
breaks() { # KIND PROJECT SOURCES NAME: links broken on purpose, recorded (none if --published)
  if [ -n "$as" ]; then
    echo "[]" >"$data/$4/expected.json"
  else
    python3 $here/break_links.py "$1" "$2" "$3" "$data/$4/expected.json"
  fi
}

# MkDocs: mkdocs-print-site-plugin's own docs (Tim Vink)
n=printsite$as
if ! built "$n"; then
  say "MkDocs: mkdocs-print-site-plugin 2.9"
  fresh "$n" "$(sdist mkdocs-print-site-plugin 2.9)"
  p=$data/$n/project
  breaks mkdocs "$p" docs "$n"
  # the git-revision-date plugin reads each page's history
  (cd "$p" && git init -q && git add -A &&
    git -c user.name=proof -c user.email=proof@localhost commit -qm proof)
  (cd "$p" && NO_MKDOCS_2_WARNING=1 ../../venv/bin/mkdocs build -q -d site) 2>"$data/$n/build.log"
  touch "$data/$n/built"
fi

# Sphinx, reStructuredText: Flask's docs (Pallets)
n=flask$as
if ! built "$n"; then
  say "Sphinx (reST): Flask 3.1.3"
  fresh "$n" "$(sdist flask 3.1.3)"
  p=$data/$n/project
  breaks sphinx "$p" docs "$n"
  "$venv/bin/sphinx-build" -b html -q "$p/docs" "$p/docs/_build/html" 2>"$data/$n/build.log"
  touch "$data/$n/built"
fi

# Sphinx, MyST: click's docs (Pallets)
n=click$as
if ! built "$n"; then
  say "Sphinx (MyST): click 8.5.1"
  fresh "$n" "$(sdist click 8.5.1)"
  p=$data/$n/project
  breaks myst "$p" docs "$n"
  "$venv/bin/sphinx-build" -b html -q "$p/docs" "$p/docs/_build/html" 2>"$data/$n/build.log"
  touch "$data/$n/built"
fi

# Jekyll: Jekyll's own 2015 site, from npm's jekyll@3.0.0-beta1, with Debian's jekyll
n=jekyll$as
if ! built "$n" && command -v jekyll >/dev/null; then
  say "Jekyll: jekyll@3.0.0-beta1 site/"
  fresh "$n" "$(npm_pack jekyll@3.0.0-beta1)"
  p=$data/$n/project
  breaks jekyll "$p" site "$n"
  (cd "$p/site" && jekyll build -q -d _site) >"$data/$n/build.log" 2>&1
  touch "$data/$n/built"
fi

# Hugo: the Doks 0.5.0 starter (h-enk), from npm, with Debian's hugo
n=doks$as
if ! built "$n" && command -v hugo >/dev/null; then
  say "Hugo: @hyas/doks@0.5.0"
  fresh "$n" "$(npm_pack @hyas/doks@0.5.0)"
  p=$data/$n/project
  # its postinstall downloads a hugo binary: --ignore-scripts; flexsearch
  # 0.7.21 still ships the bundle the theme imports
  (cd "$p" && npm install --silent --ignore-scripts --no-audit --no-fund >/dev/null &&
    npm install --silent --ignore-scripts --no-audit --no-fund flexsearch@0.7.21 >/dev/null)
  breaks hugo "$p" content "$n"
  (cd "$p" && hugo -d public) >"$data/$n/build.log" 2>&1
  touch "$data/$n/built"
fi
