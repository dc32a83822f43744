"""What ``linkaudit --help`` says besides each option's own line: its
sections (grouped as the field's checkers group theirs: scope, checks,
politeness, output, memory, shared audits), the usage lines with the
subcommands, and a few examples."""

# --help's sections, in order: key -> title.  An option's row names its key
# (config/options.py, Flag.section; the command's own: command/parser.py).
SECTIONS = {
    "scope": "what is audited",
    "checks": "how links are checked",
    "politeness": "politeness",
    "output": "output",
    "memory": "memory between audits",
    "shared": "one audit on many workers (Redis)",
    "notify": "told when something changes",
    "configuration": "configuration",
}
USAGE = """linkaudit [OPTIONS] URL [URL ...]
       linkaudit [OPTIONS] DIRECTORY [--root-url URL]
       linkaudit history --db PATH
       linkaudit show REPORT.json --format FORMAT
       linkaudit report --redis URL --audit NAME
       linkaudit keygen DIR"""
EXAMPLES = """examples:
  linkaudit https://example.com/
      audit a live site, one request a second per host
  linkaudit ./public
      audit a static build before it is deployed (no server needed)
  linkaudit ./public --root-url https://example.com/docs/
      the same, for a site that lives at that address (its links to it are
      checked in the build)
  linkaudit https://example.com/ --db links.db --fail-on new
      every day: resume, recheck, and fail only on new breakage
  linkaudit --demo
      try it offline on a small bundled site

subcommands:
  history   the audits an audit database kept (linkaudit history --help)
  show      a saved JSON report in another format (linkaudit show --help)
  report    the report of a shared audit on Redis (linkaudit report --help)
  keygen    a key to sign requests with, and its key directory (linkaudit keygen --help)

Exit codes: 0 nothing broken, 1 something broken, 2 usage or configuration
error, 3 incomplete audit with nothing broken found, 4 internal error (a bug
in linkaudit: please report it with the log)."""
