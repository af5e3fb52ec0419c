"""Twin of `rust/src/tree.rs`: the active branch of a transcript written as a tree.

Pi, OpenClaw and Qwen Code append entries that name their parent; a user who
goes back and continues from an earlier entry starts a new branch in the same
file, and the conversation is the path from the last entry back to the root.
A parse sees only the bytes after the previous one, so it walks back from its
last entry through its own entries: when the walk ends at the entry the
previous parse ended on (or at one after it that could not end a branch), the
new path extends the stored one and only its new messages are emitted.
Otherwise the branch moved to older entries this parse cannot see, and
`Branch.finish` says so: the adapter reads the file again from the start and
replaces the session's messages.
"""

from __future__ import annotations

from typing import Any

from recall.types import Message

TAIL_CAP = 32
"""At most this many pass-through entries are remembered after the leaf."""

ROOT = None
"""`parent` of a root entry (`parentId: null`, or not a string)."""
PREVIOUS = ...
"""`parent` of an entry with no parent field (a linear layout): the entry before it."""


def _stored_tail(st: dict[str, Any]) -> list[str]:
    """The state's `"tail"`: the leaf, then the pass-through entries after it."""
    items = st.get("tail")
    return [v for v in items if isinstance(v, str)] if isinstance(items, list) else []


class Branch:
    """One parse's entries, in file order."""

    def __init__(self) -> None:
        self.nodes: list[tuple[str, str | None, Message | None, bool]] = []
        self.index: dict[str, int] = {}

    def add(
        self, st: dict[str, Any], id: str, parent: Any, message: Message | None, leaf: bool
    ) -> None:
        """Add an entry; `parent` is an id, `ROOT` or `PREVIOUS`; `leaf` is False for a
        sub-agent's pass-through entry, where the branch cannot end."""
        if parent is PREVIOUS:
            if self.nodes:
                parent = self.nodes[-1][0]
            else:
                tail = _stored_tail(st)
                parent = tail[-1] if tail else None
        self.index[id] = len(self.nodes)
        self.nodes.append((id, parent, message, leaf))

    def finish(self, st: dict[str, Any]) -> tuple[list[Message], bool]:
        """The messages on the active branch this parse adds, and whether the branch
        moved to entries before this parse (the file must be read again whole).
        Updates `st["tail"]`."""
        prior = _stored_tail(st)
        leaves = [i for i, n in enumerate(self.nodes) if n[3]]
        if not leaves:
            tail = prior
            for node in self.nodes:
                if len(tail) < TAIL_CAP:
                    tail.append(node[0])
            if tail:
                st["tail"] = tail
            return [], False
        last = leaves[-1]
        chain = [last]
        while True:
            parent = self.nodes[chain[-1]][1]
            if parent is None:
                top = None
                break
            j = self.index.get(parent)
            if j is None or len(chain) >= len(self.nodes):
                top = parent
                break
            chain.append(j)
        joined = True if not prior else (top in prior if top is not None else False)
        tail = [self.nodes[last][0]]
        for node in self.nodes[last + 1 :]:
            if len(tail) < TAIL_CAP:
                tail.append(node[0])
        st["tail"] = tail
        messages: list[Message] = []
        taken: set[int] = set()  # a loop of parents visits an entry twice; it counts once
        for i in reversed(chain):
            message = self.nodes[i][2]
            if message is not None and i not in taken:
                taken.add(i)
                messages.append(message)
        return messages, not joined
