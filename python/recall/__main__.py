"""`python -m recall` runs the CLI."""

from recall.cli import cli

cli()
