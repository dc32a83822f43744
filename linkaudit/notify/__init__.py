"""Notifications (``--notify TARGET``): after an audit, one message per
target with what changed since the last audit or the baseline, read from
the final JSON report (the contract), so every route sends the same.

- ``targets.py``: a target's text read (its kind, URL, addresses) and
  masked for whatever a person reads; pure, the configuration's reader;
- ``changes.py``: what changed, from the report;
- ``fitting.py``: lines cut to a budget with "and N more";
- ``messages.py``: each kind's message (Slack blocks, a Teams Adaptive
  Card, a Discord embed, the webhook's JSON, an e-mail);
- ``send.py``: sent with the standard library (``urllib``, ``smtplib``),
  tried again a bounded number of times;
- ``notifier.py``: all of it for one report, one warning line a target
  that failed.

The standard library rather than apprise: see docs/guide/notifications.md.
"""
