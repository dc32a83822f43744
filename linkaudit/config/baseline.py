"""What changed since an earlier audit: new breakage and fixed links.

The baseline is the set of URLs an earlier report called broken: a report
file (``--baseline OLD_REPORT.json``, ``-a baseline=``, setting
``LINKAUDIT_BASELINE``) or, with an audit database, the last audit of the
same start URLs that finished.  The new report marks each broken URL that
the baseline did not have ``"new": true`` and lists under ``fixed`` the URLs
broken then and not now (repaired, or no longer linked).

Read here, with the configuration: a baseline file that is not a report is
one error line before anything is requested.  What a report calls broken
is ``linkaudit/rules/baseline.py``.
"""

from __future__ import annotations

import json

from linkaudit.config.inputs import open_regular
from linkaudit.rules.baseline import broken_keys


def load_baseline(path: str) -> frozenset[str]:
    """The broken URLs of a report file; ValueError (words for the user) if
    it is not one."""
    try:
        fh = open_regular(path)  # a pipe or /dev/zero would never end
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist") from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    try:
        with fh:
            data = json.load(fh)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise ValueError(f"{path} is not JSON ({exc})") from None
    urls = data.get("urls") if isinstance(data, dict) else None
    if not isinstance(urls, list) or not all(
        isinstance(u, dict) and isinstance(u.get("url"), str) and isinstance(u.get("outcome"), str)
        for u in urls
    ):
        raise ValueError(f"{path} is not a linkaudit report (no list of urls)")
    return frozenset(broken_keys(data))
