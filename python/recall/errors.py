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


def is_disk_full(exc: BaseException) -> bool:
    """Whether `exc` is the disk (or the user's quota) running out, from SQLite or the OS."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return type(exc).__module__ == "sqlite3" and "full" in str(exc).lower()
