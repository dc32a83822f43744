"""What happens to the requests to one host: its pace and its health, in
one place.  The pure rules these apply are in ``linkaudit/rules/``
(``backoff.py``: the back-off's steps; ``statuses.py``: what an answer is).

- ``pacing``: the delay between two requests to a host (DOWNLOAD_DELAY and
  its margin, ``DelayMargin``);
- ``crawldelay``: robots.txt's ``Crawl-delay`` raises a host's delay;
- ``pacehint``: the hint at the end of an audit that a host allows a faster pace;
- ``retryafter``: a ``Retry-After`` answer holds the host (``holds``: the
  scheduler sends nothing to a held host until its time);
- ``backoff``: a host that struggles (429, 503, timeouts) is slowed down,
  then paused, and its URLs asked again; a host that throttles (a
  connection closed without an answer, 429, 430, 503) is asked one
  connection at a time at once, and the request asked again;
- ``failures``: a host that cannot be reached is not asked again for each
  of its URLs.
"""
