"""What an audit produces: the report (``report``, written by the
``pipelines``), its formats for people and tools (``formats``), the journal,
the page archive, feed exporters, log lines and the exit status."""
