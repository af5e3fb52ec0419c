"""The full-terminal picker behind `recall pick`: a query line, the results, a preview.

`Picker` holds what is shown and answers each keystroke (a keyword search of
this computer's index, the last word taken as a prefix so results follow the
typing; with nothing typed, the latest sessions), and renders the list and the
preview as plain lines, so it is tested without a terminal. `run` lays it out
with prompt_toolkit (the optional `pick` extra), which is imported only here.
"""

from __future__ import annotations

import re
from typing import Any

from recall.record import Record

LIMIT = 50
"""Results listed: a screenful and some scrolling; search is asked for no more."""
_PREVIEW_CHARS = 1200
"""Characters of each previewed message: enough to recognise it, not a whole paste."""


class Row(Record):
    """One session in the list, as search or the latest-sessions list gives it."""

    session_id: str
    agent: str
    project: str | None
    title: str | None
    date: str | None
    message_index: int | None = None


def as_typed(text: str) -> str:
    """The query for what is typed so far: the last word a prefix (`retr` finds `retry`)
    unless it is quoted, excluded, already a prefix, or followed by a space."""
    if not text.strip() or text.endswith((" ", '"', "*")):
        return text
    last = text.split()[-1]
    if last.startswith("-") or not re.fullmatch(r"\w+", last):
        return text
    return text + "*"


class Picker:
    """What the picker shows: the query, its rows, the selection and its preview."""

    def __init__(self, query: str = "", agents: list[str] | None = None) -> None:
        self.agents = agents or []
        self.query = ""
        self.rows: list[Row] = []
        self.selected = 0
        self.note = ""
        self._mirrors: dict[tuple[str, str], Any] = {}
        self.update(query)

    def update(self, query: str) -> None:
        """Search again for `query` (the latest sessions when it is empty)."""
        from recall.errors import RecallError

        self.query, self.selected, self.note = query, 0, ""
        try:
            self.rows = self._search(query) if query.strip() else self._latest()
        except RecallError as exc:
            self.rows, self.note = [], str(exc)
        if not self.rows and not self.note:
            self.note = f"no session matches {query!r}" if query.strip() else "nothing indexed"

    def _search(self, query: str) -> list[Row]:
        from recall.search.engine import search
        from recall.search.request import SearchRequest

        request = SearchRequest(
            text=as_typed(query), agents=list(self.agents), limit=LIMIT, mode="keyword"
        )
        outcome, _ = search(request)
        return [
            Row(
                session_id=r.session_id,
                agent=r.agent,
                project=r.project,
                title=r.title,
                date=r.date,
                message_index=r.message_index,
            )
            for r in outcome.output.results
            if r.source == "session"
        ]

    def _latest(self) -> list[Row]:
        from recall.store import open_reader
        from recall.store.queries import latest_sessions

        with open_reader() as store:
            briefs = latest_sessions(store.conn, LIMIT)
        return [
            Row(
                session_id=b.session_id,
                agent=b.agent,
                project=b.project,
                title=b.title,
                date=b.ended_at,
            )
            for b in briefs
            if not self.agents or b.agent in self.agents
        ]

    def move(self, by: int) -> None:
        if self.rows:
            self.selected = max(0, min(len(self.rows) - 1, self.selected + by))

    def current(self) -> Row | None:
        return self.rows[self.selected] if self.rows else None

    def list_lines(self, height: int, width: int) -> list[tuple[bool, str]]:
        """The rows that fit `height` lines, two lines each (the title; agent, folder and
        day), the selection kept in view: (selected, text cut to `width`)."""
        from recall.cli.render import day
        from recall.textutil import printable

        if not self.rows:
            return [(False, self.note[:width])]
        fits = max(1, height // 2)
        top = max(0, min(self.selected - fits // 2, len(self.rows) - fits))
        out = []
        for n in range(top, min(len(self.rows), top + fits)):
            r = self.rows[n]
            where = (r.project or "").rstrip("/").rsplit("/", 1)[-1]
            title = printable(" ".join((r.title or "(untitled)").split()))
            about = printable(f"  {r.agent} · {where or '?'} · {day(r.date)[:10]}")
            out += [(n == self.selected, title[:width]), (n == self.selected, about[:width])]
        return out

    def preview(self, width: int = 80) -> str:
        """The selected session from a little before its matched message: title, where
        and when, then its messages (each cut to a readable length), wrapped to `width`."""
        from recall.cli.render import day
        from recall.textutil import printable

        row = self.current()
        if row is None:
            return ""
        mirror = self._mirror(row)
        first = max(0, (row.message_index or 0) - 1)
        lines = [
            mirror.title or "(untitled)",
            f"{mirror.agent} · {mirror.project or '?'} · {day(mirror.started_at)}"
            f" → {day(mirror.ended_at)}",
            f"{len(mirror.messages)} messages · session {mirror.session_id}",
        ]
        for n, m in enumerate(mirror.messages[first : first + 12], first):
            mark = "▶ " if n == row.message_index else ""
            text = m.text if len(m.text) <= _PREVIEW_CHARS else m.text[:_PREVIEW_CHARS] + "…"
            lines.append(f"\n── {mark}#{n} {m.role} · {day(m.timestamp)}\n{text}")
        return "\n".join(_wrapped(printable("\n".join(lines)), width))

    def _mirror(self, row: Row) -> Any:
        key = (row.agent, row.session_id)
        if key not in self._mirrors:
            from recall.store import open_reader
            from recall.store.queries import load_mirror, resolve_session

            with open_reader() as store:
                rowid = resolve_session(store.conn, row.session_id, row.agent)
                self._mirrors[key] = load_mirror(store.conn, rowid)
        return self._mirrors[key]


def _wrapped(text: str, width: int) -> list[str]:
    """`text`'s lines broken between words at `width` (its blank lines kept)."""
    import textwrap

    out: list[str] = []
    for line in text.splitlines():
        out += textwrap.wrap(line, width, break_on_hyphens=False) or [""]
    return out


HELP = " ↑/↓ move · Enter show · Ctrl-R resume in its agent · Esc quit"


def run(picker: Picker) -> tuple[str, Row] | None:
    """The picker on the whole terminal until Enter (("show", row)), Ctrl-R
    (("resume", row)) or Esc/Ctrl-C (None)."""
    from prompt_toolkit.application import Application, get_app
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout import HSplit, Layout, VSplit, Window
    from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
    from prompt_toolkit.layout.dimension import Dimension
    from prompt_toolkit.layout.processors import BeforeInput

    query = Buffer(multiline=False, on_text_changed=lambda b: picker.update(b.text))
    query.text = picker.query
    query.cursor_position = len(picker.query)
    keys = KeyBindings()

    def list_fragments() -> list[tuple[str, str]]:
        size = get_app().output.get_size()
        height, width = max(1, size.rows - 3), max(10, size.columns * 2 // 5 - 1)
        out: list[tuple[str, str]] = []
        for chosen, text in picker.list_lines(height, width):
            out += [("reverse" if chosen else "", text.ljust(width)), ("", "\n")]
        return out

    @keys.add("up")
    @keys.add("c-p")
    def _up(event: Any) -> None:
        picker.move(-1)

    @keys.add("down")
    @keys.add("c-n")
    def _down(event: Any) -> None:
        picker.move(1)

    @keys.add("pageup")
    def _page_up(event: Any) -> None:
        picker.move(-10)

    @keys.add("pagedown")
    def _page_down(event: Any) -> None:
        picker.move(10)

    @keys.add("enter")
    def _show(event: Any) -> None:
        row = picker.current()
        if row is not None:
            event.app.exit(result=("show", row))

    @keys.add("c-r")
    def _resume(event: Any) -> None:
        row = picker.current()
        if row is not None:
            event.app.exit(result=("resume", row))

    @keys.add("escape", eager=True)
    @keys.add("c-c")
    @keys.add("c-d")
    def _quit(event: Any) -> None:
        event.app.exit(result=None)

    layout = Layout(
        HSplit(
            [
                Window(BufferControl(query, input_processors=[BeforeInput("search: ")]), height=1),
                Window(height=1, char="─"),
                VSplit(
                    [
                        Window(FormattedTextControl(list_fragments), width=Dimension(weight=2)),
                        Window(width=1, char="│"),
                        Window(
                            FormattedTextControl(
                                lambda: picker.preview(
                                    max(20, get_app().output.get_size().columns * 3 // 5 - 2)
                                )
                            ),
                            wrap_lines=True,
                            width=Dimension(weight=3),
                        ),
                    ]
                ),
                Window(FormattedTextControl(HELP), height=1, style="reverse"),
            ]
        ),
        focused_element=query,
    )
    app: Application[tuple[str, Row] | None] = Application(
        layout=layout, key_bindings=keys, full_screen=True
    )
    return app.run()
