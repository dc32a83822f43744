"""linkaudit: a polite website link auditor built on Scrapy."""

__version__ = "0.1.0"
PROJECT_URL = "https://github.com/linkaudit/linkaudit"
