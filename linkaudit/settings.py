"""Scrapy settings of linkaudit.  Every LINKAUDIT_* setting is documented in
the README; Scrapy's own are set here where a link checker needs another
default than Scrapy's."""

from linkaudit import PROJECT_URL, __version__
from linkaudit.items import CONTRACT_FIELDS, OPTIONAL_FIELDS

BOT_NAME = "linkaudit"
SPIDER_MODULES = ["linkaudit.spiders"]
NEWSPIDER_MODULE = "linkaudit.spiders"

# -- who we are ----------------------------------------------------------
USER_AGENT = f"linkaudit/{__version__} (+{PROJECT_URL})"
LINKAUDIT_CONTACT = ""  # an e-mail address sent as the From header

# -- politeness ----------------------------------------------------------
ROBOTSTXT_OBEY = True
ROBOTSTXT_PARSER = "scrapy.robotstxt.ProtegoRobotParser"
DOWNLOAD_DELAY = 1.0  # seconds between requests to one host (seed: at least one second)
DOWNLOAD_DELAY_JITTER = 0  # "at least one second" means no random shortening
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 2
DOWNLOAD_TIMEOUT = 15
# A bad certificate is a broken link (Scrapy's default is not to verify);
# set False to accept self-signed or expired certificates.
DOWNLOAD_VERIFY_CERTIFICATES = True
LINKAUDIT_ROBOTSTXT_MAXSIZE = 500 * 1024  # bytes of robots.txt parsed (RFC 9309's minimum)
LINKAUDIT_MAX_CRAWL_DELAY = 30.0  # cap on robots.txt Crawl-delay; 0 ignores it
LINKAUDIT_RETRY_AFTER_CODES = [429, 503]
LINKAUDIT_RETRY_AFTER_TIMES = 2
LINKAUDIT_RETRY_AFTER_MAX = 30.0
LINKAUDIT_RETRY_AFTER_DEFAULT = 5.0

# -- what is checked -----------------------------------------------------
LINKAUDIT_REPORT = "linkaudit-report.json"
# Every result as it comes, one flushed JSON line each (linkaudit/journal.py);
# empty: beside the report, <report>.journal.jsonl
LINKAUDIT_JOURNAL = ""
LINKAUDIT_JOURNAL_ENABLED = True
# Save every near HTML page fetched here, as files 0, 1, 2... (URL, depth,
# HTML); empty: off (linkaudit/archive.py)
LINKAUDIT_PAGEDIR = ""
LINKAUDIT_DEPTH = None  # link hops from the start URLs; None: no limit
# Bytes of a near page read and scanned (after decompression); the rest is
# not downloaded and the report marks the page "truncated" (seed 003's $MAXSIZE)
LINKAUDIT_PAGE_MAXSIZE = 5 * 1024 * 1024
# After a DNS failure, refused connection or connect timeout, fail the host's
# other URLs at once with the same error instead of waiting for each
LINKAUDIT_HOST_FAILURE_CACHE = True
# HEAD every URL first.  False: near URLs are asked with GET directly, the
# body stopped at the headers unless it is an HTML page (fewer requests, and
# still no binary downloaded); far URLs are always asked with HEAD first.
LINKAUDIT_HEAD_FIRST = True
LINKAUDIT_ACCEPT_STATUS = []  # statuses counted as ok besides 2xx (e.g. [403])
LINKAUDIT_HTML_TYPES = ["text/html", "application/xhtml+xml"]
LINKAUDIT_EXCLUDE = []  # regular expressions; a matching URL is excluded
LINKAUDIT_MAX_PATH_SEGMENTS = 32  # crawler-trap guards; 0 turns one off
LINKAUDIT_MAX_SEGMENT_REPEAT = 3
LINKAUDIT_EXCLUDE_USERINFO = True
LINKAUDIT_EXCLUDE_DOUBLE_SLASH = True
# Longer URLs are excluded, not requested: a sanity bound far above what
# browsers follow (Scrapy's default, 2083, made real links "broken")
URLLENGTH_LIMIT = 65536
LINKAUDIT_STATE = "linkaudit.state.memory.MemoryState"
# URLs of one level handed to Scrapy's scheduler at a time (0: the whole level)
LINKAUDIT_RELEASE_BATCH = 2000
# A live status line on stdout (the linkaudit command sets it on a terminal)
LINKAUDIT_PROGRESS = False
LINKAUDIT_PROGRESS_INTERVAL = 0.25

# The audit database (linkaudit/sqlitestate.py): "" keeps the state in
# memory; a path (or -a db=PATH, --db PATH) remembers audits across runs.
LINKAUDIT_DB = ""
LINKAUDIT_DB_COMMIT_INTERVAL = 1.0  # seconds: what a kill -9 can lose at most
# Incremental audits (linkaudit/recheck.py), seconds; 0 turns each off
LINKAUDIT_RECHECK_AFTER = 0
LINKAUDIT_RECHECK_GOOD_AFTER = 0
LINKAUDIT_FOLLOW_GHOST = 0
LINKAUDIT_REPORT_AFTER = 0
# An earlier report to compare with (new / fixed); with a database, the
# previous finished audit is the baseline when this is empty
LINKAUDIT_BASELINE = ""

# -- components ----------------------------------------------------------
DOWNLOADER_MIDDLEWARES = {
    # Answers fresh URLs from the audit database, asks pages conditionally;
    # before robots.txt: a URL not requested needs no robots.txt either
    "linkaudit.middlewares.recheck.RecheckMiddleware": 50,
    # Ours notes redirects of link checks and still follows robots.txt ones.
    "scrapy.downloadermiddlewares.redirect.RedirectMiddleware": None,
    "linkaudit.middlewares.redirects.RedirectRecorderMiddleware": 600,
    "linkaudit.middlewares.retryafter.RetryAfterMiddleware": 550,
    "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware": None,
    # Expands compressed pages up to LINKAUDIT_PAGE_MAXSIZE, never further
    "scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware": None,
    "linkaudit.middlewares.decompress.CappedDecompressionMiddleware": 590,
    # RFC 9309 statuses and one-line failures (see the module)
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "linkaudit.middlewares.robots.RobotsMiddleware": 100,
    # After robots.txt (whose fetch is usually the first to find a host dead)
    "linkaudit.middlewares.hostfailures.HostFailureCacheMiddleware": 110,
    # No HTTP auth on an audit (spider attributes http_user/http_pass)
    "scrapy.downloadermiddlewares.httpauth.HttpAuthMiddleware": None,
    # Counts without serialising each request to measure its bytes
    "scrapy.downloadermiddlewares.stats.DownloaderStats": None,
    "linkaudit.middlewares.stats.DownloaderStats": 850,
}
# Scrapy's HTTP/1.1 handler with hostnames' IDNA encoding cached (see the module)
DOWNLOAD_HANDLERS = {
    "http": "linkaudit.network.handler.HttpDownloadHandler",
    "https": "linkaudit.network.handler.HttpDownloadHandler",
}
SPIDER_MIDDLEWARES = {
    # The spider sets Referer, tracks depth and judges URL length itself.
    "scrapy.spidermiddlewares.referer.RefererMiddleware": None,
    "scrapy.spidermiddlewares.depth.DepthMiddleware": None,
    "scrapy.spidermiddlewares.urllength.UrlLengthMiddleware": None,
    # Every link check asks for every status (handle_httpstatus_all)
    "scrapy.spidermiddlewares.httperror.HttpErrorMiddleware": None,
    # An exception of ours while judging a response: the URL is unchecked
    # with "Internal error: ...", never broken
    "linkaudit.middlewares.internalerrors.InternalErrorMiddleware": 10,
}
EXTENSIONS = {
    "linkaudit.extensions.crawldelay.CrawlDelay": 500,
    "linkaudit.extensions.drain.DrainOnClose": 500,
    "linkaudit.output.archive.PageArchive": 500,
    "linkaudit.extensions.progress.Progress": 500,
}
ITEM_PIPELINES = {
    "linkaudit.output.pipelines.ReportPipeline": 300,
    "linkaudit.output.journal.JournalPipeline": 400,
}
LOG_FORMATTER = "linkaudit.output.logformatter.LinkAuditLogFormatter"
LOG_LEVEL = "INFO"

# Scrapy's caching resolver for IPv4 and IPv6 (its default is IPv4 only:
# http://[::1]/ and IPv6-only hosts would be "DNS lookup failed"), with
# .invalid and .onion answered at once and failed names remembered
TWISTED_DNS_RESOLVER = "linkaudit.network.resolver.AuditResolver"
RETRY_ENABLED = False  # HEAD->GET fallback and Retry-After replace blind retries
METAREFRESH_ENABLED = False  # meta refresh is a link, recorded by the spider
COOKIES_ENABLED = False
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False
# Check each level's URLs in the order they were found (Scrapy's default is LIFO)
SCHEDULER_MEMORY_QUEUE = "scrapy.squeues.FifoMemoryQueue"
SCHEDULER_DISK_QUEUE = "scrapy.squeues.PickleFifoDiskQueue"
DUPEFILTER_CLASS = "scrapy.dupefilters.BaseDupeFilter"  # the state dedupes
# Scrapy starts CONCURRENT_ITEMS asyncio tasks for the output of every
# callback (default 100): 5,000 responses made 500,000 tasks, half the CPU of
# an audit.  Our pipelines are synchronous, so one at a time loses nothing.
CONCURRENT_ITEMS = 1
# Scrapy parses the callback's source (ast.parse) on every response to warn
# about "return value" in generators: its cache is keyed by bound methods,
# which are new each time, so it never hits (4 % of an audit's CPU).
WARN_ON_GENERATOR_RETURN_VALUE = False
# One item per checked URL, as docs/item.schema.json describes
FEED_EXPORT_FIELDS = [*CONTRACT_FIELDS, *OPTIONAL_FIELDS]
FEED_EXPORTERS = {"csv": "linkaudit.output.exporters.CsvItemExporter"}
FEED_EXPORT_ENCODING = "utf-8"
