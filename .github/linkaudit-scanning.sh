#!/usr/bin/env bash
# Whether this run can upload SARIF to GitHub code scanning (action.yml
# runs it before the upload step; tests/test_action.py runs it against a
# stand-in API on 127.0.0.1).  An upload that cannot succeed would fail the
# job of every pull request from a fork (its token is read-only) and of every
# private repository without code scanning: such runs skip the upload with a
# notice; the report is still in the step summary and the artifacts.
# Every input comes in an environment variable:
#   SCANNING_EVENT       github.event_name
#   SCANNING_REPOSITORY  github.repository (owner/name)
#   SCANNING_HEAD        the pull request's head repository (empty otherwise)
#   SCANNING_API         github.api_url
#   SCANNING_TOKEN       the token the upload would use
# Writes upload=true|false to GITHUB_OUTPUT; always exits 0.
set -uo pipefail

decide() { # upload notice
    [ -z "$2" ] || printf '::notice title=linkaudit::%s\n' "$2"
    if [ -n "${GITHUB_OUTPUT:-}" ]; then printf 'upload=%s\n' "$1" >>"$GITHUB_OUTPUT"; fi
    exit 0
}

repo=${SCANNING_REPOSITORY:-}
head=${SCANNING_HEAD:-}
case ${SCANNING_EVENT:-} in
pull_request | pull_request_review | pull_request_review_comment)
    if [ -n "$head" ] && [ "$head" != "$repo" ]; then
        decide false "a pull request from a fork ($head) cannot upload to code scanning: \
skipped; the broken links are in the step summary"
    fi ;;
esac
if [ -z "$repo" ] || [ -z "${SCANNING_API:-}" ] || [ -z "${SCANNING_TOKEN:-}" ]; then
    decide true "" # nothing to ask: let the upload say
fi
# code scanning's analyses: 403 when the repository cannot use code scanning
# (a private repository without GitHub Advanced Security); 200, or 404 before
# the first analysis, when an upload will be taken
status=$(curl --silent --output /dev/null --write-out '%{http_code}' --max-time 20 \
    --header "Authorization: Bearer $SCANNING_TOKEN" \
    --header "Accept: application/vnd.github+json" \
    "$SCANNING_API/repos/$repo/code-scanning/analyses?per_page=1") || status=000
if [ "$status" = 403 ]; then
    decide false "code scanning refused this run (403 for $repo: GitHub Advanced Security is off, \
or the token lacks security-events): the SARIF upload is skipped; the broken links are in the \
step summary"
fi
decide true ""
