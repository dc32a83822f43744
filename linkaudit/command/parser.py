"""The ``linkaudit`` command's options, and how they become spider
arguments (``ARGUMENTS``, ``FLAGS``: errors then name what the user typed)."""

from __future__ import annotations

import argparse
import difflib
import textwrap
from typing import NoReturn

from linkaudit import __version__
from linkaudit.command.helptext import EXAMPLES, SECTION_OF, SECTIONS, USAGE
from linkaudit.command.views import add_view_options
from linkaudit.internals import HelpFormatter, parser_actions
from linkaudit.output.exitstatus import EXIT_USAGE
from linkaudit.output.formats import FORMATS

FAIL_ON = ("broken", "new", "none")
# options passed on as the spider argument of that name: (dest, argument)
ARGUMENTS = (
    "depth contact pagedir db baseline journal redis audit accept auth cookie_jar root_url "
    "local_dir html redirect_fixes soft_404 max_urls"
).split()
# repeatable options, passed on as lists (a regex or a header may hold a comma)
LISTS = {
    "exclude": "exclude",
    "include": "include",
    "header": "headers",
    "header_host": "header_hosts",
    "sitemap": "sitemap",
}
# on/off options: (dest, argument, the value they set)
FLAGS = (
    ("restart", "restart", "true"),
    ("skip_far", "skip_far", "true"),
    ("check_fragments", "check_fragments", "true"),
    ("no_css", "css", "false"),
    ("no_sitemap", "robots_sitemaps", "false"),
    ("soft_404_probes", "soft_404_probes", "true"),
    ("no_suggestions", "suggestions", "false"),
)


class _HelpFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown where there is one; file names never hyphen-broken."""

    def help_text(self, action: argparse.Action) -> str:
        if (
            action.default is None
            or action.default is argparse.SUPPRESS
            or action.default in ([], 0, False)
        ):
            return action.help or ""
        return super().help_text(action)

    def lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # one line, as for every other bad input; --help shows the usage
        self.exit(EXIT_USAGE, f"linkaudit: error: {message}{self._nearest(message)}\n")

    def _nearest(self, message: str) -> str:
        """For an unknown option, the option meant most likely."""
        if not message.startswith("unrecognized arguments: "):
            return ""
        actions = parser_actions(self)
        flags = [f for action in actions for f in action.option_strings if f[:2] == "--"]
        for word in message.split()[2:]:
            if word.startswith("--"):
                near = difflib.get_close_matches(word.split("=")[0], flags, n=1)
                if near:
                    return f" (did you mean {near[0]}?)"
        return ""


def _setting(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return name, value


# (flags, metavar, repeatable, help) of the options that take a value
_VALUED = (
    ("--report", "PATH", False, "where the JSON report is written"),
    ("--near", "PREFIX", True, "what counts as in the site; default: the start URLs"),
    (
        "--root-url",
        "URL",
        False,
        "with a directory: the site's own address, whose links are checked against the directory",
    ),
    (
        "--port",
        "PORT",
        False,
        "with a directory: its port on 127.0.0.1 (its URLs' address, and its server's "
        "when it is served); default: the build's own, the same from run to run",
    ),
    ("--depth", "N", False, "link hops from the start URLs; default: no limit"),
    (
        "--delay",
        "SECONDS",
        False,
        "seconds between requests to one host; default: 1.0 (0.1 with --demo; none for "
        "the server of a build directory)",
    ),
    ("--max-requests", "N", False, "stop after this many responses; default: no limit"),
    ("--max-time", "SECONDS", False, "stop after this many seconds; default: no limit"),
    (
        "--max-urls",
        "N",
        False,
        "record at most this many URLs: links to further new URLs are counted, not "
        "checked (the audit is then incomplete); default: no limit",
    ),
    ("--contact", "EMAIL", False, "sent as the From header"),
    ("--user-agent", "TEXT", False, "the User-Agent header; default: linkaudit/VERSION (+URL)"),
    ("--timeout", "SECONDS", False, "how long one request may take; default: 15"),
    (
        "--concurrency",
        "N",
        False,
        "requests in flight at once, all hosts together; default: 16 (each host still "
        "gets --delay between its requests)",
    ),
    ("--exclude", "REGEX", True, "URLs matching it are reported excluded, never requested"),
    ("--include", "REGEX", True, "check only URLs matching it; it wins over --exclude"),
    ("--accept", "STATUSES", False, "statuses counted ok, one by one or in ranges: 200-299,429"),
    ("--sitemap", "URL", True, "a sitemap (or sitemap index) whose URLs are audited too"),
    (
        "--soft-404",
        "MODE",
        False,
        "pages answering 200 that are error pages (their title says not found, or, with "
        "--soft-404-probes, they look like a missing page): warn (default), error, off",
    ),
    ("--header", "'NAME: VALUE'", True, "a header sent to the site's own hosts only"),
    ("--auth", "USER:PASSWORD", False, "HTTP basic credentials for the site's own hosts only"),
    ("--header-host", "HOST", True, "also send --header and --auth to HOST"),
    ("--cookie-jar", "FILE", False, "cookies from a Netscape cookies.txt file"),
    ("--jsonl", "PATH", False, "also export every checked URL as JSON lines (a Scrapy feed)"),
    ("--html", "PATH", False, "also write the report as one self-contained HTML page"),
    (
        "--redirect-fixes",
        "PATH",
        False,
        "also write the redirect fix-list as CSV (page, line, replace from, with to)",
    ),
    ("--journal", "PATH", False, "journal of results; default: beside the report"),
    (
        "--redis",
        "URL",
        False,
        "one audit over many workers: the Redis (redis://HOST:PORT/DB) "
        "that holds it; start the same command on every worker",
    ),
    ("--audit", "NAME", False, "with --redis: the audit's name (the first worker creates it)"),
    (
        "--pagedir",
        "DIR",
        False,
        "save every site page fetched in DIR as files 0, 1, 2... (URL, "
        "depth, then the HTML); DIR must exist",
    ),
    (
        "--db",
        "PATH",
        False,
        "audit database (SQLite): resume an interrupted audit, recheck "
        "incrementally, compare with the previous audit; created if missing",
    ),
    (
        "--baseline",
        "REPORT",
        False,
        "an earlier report: mark new broken links and list fixed "
        "ones (default with --db: the previous finished audit)",
    ),
    (
        "--config",
        "PATH",
        False,
        "configuration file; default: linkaudit.toml, or "
        "[tool.linkaudit] in pyproject.toml, in the current directory",
    ),
)
_SWITCHES = (
    ("--demo", "serve a small bundled example site on 127.0.0.1 and audit it (offline)"),
    ("--skip-far", "report links outside the site excluded, request nothing there"),
    ("--check-fragments", "a link to page#name is broken when the page has no such anchor"),
    ("--no-css", "do not read links in CSS (style elements and attributes, stylesheets)"),
    ("--no-sitemap", "do not read the sitemaps that the site's robots.txt names"),
    (
        "--soft-404-probes",
        "find soft 404s by probing: one request per host and directory pattern for a URL "
        "that cannot exist, compared with the pages",
    ),
    ("--no-suggestions", "do not suggest the page a broken link in the site most likely meant"),
    ("--restart", "with --redis: drop what Redis holds of the audit NAME and start it again"),
    ("--insecure", "accept TLS certificates that do not verify (expired, self-signed)"),
    ("--print-config", "print the configuration in effect (file and options) and exit"),
)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="linkaudit",
        usage=USAGE,
        description="Audit the links of a website: every broken link, with the pages\n"
        "and lines that carry it.",
        epilog=EXAMPLES,
        formatter_class=_HelpFormatter,
    )
    p.add_argument(
        "urls",
        nargs="*",
        metavar="URL",
        help="start URL(s), or a directory (a local build, read as files); "
        "the site is what starts with them (an index page stands for its directory)",
    )
    sections = {title: p.add_argument_group(title) for title in SECTIONS}
    for flag, metavar, repeatable, text in _VALUED:
        default = "linkaudit-report.json" if flag == "--report" else None
        action = "append" if repeatable else "store"
        group = sections[SECTION_OF[flag]]
        group.add_argument(flag, metavar=metavar, action=action, default=default, help=text)
    for flag, text in _SWITCHES:
        sections[SECTION_OF[flag]].add_argument(flag, action="store_true", help=text)
    sections["output"].add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="broken",
        help="exit 1 when anything is broken, only for new breakage since the baseline, or never",
    )
    sections["output"].add_argument(
        "--format", choices=sorted(FORMATS), default="text", help="what is printed at the end"
    )
    noise = sections["output"].add_mutually_exclusive_group()
    noise.add_argument(
        "-q", "--quiet", action="store_true", help="errors only; a clean audit prints nothing"
    )
    noise.add_argument(
        "-v", "--verbose", action="count", default=0, help="log each response (-vv: the reasoning)"
    )
    add_view_options(sections["output"])  # --max-referrers, --max-bytes, --junit-all
    sections["configuration"].add_argument(
        "-s",
        "--set",
        dest="settings",
        metavar="NAME=VALUE",
        type=_setting,
        action="append",
        default=[],
        help="any Scrapy or linkaudit setting (repeatable)",
    )
    p.add_argument("--version", action="version", version=f"linkaudit {__version__}")
    return p


def spider_arguments(ns: argparse.Namespace) -> dict[str, object]:
    """The options that are spider arguments (errors name them so)."""
    arguments: dict[str, object] = {}
    for name in ARGUMENTS:
        value = getattr(ns, name, None)
        if value is not None:
            arguments[name] = value
    if ns.near:
        arguments["near"] = list(ns.near)  # each prefix whole, commas included
    for dest, argument in LISTS.items():
        if getattr(ns, dest, None):
            arguments[argument] = list(getattr(ns, dest))
    for dest, argument, value in FLAGS:
        if getattr(ns, dest, False):
            arguments[argument] = value
    return arguments


def labels_of(dest: str) -> tuple[str, ...]:
    """What an error may call the option ``dest``: its flag, or the spider
    argument it became."""
    flag = "--" + dest.replace("_", "-")
    names = [flag, dest] if dest in ARGUMENTS else [flag]
    names += [a for d, a in LISTS.items() if d == dest]
    names += [a for d, a, _ in FLAGS if d == dest]
    return tuple(names)


def blame_file(message: str, from_file: dict[str, object], source: str) -> str:
    """A configuration error about a value the file gave names the file and
    its key (``linkaudit.toml: delay: 'fast' is not a number``)."""
    for dest in from_file:
        for label in labels_of(dest):
            if message.startswith(label + ":"):
                key = dest.replace("_", "-")
                return f"{source}: {key}:{message[len(label) + 1 :]}"
    return message
