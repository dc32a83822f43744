"""The configuration file through the command: linkaudit.toml or
[tool.linkaudit] in pyproject.toml or --config, the command line winning,
--print-config, and one-line errors naming the file and key (nothing
requested)."""

from __future__ import annotations

import json

import pytest

from tests.helpers.command import run


@pytest.fixture
def site(server, far_server):
    far = far_server.url
    server.add(
        "/",
        '<a href="/a">a</a>\n<a href="/b">b</a>\n<a href="/private/c">c</a>\n'
        f'<a href="{far}/x">far</a>',
    )
    server.add("/a", "a")
    return server, far_server


def _outcomes(tmp_path) -> dict[str, str]:
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    return {u["url"]: u["outcome"] for u in report["urls"]}


def test_linkaudit_toml_and_the_command_line_wins(tmp_path, site):
    near, far = site
    (tmp_path / "linkaudit.toml").write_text(
        f'urls = ["{near.url}/"]\ndelay = 0\nexclude = ["/b$", "/private/"]\nskip-far = true\n'
        "[set]\nCONCURRENT_REQUESTS_PER_DOMAIN = 4\n"
    )
    out = run(tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    outcomes = _outcomes(tmp_path)
    assert outcomes[f"{near.url}/b"] == outcomes[f"{near.url}/private/c"] == "excluded"
    assert outcomes[f"{far.url}/x"] == "excluded" and far.log == []
    # the command's --exclude replaces the file's list; its URL replaces the file's
    near.log.clear()
    out = run(tmp_path, f"{near.url}/a", "--exclude", "/private/")
    assert out.returncode == 0, out.stdout + out.stderr
    assert list(_outcomes(tmp_path)) == [f"{near.url}/a"]


def test_pyproject_table_and_an_explicit_config(tmp_path, site):
    near, _far = site
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.linkaudit]\ndelay = 0\nexclude = ["/private/"]\n'
        'accept = "404"\nskip_far = true\n'
    )
    out = run(tmp_path, f"{near.url}/")
    assert out.returncode == 0, out.stdout + out.stderr  # /b 404 accepted
    assert _outcomes(tmp_path)[f"{near.url}/private/c"] == "excluded"
    other = tmp_path / "ci.toml"
    other.write_text('delay = 0\nskip-far = true\nfail-on = "none"\n')
    out = run(tmp_path, f"{near.url}/", "--config", str(other))
    assert out.returncode == 0  # fail-on none, though /b is broken now
    assert _outcomes(tmp_path)[f"{near.url}/b"] == "broken"


def test_print_config_shows_what_is_in_effect(tmp_path):
    (tmp_path / "linkaudit.toml").write_text('delay = 0.5\nheaders = { X-Token = "abc" }\n')
    out = run(tmp_path, "https://example.com/", "--exclude", "x", "--print-config")
    assert out.returncode == 0, out.stderr
    assert 'urls = ["https://example.com/"]' in out.stdout
    assert 'exclude = ["x"]' in out.stdout and 'header = ["X-Token: abc"]' in out.stdout
    assert 'delay = "0.5"' in out.stdout or "delay = 0.5" in out.stdout


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("dealy = 1\n", 'linkaudit.toml: unknown key "dealy" (did you mean "delay"?)'),
        ("skip-far = 1\n", "linkaudit.toml: skip-far: "),
        ('delay = "fast"\n', "linkaudit.toml: delay: 'fast' is not a number"),
        ("delay = [1]\n", "linkaudit.toml: delay: "),
        ("delay = \n", "linkaudit.toml: line 1: "),
        ('fail-on = "sometimes"\n', "linkaudit.toml: fail-on: "),
    ],
)
def test_bad_files_are_one_line_naming_file_and_key(tmp_path, server, text, words):
    (tmp_path / "linkaudit.toml").write_text(text)
    out = run(tmp_path, f"{server.url}/")
    assert out.returncode == 2, out.stdout + out.stderr
    error = [line for line in out.stderr.splitlines() if "error" in line]
    assert len(error) == 1 and words in error[0], out.stderr
    assert "Traceback" not in out.stderr and server.log == []


def test_a_missing_config_file_is_one_line(tmp_path, server):
    out = run(tmp_path, f"{server.url}/", "--config", "nosuch.toml")
    assert out.returncode == 2 and "nosuch.toml" in out.stderr and server.log == []
