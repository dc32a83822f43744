"""Helpers shared by the test modules, one module per thing they help with
(no test module imports another: tests/test_layout.py holds to it):

- :mod:`tests.helpers.command`: running the installed ``linkaudit``, and its
  refusals;
- :mod:`tests.helpers.served`: what the tests' servers serve (sitemaps,
  huge pages, certificates) and a local build served, requested by hand;
- :mod:`tests.helpers.reports`: feed items held to their schema, report
  facts built by hand;
- :mod:`tests.helpers.results`: stored results drawn by Hypothesis;
- :mod:`tests.helpers.cost`: linear cost, measured in CPU time;
- :mod:`tests.helpers.landmarks`: the page's blocks found the plain way,
  and random pages to compare with;
- :mod:`tests.helpers.standards`: the standards' own test data;
- :mod:`tests.helpers.html_report`: the HTML report opened in Chromium.

Fixtures for every module are in conftest.py, the test servers in server.py
and rawserver.py, generated sites in sitegen.py."""
