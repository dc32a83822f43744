"""A digest of one audit's JSON report, for proving that a change of the code
kept its behaviour: the same command run by two checkouts gives the same
digest, or the normalized reports (``--keep``) say where they differ.

    python bench/digest.py CHECKOUT TARGET [LINKAUDIT OPTIONS...]
    python bench/digest.py /work/wt-before /usr/share/gtk-doc/html/gio --skip-far
    python bench/digest.py --report linkaudit-report.json

runs ``CHECKOUT/.venv/bin/linkaudit TARGET --report TMP/report.json -q
OPTIONS`` in a temporary directory (CHECKOUT may also be a virtualenv, or
its ``bin/linkaudit``) and prints one line: the SHA-256 of the normalized
report, its summary counts and the command's exit status (part of the
digest too).

What is normalized, because it legitimately differs from run to run, and
nothing else:

- time: ``started_at``, ``finished_at``, each entry's ``checked_at``,
  ``broken_since`` and ``broken_links_since``, and a ``history`` record's
  ``started_at``, ``finished_at`` and ``seconds``, each replaced by its
  kind (``"<time>"``, ``"<seconds>"``), so that a field that appears or
  disappears still shows;
- the ports of sites on loopback addresses (127.0.0.0/8): ``TARGET``
  given as a directory is audited at ``http://127.0.0.1:PORT/``, a port of
  its own (from the directory's path, the same from run to run) or, served
  over HTTP (``-s LINKAUDIT_LOCAL_READ=false``), a random one; test servers
  (bench/serve_generated.py) take random ports too.  Each loopback
  ``HOST:PORT`` becomes ``HOST:PORT1``, ``HOST:PORT2``... in the order it
  first appears in the report (the start URL's first), in every string of
  it (URLs, referrers, locations, groups, errors); the ``urls`` list is
  then sorted again by URL, as the report sorts it, since a port of
  another length can move URLs around.  Whether the report had its
  ``urls`` sorted is itself in the digest;
- the tool's version: the report carries none (its ``version`` is the
  report format's, kept), so nothing is done for it.  ``--report`` digests
  a report as it is, with the same rules (its exit status unknown: null,
  so its digest is not a run's).

Everything else is in the digest, in the report's own key order: every URL
and its outcome, status, error, method, content type, location, depth,
referrer count and referrers (page, line, file), page statistics, groups,
summary counts, finish reason, completeness.  The file's whitespace is not
(the report is re-serialized), only its JSON value.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TIME_FIELDS = {"started_at", "finished_at", "checked_at", "broken_since", "broken_links_since"}
# a loopback address and its port: a build's or a test server's, often random
LOOPBACK = re.compile(r"\b(127(?:\.[0-9]{1,3}){3}):([0-9]{1,5})(?![0-9])")
COUNTS = ("ok", "redirect", "broken", "blocked", "excluded", "unchecked")


def linkaudit_command(checkout: Path) -> Path:
    """The ``linkaudit`` script of a checkout (its ``.venv``), of a
    virtualenv, or the script itself."""
    for candidate in (checkout / ".venv" / "bin" / "linkaudit", checkout / "bin" / "linkaudit"):
        if candidate.is_file():
            return candidate
    if checkout.is_file():
        return checkout
    raise SystemExit(f"digest: no linkaudit in {checkout} (.venv/bin/linkaudit, bin/linkaudit)")


def run_audit(command: Path, target: str, options: list[str]) -> tuple[dict, int]:
    """The report of ``linkaudit TARGET OPTIONS``, and its exit status."""
    with tempfile.TemporaryDirectory(prefix="linkaudit-digest-") as tmp:
        report = Path(tmp) / "report.json"
        args = [str(command), target, "--report", str(report), "-q", *options]
        proc = subprocess.run(args, cwd=tmp, capture_output=True, text=True)
        if proc.returncode not in (0, 1, 3) or not report.exists():
            raise SystemExit(f"digest: {' '.join(args)}: exit {proc.returncode}\n{proc.stderr}")
        return load(report), proc.returncode


def load(path: Path) -> dict:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


def loopback_ports(report: dict) -> dict[str, str]:
    """Each loopback ``HOST:PORT`` of the report, in the order it first
    appears, and what it is written as (``HOST:PORT1``...)."""
    names: dict[str, str] = {}
    for m in LOOPBACK.finditer(json.dumps(report, ensure_ascii=False)):
        names.setdefault(m.group(0), f"{m.group(1)}:PORT{len(names) + 1}")
    return names


def normalize(report: dict) -> dict:
    """The report with what differs from run to run replaced (the module's
    docstring says what)."""
    ports = loopback_ports(report)

    def fix(value: Any, key: str = "") -> Any:
        if key in TIME_FIELDS and value is not None:
            return "<time>"
        if isinstance(value, dict):
            return {k: fix(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [fix(v) for v in value]
        if isinstance(value, str) and ports:
            return LOOPBACK.sub(lambda m: ports[m.group(0)], value)
        return value

    out = fix(report)
    for record in out.get("history") or []:
        if record.get("seconds") is not None:
            record["seconds"] = "<seconds>"
    urls = report.get("urls") or []
    out["urls_sorted"] = [u["url"] for u in urls] == sorted(u["url"] for u in urls)
    out["urls"] = sorted(out.get("urls") or [], key=lambda u: u["url"])
    return out


def digest(report: dict, exit_status: int | None) -> tuple[str, dict]:
    """(SHA-256 hex, normalized report with the exit status) of a report."""
    normalized = normalize(report)
    normalized["exit_status"] = exit_status
    text = json.dumps(normalized, indent=1, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest(), normalized


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        usage="%(prog)s [--keep FILE] CHECKOUT TARGET [OPTIONS...] | --report FILE",
    )
    p.add_argument("--report", type=Path, help="digest this report instead of running an audit")
    p.add_argument("--keep", type=Path, help="write the normalized report here (to diff two)")
    p.add_argument("checkout", nargs="?", type=Path, help="a checkout with .venv, or a venv")
    p.add_argument("target", nargs="?", help="the URL or build directory to audit")
    p.add_argument("options", nargs=argparse.REMAINDER, help="linkaudit's own options")
    ns = p.parse_args(argv)
    if ns.report is not None:
        report, status = load(ns.report), None
    elif ns.checkout is not None and ns.target is not None:
        report, status = run_audit(linkaudit_command(ns.checkout), ns.target, ns.options)
    else:
        p.error("give CHECKOUT TARGET, or --report FILE")
    sha, normalized = digest(report, status)
    if ns.keep is not None:
        ns.keep.write_text(json.dumps(normalized, indent=1, ensure_ascii=False) + "\n")
    summary = report.get("summary", {})
    counts = ", ".join(f"{c} {summary.get(c)}" for c in COUNTS)
    print(f"sha256:{sha}  {summary.get('urls')} URLs ({counts}), exit {status}")


if __name__ == "__main__":
    sys.exit(main())
