from setuptools import setup

# Only for scrapyd-deploy, which runs "setup.py bdist_egg"; the metadata is
# in pyproject.toml.
setup()
