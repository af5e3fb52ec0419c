"""Every error recall raises on purpose; the CLI prints each as one line."""


class RecallError(Exception):
    """Base: a problem the user can act on. `exit_code` is the CLI's exit status."""

    exit_code = 1


class UsageError(RecallError):
    """The command line or its input is wrong."""

    exit_code = 2


class ConfigError(RecallError):
    """The configuration or environment is wrong."""

    exit_code = 2


class NotFoundError(RecallError):
    """A session, file or result the user asked for does not exist."""

    exit_code = 1


class StoreError(RecallError):
    """The database cannot be opened or written."""

    exit_code = 1
