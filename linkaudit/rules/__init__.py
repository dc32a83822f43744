"""The rules of a link check, pure (no Scrapy): what a link's URL is
(``urls``), which links a page holds (``html``), what an HTTP answer means
(``statuses``), which URLs are not requested (``guards``), and when an
earlier check still counts (``recheck``)."""
