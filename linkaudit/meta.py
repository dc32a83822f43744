"""The keys linkaudit keeps in ``request.meta`` (and one response flag): how
the spider and its middlewares tell each other about a check."""

# the phases (ANCHORS, PROBE, SITEMAP and the plain "head", "get",
# "fallback"): rules/decisions.py, the table of what follows an answer
from linkaudit.rules.decisions import ANCHORS as ANCHORS
from linkaudit.rules.decisions import PROBE as PROBE
from linkaudit.rules.decisions import SITEMAP as SITEMAP

CHECK_URL = "la_url"  # the canonical URL a check is about: marks a link check
DEPTH = "la_depth"  # link hops from the nearest start URL
# "head", "get" (a page to scan), "fallback" (after a HEAD failed) or ANCHORS
PHASE = "la_phase"
FIRST = "la_first"  # the check's first request: look up its history
HISTORY = "la_history"  # what the audit database knew of the URL
# the page (or sitemap) the check comes from, in full: the Referer header
# tells the server only what the referrer policy allows (rules/referrer.py)
REFERRER = "la_referrer"
LOCATION = "la_location"  # a redirect's target, canonical
LOCATION_ERROR = "la_location_error"  # why a redirect's Location is not a URL
TRUNCATED = "la_truncated"  # the page was cut at LINKAUDIT_PAGE_MAXSIZE
READ = "la_read"  # bytes of the body received so far
# a request that is not a link check (robots.txt): read and inflate at most
# this many bytes of its body, the rest ignored (see middlewares/robots.py)
MAXSIZE = "la_maxsize"
ROBOTS_TXT = "la_robots_txt"  # the robots.txt fetch of middlewares/robots.py
RETRY_AFTER_TRIES = "la_retry_after_tries"
HELD_ONCE = "la_held_once"  # set aside for a host's wait once: not again (hosts/holds.py)
BACKOFF_TRIES = "la_backoff_tries"  # asks again of a URL a struggling host failed
CACHED = "cached"  # response flag: answered from the audit database, not requested
# a render of a scanned page (--render, phase "render"): the page's own
# answer as plain data (rules/rendered.py: PageAnswer), which the browser is
# given as its document (no second request), and what the browser made of
# it (rules/rendered.py: RenderFacts)
RENDER = "la_render"
RENDERED = "la_rendered"
# a request a rendered page's browser made, sent by the crawl's downloader
# at its host's pace (rendering/paced.py), and whether its answer's
# Retry-After held the host (hosts/retryafter.py: asked again after the wait)
BROWSER = "la_browser"
HELD_BY_ANSWER = "la_held_by_answer"
