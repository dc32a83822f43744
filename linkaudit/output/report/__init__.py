"""The JSON report: the facts of the run (``facts``), its sections
(``sections``: the findings a report adds to the results), each built by a
module of its own (``groups``: template findings; ``redirects``: links to
update and the fix-list; ``fragments``; ``soft404``; ``sitemap``;
``suggestions``; ``history``: the audit database's trend), and the report
written from the state (``build``)."""
