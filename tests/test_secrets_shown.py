"""Secrets never shown: a Redis URL's password (and ``--auth``'s, a
credential header's) masked as ``***`` by ``--print-config``, whoever set
it (an option, the configuration file, ``-s``), and in every error that
names the Redis, against a real Redis that requires a password."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from linkaudit.config.secrets import secret_free
from linkaudit.rules.userinfo import masked_service
from tests.helpers.command import run
from tests.redisserver import RedisServer

# a password with what URL rules would take for the end of a userinfo,
# percent-encoded in a URL (redis-py decodes it)
SECRET = "S3cr/et@x"
QUOTED = quote(SECRET, safe="")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://user:hunter2@127.0.0.1:6379/0", "redis://user:***@127.0.0.1:6379/0"),
        ("redis://:p/w@h@127.0.0.1/0", "redis://:***@127.0.0.1/0"),
        ("rediss://token@h/0", "rediss://***@h/0"),
        ("unix://:pw@/run/redis.sock?db=0", "unix://:***@/run/redis.sock?db=0"),
        ("redis://h:6379/0?db=1&password=sec", "redis://h:6379/0?db=1&password=***"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
    ],
)
def test_a_redis_urls_password_is_masked_wherever_redis_py_reads_it(url, shown):
    assert masked_service(url) == shown


def test_secrets_of_settings_are_masked_by_what_they_are():
    assert secret_free("auth", "editor:pw") == "editor:***"
    headers = ["Authorization: Bearer T", "Cookie: s=1", "X-Token: abc"]
    assert secret_free("header", headers) == ["Authorization: ***", "Cookie: ***", "X-Token: abc"]
    table = '{"Proxy-Authorization": "Basic x", "Accept": "a"}'
    assert secret_free("DEFAULT_REQUEST_HEADERS", table) == (
        '{"Proxy-Authorization": "***", "Accept": "a"}'
    )
    assert (
        secret_free("REDIS_PARAMS", '{"password": "p", "db": 1}') == '{"password": "***", "db": 1}'
    )
    assert secret_free("delay", 0.5) == 0.5


@pytest.fixture(scope="module")
def redis_with_password(tmp_path_factory):
    with RedisServer(tmp_path_factory.mktemp("redis")) as server:
        server.client().config_set("requirepass", SECRET)
        yield server


def test_print_config_and_redis_errors_never_show_the_password(tmp_path, redis_with_password):
    port = redis_with_password.port
    url = f"redis://:{QUOTED}@127.0.0.1:{port}/0"
    (tmp_path / "linkaudit.toml").write_text(f'redis = "redis://:{SECRET}@127.0.0.1:1/0"\n')
    printed = run(tmp_path, "http://example.org/", "--print-config", "--audit", "a")
    assert printed.returncode == 0, printed.stderr
    assert SECRET not in printed.stdout and 'redis = "redis://:***@127.0.0.1:1/0"' in printed.stdout
    printed = run(
        tmp_path, "http://example.org/", "--print-config", "--redis", url, "--auth", f"u:{SECRET}",
        "-s", f"LINKAUDIT_REDIS=redis://127.0.0.1:{port}/0?password={SECRET}",
    )  # fmt: skip
    assert printed.returncode == 0, printed.stderr
    assert QUOTED not in printed.stdout and SECRET not in printed.stdout
    assert f"redis://:***@127.0.0.1:{port}/0" in printed.stdout
    assert 'auth = "u:***"' in printed.stdout
    (tmp_path / "linkaudit.toml").unlink()
    # the Redis answers, and has no such audit: the error names it, masked
    out = run(tmp_path, "report", "--redis", url, "--audit", "none", "--report", "r.json")
    assert out.returncode == 2 and "no audit 'none' in the Redis at redis://:***@" in out.stderr
    assert QUOTED not in out.stdout + out.stderr
    # a wrong password, and a Redis that cannot be reached: named, masked
    # a wrong password, a Redis that cannot be reached, a password
    # redis-py cannot read (its "/" not encoded): named, masked
    wrong = f"redis://:{QUOTED}x@127.0.0.1:{port}/0"
    unread = f"redis://:{SECRET}@127.0.0.1:{port}/0"
    for given in (wrong, f"redis://:{QUOTED}@127.0.0.1:1/0", unread):
        out = run(tmp_path, "http://127.0.0.1:1/", "--redis", given, "--audit", "a")
        assert out.returncode == 2 and "redis://:***@127.0.0.1:" in out.stderr, out.stderr
        assert "S3cr" not in out.stdout + out.stderr
