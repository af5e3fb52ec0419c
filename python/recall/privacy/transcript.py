"""A transcript file as it may leave recall: redacted line by line, as its mirror was.

`recall show --raw` prints it and `recall serve` sends it; both read it here,
beside the redaction it goes through, so no surface can send it raw. The
caller says where the file is now (`recall.sync.find_transcript`: a stored
path redaction changed is found again by discovery), which this layer does
not know.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from recall.errors import NotFoundError

if TYPE_CHECKING:
    from recall.store.queries import Mirror


def raw_transcript(mirror: Mirror, locate: Callable[[str], Path | None]) -> Iterator[bytes]:
    """The mirror's transcript file, redacted line by line as the mirror is. NotFoundError,
    before any byte, when the session was imported or its file is gone."""
    if not mirror.transcript_path:
        raise NotFoundError(f"session {mirror.session_id} was imported; it has no transcript")
    from recall.agents.base import store_source
    from recall.privacy.redaction import current
    from recall.safeio import NotARegularFile, open_regular

    source = store_source(mirror.transcript_path)
    if source is not None:  # never the agent's database itself: it holds more than chats
        raise NotFoundError(
            f"session {mirror.session_id} is kept in {mirror.agent}'s database ({source}), "
            f"not in a transcript file; its mirror: recall show {mirror.session_id}"
        )
    path = locate(mirror.transcript_path) or mirror.transcript_path
    redactor = current()  # the transcript leaves recall as clean as the mirror
    try:
        fh = open_regular(path)
    except NotARegularFile as exc:
        raise NotFoundError(f"the transcript of {mirror.session_id} is gone: {exc}") from None
    except FileNotFoundError:
        raise NotFoundError(
            f"the transcript of {mirror.session_id} is gone ({path}); "
            f"its mirror is kept: recall show {mirror.session_id}"
        ) from None
    return _redacted_lines(fh, redactor)


def _redacted_lines(fh: BinaryIO, redactor: Any) -> Iterator[bytes]:
    from recall.safeio import lines

    with fh:
        for line in lines(fh):
            if isinstance(line, int):
                yield b"[a line of %d bytes, over 64 MB: not shown]\n" % line
                continue
            yield redactor.redact_line(line) if redactor.enabled else line
