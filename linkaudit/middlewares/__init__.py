"""Downloader middlewares of linkaudit."""
