"""Scrapy settings of linkaudit: the project's settings module (scrapy.cfg,
Scrapyd's entry point).

Every setting linkaudit reads or checks, and its default, is in one table,
``linkaudit/config/options.py``; they are set here from it.  Below are the
components and Scrapy's own settings where a link checker needs another
default than Scrapy's.  docs/reference/settings.md documents each setting.
"""

from scrapy.settings import default_settings as _scrapy_defaults

from linkaudit import PROJECT_URL, __version__
from linkaudit.config.options import defaults
from linkaudit.items import FEED_FIELDS

BOT_NAME = "linkaudit"
SPIDER_MODULES = ["linkaudit.spiders"]
NEWSPIDER_MODULE = "linkaudit.spiders"

# Every LINKAUDIT_* setting, and the Scrapy ones linkaudit checks
# (DOWNLOAD_DELAY 1.0, CONCURRENT_REQUESTS_PER_DOMAIN 2, DOWNLOAD_TIMEOUT 15,
# DOWNLOAD_VERIFY_CERTIFICATES True, URLLENGTH_LIMIT 65536...)
globals().update(defaults())

# -- who we are, politeness ------------------------------------------------
USER_AGENT = f"linkaudit/{__version__} (+{PROJECT_URL})"
ROBOTSTXT_PARSER = "scrapy.robotstxt.ProtegoRobotParser"
DOWNLOAD_DELAY_JITTER = 0  # "at least one second" means no random shortening

# -- components ----------------------------------------------------------
DOWNLOADER_MIDDLEWARES = {
    # Answers fresh URLs from the audit database, asks pages conditionally;
    # before robots.txt: a URL not requested needs no robots.txt either
    "linkaudit.middlewares.recheck.RecheckMiddleware": 50,
    # Ours notes redirects of link checks and still follows robots.txt ones.
    "scrapy.downloadermiddlewares.redirect.RedirectMiddleware": None,
    "linkaudit.middlewares.redirects.RedirectRecorderMiddleware": 600,
    "linkaudit.hosts.retryafter.RetryAfterMiddleware": 550,
    "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware": None,
    # Expands compressed pages up to LINKAUDIT_PAGE_MAXSIZE, never further
    "scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware": None,
    "linkaudit.middlewares.decompress.CappedDecompressionMiddleware": 590,
    # RFC 9309 statuses and one-line failures (see the module)
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "linkaudit.middlewares.robots.RobotsMiddleware": 100,
    # After robots.txt (whose fetch is usually the first to find a host dead)
    "linkaudit.hosts.failures.HostFailureCacheMiddleware": 110,
    # A struggling host slowed down, paused, given up; sees the answers
    # Retry-After (550) did not wait on and ask again
    "linkaudit.hosts.backoff.BackoffMiddleware": 540,
    # --header, --auth and .netrc for the site's own hosts only; Scrapy's
    # HttpAuthMiddleware (300) turns the request's credentials into a header
    "linkaudit.middlewares.credentials.NearCredentialsMiddleware": 290,
    # --cookie-jar: Scrapy's cookies middleware, loaded from a cookies.txt
    # file (Scrapy's own is not in DOWNLOADER_MIDDLEWARES_BASE below)
    "linkaudit.middlewares.cookies.CookieFileMiddleware": 700,
    # --sign-key: Web Bot Auth signatures, on the request as it is sent (late:
    # after the cookies; before the statistics count its bytes)
    "linkaudit.middlewares.signing.SigningMiddleware": 800,
    # Counts without serialising each request to measure its bytes
    "scrapy.downloadermiddlewares.stats.DownloaderStats": None,
    "linkaudit.middlewares.stats.DownloaderStats": 850,
}
# Scrapy's HTTP/1.1 handler with hostnames' IDNA encoding cached (see the
# module); for http, a local build's origin read from its files (LINKAUDIT_LOCAL_READ)
DOWNLOAD_HANDLERS = {
    "http": "linkaudit.localbuild.handler.LocalBuildHandler",
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
    # A local build's file reached through a symbolic link out of it: ok, a warning
    "linkaudit.localbuild.middleware.LinkOutMiddleware": 20,
    # Each spider middleware wraps every callback's output in one more
    # asynchronous generator; this one warns a spider's author who copies a
    # response's meta into a request, and the spider builds every meta afresh
    "scrapy.spidermiddlewares.metacopy.MetaCopyDetectionMiddleware": None,
}
# Scrapy's own downloader middlewares but its cookies middleware: Scrapy
# imports every component it lists, even one set to None, and that one
# imports tldextract and requests (middlewares/cookies.py builds it on use)
DOWNLOADER_MIDDLEWARES_BASE = {
    name: order
    for name, order in _scrapy_defaults.DOWNLOADER_MIDDLEWARES_BASE.items()
    if name != "scrapy.downloadermiddlewares.cookies.CookiesMiddleware"
}
# Scrapy's own extensions but the telnet console and the remote control,
# off below (TELNETCONSOLE_ENABLED, REMOTE_CONTROL_ENABLED): Scrapy imports
# every extension it lists, even one set to None, and the remote control
# imports aiohttp's server: a quarter of a second at every start.
EXTENSIONS_BASE = {
    name: order
    for name, order in _scrapy_defaults.EXTENSIONS_BASE.items()
    if name.rpartition(".")[2] not in ("TelnetConsole", "RemoteControl")
}
EXTENSIONS = {
    # Scrapy's loggers at LOG_LEVEL: no record built to be thrown away
    "linkaudit.extensions.loglevel.LogLevel": 0,
    # the garbage collector paced for a crawl (LINKAUDIT_GC_THRESHOLD)
    "linkaudit.extensions.collector.GarbageCollection": 0,
    "linkaudit.hosts.crawldelay.CrawlDelay": 500,
    "linkaudit.hosts.pacing.DelayMargin": 500,
    "linkaudit.extensions.drain.DrainOnClose": 500,
    "linkaudit.output.archive.PageArchive": 500,
    "linkaudit.extensions.progress.Progress": 500,
    # --notify: told once the report is settled (linkaudit/notify/)
    "linkaudit.extensions.notify.Notify": 500,
    "linkaudit.hosts.pacehint.PaceHint": 500,
    # what of a response is downloaded (a GET stops at the headers...)
    "linkaudit.components.gate.DownloadGate": 0,
    "linkaudit.output.exports.ReportViews": 500,
    # a build directory's pages named by their files in the report
    "linkaudit.localbuild.extension.BuildFiles": 0,
    # --archive: broken links' archived copies, looked up once the crawl is idle
    "linkaudit.memento.lookups.ArchiveLookups": 500,
}
ITEM_PIPELINES = {
    "linkaudit.output.pipelines.ReportPipeline": 300,
    "linkaudit.output.pipelines.ProbeFilter": 350,
    "linkaudit.output.journal.JournalPipeline": 400,
    # last: a build's items name its files as its report does (feeds)
    "linkaudit.output.pipelines.BuildNamesPipeline": 900,
}
LOG_FORMATTER = "linkaudit.output.logformatter.LinkAuditLogFormatter"
# Scrapy's memory stats collector without a wrapper around every call (see the module)
STATS_CLASS = "linkaudit.extensions.stats.StatsCollector"
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
# Scrapy's scheduler, which also releases the audit's frontier level by level
SCHEDULER = "linkaudit.components.scheduler.AuditScheduler"
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
FEED_EXPORT_FIELDS = list(FEED_FIELDS)
FEED_EXPORTERS = {"csv": "linkaudit.output.exporters.CsvItemExporter"}
# a feed's file never written through a link planted at its path
FEED_STORAGES = {s: "linkaudit.output.exporters.NoFollowFileStorage" for s in ("", "file")}
FEED_EXPORT_ENCODING = "utf-8"
