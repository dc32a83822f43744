"""linkaudit: a polite website link auditor built on Scrapy."""

from linkaudit import compat

__version__ = "0.1.0"
PROJECT_URL = "https://github.com/linkaudit/linkaudit"

compat.install()  # the 0.1 import paths, for one release
