"""Signals linkaudit sends, for components that need more than items."""

# A near HTML page was fetched and scanned for links.
# Arguments: response, url (the canonical URL checked), depth.
page_scanned = object()

# The report is safely on disk (sent on spider_closed, after the rename; in
# a shared audit, also by the workers whose audit another worker reported).
# Argument: path.
report_written = object()

# The audit's final report is settled, in the one process that wrote it (in
# a shared audit, the worker that settled the report; the others never send
# it): what is told of it (notifications) is told once.  Sent after
# report_written, with the report even when its file could not be written.
# Arguments: report (the JSON report's dict), path (None: not written).
# Handlers may return a Deferred: the crawl waits for it before it ends.
report_settled = object()

# A robots.txt was read and names sitemaps (its ``Sitemap:`` lines).
# Arguments: url (the robots.txt), sitemaps ([(URL as written, line)]).
robots_sitemaps = object()

# A request is handed to the network (the download handler): from here on
# a server may receive it, so this is when a request counts as sent (a
# shared audit counts it in Redis now, before its bytes leave).
# Argument: request.
request_sent = object()

# the browser asks whether robots.txt allows a URL it is about to request
# (``url``); the robots.txt middleware answers True or False (rendering/)
robots_asked = object()
