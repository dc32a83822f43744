"""The command's options and the table of settings (config/options.py) hold
each other: every row with a flag is an option of ``linkaudit``, in its
``--help`` section with its line, and sets its row's setting (through the
row's spider argument, or the setting itself); every other option of the
command sets no setting of the table, but for the few named here, with why.
No crawl: the parser and what its options choose."""

from __future__ import annotations

import argparse

import pytest

from linkaudit.cli import build_parser
from linkaudit.command import choices
from linkaudit.command.helptext import SECTIONS
from linkaudit.config.options import ARGUMENTS, BY_FLAG, BY_SETTING, OPTIONS
from linkaudit.internals import AppendAction, parser_actions

ROWS = [option for option in OPTIONS if option.flag is not None]
START = ["https://example.com/"]
# the command's own options that change a setting of the table, and why
# they are not its row
NOT_ROWS = {
    "--report": {"LINKAUDIT_REPORT"},  # always passed on: the command's default, made absolute
    "--demo": {"DOWNLOAD_DELAY", "LINKAUDIT_PACE_HINT"},  # the demo's pace, not an option's
    "--quiet": {"LINKAUDIT_PROGRESS", "LOG_LEVEL"},  # no status line either; the log's ERROR
    "--verbose": {"LOG_LEVEL"},  # the log's level (a setting checked, without a row's option)
}
# a row's option that changes another setting too
ALSO = {"--delay": {"LINKAUDIT_PACE_HINT"}}  # no hint to lower a delay the user chose


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The parser's options by their long flag (not --help, --version)."""
    return {
        next(s for s in action.option_strings if s.startswith("--")): action
        for action in parser_actions(parser)
        if action.option_strings and action.dest not in ("help", "version")
    }


def _chosen(argv: list[str], tmp_path) -> dict[str, object]:
    """Every setting the command line chooses: the options' settings and
    the spider arguments' (as their settings)."""
    ns = build_parser().parse_args(argv)
    ns.local_dir = None  # a live site (command/sites.py)
    settings = dict(choices.chosen(ns))
    for argument, value in choices.arguments(ns).items():
        settings[ARGUMENTS[argument].setting] = value
    return settings


def _given(flag: str, action: argparse.Action, tmp_path) -> list[str]:
    if action.nargs == 0:
        return [flag]
    # (-s names the setting it sets: the door for every setting, rows or not)
    values = {"--jsonl": str(tmp_path / "urls.jsonl"), "--max-bytes": "1000", "--set": "X=1"}
    value = action.choices[0] if action.choices else values.get(flag, "7")
    return [flag, value]


def test_every_row_with_a_flag_is_an_option_and_every_settings_option_a_row():
    options = _options(build_parser())
    assert {row.flag.name for row in ROWS} <= options.keys()
    own = options.keys() - BY_FLAG.keys()
    assert NOT_ROWS.keys() <= own
    # the rest: no row's setting, by name either (a flag -> dest, an argument)
    dests = {options[flag].dest for flag in own}
    assert not dests & (ARGUMENTS.keys() - {"report"})
    assert all(row.flag.dest not in dests for row in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.flag.name)
def test_a_row_option_is_built_from_its_row(row):
    action = _options(build_parser())[row.flag.name]
    assert action.help == row.flag.help and action.dest == row.flag.dest
    if row.flag.metavar is None:  # a switch: on or off
        assert action.nargs == 0 and action.const is True and action.default is False
    else:
        assert action.metavar == row.flag.metavar and action.default is None
        assert isinstance(action, AppendAction) is row.flag.many
    assert row.flag.section in SECTIONS


def test_help_shows_each_row_option_in_its_section():
    text = build_parser().format_help()
    titles = [f"\n{title}:\n" for title in SECTIONS.values()]
    starts = [text.index(title) for title in titles] + [text.index("\nexamples:\n")]
    assert starts == sorted(starts)  # in the order of SECTIONS
    for row in ROWS:
        key = list(SECTIONS).index(row.flag.section)
        section = text[starts[key] : starts[key + 1]]
        assert f"\n  {row.flag.usage}" in section, row.flag.usage


@pytest.mark.parametrize("flag", sorted(_options(build_parser())))
def test_an_option_sets_its_row_setting_and_no_other(flag, tmp_path):
    action = _options(build_parser())[flag]
    before = _chosen(START, tmp_path)
    after = _chosen([*START, *_given(flag, action, tmp_path)], tmp_path)
    changed = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    ours = {name for name in changed if name in BY_SETTING}
    row = BY_FLAG.get(flag)
    if row is None:
        assert ours <= NOT_ROWS.get(flag, set()), (flag, ours)
    else:
        assert ours - ALSO.get(flag, set()) == {row.setting}, (flag, ours)
        if row.flag.metavar is None:  # a switch sets the opposite of the default
            assert str(after[row.setting]).lower() == str(not row.default).lower()
