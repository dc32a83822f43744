"""The network side of a check: the download handler, host name resolution,
and which failures are a verdict on a link (``failures``)."""
