"""``linkaudit --demo``: a small shop site (``www/``, package data) served on
127.0.0.1 (``server``) with one of everything an audit reports."""

from linkaudit.demo.server import DemoSite

__all__ = ["DemoSite"]
