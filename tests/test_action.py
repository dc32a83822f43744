"""The GitHub Action (action.yml): its steps as GitHub reads them, and its
script run the way the action runs it, with the inputs GitHub would pass
(the defaults of action.yml unless a test gives one), against a real site."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import run_process, wait_for

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # the venv's: linkaudit is installed there
EXPR = re.compile(r"\$\{\{ inputs\.([\w-]+) \}\}")


def parse_yaml_subset(text: str) -> dict:
    """The YAML action.yml is written in (block mappings and lists, plain,
    quoted and folded scalars): PyYAML is not a dependency of the project."""
    lines = [
        (len(raw) - len(raw.lstrip(" ")), raw.strip())
        for raw in text.splitlines()
        if raw.strip() and not raw.strip().startswith("#")
    ]

    def scalar(value: str):
        if value.startswith('"'):
            return json.loads(value)
        if value.startswith("'"):
            return value[1:-1].replace("''", "'")
        return {"true": True, "false": False}.get(value, value)

    def block(i: int, indent: int) -> tuple[object, int]:
        if lines[i][1].startswith("- "):
            items = []
            while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
                lines[i] = (indent + 2, lines[i][1][2:])  # the item is a mapping
                item, i = block(i, indent + 2)
                items.append(item)
            return items, i
        mapping: dict[str, object] = {}
        while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith("- "):
            match = re.fullmatch(r"([\w.-]+):(?: +(.*))?", lines[i][1])
            assert match, f"not in the subset: {lines[i][1]!r}"
            key, value = match[1], match[2] or ""
            i += 1
            if value in (">-", "|-"):
                folded = []
                while i < len(lines) and lines[i][0] > indent:
                    folded.append(lines[i][1])
                    i += 1
                mapping[key] = (" " if value == ">-" else "\n").join(folded)
            elif value:
                mapping[key] = scalar(value)
            elif i < len(lines) and lines[i][0] > indent:
                mapping[key], i = block(i, lines[i][0])
            else:
                mapping[key] = None
        return mapping, i

    parsed, end = block(0, 0)
    assert end == len(lines), f"not in the subset: {lines[end][1]!r}"
    assert isinstance(parsed, dict)
    return parsed


ACTION = parse_yaml_subset((ROOT / "action.yml").read_text())
STEPS = ACTION["runs"]["steps"]
RUN_STEP, SCANNING_STEP = [s for s in STEPS if "run" in s]
SCRIPT = ROOT / re.fullmatch(r'bash "\$GITHUB_ACTION_PATH/(.+)"', RUN_STEP["run"])[1]
SCANNING = ROOT / re.fullmatch(r'bash "\$GITHUB_ACTION_PATH/(.+)"', SCANNING_STEP["run"])[1]


def test_action_yml_runs_one_script_and_passes_inputs_by_env_only():
    assert ACTION["runs"]["using"] == "composite"
    inputs = ACTION["inputs"]
    assert inputs["args"]["required"] is True
    defaults = {name: spec.get("default") for name, spec in inputs.items()}
    assert defaults == {
        "args": None,
        "fail-on": "broken",
        "sarif": "linkaudit.sarif",
        "report": "linkaudit-report.json",
        "changed-since": "${{ github.event.pull_request.base.sha }}",
        "annotations": "true",
        "upload-sarif": "true",
        "token": "${{ github.token }}",
        "python-version": "3.11",
    }
    # no expression in the shell text: the inputs the script reads come by env
    assert SCRIPT.is_file()
    assert "${{" not in RUN_STEP["run"] and "${{" not in SCRIPT.read_text()
    assert RUN_STEP["shell"] == "bash"
    env = RUN_STEP["env"]
    assert env == {
        f"INPUT_{name.upper().replace('-', '_')}": f"${{{{ inputs.{name} }}}}"
        for name in ("args", "fail-on", "sarif", "report", "changed-since", "annotations")
    }
    assert set(re.findall(r"\bINPUT_[A-Z_]+", SCRIPT.read_text())) == set(env)
    # the outputs are the run step's, which the script writes
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.{RUN_STEP['id']}.outputs.{name} }}}}"
        assert f"set_output {name} " in SCRIPT.read_text()
    # Python first; the upload after the audit, even when the audit failed,
    # when the run can upload (linkaudit-scanning.sh says so)
    setup, run, scanning, upload = STEPS
    assert setup["uses"] == "actions/setup-python@v5"
    assert setup["with"] == {"python-version": "${{ inputs.python-version }}"}
    assert run is RUN_STEP and scanning is SCANNING_STEP
    assert (
        scanning["if"]
        == "always() && inputs.upload-sarif == 'true' && hashFiles(inputs.sarif) != ''"
    )
    assert "${{" not in scanning["run"] and "${{" not in SCANNING.read_text()
    assert set(re.findall(r"\bSCANNING_[A-Z]+", SCANNING.read_text())) == set(scanning["env"])
    assert upload["uses"] == "github/codeql-action/upload-sarif@v3"
    assert upload["if"] == f"always() && steps.{scanning['id']}.outputs.upload == 'true'"
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif }}"


@dataclass
class Ran:
    returncode: int
    stderr: str
    workspace: Path
    output: str  # the GITHUB_OUTPUT file
    summary: str  # the GITHUB_STEP_SUMMARY file
    stdout: str = ""  # the step's log: workflow commands (annotations)

    @property
    def outputs(self) -> dict[str, str]:
        return dict(line.split("=", 1) for line in self.output.splitlines())

    def json(self, name: str) -> dict:
        return json.loads((self.workspace / name).read_text())


def run_action(tmp_path: Path, path: str | None = None, **given: str) -> Ran:
    """The run step's command, in a workspace, with the env GitHub would set:
    each ``INPUT_*`` from the input it names (``fail_on`` is fail-on)."""
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values |= {name.replace("_", "-"): value for name, value in given.items()}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    for key, expression in RUN_STEP["env"].items():
        env[key] = values[EXPR.fullmatch(expression)[1]]
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)  # a test may have put a build in it
    output, summary = tmp_path / "github_output", tmp_path / "step_summary.md"
    output.touch()
    summary.touch()
    env |= {
        "PATH": os.pathsep.join([path or str(BIN), env.get("PATH", "")]),
        "GITHUB_ACTION_PATH": str(ROOT),
        "LINKAUDIT_ACTION_SKIP_INSTALL": "1",
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    proc = run_process(["bash", "-c", RUN_STEP["run"]], cwd=workspace, env=env)
    return Ran(
        proc.returncode,
        proc.stderr,
        workspace,
        output.read_text(),
        summary.read_text(),
        proc.stdout,
    )


@pytest.fixture
def site(server):
    server.add("/", '<a href="/ok">a</a>\n<a href="/gone">b</a>')
    server.add("/ok", "ok")
    return server


def test_a_broken_link_fails_the_step_and_is_in_the_sarif(tmp_path, site):
    ran = run_action(tmp_path, args=f"{site.url}/ --delay 0")
    assert ran.returncode == 1, ran.stderr
    assert "exit-code=1\n" in ran.output
    assert ran.outputs == {
        "exit-code": "1",
        "report": "linkaudit-report.json",
        "sarif": "linkaudit.sarif",
    }
    sarif = ran.json("linkaudit.sarif")
    assert sarif["version"] == "2.1.0"
    (result,) = sarif["runs"][0]["results"]
    assert f"{site.url}/gone" in result["message"]["text"]
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": f"{site.url}/"},
        "region": {"startLine": 2},
    }
    assert ran.json("linkaudit-report.json")["summary"]["broken"] == 1
    assert "linkaudit: 1 broken of 3 URLs (complete); exit 1 (broken links)" in ran.stderr
    assert ran.summary.startswith("### linkaudit: 1 broken link\n")
    assert f"| `{site.url}/gone` | `404 Not Found` | `{site.url}/` line 2 |" in ran.summary


def _git(where: Path, *args: str) -> str:
    who = ["-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "commit.gpgsign=false"]
    return run_process(["git", *who, *args], cwd=where, timeout=30).stdout.strip()


def _docs_commit(workspace: Path, extra: str = "") -> None:
    """An MkDocs project's source and its build (as the pages' words are)."""
    links = '<p>Old <a href="old-missing.html">old</a>.</p>\n' + (
        '<p>New <a href="new-missing.html">new</a>.</p>\n' if extra else ""
    )
    (workspace / "site" / "index.html").write_text(
        '<meta name="generator" content="mkdocs-1.6.1">\n<article class="md-content__inner">\n'
        + links
        + "</article>\n"
    )
    (workspace / "docs" / "index.md").write_text("# Home\n\nOld [old](old-missing.html).\n" + extra)


def test_on_a_pull_request_only_the_lines_it_changed_fail_the_step(tmp_path):
    """The base of a pull request: a finding the pull request did not touch
    is counted, not reported; one it added fails the step (the Action's
    changed-since input, GitHub's pull_request base commit by default)."""
    workspace = tmp_path / "workspace"
    (workspace / "docs").mkdir(parents=True)
    (workspace / "site").mkdir()
    (workspace / "mkdocs.yml").write_text("site_name: t\n")
    _git(workspace, "init", "-q")
    _docs_commit(workspace)
    _git(workspace, "add", "-A")
    _git(workspace, "commit", "-qm", "base")
    base = _git(workspace, "rev-parse", "HEAD")
    # the pull request's own commit: nothing new broken yet
    (workspace / "docs" / "other.md").write_text("# Other\n")
    _git(workspace, "add", "-A")
    _git(workspace, "commit", "-qm", "unrelated")
    ran = run_action(tmp_path, args="./site", changed_since=base)
    assert ran.returncode == 0, ran.stderr
    report = ran.json("linkaudit-report.json")
    assert report["changed_since"]["base"] == base
    assert report["summary"]["outside_change"] == 1
    assert ran.json("linkaudit.sarif")["runs"][0]["results"] == []
    assert "::error" not in ran.stdout  # no annotation either
    # it adds a broken link on docs/index.md line 5
    _docs_commit(workspace, extra="\nNew [new](new-missing.html).\n")
    _git(workspace, "commit", "-qam", "a new link")
    ran = run_action(tmp_path, args="./site", changed_since=base)
    assert ran.returncode == 1, ran.stderr
    report = ran.json("linkaudit-report.json")
    (new,) = [u for u in report["urls"] if u.get("changed")]
    assert new["url"].endswith("/new-missing.html")
    assert new["referrers"][0]["source"] == {"file": "docs/index.md", "line": 5}
    assert report["summary"]["outside_change"] == 1
    (result,) = ran.json("linkaudit.sarif")["runs"][0]["results"]
    assert "new-missing.html" in result["message"]["text"]
    # the annotation on the source line the pull request wrote, the built file after it
    (error,) = [line for line in ran.stdout.splitlines() if line.startswith("::error")]
    assert error.startswith("::error file=docs/index.md,line=5,title=Broken link::")
    assert "new-missing.html" in error
    # a push: no base, every finding
    ran = run_action(tmp_path, args="./site")
    assert ran.returncode == 1 and "changed_since" not in ran.json("linkaudit-report.json")
    assert len(ran.json("linkaudit.sarif")["runs"][0]["results"]) == 2
    errors = sorted(line for line in ran.stdout.splitlines() if line.startswith("::error"))
    assert [e.partition(",title")[0] for e in errors] == [
        "::error file=docs/index.md,line=3",
        "::error file=docs/index.md,line=5",
    ]


def test_a_static_build_is_annotated_on_its_files(tmp_path):
    """The docs' static-site example: a build directory and the site's
    future address; SARIF points at the built file, code scanning's way."""
    build = tmp_path / "workspace" / "site"
    (build / "guide").mkdir(parents=True)
    (build / "index.html").write_text(
        '<a href="guide/">guide</a>\n<a href="https://docs.example.com/gone.html">gone</a>'
    )
    (build / "guide" / "index.html").write_text('<a href="https://docs.example.com/">home</a>')
    ran = run_action(tmp_path, args="./site --root-url https://docs.example.com/")
    assert ran.returncode == 1, ran.stderr
    (result,) = ran.json("linkaudit.sarif")["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "site/index.html"},
        "region": {"startLine": 2},
    }
    # the report names the deployed URLs (--root-url), never the address it was read at
    urls = json.dumps(ran.json("linkaudit-report.json")["urls"])
    assert "https://docs.example.com/gone.html" in urls and "127.0.0.1" not in urls


def test_the_step_summary_is_cut_by_size_not_by_lines(tmp_path):
    """4,000 broken links of 240 characters: about 1.2 MB of markdown. The
    summary takes as many whole rows as GitHub's 1 MiB holds (not 120
    lines), then says how many more, then the footer."""
    build = tmp_path / "workspace" / "site"
    build.mkdir(parents=True)
    name = "missing-{:05d}-" + "x" * 220 + ".html"  # a row names it twice: ~1.2 MB
    (build / "index.html").write_text(
        "".join(f'<a href="{name.format(i)}">m</a>\n' for i in range(4000))
    )
    ran = run_action(tmp_path, args="./site")
    assert ran.returncode == 1, ran.stderr
    size = len(ran.summary.encode())
    assert 1_000_000 < size <= 1 << 20  # GitHub's bound, and nearly all of it used
    rows = [line for line in ran.summary.splitlines() if line.startswith("| `site/missing-")]
    left = re.search(r"\n\nand ([0-9,]+) more: see the report\n\nExit code 1 ", ran.summary)
    assert left, ran.summary[-500:]
    assert len(rows) + int(left[1].replace(",", "")) == 4000
    assert ran.summary.endswith("SARIF `linkaudit.sarif`.\n\n")


def test_fail_on_none_passes_and_still_writes_the_sarif_where_asked(tmp_path, site):
    ran = run_action(
        tmp_path,
        args=f"{site.url}/ --delay 0",
        fail_on="none",
        sarif="out/links.sarif",
        report="out/report.json",
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.outputs == {
        "exit-code": "0",
        "report": "out/report.json",
        "sarif": "out/links.sarif",
    }
    (result,) = ran.json("out/links.sarif")["runs"][0]["results"]
    assert f"{site.url}/gone" in result["message"]["text"]
    assert ran.json("out/report.json")["summary"]["broken"] == 1
    assert not (ran.workspace / "linkaudit.sarif").exists()


def test_a_clean_site_passes(tmp_path, server):
    server.add("/", '<a href="/ok">a</a>')
    server.add("/ok", "ok")
    ran = run_action(tmp_path, args=f"{server.url}/ --delay 0")
    assert ran.returncode == 0, ran.stderr
    assert ran.outputs["exit-code"] == "0"
    assert ran.json("linkaudit.sarif")["runs"][0]["results"] == []
    assert ran.summary.startswith("### linkaudit: 0 broken links\n")


def test_args_are_split_like_a_shell_but_never_run_by_one(tmp_path, site):
    markers = [tmp_path / f"pwned{i}" for i in range(3)]
    args = (
        f'{site.url}/ --delay 0 --exclude "/gone|a b" '
        f'--exclude "$(touch {markers[0]})" '
        f"--exclude '`touch {markers[1]}`; touch {markers[2]}'"
    )
    ran = run_action(tmp_path, args=args)
    assert not [m for m in markers if m.exists()]
    # "/gone|a b" reached linkaudit as one regex: the broken link is excluded
    assert ran.returncode == 0, ran.stderr
    report = ran.json("linkaudit-report.json")
    assert {u["url"]: u["outcome"] for u in report["urls"]}[f"{site.url}/gone"] == "excluded"
    assert report["start_urls"] == [f"{site.url}/"]


@pytest.fixture
def fake_linkaudit(tmp_path) -> Path:
    """A linkaudit command that writes its arguments to argv.json, prints
    nothing and exits 3 (incomplete)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "linkaudit"
    fake.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        f"open({str(tmp_path / 'argv.json')!r}, 'w').write(json.dumps(sys.argv[1:]))\n"
        "sys.exit(3)\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def test_each_word_arrives_as_written_and_the_exit_code_is_linkaudits(tmp_path, fake_linkaudit):
    args = """https://example.com/ "a b" 'c  d' e\\ f $HOME "x\\"y" '' \\
        --exclude '$(id)'"""
    ran = run_action(tmp_path, str(fake_linkaudit), args=args, fail_on="new")
    assert ran.returncode == 3, ran.stderr
    assert json.loads((tmp_path / "argv.json").read_text()) == [
        "https://example.com/",
        "a b",
        "c  d",
        "e f",
        "$HOME",
        'x"y',
        "",
        "--exclude",
        "$(id)",
        "--report=linkaudit-report.json",
        "--format=sarif",
        "--fail-on=new",
    ]
    # nothing on stdout: no SARIF file to upload, no report to show
    assert ran.outputs == {"exit-code": "3", "report": "", "sarif": ""}
    assert not (ran.workspace / "linkaudit.sarif").exists()
    assert "No report was written" in ran.summary


def test_unbalanced_quotes_stop_before_linkaudit_runs(tmp_path, fake_linkaudit):
    ran = run_action(tmp_path, str(fake_linkaudit), args="https://example.com/ --exclude 'a")
    assert ran.returncode == 2
    assert "could not be split" in ran.stderr
    assert not (tmp_path / "argv.json").exists()
    assert ran.output == ""


def test_a_usage_error_exits_2_with_no_sarif(tmp_path):
    ran = run_action(tmp_path, args="https://example.com/", fail_on="sometimes")
    assert ran.returncode == 2
    assert "--fail-on" in ran.stderr
    assert ran.outputs == {"exit-code": "2", "report": "", "sarif": ""}
    assert not (ran.workspace / "linkaudit.sarif").exists()


def _scanning(tmp_path: Path, **env: str) -> tuple[str, str, str]:
    """The scanning step's script with the env GitHub would give it: (the
    upload output, the notices on stdout, stderr)."""
    output = tmp_path / "github_output"
    output.write_text("")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SCANNING_", "GITHUB_"))}
    proc = run_process(
        ["bash", str(SCANNING)], env=base | {"GITHUB_OUTPUT": str(output)} | env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return output.read_text().strip(), proc.stdout, proc.stderr


def test_a_fork_or_a_repository_without_code_scanning_skips_the_upload(tmp_path):
    """Not a failed job: the upload is skipped with a notice when GitHub
    would refuse it (a fork's read-only token; code scanning off, 403)."""
    from tests.server import Route, TestServer

    analyses = "/repos/acme/site/code-scanning/analyses"
    github = {"SCANNING_REPOSITORY": "acme/site", "SCANNING_TOKEN": "t0ken"}
    with TestServer() as api:
        github["SCANNING_API"] = api.url
        upload, notices, _ = _scanning(
            tmp_path, SCANNING_EVENT="pull_request", SCANNING_HEAD="someone/site", **github
        )
        assert upload == "upload=false" and "from a fork (someone/site)" in notices
        assert api.log == []  # decided without asking
        api.add(analyses, Route(403, '{"message": "Advanced Security must be enabled"}'))
        upload, notices, _ = _scanning(tmp_path, SCANNING_EVENT="push", **github)
        assert upload == "upload=false" and notices.startswith("::notice title=linkaudit::")
        assert "GitHub Advanced Security is off" in notices and "skipped" in notices
        # the server logs an answer once it is sent: the script may be done first
        wait_for(lambda: len(api.log) >= 1, 10, "the API's log")
        (hit,) = api.log
        assert hit.headers["Authorization"] == "Bearer t0ken"
        for status in (200, 404):  # analyses, or none yet: the upload is taken
            api.add(analyses, Route(status, "[]"))
            upload, notices, _ = _scanning(
                tmp_path, SCANNING_EVENT="pull_request", SCANNING_HEAD="acme/site", **github
            )
            assert (upload, notices) == ("upload=true", "")


def test_the_docs_examples_pin_keep_the_report_and_cache_the_database():
    section = (ROOT / "docs" / "guide" / "github-action.md").read_text()
    uses = re.findall(r"uses: linkaudit/linkaudit@(\S+)", section)
    assert uses and set(uses) == {"SHA"}  # a commit, never a tag that does not exist
    assert "continue-on-error" not in section
    assert "if: always()" in section and "actions/upload-artifact@v4" in section
    assert "actions/cache@v4" in section and "fail-on: new" in section
    assert "--db linkaudit.db" in section and "path: linkaudit.db" in section
    # the action installs what the suite tests: requirements.txt's pins
    assert '-r "$GITHUB_ACTION_PATH/requirements.txt"' in SCRIPT.read_text()
