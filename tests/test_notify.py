"""--notify TARGET (linkaudit/notify/): told once, when something changes.

Against servers on 127.0.0.1 that play each kind of target
(tests/helpers/notifyservers.py: Slack, Teams and Discord refusing what
the services refuse, a webhook that verifies the HMAC signature, aiosmtpd
with STARTTLS and AUTH), with the messages asserted; a target that
refuses, is slow, or answers 500 then 200; a shared audit on a real Redis
sends one message."""

from __future__ import annotations

import email
import email.policy
import json
import os
from pathlib import Path

import pytest

from linkaudit.config.secrets import secret_free
from linkaudit.notify import documents, messages
from linkaudit.notify.changes import changes
from linkaudit.notify.send import signature
from linkaudit.notify.targets import masked, parse
from tests.conftest import run_process
from tests.helpers.command import LINKAUDIT
from tests.helpers.notifyservers import SECRET, Answer, Hooks, MailServer, ca_file
from tests.server import TestServer

TOKEN = "XyZsecretTOKEN42"  # in every hook's path: never in a log, a report, an error
PASSWORD = "pa55-W0rd!"


# -- pure: signing, targets, masking, what changed, fitting ---------------------------
def test_the_signature_is_githubs_on_its_own_test_vector():
    assert signature("It's a Secret to Everybody", b"Hello, World!") == (
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    )


@pytest.mark.parametrize(
    ("text", "kind", "shown"),
    [
        (f"slack:https://hooks.slack.com/services/T0/B0/{TOKEN}", "slack", "slack:https://hooks.slack.com/***"),
        (f"https://hooks.slack.com/services/T0/B0/{TOKEN}", "slack", "slack:https://hooks.slack.com/***"),
        (f"https://discord.com/api/webhooks/1/{TOKEN}", "discord", "discord:https://discord.com/***"),
        (
            f"https://prod-1.westeurope.logic.azure.com:443/workflows/1/triggers/manual/paths/invoke?sig={TOKEN}",
            "teams",
            "teams:https://prod-1.westeurope.logic.azure.com:443/***",
        ),
        (f"teams:https://example.org/x?sig={TOKEN}", "teams", "teams:https://example.org/***"),
        (f"webhook:http://127.0.0.1:9/{TOKEN}", "webhook", "webhook:http://127.0.0.1:9/***"),
        (
            f"smtp://audit:{PASSWORD}@mail.example.org?to=a@example.org,b@example.org",
            "smtp",
            "smtp://audit:***@mail.example.org?to=a@example.org,b@example.org",
        ),
    ],
)  # fmt: skip
def test_targets_are_read_by_kind_and_shown_masked(text, kind, shown):
    target = parse(text)
    assert (target.kind, target.shown) == (kind, shown)
    assert TOKEN not in repr(target) and PASSWORD not in repr(target)
    assert secret_free("notify", [text]) == [masked(text)]
    assert TOKEN not in masked(text) and PASSWORD not in masked(text)


def test_smtp_targets_take_their_ports_addresses_and_credentials():
    t = parse("smtp://us%40er:p%3Ass@mail.example.org?to=a@x.org&from=audit@x.org")
    assert (t.host, t.port, t.user, t.password, t.to, t.sender) == (
        "mail.example.org", 587, "us@er", "p:ss", ("a@x.org",), "audit@x.org"
    )  # fmt: skip
    assert parse("smtp://mail.example.org?to=a@x.org").port == 25
    assert parse("smtps://mail.example.org?to=a@x.org").port == 465


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (f"https://example.org/hook/{TOKEN}", "a URL on no service's own host"),
        (f"pager:https://example.org/{TOKEN}", "unknown kind 'pager'"),
        (f"smtp://u:{PASSWORD}@mail.example.org", "no recipient"),
        (f"smtp://u:{PASSWORD}@mail.example.org?to=nobody", "is not an e-mail address"),
        (f"slack:ftp://example.org/{TOKEN}", "not an http(s) URL"),
    ],
)
def test_a_bad_target_is_one_error_line_without_its_secret(tmp_path, text, words):
    out = run_process([LINKAUDIT, "http://127.0.0.1:9/", "--notify", text], cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert "linkaudit: error: notify: " in out.stderr and words in out.stderr
    assert TOKEN not in out.stderr and PASSWORD not in out.stderr
    assert "Traceback" not in out.stderr


def test_print_config_masks_targets_and_the_secret(tmp_path):
    (tmp_path / "linkaudit.toml").write_text(
        f'notify = ["discord:https://discord.com/api/webhooks/1/{TOKEN}"]\n'
    )
    out = run_process(
        [LINKAUDIT, "http://127.0.0.1:9/", "--print-config", "--notify",
         f"smtp://u:{PASSWORD}@127.0.0.1?to=a@x.org", "-s", f"LINKAUDIT_NOTIFY_SECRET={TOKEN}",
         "-s", f"LINKAUDIT_NOTIFY=webhook:http://127.0.0.1:9/{TOKEN}"],
        cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert TOKEN not in out.stdout and PASSWORD not in out.stdout
    assert 'notify = ["smtp://u:***@127.0.0.1?to=a@x.org"]' in out.stdout
    assert 'LINKAUDIT_NOTIFY_SECRET = "***"' in out.stdout
    assert 'LINKAUDIT_NOTIFY = "webhook:http://127.0.0.1:9/***"' in out.stdout
    (tmp_path / "linkaudit.toml").unlink()


def _report(new: int = 2, fixed=("http://x.org/fixed", "http://x.org/gone-far"), baseline=True):
    urls = [
        {"url": f"http://x.org/new{i}", "outcome": "broken", "status": 404,
         "error": "404 Not Found", "new": True, "referrers": [
             {"url": "http://x.org/a", "line": 7}, {"url": "http://x.org/a", "line": 88},
             {"url": "http://x.org/b", "line": 3}]}
        for i in range(new)
    ]  # fmt: skip
    urls.append({"url": "http://x.org/tmpl", "outcome": "broken", "status": 410, "new": True,
                 "error": "410 Gone", "referrers": [{"url": f"http://x.org/p{i}", "line": 2}
                                                   for i in range(40)]})  # fmt: skip
    urls.append({"url": "http://x.org/old", "outcome": "broken", "status": 404, "error": "404",
                 "broken_since": "2026-11-01T00:00:00+00:00", "audits_broken": 9,
                 "referrers": [{"url": "http://x.org/", "line": 1}]})  # fmt: skip
    urls.append({"url": "http://x.org/gone-far", "outcome": "unchecked", "error": "no network"})
    group = {"target": "http://x.org/tmpl", "kind": "template", "pages": 40, "block": "footer",
             "referrers": [{"url": f"http://x.org/p{i}", "line": 2} for i in range(40)]}  # fmt: skip
    report = {"start_urls": ["http://x.org/"], "started_at": "2026-11-13T00:00:00+00:00",
              "complete": True, "urls": urls, "groups": [group], "fixed": list(fixed)}  # fmt: skip
    if baseline:
        report["baseline"] = "db.sqlite"
    return report


def test_what_changed_is_read_from_the_report():
    found = changes(_report(), "/tmp/r.json")
    assert found.changed and found.title() == "3 new broken links on x.org, 1 fixed"
    # an unchecked URL ("no network") is not fixed: unknown is not fixed
    assert found.fixed == ("http://x.org/fixed",)
    first = found.new[0]
    assert [p.words() for p in first.places] == [
        "http://x.org/a lines 7, 88",
        "http://x.org/b line 3",
    ]
    # a template link is one line, whatever its pages
    tmpl = next(link for link in found.new if link.url.endswith("tmpl"))
    assert len(tmpl.places) == 1
    assert tmpl.places[0].words().startswith("in the site template (footer), on 40 pages")
    assert found.still_text() == "1 still broken (the longest for 12 days)"
    quiet = _report(new=0, fixed=())
    quiet["urls"][0]["new"] = False  # the template link, broken before too
    assert changes(quiet, None).changed is False
    # no baseline at all (a first audit): every broken link is new
    first_audit = changes(_report(baseline=False), None)
    assert len(first_audit.new) == 4 and not first_audit.still


def test_every_message_fits_its_services_limits_with_and_n_more():
    found = changes(_report(new=400), "/r.json")
    slack = messages.slack(found)
    assert len(slack["blocks"]) <= 50
    assert all(len(b["text"]["text"]) <= 3000 for b in slack["blocks"] if b["type"] == "section")
    assert sum(len(b["text"]["text"]) for b in slack["blocks"]) <= 12000
    assert any("more new broken links" in b["text"]["text"] for b in slack["blocks"])
    embed = messages.discord(found)["embeds"][0]
    size = len(embed["title"]) + len(embed["description"]) + len(embed["footer"]["text"])
    assert size + sum(len(f["name"]) + len(f["value"]) for f in embed["fields"]) <= 6000
    assert len(embed["fields"]) <= 25 and "more new broken links" in embed["fields"][-1]["value"]
    assert messages.discord(found)["allowed_mentions"] == {"parse": []}
    teams = json.dumps(messages.teams(found)).encode()
    assert len(teams) <= 20_000 and b"more new broken links" in teams
    body = documents.webhook(changes(_report(new=1500), None), {})
    assert len(body["new"]) == 1000 and body["omitted"]["new"] == 501
    mail = documents.mail(found, "a@x.org", ("b@x.org",)).get_content()
    assert "and 201 more new broken links" in mail and "12 days, 9 audits" in mail


# -- end to end: every kind, from the command's audits with --db ----------------------
def _site(server: TestServer, *, fixed: bool) -> None:
    footer = "<footer><a href=/tmpl-missing>t</a></footer>"
    for page in ("/", "/a", "/b"):
        links = "<a href=/a>a</a>\n<a href=/b>b</a>\n<a href=/gone>gone</a>\n"
        if page == "/a" and fixed:
            links += "<a href=/new-missing>n</a>\n"
        server.add(page, f"<!doctype html><title>p</title>\n<main>\n{links}</main>\n{footer}")
    if fixed:
        server.add("/gone", "<p>back</p>")


def _audit(tmp_path: Path, server: TestServer, *targets: str, env=None, extra=()) -> tuple:
    cmd = [LINKAUDIT, server.url + "/", "--delay", "0", "--db", "db.sqlite",
           "--report", "report.json", *extra]  # fmt: skip
    for target in targets:
        cmd += ["--notify", target]
    cmd += ["-s", "LOG_LEVEL=DEBUG", "-s", "LINKAUDIT_NOTIFY_TIMEOUT=3"]
    out = run_process(cmd, cwd=tmp_path, env={**os.environ, **(env or {})})
    return out, json.loads((tmp_path / "report.json").read_text())


def test_each_kind_is_told_what_changed_once_and_nothing_when_nothing_did(tmp_path):
    cert = ca_file(tmp_path)
    with (
        TestServer() as server,
        Hooks() as hooks,
        MailServer(cert, user="audit", password=PASSWORD) as smtp,
    ):
        _site(server, fixed=False)
        targets = [
            hooks.url(f"/slack/services/T0/B0/{TOKEN}").replace("http:", "slack:http:", 1),
            "teams:" + hooks.url(f"/teams/invoke?sig={TOKEN}"),
            "discord:" + hooks.url(f"/discord/api/webhooks/1/{TOKEN}"),
            "webhook:" + hooks.url(f"/webhook/{TOKEN}"),
            f"smtp://audit:{PASSWORD}@127.0.0.1:{smtp.port}?to=web@example.org&from=la@example.org",
        ]
        env = {"SSL_CERT_FILE": cert[0], "LINKAUDIT_NOTIFY_SECRET": SECRET}
        first, report = _audit(tmp_path, server, *targets, env=env)
        assert first.returncode == 1, first.stderr[-2000:]
        # a first audit: every broken link is new, one message a target
        assert [len(hooks.to(p)) for p in ("/slack/", "/teams/", "/discord/", "/webhook/")] == [
            1, 1, 1, 1]  # fmt: skip
        assert len(smtp.mails) == 1 and smtp.mails[0].tls and smtp.mails[0].login == b"audit"

        # the next night: /gone answers again, /a links to a new missing page
        _site(server, fixed=True)
        hooks.deliveries.clear()
        smtp.mails.clear()
        second, report = _audit(tmp_path, server, *targets, env=env)
        assert second.returncode == 1, second.stderr[-2000:]
        gone, new, tmpl = (server.url + p for p in ("/gone", "/new-missing", "/tmpl-missing"))
        assert report["fixed"] == [gone]

        hook = hooks.to("/webhook/")[0]
        body = hook.json()
        assert hook.headers["X-Linkaudit-Event"] == "audit.changed"
        assert hook.headers["X-Linkaudit-Delivery"] == body["id"]
        assert body["schema"] == "linkaudit-notify/1" and body["counts"] == {
            "new": 1, "fixed": 1, "still_broken": 1}  # fmt: skip
        assert body["new"][0]["url"] == new and body["new"][0]["status"] == 404
        assert body["new"][0]["places"] == [{"page": server.url + "/a", "lines": [6]}]
        assert body["fixed"] == [gone] and body["still_broken"][0]["url"] == tmpl
        assert body["still_broken"][0]["since"] and body["still_broken"][0]["audits"] == 2
        assert body["report"] == str(tmp_path / "report.json")

        slack = hooks.to("/slack/")[0].json()
        assert slack["text"] == f"linkaudit: 1 new broken link on 127.0.0.1:{server.port}, 1 fixed"
        text = "\n".join(b["text"]["text"] for b in slack["blocks"])
        assert f"{new}: 404 Not Found\n• {server.url}/a line 6" in text
        assert f"Fixed (1): {gone}" in text and "1 still broken" in text
        assert f"Report: {tmp_path / 'report.json'}" in text

        card = hooks.to("/teams/")[0].json()["attachments"][0]["content"]
        texts = [b["text"] for b in card["body"]]
        assert (
            texts[0] == slack["text"] and f"{new}: 404 Not Found\n- {server.url}/a line 6" in texts
        )

        discord = hooks.to("/discord/")
        assert discord[0].query == {"wait": ["true"]}
        embed = discord[0].json()["embeds"][0]
        assert (
            embed["fields"][0]["name"] == new
            and f"{server.url}/a line 6" in embed["fields"][0]["value"]
        )

        mail = email.message_from_bytes(smtp.mails[0].content, policy=email.policy.default)
        assert smtp.mails[0].recipients == ["web@example.org"]
        assert mail["From"] == "la@example.org" and mail["Subject"] == slack["text"]
        content = mail.get_content().replace("\r\n", "\n")
        assert f"- {new}: 404 Not Found\n    {server.url}/a line 6" in content
        assert f"Fixed:\n- {gone}" in content
        # the template link is one line, whatever its pages
        assert "in the site template" not in content or content.count(tmpl) == 1

        # nothing changed: nothing sent; --notify-always: sent anyway
        hooks.deliveries.clear()
        smtp.mails.clear()
        third, _ = _audit(tmp_path, server, *targets, env=env)
        assert hooks.deliveries == [] and smtp.mails == []
        assert "nothing changed since the last audit: no notification sent" in third.stderr
        fourth, _ = _audit(tmp_path, server, targets[3], env=env, extra=["--notify-always"])
        assert [d.json()["event"] for d in hooks.to("/webhook/")] == ["audit.unchanged"]
        for out in (first, second, third, fourth):
            assert TOKEN not in out.stdout + out.stderr and PASSWORD not in out.stdout + out.stderr
            assert "Traceback" not in out.stderr
            # the handlers are coroutines: no deprecation warning of Scrapy's
            assert "Warning" not in out.stderr, out.stderr[-2000:]
        assert TOKEN not in (tmp_path / "report.json").read_text()


# -- targets that fail: tried again within bounds, one warning line, nothing else changed
def test_failing_targets_are_tried_again_then_one_warning_and_the_audit_is_unchanged(
    tmp_path, closed_port
):
    import time

    with TestServer() as server, Hooks() as hooks:
        _site(server, fixed=False)
        hooks.script["/slack/x"] = [Answer(500, b"")]  # then the service's own 200
        hooks.script["/discord/x"] = [Answer(429, b"", {"Retry-After": "1"})]
        hooks.script["/teams/x"] = [Answer(202, delay=6)] * 5  # answers too late, every time
        hooks.script["/webhook/x"] = [Answer(404, b"no_such_hook")] * 5
        targets = [
            f"webhook:http://127.0.0.1:{closed_port}/{TOKEN}",
            "slack:" + hooks.url("/slack/x"),
            "discord:" + hooks.url("/discord/x"),
            "teams:" + hooks.url(f"/teams/x?sig={TOKEN}"),
            "webhook:" + hooks.url("/webhook/x"),
        ]
        began = time.monotonic()
        out, report = _audit(tmp_path, server, *targets, env={"LINKAUDIT_NOTIFY_SECRET": SECRET})
        took = time.monotonic() - began
        # the exit code and the report are the audit's, whatever the targets did
        assert out.returncode == 1 and report["summary"]["broken"] == 2, out.stderr[-2000:]
        warnings = [line for line in out.stderr.splitlines() if "no notification sent" in line]
        assert len(warnings) == 3, warnings
        refused, slow, missing = warnings
        assert f"webhook:http://127.0.0.1:{closed_port}/***" in refused
        assert "(3 tries): connection refused" in refused
        assert f"teams:{hooks.url('/***')}" in slow and "no answer within" in slow
        assert "(3 tries): HTTP 404" in missing and "(no_such_hook)" in missing
        # 500 then 200; 429 then 200, after the Retry-After's second
        assert [d.status for d in hooks.deliveries if d.path == "/slack/x"] == [500, 200]
        discord = [d for d in hooks.deliveries if d.path == "/discord/x"]
        assert [d.status for d in discord] == [429, 200]
        assert "notified slack:" in out.stderr and "(2 tries)" in out.stderr
        # the slow target is bounded: LINKAUDIT_NOTIFY_TIMEOUT=3 (its tries included)
        assert took < 30
        assert TOKEN not in out.stdout + out.stderr


def test_a_password_is_never_sent_in_clear_to_a_far_server_and_plain_mail_goes(tmp_path):
    from linkaudit.notify.notifier import notify
    from linkaudit.notify.targets import targets

    with MailServer(None) as plain:  # no STARTTLS, no AUTH
        values = {
            "LINKAUDIT_NOTIFY": targets([f"smtp://127.0.0.1:{plain.port}?to=a@example.org"]),
            "LINKAUDIT_NOTIFY_TIMEOUT": 3.0,
        }
        assert notify(values, _report(), str(tmp_path / "r.json")) == {
            f"smtp://127.0.0.1:{plain.port}?to=a@example.org": True
        }
        assert len(plain.mails) == 1 and not plain.mails[0].tls
        assert plain.mails[0].sender == "linkaudit@localhost"


def test_a_shared_audit_on_redis_sends_one_message_not_one_a_worker(tmp_path):
    from contextlib import ExitStack

    from tests.redisserver import RedisServer
    from tests.shared import finish, start_workers, the_report
    from tests.sitegen import generated_site

    with ExitStack() as stack:
        redis = stack.enter_context(RedisServer(tmp_path / "redis"))
        hooks = stack.enter_context(Hooks())
        site = generated_site(stack, tmp_path / "site", pages=40)
        target = "webhook:" + hooks.url(f"/webhook/{TOKEN}")
        workers = start_workers(
            site, redis.url, "notified", tmp_path / "w", 3, "--notify", target,
            LINKAUDIT_NOTIFY_SECRET=SECRET,
        )  # fmt: skip
        finish(workers)
        report = the_report(workers)
        sent = hooks.to("/webhook/")
        assert len(hooks.deliveries) == 1 and len(sent) == 1, [
            w.crawl.stderr[-800:] for w in workers
        ]
        body = sent[0].json()
        broken = [u["url"] for u in report["urls"] if u["outcome"] == "broken"]
        assert sorted(link["url"] for link in body["new"]) == sorted(broken)
        assert all(w.code == 1 for w in workers)  # the broken links': no target changes it


def test_a_build_directory_walked_without_a_crawl_is_told_too(tmp_path):
    build = tmp_path / "public"
    build.mkdir()
    (build / "index.html").write_text(
        "<!doctype html><title>i</title>\n<a href=missing.html>m</a>\n"
    )
    with Hooks() as hooks:
        out = run_process(
            [LINKAUDIT, str(build), "--report", "report.json", "--notify",
             "webhook:" + hooks.url(f"/webhook/{TOKEN}")],
            cwd=tmp_path, env={**os.environ, "LINKAUDIT_NOTIFY_SECRET": SECRET},
        )  # fmt: skip
        assert out.returncode == 1, out.stderr[-2000:]
        (sent,) = hooks.to("/webhook/")
        (link,) = sent.json()["new"]
        assert link["url"].endswith("missing.html") and link["places"][0]["lines"] == [2]
