# scrapyd-deploy builds eggs with legacy `setup.py bdist_egg`; everything is in pyproject.toml.
from setuptools import setup

setup()
