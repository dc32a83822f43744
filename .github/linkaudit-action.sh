#!/usr/bin/env bash
# The work of the linkaudit GitHub Action (action.yml runs this file, and
# tests/test_action.py runs it the same way).  Every input comes in an
# environment variable, never pasted into shell text:
#   INPUT_ARGS     what follows `linkaudit` on a command line; split like a
#                  shell would (quotes, backslashes) but never evaluated:
#                  $(...), `...`, $VAR, ; and | are plain characters
#   INPUT_FAIL_ON  broken | new | none
#   INPUT_SARIF    the SARIF file written (linkaudit's stdout)
#   INPUT_REPORT   the JSON report written
#   INPUT_CHANGED_SINCE  a git revision (a pull request's base): with a build
#                  directory, --changed-since it (fetched first if missing)
#   INPUT_ANNOTATIONS  "true": the findings as workflow commands on stdout
#                  (linkaudit show --format github), GitHub's annotations
# Also read: GITHUB_ACTION_PATH (the action's checkout, installed with pip
# unless LINKAUDIT_ACTION_SKIP_INSTALL=1), GITHUB_OUTPUT and
# GITHUB_STEP_SUMMARY (files, when set).
# Exit status: linkaudit's (0 nothing broken, 1 broken per --fail-on,
# 2 usage or configuration error, 3 incomplete, 4 internal error); 2 also
# when the action itself is misconfigured (bad args quoting, no install).
set -euo pipefail

say() { printf 'linkaudit-action: %s\n' "$*" >&2; }

: "${INPUT_ARGS:=}"
: "${INPUT_FAIL_ON:=broken}"
: "${INPUT_SARIF:=linkaudit.sarif}"
: "${INPUT_REPORT:=linkaudit-report.json}"
: "${INPUT_CHANGED_SINCE:=}"
: "${INPUT_ANNOTATIONS:=true}"

# python on a runner set up by actions/setup-python, python3 elsewhere
if command -v python >/dev/null 2>&1; then py=python; else py=python3; fi

set_output() { # name value: a step output, when GitHub collects them
    [ -n "${GITHUB_OUTPUT:-}" ] || return 0
    case $2 in
    *$'\n'*) # a value on several lines needs GitHub's delimiter form
        local eof="linkaudit_EOF_${RANDOM}${RANDOM}${RANDOM}"
        printf '%s<<%s\n%s\n%s\n' "$1" "$eof" "$2" "$eof" >>"$GITHUB_OUTPUT" ;;
    *) printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT" ;;
    esac
}

# 1. linkaudit, from this action's own checkout (so @v1 runs v1's code)
if [ "${LINKAUDIT_ACTION_SKIP_INSTALL:-}" != 1 ]; then
    if [ -z "${GITHUB_ACTION_PATH:-}" ]; then
        say "GITHUB_ACTION_PATH is not set: cannot install linkaudit"
        exit 2
    fi
    # the versions linkaudit is tested with (requirements.txt pins them), then
    # the distribution scrapy-linkaudit (the linkaudit command), by its name:
    # pip refuses a checkout whose project is not that one
    if ! "$py" -m pip install --disable-pip-version-check --quiet \
        -r "$GITHUB_ACTION_PATH/requirements.txt" "scrapy-linkaudit @ file://$GITHUB_ACTION_PATH"; then
        say "could not install scrapy-linkaudit (the linkaudit command) from $GITHUB_ACTION_PATH"
        exit 2
    fi
fi
if ! command -v linkaudit >/dev/null 2>&1; then
    say "no linkaudit command on PATH"
    exit 2
fi

# 2. the arguments: shlex splits them into NUL-terminated words, read back
# into an array; nothing of them is ever run by a shell.  A backslash at the
# end of a line (a YAML block written like a shell command) joins lines.
split=$(mktemp)
trap 'rm -f "$split"' EXIT
if ! "$py" -c 'import shlex, sys
try:
    words = shlex.split(sys.argv[1].replace("\\\n", " "))
except ValueError as e:
    sys.exit(f"linkaudit-action: the args input could not be split: {e}")
sys.stdout.write("".join(word + "\0" for word in words))' "$INPUT_ARGS" >"$split"; then
    say "args: $INPUT_ARGS"
    exit 2
fi
args=()
while IFS= read -r -d '' word; do args+=("$word"); done <"$split"
if [ "${#args[@]}" -eq 0 ]; then
    say "the args input is empty: give a start URL or a build directory"
    exit 2
fi

# --changed-since the pull request's base: only for a build directory (the
# first word that is not an option), and only with the commit at hand: a
# shallow checkout gets it from origin (linkaudit compares with it directly
# when the merge base is not there either)
if [ -n "$INPUT_CHANGED_SINCE" ]; then
    first=""
    for word in "${args[@]}"; do
        case $word in -*) ;; *) first=$word; break ;; esac
    done
    given=no
    for word in "${args[@]}"; do
        case $word in --changed-since | --changed-since=*) given=yes ;; esac
    done
    if [ "$given" = yes ] || [ -z "$first" ] || [ ! -d "$first" ]; then
        : # a URL, or the args say it already
    elif ! git cat-file -e "$INPUT_CHANGED_SINCE^{commit}" 2>/dev/null &&
        ! git fetch --no-tags --quiet --depth=1 origin "$INPUT_CHANGED_SINCE" 2>/dev/null; then
        say "the base $INPUT_CHANGED_SINCE is not in the checkout and could not be fetched: every finding is reported"
    else
        args+=("--changed-since=$INPUT_CHANGED_SINCE")
    fi
fi

# 3. one audit; its exit code is the step's
for file in "$INPUT_SARIF" "$INPUT_REPORT"; do
    mkdir -p -- "$(dirname -- "$file")"
done
code=0
linkaudit "${args[@]}" --report="$INPUT_REPORT" --format=sarif --fail-on="$INPUT_FAIL_ON" \
    >"$INPUT_SARIF" || code=$?
# exit 2 stops before any audit: the report file, if any, is an older one;
# an empty SARIF file would only make the upload step fail
[ -s "$INPUT_SARIF" ] || rm -f -- "$INPUT_SARIF"
report=""
sarif=""
if [ "$code" -ne 2 ] && [ -f "$INPUT_REPORT" ]; then report=$INPUT_REPORT; fi
if [ -f "$INPUT_SARIF" ]; then sarif=$INPUT_SARIF; fi

# the findings as annotations of the run, on their source lines (GitHub
# reads workflow commands on stdout); a linkaudit without the format says so
if [ "$INPUT_ANNOTATIONS" = true ] && [ -n "$report" ]; then
    if ! linkaudit show --help 2>/dev/null | grep -q '[{,]github[,}]'; then
        say "no annotations: this linkaudit has no --format github"
    elif ! linkaudit show "$report" --format=github --fail-on=none; then
        say "no annotations: linkaudit show --format github failed"
    fi
fi

set_output exit-code "$code"
set_output report "$report"
set_output sarif "$sarif"

# 4. a one-line summary on stderr, and the report as markdown on the run's
# summary page (linkaudit's own markdown when it can be imported, counts
# otherwise); cut by size to GitHub's 1 MiB, whole rows: the report has everything
# shellcheck disable=SC2016  # a Python program: its backticks are markdown
if ! "$py" -c '
import json, sys

report_path, code, sarif_path, summary_path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
MEANING = {0: "nothing broken", 1: "broken links", 2: "usage or configuration error",
           3: "incomplete audit", 4: "internal error"}
meaning = MEANING.get(code, "unexpected exit code")
OUTCOMES = ("ok", "redirect", "broken", "blocked", "excluded", "unchecked")
LIMIT = 1 << 20  # GITHUB_STEP_SUMMARY: 1 MiB per step


def load(path):
    try:
        from linkaudit.output.report import read_report
    except ImportError:  # linkaudit runs from another interpreter
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    return read_report(path, lean=True)


report = None
if report_path:
    try:
        report = load(report_path)
    except (OSError, ValueError):
        pass
if report is None:
    line = f"linkaudit: exit {code} ({meaning}), no report: see the log above"
    md = [f"### linkaudit: exit {code} ({meaning})", "", "No report was written: see the step log."]
else:
    s = report["summary"]
    broken, urls = s["broken"], s["urls"]
    state = "complete" if report.get("complete") else "incomplete"
    line = (f"linkaudit: {broken} broken of {urls} URLs ({state}); exit {code} "
            f"({meaning}); report {report_path}" + (f", SARIF {sarif_path}" if sarif_path else ""))
    footer = ["", f"Exit code {code} ({meaning}); report `{report_path}`"
              + (f", SARIF `{sarif_path}`." if sarif_path else ".")]
    # GitHub takes at most 1 MiB of summary from a step: the markdown is cut
    # by size, whole rows, the footer and a margin kept
    room = LIMIT - len("\n".join(footer).encode()) - 1024
    try:
        from linkaudit.output.formats.markdown import as_markdown
        from linkaudit.output.formats.places import Options
        md = as_markdown(report, Options(max_bytes=max(room, 1000))).split("\n")
    except Exception:
        md = [f"### linkaudit: {broken} broken", "", f"{urls} URLs checked: {state}.",
              "", "| " + " | ".join(OUTCOMES) + " |", "|" + " --- |" * len(OUTCOMES),
              "| " + " | ".join(str(s.get(o, 0)) for o in OUTCOMES) + " |"]
    md += footer
print(line, file=sys.stderr)
if summary_path:
    with open(summary_path, "a", encoding="utf-8") as fh:
        fh.write("\n".join(md) + "\n\n")
' "$report" "$code" "$sarif" "${GITHUB_STEP_SUMMARY:-}"; then
    say "could not summarize the report (linkaudit exited $code)"
fi

exit "$code"
