"""Every setting linkaudit reads or checks, in one table: its default, how it
is read and checked, the spider argument (``-a NAME=``) and the command
option (:class:`Flag`) that set it, and what an error calls it.

``linkaudit/settings.py`` takes its defaults from here, ``Config`` reads and
checks every one before the crawl, the ``linkaudit`` command builds its
options from the ``flag`` column (``command/parser.py``) and hands what they
were given on as the spider argument, or as the setting when there is none
(``command/choices.py``).  docs/reference/settings.md is generated from it
(docs/hooks.py).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import linkaudit.config.access as a
import linkaudit.config.checks as c
import linkaudit.config.notifying as n
import linkaudit.config.signing as s
import linkaudit.config.sources as src


@dataclass(frozen=True)
class Flag:
    """The ``linkaudit`` command's option for a setting, as ``--help`` shows
    it: ``"--depth N"`` takes a value (given as text, read by the setting's
    reader as ``-s`` and ``-a`` are), ``"--no-css"`` alone is a switch that
    sets the opposite of the setting's default; its ``--help`` section (a key
    of ``command/helptext.py``'s ``SECTIONS``) and line; ``many``: repeatable,
    each value one item of the list."""

    usage: str
    section: str
    help: str
    many: bool = False

    @property
    def name(self) -> str:
        return self.usage.partition(" ")[0]

    @property
    def metavar(self) -> str | None:
        """None: a switch."""
        return self.usage.partition(" ")[2] or None

    @property
    def dest(self) -> str:
        """The attribute argparse gives its value."""
        return self.name[2:].replace("-", "_")


@dataclass(frozen=True)
class Option:
    setting: str
    default: Any
    read: c.Reader
    argument: str | None = None  # spider argument, -a NAME=VALUE
    flag: Flag | None = None  # the linkaudit command's option, when it sets the setting
    label: str | None = None  # what errors call it (default: the argument or the setting)

    @property
    def name(self) -> str:
        """What an error calls it when no argument or option of the user's
        set it (then that is named)."""
        return self.label or self.setting


_int, _float = int, float
REPORT = "linkaudit-report.json"
# fmt: off
# (laid out by hand, a row a setting: a formatter's one argument a line would
# make the table several times as long)
OPTIONS: tuple[Option, ...] = (
    # -- what is audited
    Option("LINKAUDIT_START", "", c.start_urls, argument="start", label="start"),
    Option("LINKAUDIT_NEAR", "", c.url_prefixes, argument="near", label="near", flag=Flag(
        "--near PREFIX", "scope", "what counts as in the site; default: the start URLs",
        many=True)),
    Option("LINKAUDIT_DEPTH", None, c.number(_int, 0, optional=True), argument="depth",
           flag=Flag("--depth N", "scope", "link hops from the start URLs; default: no limit")),
    # the most URLs one audit records (0: no bound); found past it: counted only
    Option("LINKAUDIT_MAX_URLS", 0, c.number(_int, 0), argument="max_urls", flag=Flag(
        "--max-urls N", "scope", "record at most this many URLs: links to further new URLs are "
        "counted, not checked (the audit is then incomplete); default: no limit")),
    Option("LINKAUDIT_CONTACT", "", c.email, argument="contact",
           flag=Flag("--contact EMAIL", "politeness", "sent as the From header")),
    # -- where the results go
    Option("LINKAUDIT_REPORT", REPORT, c.report_path, argument="report", label="report"),
    # the journal's path is checked with the report's (its default is beside it)
    Option("LINKAUDIT_JOURNAL", "", c.text, argument="journal", label="journal", flag=Flag(
        "--journal PATH", "memory", "journal of results; default: beside the report")),
    Option("LINKAUDIT_JOURNAL_ENABLED", True, c.boolean),
    Option("LINKAUDIT_PAGEDIR", "", c.optional_directory, argument="pagedir", label="pagedir",
           flag=Flag("--pagedir DIR", "output", "save every site page fetched in DIR as files "
                     "0, 1, 2... (URL, depth, then the HTML); DIR must exist")),
    Option("LINKAUDIT_DB", "", c.database_path, argument="db", label="db", flag=Flag(
        "--db PATH", "memory", "audit database (SQLite): resume an interrupted audit, recheck "
        "incrementally, compare with the previous audit; created if missing")),
    Option("LINKAUDIT_DB_COMMIT_INTERVAL", 1.0, c.number(_float, 0.01, maximum=c.DAY)),
    Option("LINKAUDIT_HTML", "", c.optional_file, argument="html", label="html", flag=Flag(
        "--html PATH", "output", "also write the report as one self-contained HTML page")),
    Option("LINKAUDIT_REDIRECT_FIXES", "", c.optional_file, argument="redirect_fixes",
           label="redirect_fixes", flag=Flag("--redirect-fixes PATH", "output", "also write "
           "the redirect fix-list as CSV (page, line, replace from, with to)")),
    Option("LINKAUDIT_BASELINE", "", c.baseline_report, argument="baseline", label="baseline",
           flag=Flag("--baseline REPORT", "memory", "an earlier report: mark new broken links "
                     "and list fixed ones (default with --db: the previous finished audit)")),
    Option("LINKAUDIT_STATE", "linkaudit.state.memory.MemoryState", c.state_class),
    # -- one audit over many workers (Redis)
    Option("LINKAUDIT_REDIS", "", c.redis_url, argument="redis", label="redis", flag=Flag(
        "--redis URL", "shared", "one audit over many workers: the Redis (redis://HOST:PORT/DB) "
        "that holds it; start the same command on every worker")),
    Option("LINKAUDIT_AUDIT", "", c.audit_name, argument="audit", label="audit", flag=Flag(
        "--audit NAME", "shared", "with --redis: the audit's name (the first worker creates it)")),
    Option("LINKAUDIT_REDIS_RESTART", False, c.boolean, argument="restart", flag=Flag(
        "--restart", "shared", "with --redis: drop what Redis holds of the audit NAME and start "
        "it again")),
    Option("LINKAUDIT_REDIS_LEASE", 30.0, c.number(_float, 0.5, maximum=c.DAY)),
    Option("LINKAUDIT_REDIS_POLL", 0.5, c.number(_float, 0.01, maximum=c.HOUR)),
    Option("LINKAUDIT_REDIS_EXPIRE", 86400.0, c.number(_float, 0, maximum=10 * c.YEAR)),
    # -- told when something changes (linkaudit/notify/): after the report is written
    Option("LINKAUDIT_NOTIFY", [], n.notify_targets, argument="notify", label="notify", flag=Flag(
        "--notify TARGET", "notify", "after the audit, tell TARGET what changed since the last "
        "audit or the baseline: slack:URL, teams:URL, discord:URL, webhook:URL or "
        "smtp://[USER:PASSWORD@]HOST[:PORT]?to=ADDRESS", many=True)),
    Option("LINKAUDIT_NOTIFY_ALWAYS", False, c.boolean, argument="notify_always", flag=Flag(
        "--notify-always", "notify", "with --notify: send a message even when nothing changed")),
    # the webhook's signing secret: the setting, else the environment variable
    Option("LINKAUDIT_NOTIFY_SECRET", "", n.notify_secret),
    Option("LINKAUDIT_NOTIFY_SECRET_FILE", "", n.secret_file, argument="notify_secret_file",
           label="notify_secret_file", flag=Flag("--notify-secret-file PATH", "notify", "a file "
           "holding the secret that signs webhook: messages (else the environment's "
           "LINKAUDIT_NOTIFY_SECRET)")),
    Option("LINKAUDIT_NOTIFY_REPORT_URL", "", c.text, argument="notify_report_url", flag=Flag(
        "--notify-report-url URL", "notify", "where readers find the report (a CI job's page), "
        "named in the messages instead of the report's path")),
    # a target that fails: tried again this many times, within the time bound
    Option("LINKAUDIT_NOTIFY_RETRIES", 2, c.number(_int, 0, maximum=10)),
    Option("LINKAUDIT_NOTIFY_TIMEOUT", 30.0, c.number(_float, 1, maximum=c.HOUR)),
    Option("LINKAUDIT_PROGRESS", False, c.boolean),
    Option("LINKAUDIT_PROGRESS_INTERVAL", 0.25, c.number(_float, 0.01, maximum=c.HOUR)),
    # a hint, once, when the default pace makes an audit long (hosts/pacehint.py)
    Option("LINKAUDIT_PACE_HINT", True, c.boolean),
    Option("LINKAUDIT_PACE_HINT_AFTER", 20.0, c.number(_float, 0, maximum=c.DAY)),
    Option("LINKAUDIT_PACE_HINT_LONG", 300.0, c.number(_float, 0, maximum=c.YEAR)),
    # -- what is checked, and how
    Option("LINKAUDIT_HEAD_FIRST", True, c.boolean),
    Option("LINKAUDIT_ACCEPT_STATUS", [], c.statuses, argument="accept", flag=Flag(
        "--accept STATUSES", "checks", "statuses counted ok, one by one or in ranges: "
        "200-299,429")),
    Option("LINKAUDIT_HTML_TYPES", ["text/html", "application/xhtml+xml"], c.text_list),
    Option("LINKAUDIT_EXCLUDE", [], c.patterns, argument="exclude", flag=Flag(
        "--exclude REGEX", "scope", "URLs matching it are reported excluded, never requested",
        many=True)),
    Option("LINKAUDIT_INCLUDE", [], c.patterns, argument="include", flag=Flag(
        "--include REGEX", "scope", "check only URLs matching it; it wins over --exclude",
        many=True)),
    Option("LINKAUDIT_SKIP_FAR", False, c.boolean, argument="skip_far", flag=Flag(
        "--skip-far", "scope", "report links outside the site excluded, request nothing there")),
    Option("LINKAUDIT_CHECK_FRAGMENTS", False, c.boolean, argument="check_fragments", flag=Flag(
        "--check-fragments", "checks", "a link to page#name is broken when the page has no "
        "such anchor")),
    Option("LINKAUDIT_CSS", True, c.boolean, argument="css", flag=Flag(
        "--no-css", "checks", "do not read links in CSS (style elements and attributes, "
        "stylesheets)")),
    Option("LINKAUDIT_CSS_TYPES", ["text/css"], c.text_list),
    Option("LINKAUDIT_SITEMAPS", [], c.url_list, argument="sitemap", label="sitemap", flag=Flag(
        "--sitemap URL", "scope", "a sitemap (or sitemap index) whose URLs are audited too",
        many=True)),
    Option("LINKAUDIT_ROBOTS_SITEMAPS", True, c.boolean, argument="robots_sitemaps", flag=Flag(
        "--no-sitemap", "scope", "do not read the sitemaps that the site's robots.txt names")),
    # links the site template repeats: one finding (the report's groups)
    Option("LINKAUDIT_TEMPLATES", True, c.boolean, argument="templates"),
    Option("LINKAUDIT_TEMPLATE_MIN_PAGES", 2, c.number(_int, 1)),
    # broken near links: the page most likely meant, when its score (0..1,
    # rules/suggest.py) reaches the least score and no other is as likely
    Option("LINKAUDIT_SUGGESTIONS", True, c.boolean, argument="suggestions", flag=Flag(
        "--no-suggestions", "checks", "do not suggest the page a broken link in the site most "
        "likely meant")),
    Option("LINKAUDIT_SUGGEST_MIN_SCORE", 0.7, c.number(_float, 0, maximum=1)),
    # broken links' archived copies (linkaudit/memento/): off, as it sends
    # the broken URLs to a third party (never those of a private address)
    Option("LINKAUDIT_ARCHIVE", False, c.boolean, argument="archive", flag=Flag(
        "--archive", "checks", "for each broken link, the archived copy readers saw (found "
        "through Memento, at --archive-service): sends the broken URLs to that service")),
    Option("LINKAUDIT_ARCHIVE_SERVICE", "https://web.archive.org/web/", c.service_url,
           argument="archive_service", label="archive_service", flag=Flag(
               "--archive-service URL", "checks", "the Memento TimeGate the copies are looked "
               "up at (default: the Internet Archive's https://web.archive.org/web/)")),
    Option("LINKAUDIT_ARCHIVE_MAX", 50, c.number(_int, 1, maximum=100_000)),
    Option("LINKAUDIT_ARCHIVE_TRIES", 5, c.number(_int, 1, maximum=100)),
    Option("LINKAUDIT_ARCHIVE_DELAY", 2.5, c.number(_float, 0, maximum=c.HOUR)),
    Option("LINKAUDIT_ARCHIVE_RECHECK", 30.0, c.number(_float, 0, maximum=3650)),
    # pages that answer 200 but are error pages: a warning, broken, or not looked for
    Option("LINKAUDIT_SOFT_404", "warn", c.choice("warn", "error", "off"), argument="soft_404",
           flag=Flag("--soft-404 MODE", "checks", "pages answering 200 that are error pages "
                     "(their title says not found, or, with --soft-404-probes, they look like a "
                     "missing page): warn (default), error, off")),
    Option("LINKAUDIT_SOFT_404_PROBES", False, c.boolean, argument="soft_404_probes", flag=Flag(
        "--soft-404-probes", "checks", "find soft 404s by probing: one request per host and "
        "directory pattern for a URL that cannot exist, compared with the pages")),
    Option("LINKAUDIT_SOFT_404_SIMILARITY", 0.9, c.number(_float, 0, maximum=1)),
    # pages built by JavaScript: rendered in Chromium (linkaudit/rendering/)
    Option("LINKAUDIT_RENDER", "never", c.choice("never", "auto", "always"), argument="render",
           flag=Flag("--render MODE", "checks", "pages built by JavaScript: never (default: "
                     "pages that look like app shells are only named), auto (render those in "
                     "Chromium), always (render every page of the site)")),
    Option("LINKAUDIT_BROWSER", "", c.text, argument="browser", flag=Flag(
        "--browser PATH", "checks", "the Chromium that renders pages; default: chromium on the "
        "PATH")),
    # seconds a render may take in all (load, scripts, the network going quiet)
    Option("LINKAUDIT_RENDER_TIMEOUT", 15.0, c.number(_float, 1, maximum=c.HOUR)),
    # seconds after load waited for the network to go quiet, then the DOM is read anyway
    Option("LINKAUDIT_RENDER_SETTLE", 3.0, c.number(_float, 0, maximum=c.HOUR)),
    Option("LINKAUDIT_RENDER_PAGES", 2, c.number(_int, 1, maximum=64)),
    # MiB the browser's whole process tree may use (PSS): past it, its pages
    # are closed; an idle Chromium with one page holds about 340
    Option("LINKAUDIT_RENDER_MEMORY", 1024, c.number(_int, 400, maximum=1 << 20)),
    # hosts the browser may ask for during one render (its own included)
    Option("LINKAUDIT_RENDER_HOSTS", 20, c.number(_int, 1, maximum=10_000)),
    # bytes of a sitemap read, and inflated (gzip file or Content-Encoding)
    Option("LINKAUDIT_SITEMAP_MAXSIZE", 50 * 1024 * 1024, c.number(_int, 1, maximum=c.SIZE)),
    # sitemap nesting read: 1 the sitemaps given or named by robots.txt, 2 those
    # their index lists (all the protocol allows), 3 an index of indexes
    Option("LINKAUDIT_SITEMAP_MAXDEPTH", 3, c.number(_int, 1)),
    # sitemaps read per audit: at 50,000 URLs each, 1,000 list 50 million URLs
    Option("LINKAUDIT_SITEMAP_MAXCOUNT", 1000, c.number(_int, 1)),
    # a local build: the directory the first start URL serves (referrers name its files)
    Option("LINKAUDIT_LOCAL_DIR", "", c.local_directory, argument="local_dir", label="local_dir"),
    # read the local build's files for its start URL's origin, no socket (linkaudit DIR sets it)
    Option("LINKAUDIT_LOCAL_READ", False, c.boolean),
    Option("LINKAUDIT_ROOT_URL", "", c.optional_url, argument="root_url", label="root_url",
           flag=Flag("--root-url URL", "scope", "with a directory: the site's own address, "
                     "whose links are checked against the directory")),
    # the page of LINKAUDIT_LOCAL_DIR the audit starts from, its path inside it
    # (linkaudit DIR: --start, else DIR/index.html, else the shallowest index page)
    Option("LINKAUDIT_LOCAL_START", "", c.local_start, argument="local_start",
           label="local_start", flag=Flag("--start PATH", "scope", "with a directory: the "
           "page inside it the audit starts from; default: DIR/index.html, else the "
           "shallowest index page")),
    # processes that read and scan a build's pages in the walk (localbuild/pool.py);
    # 0: the cores this process may use, 1: the walk's own process alone
    Option("LINKAUDIT_JOBS", 0, c.number(_int, 0, maximum=1024), flag=Flag(
        "--jobs N", "checks", "with a directory: the processes that read its pages; "
        "default: one a core")),
    # a build's findings on the source lines it was made from (linkaudit/sources/)
    Option("LINKAUDIT_SOURCES", [], src.source_directories, argument="sources", label="sources",
           flag=Flag("--sources DIR", "scope", "with a directory: the sources it was built from "
                     "(Markdown, reST, MyST): each finding's place mapped to its source file and "
                     "line; default: MkDocs, Sphinx, Hugo or Jekyll sources found beside it",
                     many=True)),
    Option("LINKAUDIT_DETECT_SOURCES", True, c.boolean),
    Option("LINKAUDIT_CHANGED_SINCE", "", src.changed_ref, argument="changed_since",
           label="changed_since", flag=Flag("--changed-since REF", "output", "with a "
           "directory and its sources in git: report (and fail on) only the findings on "
           "source lines changed since REF (a branch, tag or commit); count the others")),
    # -- getting in: sent to the site's own hosts only (and LINKAUDIT_HEADER_HOSTS)
    Option("LINKAUDIT_HEADERS", [], a.headers, argument="headers", flag=Flag(
        "--header 'NAME: VALUE'", "checks", "a header sent to the site's own hosts only",
        many=True)),
    Option("LINKAUDIT_AUTH", "", a.credentials, argument="auth", flag=Flag(
        "--auth USER:PASSWORD", "checks", "HTTP basic credentials for the site's own hosts only")),
    Option("LINKAUDIT_HEADER_HOSTS", [], c.text_list, argument="header_hosts", flag=Flag(
        "--header-host HOST", "checks", "also send --header and --auth to HOST", many=True)),
    # Scrapy's headers, sent with every request: values HTTP can carry
    Option("USER_AGENT", None, a.header_value, flag=Flag(
        "--user-agent TEXT", "politeness", "the User-Agent header; default: linkaudit/VERSION "
        "(+URL)")),
    Option("DEFAULT_REQUEST_HEADERS", None, a.header_table),
    Option("LINKAUDIT_NETRC", True, a.netrc_logins),
    Option("LINKAUDIT_COOKIE_JAR", "", a.cookie_file, argument="cookie_jar", label="cookie_jar",
           flag=Flag("--cookie-jar FILE", "checks", "cookies from a Netscape cookies.txt file")),
    # -- proving who we are: Web Bot Auth (rules/signatures.py, middlewares/signing.py)
    Option("LINKAUDIT_SIGN_KEY", "", s.sign_key, argument="sign_key", label="sign_key", flag=Flag(
        "--sign-key PATH", "politeness", "sign the requests to the site's own hosts over https "
        "with this Ed25519 key (Web Bot Auth), for sites that let a verified linkaudit "
        "through; make one: linkaudit keygen")),
    Option("LINKAUDIT_SIGNATURE_AGENT", "", s.signature_agent, argument="signature_agent",
           label="signature_agent", flag=Flag("--signature-agent URL", "politeness", "with "
           "--sign-key: the https origin that publishes the key directory")),
    # seconds a signature stays valid after the request is sent (its wait added)
    Option("LINKAUDIT_SIGN_LIFETIME", 60.0, c.number(_float, 1, maximum=c.DAY)),
    # what is signed: the site's own hosts over https; far hosts, plain http when asked
    Option("LINKAUDIT_SIGN_FAR", False, c.boolean, flag=Flag(
        "--sign-far", "politeness", "with --sign-key: sign the requests to other hosts too "
        "(every link's host learns your signature agent)")),
    Option("LINKAUDIT_SIGN_HTTP", False, c.boolean, flag=Flag(
        "--sign-http", "politeness", "with --sign-key: sign plain http requests too (their "
        "signature travels in clear)")),
    Option("LINKAUDIT_MAX_PATH_SEGMENTS", 32, c.number(_int, 0)),
    Option("LINKAUDIT_MAX_SEGMENT_REPEAT", 3, c.number(_int, 0)),
    Option("LINKAUDIT_EXCLUDE_USERINFO", True, c.boolean),
    Option("LINKAUDIT_EXCLUDE_DOUBLE_SLASH", True, c.boolean),
    Option("LINKAUDIT_PAGE_MAXSIZE", 5 * 1024 * 1024, c.number(_int, 1, maximum=c.SIZE)),
    # links read per page (or stylesheet): far above real pages (a few
    # hundred; a 5 MB page of links holds about 100,000); the rest are counted
    Option("LINKAUDIT_PAGE_MAXLINKS", 20_000, c.number(_int, 1)),
    # redirects in a row before a chain is broken ("Too many redirects"), as browsers
    Option("REDIRECT_MAX_TIMES", 20, c.number(_int, 1)),
    Option("LINKAUDIT_RELEASE_BATCH", 2000, c.number(_int, 0)),
    # longer URLs are excluded: a sanity bound far above what browsers follow
    Option("URLLENGTH_LIMIT", 65536, c.number(_int, 1, maximum=c.SIZE)),
    Option("DOWNLOAD_TIMEOUT", 15, c.number(_float, 0.001, maximum=c.DAY), flag=Flag(
        "--timeout SECONDS", "checks", "how long one request may take; default: 15")),
    # the HTTP client the requests go through (network/clients.py; measured in bench/README.md)
    Option("LINKAUDIT_HTTP_CLIENT", "twisted", c.http_client),
    # a bad certificate is a broken link (Scrapy's default is not to verify)
    Option("DOWNLOAD_VERIFY_CERTIFICATES", True, c.boolean, flag=Flag(
        "--insecure", "checks", "accept TLS certificates that do not verify (expired, "
        "self-signed)")),
    # -- incremental audits (the audit database)
    Option("LINKAUDIT_RECHECK_AFTER", 0, c.number(_float, 0, maximum=10 * c.YEAR)),
    Option("LINKAUDIT_RECHECK_GOOD_AFTER", 0, c.number(_float, 0, maximum=10 * c.YEAR)),
    Option("LINKAUDIT_FOLLOW_GHOST", 0, c.number(_float, 0, maximum=10 * c.YEAR)),
    Option("LINKAUDIT_REPORT_AFTER", 0, c.number(_float, 0, maximum=10 * c.YEAR)),
    # -- politeness
    # seconds between two requests to one host (at least one by default)
    Option("DOWNLOAD_DELAY", 1.0, c.number(_float, 0, maximum=c.DAY), flag=Flag(
        "--delay SECONDS", "politeness", "seconds between requests to one host; default: 1.0 "
        "(0.1 with --demo; none for the server of a build directory)")),
    Option("CONCURRENT_REQUESTS", 16, c.number(_int, 1), flag=Flag(
        "--concurrency N", "politeness", "requests in flight at once, all hosts together; "
        "default: 16 (each host still gets --delay between its requests)")),
    Option("CONCURRENT_REQUESTS_PER_DOMAIN", 2, c.number(_int, 1)),
    Option("CLOSESPIDER_PAGECOUNT", 0, c.number(_int, 0), flag=Flag(
        "--max-requests N", "scope", "stop after this many responses; default: no limit")),
    Option("CLOSESPIDER_TIMEOUT", 0, c.number(_float, 0, maximum=c.YEAR), flag=Flag(
        "--max-time SECONDS", "scope", "stop after this many seconds; default: no limit")),
    Option("ROBOTSTXT_OBEY", True, c.boolean),
    # bytes of a robots.txt read and inflated, near or far: the download stops
    # there and what was read is parsed (RFC 9309 2.5: at least 500 KiB)
    Option("LINKAUDIT_ROBOTSTXT_MAXSIZE", 500 * 1024, c.number(_int, 1, maximum=c.SIZE)),
    Option("LINKAUDIT_MAX_CRAWL_DELAY", 30.0, c.number(_float, 0, maximum=c.DAY)),
    Option("LINKAUDIT_DELAY_MARGIN", 0.1, c.number(_float, 0, maximum=c.HOUR)),
    Option("LINKAUDIT_RETRY_AFTER_CODES", [429, 503], c.statuses),
    Option("LINKAUDIT_RETRY_AFTER_TIMES", 2, c.number(_int, 0)),
    Option("LINKAUDIT_RETRY_AFTER_MAX", 30.0, c.number(_float, 0, maximum=c.DAY)),
    Option("LINKAUDIT_RETRY_AFTER_DEFAULT", 5.0, c.number(_float, 0, maximum=c.DAY)),
    Option("LINKAUDIT_HOST_FAILURE_CACHE", True, c.boolean),
    # a machine that seems offline (rules/offline.py): far domains that must fail
    Option("LINKAUDIT_OFFLINE_HOSTS", 3, c.number(_int, 0, maximum=1000)),
    # a struggling host slowed down, paused, given up (hosts/backoff.py)
    Option("LINKAUDIT_BACKOFF", True, c.boolean),
    Option("LINKAUDIT_BACKOFF_WINDOW", 20, c.number(_int, 4, maximum=1000)),
    Option("LINKAUDIT_BACKOFF_THRESHOLD", 0.5, c.number(_float, 0, maximum=1)),
    Option("LINKAUDIT_BACKOFF_MAX_DELAY", 8.0, c.number(_float, 0, maximum=c.DAY)),
    Option("LINKAUDIT_BACKOFF_PAUSE", 30.0, c.number(_float, 0, maximum=c.DAY)),
    Option("LINKAUDIT_BACKOFF_MAX_PAUSES", 2, c.number(_int, 0, maximum=100)),
    Option("LINKAUDIT_DRAIN_ON_CLOSE", True, c.boolean),
    Option("LINKAUDIT_DRAIN_INTERVAL", 0.1, c.number(_float, 0.01, maximum=c.HOUR)),
    # allocations between two collections of Python's youngest generation
    # (Python: 700; 0 leaves the collector alone), see extensions/collector.py
    Option("LINKAUDIT_GC_THRESHOLD", 10_000, c.number(_int, 0, maximum=10_000_000)),
    # -- Scrapy settings that name components: each path must load
    Option("DOWNLOADER_MIDDLEWARES", None, c.components(keys=True)),
    Option("SPIDER_MIDDLEWARES", None, c.components(keys=True)),
    Option("ITEM_PIPELINES", None, c.components(keys=True)),
    Option("EXTENSIONS", None, c.components(keys=True)),
    Option("DOWNLOAD_HANDLERS", None, c.components(keys=False)),
    Option("FEED_EXPORTERS", None, c.components(keys=False)),
    Option("TWISTED_DNS_RESOLVER", None, c.component),
    Option("LOG_FORMATTER", None, c.component),
    Option("STATS_CLASS", None, c.component),
    # -- the log
    Option("LOG_LEVEL", None, c.log_level),
)
# fmt: on
BY_SETTING = {option.setting: option for option in OPTIONS}
ARGUMENTS = {option.argument: option for option in OPTIONS if option.argument}
BY_FLAG = {option.flag.name: option for option in OPTIONS if option.flag is not None}


def defaults() -> dict[str, Any]:
    """The settings linkaudit gives a default (the rest are Scrapy's)."""
    return {
        o.setting: o.default
        for o in OPTIONS
        if o.default is not None or o.setting.startswith("LINKAUDIT_")
    }


def unknown_setting(names: Iterable[str]) -> str | None:
    """The error for the first ``LINKAUDIT_*`` name that is no setting of
    ours, with the nearest one; None when all are known.  (Scrapy's own
    settings are Scrapy's to know: a project may define more.)"""
    for name in names:
        if name.startswith("LINKAUDIT_") and name not in BY_SETTING:
            # compared without the prefix every name shares
            ours = [known[10:] for known in BY_SETTING if known.startswith("LINKAUDIT_")]
            near = difflib.get_close_matches(name[10:], ours, n=1)
            hint = f" (did you mean LINKAUDIT_{near[0]}?)" if near else ""
            return f"{name}: unknown setting{hint}"
    return None
