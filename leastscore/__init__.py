"""Least Score: the command line and the version; every part lives in its own package."""

__version__ = "0.1.0"
