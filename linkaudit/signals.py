"""Signals linkaudit sends, for components that need more than items."""

# A near HTML page was fetched and scanned for links.
# Arguments: response, url (the canonical URL checked), depth.
page_scanned = object()
