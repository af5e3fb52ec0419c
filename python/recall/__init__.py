"""recall: local-first memory for people who work with AI coding agents."""

__version__ = "0.1.0"
