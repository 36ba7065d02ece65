"""The package version, in one place below every room that reports it."""

__version__ = "0.1.0"
