"""The configuration file (linkaudit.toml, [tool.linkaudit] in pyproject.toml,
--config): where it comes from, how its keys are checked, the command line
winning over it, and --print-config's TOML read back.  No crawl: parsers only.

The command's own parser covers its options today; a small parser covers
option kinds it may not have (a typed option, a BooleanOptionalAction) and
shows that nothing in linkaudit.config.file names an option."""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

import pytest

from linkaudit.cli import build_parser
from linkaudit.config.file import (
    ConfigFileError,
    apply_config,
    describe,
    find_config,
    prepare,
    render_config,
)
from linkaudit.output.formats import FORMATS

TOML = "linkaudit.toml"
PYPROJECT = "pyproject.toml [tool.linkaudit]"
FORMAT_CHOICES = ", ".join(f'"{name}"' for name in sorted(FORMATS))


def _pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return name, value


def small_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="small")
    p.add_argument("urls", nargs="*")
    p.add_argument("--delay")
    p.add_argument("--depth", type=int)
    p.add_argument("--header", action="append")
    p.add_argument("--check-fragments", action="store_true")
    p.add_argument("--css", action=argparse.BooleanOptionalAction)
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.add_argument("--config")
    p.add_argument("--print-config", action="store_true")
    p.add_argument("-s", "--set", dest="settings", type=_pair, action="append", default=[])
    noise = p.add_mutually_exclusive_group()
    noise.add_argument("-q", "--quiet", action="store_true")
    noise.add_argument("-v", "--verbose", action="count", default=0)
    return p


def configured(parser, table: dict, argv=(), source: str = TOML) -> argparse.Namespace:
    """As the command does it: prepare, the file's values as defaults, parse."""
    prepare(parser)
    parser.set_defaults(**apply_config(parser, table, source))
    return parser.parse_args(list(argv))


def error(parser, table: dict, source: str = TOML) -> str:
    with pytest.raises(ConfigFileError) as info:
        apply_config(parser, table, source)
    message = str(info.value)
    assert "\n" not in message
    return message


def find_error(explicit: str | None, cwd: Path) -> str:
    with pytest.raises(ConfigFileError) as info:
        find_config(explicit, cwd)
    assert "\n" not in str(info.value)
    return str(info.value)


# -- where the file comes from


def test_linkaudit_toml_in_the_current_directory(tmp_path):
    (tmp_path / "linkaudit.toml").write_text('delay = 2\nexclude = ["/private/"]\n')
    path, table = find_config(None, tmp_path)
    assert (path, table) == (Path("linkaudit.toml"), {"delay": 2, "exclude": ["/private/"]})
    assert describe(path) == "linkaudit.toml"
    ns = configured(build_parser(), table, ["https://example.com/"], describe(path))
    assert (ns.delay, ns.exclude, ns.urls) == ("2", ["/private/"], ["https://example.com/"])


def test_pyproject_tool_linkaudit_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "site"\n\n[tool.linkaudit]\nurls = "https://example.com/"\nskip-far = true\n'
    )
    path, table = find_config(None, tmp_path)
    assert (path, table) == (
        Path("pyproject.toml"),
        {"urls": "https://example.com/", "skip-far": True},
    )
    assert describe(path) == PYPROJECT
    ns = configured(build_parser(), table, [], describe(path))
    assert (ns.urls, ns.skip_far) == (["https://example.com/"], True)


def test_pyproject_without_the_table_is_no_configuration(tmp_path):
    assert find_config(None, tmp_path) is None
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "site"\n[tool.ruff]\nx = 1\n')
    assert find_config(None, tmp_path) is None


def test_linkaudit_toml_wins_over_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.linkaudit]\ndelay = 1\n")
    (tmp_path / "linkaudit.toml").write_text("delay = 2\n")
    assert find_config(None, tmp_path) == (Path("linkaudit.toml"), {"delay": 2})


def test_explicit_file_is_read_whole(tmp_path):
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "audit.toml").write_text('format = "json"\n')
    (tmp_path / "linkaudit.toml").write_text('format = "text"\n')  # not read: --config wins
    assert find_config("ci/audit.toml", tmp_path) == (Path("ci/audit.toml"), {"format": "json"})
    absolute = str(tmp_path / "ci" / "audit.toml")
    assert find_config(absolute, Path("/")) == (Path(absolute), {"format": "json"})


def test_explicit_pyproject_is_read_from_its_table(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text(
        "[tool.other]\na = 1\n[tool.linkaudit]\ndepth = 2\n"
    )
    path, table = find_config("sub/pyproject.toml", tmp_path)
    assert (path, table) == (Path("sub/pyproject.toml"), {"depth": 2})
    assert describe(path) == "sub/pyproject.toml [tool.linkaudit]"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "site"\n')
    assert find_error("pyproject.toml", tmp_path) == "pyproject.toml: no [tool.linkaudit] table"


def test_explicit_missing_file_is_an_error(tmp_path):
    assert (
        find_error("nowhere.toml", tmp_path)
        == "nowhere.toml: cannot read it: No such file or directory"
    )


def test_toml_syntax_error_names_the_file_and_line(tmp_path):
    (tmp_path / "linkaudit.toml").write_text("delay = 1\n\nformat = json\n")
    assert find_error(None, tmp_path) == "linkaudit.toml: line 3: Invalid value (column 10)"
    (tmp_path / "linkaudit.toml").write_text('exclude = ["a",\n')
    assert find_error(None, tmp_path) == (
        "linkaudit.toml: line 2: Invalid value (at end of document)"
    )


def test_pyproject_that_is_not_toml_is_an_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.linkaudit\n")
    assert find_error(None, tmp_path).startswith("pyproject.toml: line 1: ")


# -- the command line wins


def test_command_line_wins_for_a_value():
    parser = build_parser()
    assert configured(parser, {"delay": 0.5}, ["--delay", "3", "u"]).delay == "3"
    assert parser.parse_args(["u"]).delay == "0.5"


def test_command_line_replaces_a_list():
    parser = build_parser()
    ns = configured(parser, {"exclude": ["a", "b"]}, ["--exclude", "x", "u"])
    assert ns.exclude == ["x"]
    assert parser.parse_args(["--exclude", "x", "--exclude", "y"]).exclude == ["x", "y"]
    assert parser.parse_args([]).exclude == ["a", "b"]
    assert parser.get_default("exclude") == ["a", "b"]  # never appended to


def test_command_line_urls_replace_the_files():
    parser = build_parser()
    assert configured(parser, {"urls": ["https://a/"]}, ["https://b/"]).urls == ["https://b/"]
    assert parser.parse_args([]).urls == ["https://a/"]


def test_command_line_verbosity_replaces_the_files():
    parser = small_parser()
    assert configured(parser, {"verbose": 2}, []).verbose == 2
    assert parser.parse_args(["-v"]).verbose == 1
    assert parser.parse_args(["-vvv"]).verbose == 3
    ns = parser.parse_args(["-q"])  # the other of the exclusive pair: -q wins
    assert (ns.quiet, ns.verbose) == (True, 0)
    parser = small_parser()
    ns = configured(parser, {"quiet": True}, ["-v"])
    assert (ns.quiet, ns.verbose) == (False, 1)
    assert parser.parse_args([]).quiet is True


def test_settings_from_the_file_then_the_command_line():
    """-s keeps append semantics: the file's settings first, the command
    line's after them, which win when they are applied in order."""
    parser = build_parser()
    ns = configured(parser, {"set": {"A": "1", "B": "2"}}, ["-s", "A=9", "u"])
    assert ns.settings == [("A", "1"), ("B", "2"), ("A", "9")]
    assert dict(ns.settings) == {"A": "9", "B": "2"}
    assert parser.parse_args(["u"]).settings == [("A", "1"), ("B", "2")]


# -- keys and their values


def test_unknown_key_names_a_close_one():
    assert (
        error(build_parser(), {"dealy": 1}, PYPROJECT)
        == 'pyproject.toml [tool.linkaudit]: unknown key "dealy" (did you mean "delay"?)'
    )
    assert error(build_parser(), {"zzz": 1}) == 'linkaudit.toml: unknown key "zzz"'


@pytest.mark.parametrize("key", ["config", "print-config", "print_config", "help", "version"])
def test_command_line_only_keys(key):
    for parser in (small_parser(), build_parser()):
        assert error(parser, {key: "x"}) == f"linkaudit.toml: {key}: only on the command line"


@pytest.mark.parametrize(
    "table, message",
    [
        ({"delay": True}, "delay: expected a value, got true"),
        ({"delay": [1]}, "delay: expected a value, got a list"),
        ({"report": {"a": 1}}, "report: expected a value, got a table"),
        ({"skip-far": "yes"}, 'skip-far: expected true or false, got "yes"'),
        ({"demo": 1}, "demo: expected true or false, got 1"),
        ({"exclude": ["a", 3]}, "exclude: item 2: expected a string, got 3"),
        ({"exclude": {"a": "b"}}, "exclude: expected a string or a list of strings, got a table"),
        ({"urls": [True]}, "urls: item 1: expected a string, got true"),
        ({"format": "xml"}, f'format: expected one of {FORMAT_CHOICES}, got "xml"'),
        ({"fail_on": 1}, 'fail_on: expected one of "broken", "new", "none", got 1'),
        ({"verbose": -1}, "verbose: expected a whole number, 0 or more, got -1"),
        ({"verbose": True}, "verbose: expected a whole number, 0 or more, got true"),
        ({"set": ["A=1"]}, "set: expected a table of NAME = value, got a list"),
        ({"quiet": True, "verbose": 1}, "quiet: not allowed with verbose"),
        (
            {"max_requests": 3, "max-requests": 4},
            "max-requests: given twice (also as max_requests)",
        ),
    ],
)
def test_wrong_values_name_the_file_and_the_key(table, message):
    assert error(build_parser(), table) == f"linkaudit.toml: {message}"


def test_type_of_an_option_checks_the_files_value():
    assert (
        error(small_parser(), {"depth": "two"}) == "linkaudit.toml: depth: invalid int value: 'two'"
    )
    assert configured(small_parser(), {"depth": 2}).depth == 2  # converted as argparse does
    assert configured(small_parser(), {"depth": "2"}, ["--depth", "5"]).depth == 5


def test_values_are_given_as_argparse_gets_them():
    ns = configured(build_parser(), {"delay": 0.25, "max-requests": 100, "near": "https://a/"})
    assert (ns.delay, ns.max_requests, ns.near) == ("0.25", "100", ["https://a/"])


def test_underscore_spelling():
    ns = configured(build_parser(), {"max_requests": 5, "skip_far": True, "fail_on": "none"})
    assert (ns.max_requests, ns.skip_far, ns.fail_on) == ("5", True, "none")


def test_boolean_optional_flag():
    assert configured(small_parser(), {"css": False}).css is False
    assert configured(small_parser(), {"css": False}, ["--css"]).css is True


def test_headers_as_a_table_or_a_list():
    ns = configured(small_parser(), {"headers": {"X-Token": "abc", "Accept-Language": "fr"}})
    assert ns.header == ["X-Token: abc", "Accept-Language: fr"]
    parser = small_parser()
    ns = configured(parser, {"headers": ["X-Token: abc"]}, ["--header", "X-Other: 1"])
    assert ns.header == ["X-Other: 1"]
    assert parser.parse_args([]).header == ["X-Token: abc"]
    assert configured(small_parser(), {"header": "X: 1"}).header == ["X: 1"]


def test_headers_errors():
    parser = small_parser()
    assert error(parser, {"headers": {"X": True}}) == (
        "linkaudit.toml: headers: item 1: expected a string, got true"
    )
    assert error(parser, {"headers": 3}) == (
        "linkaudit.toml: headers: expected a string or a list of strings, got 3"
    )
    assert error(parser, {"header": "a", "headers": ["b"]}) == (
        "linkaudit.toml: headers: given twice (also as header)"
    )
    no_header = argparse.ArgumentParser()
    no_header.add_argument("--headless", action="store_true")
    assert error(no_header, {"headers": {"X": "1"}}) == (
        'linkaudit.toml: unknown key "headers" (did you mean "headless"?)'
    )


def test_set_table_values_become_setting_text():
    table = {
        "set": {
            "ROBOTSTXT_OBEY": False,
            "CONCURRENT_REQUESTS": 4,
            "DOWNLOAD_TIMEOUT": 7.5,
            "USER_AGENT": "bot/1.0 (+https://example.com)",
            "LINKAUDIT_ACCEPT": [403, 429],
            "DEFAULT_REQUEST_HEADERS": {"Accept": "text/html"},
        }
    }
    assert configured(build_parser(), table).settings == [
        ("ROBOTSTXT_OBEY", "false"),
        ("CONCURRENT_REQUESTS", "4"),
        ("DOWNLOAD_TIMEOUT", "7.5"),
        ("USER_AGENT", "bot/1.0 (+https://example.com)"),
        ("LINKAUDIT_ACCEPT", "[403, 429]"),
        ("DEFAULT_REQUEST_HEADERS", '{"Accept": "text/html"}'),
    ]
    assert (
        error(build_parser(), {"set": {"": 1}}) == "linkaudit.toml: set: : '=1' is not NAME=VALUE"
    )


# -- --print-config


def _read_back(parser_factory, text: str) -> argparse.Namespace:
    parser = parser_factory()
    prepare(parser)
    parser.set_defaults(**apply_config(parser, tomllib.loads(text), "printed"))
    return parser.parse_args([])


def test_render_round_trips_the_commands_options():
    argv = [
        "https://example.com/",
        'https://example.com/a "quoted" \\ path\t\x7f/é',
        "--delay", "0.5",
        "--max-requests", "100",
        "--exclude", r"\.pdf$",
        "--exclude", "/private/",
        "--skip-far",
        "--format", "json",
        "--fail-on", "new",
        "-s", "DOWNLOAD_TIMEOUT=7",
        "-s", "weird.name=a=b",
        "-vv",
    ]  # fmt: skip
    ns = build_parser().parse_args(argv)
    text = render_config(build_parser(), ns)
    assert 'format = "json"' in text and "skip-far = true" in text and "demo = false" in text
    assert 'report = "linkaudit-report.json"' in text  # defaults shown too
    keys = {line.partition(" = ")[0] for line in text.splitlines()}
    assert not keys & {"config", "print-config", "help", "version"}  # command line only
    assert text.endswith('[set]\nDOWNLOAD_TIMEOUT = "7"\n"weird.name" = "a=b"\n')
    assert _read_back(build_parser, text) == ns


def test_render_round_trips_the_defaults_and_other_kinds():
    options = ["--depth", "3", "--no-css", "-q", "--check-fragments", "--header", "X: 1"]
    for argv in ([], [*options, "-s", "A=1"]):
        ns = small_parser().parse_args(argv)
        assert _read_back(small_parser, render_config(small_parser(), ns)) == ns
    text = render_config(small_parser(), small_parser().parse_args([]))
    assert "[set]" not in text and "depth" not in text and "header" not in text  # None, []


def test_render_after_a_file_and_a_command_line():
    parser = build_parser()
    ns = configured(parser, {"exclude": ["a"], "verbose": 2}, ["--delay", "2", "u"])
    again = _read_back(build_parser, render_config(parser, ns))
    assert again == ns
    assert (again.exclude, again.verbose, again.delay) == (["a"], 2, "2")
