"""The crawl's components, each with one role (docs/contributing/layout.md): the
scheduler that releases the frontier, the requests of checks, discovery,
the readers of answers, the failure judge, the replay of what was known,
the download gate; ``checks.py`` makes them and hands an answer on."""
