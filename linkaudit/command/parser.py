"""The ``linkaudit`` command's options: each setting's from its row in the
table of settings (``config/options.py``), then the command's own (the start
URLs, ``--report``, ``--format``, ``--config``...); and what an error about
one may call it.  What they choose: ``command/choices.py``."""

from __future__ import annotations

import argparse
import difflib
import textwrap
from typing import Any, NoReturn

from linkaudit import __version__
from linkaudit.command.helptext import EXAMPLES, SECTIONS, USAGE
from linkaudit.command.views import add_view_options
from linkaudit.config.options import BY_FLAG, OPTIONS, REPORT, Flag
from linkaudit.internals import HelpFormatter, parser_actions
from linkaudit.output.exitstatus import EXIT_USAGE
from linkaudit.output.formats import FORMATS

FAIL_ON = ("broken", "new", "none")


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


# The command's own options, each section's first.  A setting's option is its
# row in config/options.py; --report is the command's (its default is always
# passed on, made absolute: command/choices.py), --demo's pace too.
_OWN = (
    Flag(
        "--demo", "scope", "serve a small bundled example site on 127.0.0.1 and audit it (offline)"
    ),
    Flag(
        "--port PORT",
        "scope",
        "with a directory: its port on 127.0.0.1 (its URLs' address, and its server's when "
        "it is served); default: the build's own, the same from run to run",
    ),
    Flag("--report PATH", "output", "where the JSON report is written"),
    Flag("--jsonl PATH", "output", "also export every checked URL as JSON lines (a Scrapy feed)"),
    Flag(
        "--config PATH",
        "configuration",
        "configuration file; default: linkaudit.toml, or "
        "[tool.linkaudit] in pyproject.toml, in the current directory",
    ),
    Flag(
        "--print-config",
        "configuration",
        "print the configuration in effect (file and options) and exit",
    ),
)


def _add(group: Any, flag: Flag) -> None:
    """``flag`` in ``group``: a switch, or an option that takes a value
    (given as text: the setting's reader checks it, as it does ``-s``'s)."""
    if flag.metavar is None:
        group.add_argument(flag.name, action="store_true", help=flag.help)
    else:
        action = "append" if flag.many else "store"
        group.add_argument(
            flag.name, metavar=flag.metavar, action=action, default=None, help=flag.help
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
    sections = {key: p.add_argument_group(title) for key, title in SECTIONS.items()}
    for flag in _OWN:
        _add(sections[flag.section], flag)
    p.set_defaults(report=REPORT)  # (shown by --help and --print-config)
    for option in OPTIONS:
        if option.flag is not None:
            _add(sections[option.flag.section], option.flag)
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


def labels_of(dest: str) -> tuple[str, ...]:
    """What an error may call the option ``dest``: its flag, or the spider
    argument it became."""
    flag = "--" + dest.replace("_", "-")
    row = BY_FLAG.get(flag)
    return (flag, row.argument) if row is not None and row.argument else (flag,)


def blame_file(message: str, from_file: dict[str, object], source: str) -> str:
    """A configuration error about a value the file gave names the file and
    its key (``linkaudit.toml: delay: 'fast' is not a number``)."""
    for dest in from_file:
        for label in labels_of(dest):
            if message.startswith(label + ":"):
                key = dest.replace("_", "-")
                return f"{source}: {key}:{message[len(label) + 1 :]}"
    return message
