#!/usr/bin/env bash
# Public test data the suite checks linkaudit against, taken from Debian
# packages that ship it (see README.md beside this script).  Idempotent:
# does nothing when tests/data/upstream/ is complete.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/upstream"
want=(
  "url/urltestdata.json"
  "url/setters_tests.json"
  "idna/IdnaTestV2.txt"
  "html5lib-tests/tokenizer/test1.test"
)
complete=1
for f in "${want[@]}"; do [ -f "$out/$f" ] || complete=0; done
[ "$complete" = 1 ] && exit 0

packages=(librust-url-dev librust-idna-dev librust-markup5ever-rcdom-dev)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
# apt-get download needs the package lists; fetch them once if it fails
if ! apt-get download "${packages[@]}" >/dev/null 2>&1; then
  as_root=""; [ "$(id -u)" = 0 ] || as_root="sudo"
  $as_root apt-get update -qq >/dev/null
  apt-get download "${packages[@]}" >/dev/null
fi
for deb in ./*.deb; do dpkg-deb -x "$deb" extracted; done
reg=extracted/usr/share/cargo/registry
rm -rf "$out" && mkdir -p "$out/url" "$out/idna"
cp "$reg"/url-*/tests/urltestdata.json "$reg"/url-*/tests/setters_tests.json "$out/url/"
cp "$reg"/url-*/LICENSE-MIT "$out/url/" 2>/dev/null || true
cp "$reg"/idna-*/tests/IdnaTestV2.txt "$out/idna/"
cp -r "$reg"/markup5ever_rcdom-*/html5lib-tests "$out/html5lib-tests"
ls ./*.deb | sed 's|^\./||' > "$out/PACKAGES"
echo "tests/data/upstream: $(cat "$out/PACKAGES" | tr '\n' ' ')"
