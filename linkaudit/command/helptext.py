"""What ``linkaudit --help`` says besides each option's own line: its
sections (grouped as the field's checkers group theirs: scope, checks,
politeness, output, memory, shared audits), the usage lines with the
subcommands, and a few examples."""

# --help's sections, as the field's checkers group theirs: flag -> section
SECTIONS = {
    "what is audited": "--near --root-url --port --depth --max-urls --max-requests --max-time "
    "--exclude --include --sitemap --no-sitemap --skip-far --demo",
    "how links are checked": "--accept --timeout --insecure --check-fragments --no-css "
    "--soft-404 --soft-404-probes --no-suggestions --header --auth --header-host --cookie-jar",
    "politeness": "--delay --concurrency --user-agent --contact",
    "output": "--report --format --fail-on --html --jsonl --redirect-fixes --pagedir",
    "memory between audits": "--db --baseline --journal",
    "one audit on many workers (Redis)": "--redis --audit --restart",
    "configuration": "--config --print-config",
}
SECTION_OF = {flag: title for title, flags in SECTIONS.items() for flag in flags.split()}
USAGE = """linkaudit [OPTIONS] URL [URL ...]
       linkaudit [OPTIONS] DIRECTORY --root-url URL
       linkaudit history --db PATH
       linkaudit show REPORT.json --format FORMAT
       linkaudit report --redis URL --audit NAME"""
EXAMPLES = """examples:
  linkaudit https://example.com/
      audit a live site, one request a second per host
  linkaudit ./public --root-url https://example.com/
      audit a static build before it is deployed (no server needed)
  linkaudit https://example.com/ --db links.db --fail-on new
      every day: resume, recheck, and fail only on new breakage
  linkaudit --demo
      try it offline on a small bundled site

subcommands:
  history   the audits an audit database kept (linkaudit history --help)
  show      a saved JSON report in another format (linkaudit show --help)
  report    the report of a shared audit on Redis (linkaudit report --help)

Exit codes: 0 nothing broken, 1 something broken, 2 usage or configuration
error, 3 incomplete audit with nothing broken found, 4 internal error (a bug
in linkaudit: please report it with the log)."""
