"""The package as a user installs it: a wheel built from this checkout and
installed offline into a fresh virtualenv with the pinned requirements
(``tests/setup.sh`` downloads them as wheels into ``tests/data/wheelhouse``)
holds every file of the package, and its ``linkaudit --demo`` audits the
bundled site as the checkout's does.  The distribution is ``scrapy-linkaudit``
(``linkaudit`` on PyPI is another project): its wheel is
``scrapy_linkaudit-*.whl``, and it installs the ``linkaudit`` command.

Nothing here reaches the network: the build uses the test environment's
pinned setuptools (``--no-build-isolation``), the install reads only the
wheelhouse and the built wheel (``--no-index``, no pip configuration)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from linkaudit import __version__
from tests.conftest import ROOT, run_process, validate
from tests.helpers.command import LINKAUDIT

WHEELHOUSE = ROOT / "tests" / "data" / "wheelhouse"
PACKAGE = ROOT / "linkaudit"
STEP = 240  # seconds: each of building, making the virtualenv, installing
# the three steps, the demo's audit and the checks, on a busy machine
pytestmark = pytest.mark.timeout(4 * STEP)


def _offline_env() -> dict[str, str]:
    """The environment without pip's configuration (no index, no find-links,
    no constraints of this machine) and without this checkout on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
    return dict(env, PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")


def _package_files() -> set[str]:
    """Every file of the package in the checkout, as a wheel names it."""
    return {
        str(p.relative_to(ROOT))
        for p in PACKAGE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def _built(tmp: Path) -> Path:
    """The wheel, built from a copy of the checkout's package and project
    files (a build writes ``build/`` and ``*.egg-info`` beside its sources:
    not into the checkout other tests read meanwhile)."""
    source = tmp / "source"
    source.mkdir()
    for path in ROOT.iterdir():
        if path.is_file():
            shutil.copy2(path, source / path.name)
    shutil.copytree(PACKAGE, source / "linkaudit", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp / "dist"
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    made = run_process([*pip, "-w", str(out), str(source)], cwd=tmp, timeout=STEP)
    assert made.returncode == 0, made.stdout + made.stderr
    (wheel,) = out.glob("scrapy_linkaudit-*.whl")  # the distribution's name, normalised
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return _built(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory) -> Path:
    """A fresh virtualenv with the wheel and the pinned requirements: its
    ``bin`` folder."""
    if not (WHEELHOUSE / "requirements.txt").exists():
        if os.environ.get("CI"):
            pytest.fail(f"{WHEELHOUSE} is missing: tests/setup.sh did not run")
        pytest.skip(f"{WHEELHOUSE} is missing: run tests/setup.sh")
    venv = tmp_path_factory.mktemp("venv") / "venv"
    env = _offline_env()
    made = run_process([sys.executable, "-m", "venv", str(venv)], env=env, timeout=STEP)
    assert made.returncode == 0, made.stderr
    links = ["--find-links", str(WHEELHOUSE), "--find-links", str(wheel.parent)]
    # --no-compile: the modules' bytecode is written as they are imported,
    # not for every file of every requirement (most of the install's time)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--no-compile"]
    pip += links
    requirements = ["-r", str(ROOT / "requirements.txt"), str(wheel)]
    done = run_process([*pip, *requirements], env=env, timeout=STEP)
    assert done.returncode == 0, done.stdout + done.stderr
    check = run_process([str(venv / "bin" / "python"), "-m", "pip", "check"], env=env)
    assert check.returncode == 0, check.stdout  # the pins meet the package's own ranges
    return venv / "bin"


def test_the_wheel_holds_every_file_of_the_package(wheel):
    """Modules, the demo site and the HTML report's assets: what the package
    reads at run time is in the wheel, and nothing of the build is."""
    with zipfile.ZipFile(wheel) as archive:
        names = {n for n in archive.namelist() if n.startswith("linkaudit/")}
    assert names == _package_files(), sorted(names ^ _package_files())
    assert wheel.name.startswith(f"scrapy_linkaudit-{__version__}-py3-none-any")
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        (entries,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        head = archive.read(metadata).decode().split("\n\n", 1)[0].splitlines()
        scripts = archive.read(entries).decode()
    assert "Name: scrapy-linkaudit" in head, head
    assert "[console_scripts]\nlinkaudit = linkaudit.cli:main" in scripts, scripts


def test_the_distribution_installs_the_linkaudit_command(installed):
    """Installed offline from the wheel, the distribution is scrapy-linkaudit
    and its command is linkaudit: no ``linkaudit`` distribution (PyPI's
    other project) is in the virtualenv."""
    env = _offline_env()
    shown = run_process(
        [str(installed / "python"), "-m", "pip", "show", "-f", "scrapy-linkaudit"], env=env
    )
    assert shown.returncode == 0, shown.stderr
    assert "Name: scrapy-linkaudit" in shown.stdout
    assert "bin/linkaudit" in shown.stdout  # the command is the distribution's file
    other = run_process([str(installed / "python"), "-m", "pip", "show", "linkaudit"], env=env)
    assert other.returncode != 0  # nothing installed under the other project's name
    assert (installed / "linkaudit").is_file()


@pytest.fixture(scope="module")
def demo(installed: Path, tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    """The installed ``linkaudit --demo``, run once: its output and folder."""
    folder = tmp_path_factory.mktemp("demo")
    out = run_process([str(installed / "linkaudit"), "--demo"], cwd=folder, env=_offline_env())
    return out, folder


def test_the_installed_demo_audits_the_bundled_site(installed, demo):
    out, folder = demo
    where = run_process(
        [str(installed / "python"), "-c", "import linkaudit; print(linkaudit.__file__)"],
        cwd=folder,
        env=_offline_env(),
    )
    assert Path(where.stdout.strip()).is_relative_to(installed.parent), where.stdout
    version = run_process(
        [str(installed / "linkaudit"), "--version"], cwd=folder, env=_offline_env()
    )
    assert version.stdout == f"linkaudit {__version__}\n", version.stderr

    assert out.returncode == 1, out.stderr  # the demo site has broken links, on purpose
    first = out.stdout.splitlines()[0]
    assert first.startswith("linkaudit: 2 broken links, 1 link to update; "), out.stdout
    assert first.endswith("; complete"), out.stdout
    report = json.loads((folder / "linkaudit-report.json").read_text())
    validate(report)
    (start,) = report["start_urls"]
    assert f"{start}history.html  [404 Not Found]" in out.stdout
    assert "Traceback" not in out.stderr


def test_the_installed_report_formats_are_the_checkouts(installed, demo):
    """Every format of the demo's report, the installed command's and this
    checkout's: the same bytes (the HTML report inlines its assets, package
    data the installed command reads from the wheel)."""
    folder = demo[1]
    report = str(folder / "linkaudit-report.json")
    for fmt in ("html", "json", "junit", "markdown", "sarif", "text"):
        show = ["show", report, "--format", fmt, "--fail-on", "none"]
        ours = run_process([str(installed / "linkaudit"), *show], cwd=folder, env=_offline_env())
        checkout = run_process([LINKAUDIT, *show], cwd=folder)
        assert ours.returncode == checkout.returncode == 0, ours.stderr + checkout.stderr
        assert ours.stdout == checkout.stdout, fmt
        assert ours.stdout.strip(), fmt
