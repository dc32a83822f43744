"""The audit's state in Redis: one audit across many workers and machines
(``--redis URL --audit NAME``).  See state.py; the operations on these
keys are Lua scripts (scripts.py).

Every key of an audit starts with its prefix (``la:{NAME}:``); the scripts
build key names from it, so they run on a standalone Redis or Valkey.

- ``u:<b>``    hash, URL id -> its state: ``d<depth>@<worker>`` discovered
               (by that worker; not to be checked, or not queued yet),
               ``q<depth>`` queued or being checked, ``o<depth>`` checked ok,
               ``x<depth>`` checked, not ok (``@p`` after the depth: a
               scanned page).  A URL's id is 19 hex digits of its SHA-1:
               ``<b>`` (3, one of 4,096 hashes, each small enough for
               Redis's compact listpack encoding up to about 500,000 URLs)
               and ``<f>`` (16, the field).
- ``n``        list of every URL, in the order discovered: the only copy of
               a URL's text.
- ``v``        list of ``<b><f>|<result>`` (codec.py), in the order settled (a
               URL checked again after its worker died has two: the last
               counts).
- ``c:<b>``    hash, ``<f>`` -> the URL's link occurrences.
- ``r:<b><f>`` list of ``line<TAB>page``: referrers of a URL not (yet) ok.
- ``q:<d>:<host>``  list of pending records (JSON ``{u, r, d, h, p}``).
- ``h:<d>``    set of hosts with URLs waiting at depth d.
- ``meta``     hash: ``status`` (starting, running, stopping, finished),
               ``reason``, ``level``, ``out:<d>`` (URLs of depth d queued and
               not settled: the level barrier), counters (``pages``: URLs
               whose result is a scanned page; ``requests``: counting.py),
               report facts.
- ``lease:<host>``  the worker that owns a host (politeness), with a TTL.
- ``bo``       hash, host -> its back-off (JSON: level, pauses, paused
               until, given up; hosts/backoff.py).
- ``nb:<host>``     a host handed back: nobody takes it before this expires.
- ``m:<kind>`` set of URLs marked ``anchors`` (a link points at one of their
               fragments) or ``sitemap`` (read as a sitemap).
- ``ls:<w>``   set of hosts worker w leased; ``fl:<w>`` hash URL -> record
               of what w claimed and has not settled; ``w:<w>`` w's
               heartbeat (TTL); ``workers`` set of worker ids.
"""

from linkaudit.state.redis.state import RedisState

__all__ = ["RedisState"]
