"""Bad input to a shared audit: one clear line, exit 2, nothing requested;
and the other doors (scrapy crawl -a redis= -a audit=) to the same audit."""

from __future__ import annotations

import sys
from contextlib import ExitStack

import pytest

from tests.conftest import bound_ports, run_crawl, run_process
from tests.redisserver import RedisServer
from tests.sitegen import LINKAUDIT, assert_same, audit, generated_site


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    with ExitStack() as stack:
        site = generated_site(stack, tmp_path_factory.mktemp("site"), pages=40)
        redis = stack.enter_context(RedisServer(tmp_path_factory.mktemp("redis")))
        yield site, redis, stack


def _command(site, tmp_path, *options):
    report = tmp_path / "report.json"
    cmd = [LINKAUDIT, site.start, "--delay", "0", "--report", str(report), *options]
    out = run_process(cmd, cwd=tmp_path)
    return out, report


@pytest.mark.parametrize(
    "options, says",
    [
        (["--redis", "http://127.0.0.1:6379/0", "--audit", "a"], "is not a Redis URL"),
        (["--redis", "redis://127.0.0.1:{closed}/0", "--audit", "a"], "cannot reach Redis"),
        (["--redis", "{url}"], "needs audit NAME"),
        (["--redis", "{url}", "--audit", "a b"], "use letters, digits"),
        (["--redis", "{url}", "--audit", "a", "--db", "{tmp}/a.sqlite"], "cannot be used together"),
    ],
    ids=["scheme", "unreachable", "no-name", "bad-name", "with-db"],
)
def test_bad_input_one_line_exit_2_no_request(env, tmp_path, options, says):
    site, redis, stack = env
    closed = bound_ports(stack, 1)[0]
    options = [o.format(url=redis.url, closed=closed, tmp=tmp_path) for o in options]
    site.clear_logs()
    out, report = _command(site, tmp_path, *options)
    assert out.returncode == 2, out.stderr[-2000:]
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("linkaudit: error: ") and says in lines[0], lines
    assert not report.exists()
    assert not site.near.log and not site.far.log


def test_an_audit_name_of_another_site_is_refused(env, tmp_path):
    site, redis, _ = env
    other = f"{site.near.url}/other/"
    out = run_process(
        [
            LINKAUDIT,
            other,
            "--report",
            str(tmp_path / "x.json"),
            "--redis",
            redis.url,
            "--audit",
            "taken",
            "--max-requests",
            "1",
        ],
        cwd=tmp_path,
    )
    assert out.returncode in (1, 3), out.stderr[-2000:]
    out, _ = _command(site, tmp_path, "--redis", redis.url, "--audit", "taken")
    assert out.returncode == 2
    assert "give a new --audit name, or --restart" in out.stderr.strip().splitlines()[-1]


def test_scrapy_crawl_joins_the_same_kind_of_audit(env, tmp_path):
    site, redis, _ = env
    plain = audit(site, tmp_path / "plain")
    crawl = run_crawl(
        tmp_path,
        "-a",
        f"start={site.start}",
        "-a",
        f"redis={redis.url}",
        "-a",
        "audit=crawl",
        settings={"CONCURRENT_REQUESTS_PER_DOMAIN": "8", "DOWNLOAD_DELAY": "0"},
    )
    assert_same(crawl.report, plain)
    rebuilt = tmp_path / "rebuilt.json"
    out = run_process(
        [
            sys.executable,
            "-m",
            "linkaudit.cli",
            "report",
            "--redis",
            redis.url,
            "--audit",
            "crawl",
            "--report",
            str(rebuilt),
            "--format",
            "json",
        ]
    )
    assert out.returncode == 1 and rebuilt.exists(), out.stderr
