"""The linkaudit spider lives in linkaudit.spiders.linkaudit."""
