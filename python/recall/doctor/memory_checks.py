"""Doctor's check of the markdown sources: a memory file too big to index is left out of
search, which the user would otherwise never learn (`memory.oversize`)."""

from __future__ import annotations

from recall.doctor.findings import OK, SKIP, WARN, Check, Context


def check_memory_files(ctx: Context) -> Check:
    from recall.memory.oversize import describe, too_big
    from recall.store import open_reader

    if not ctx.db.exists():
        return Check("memory files", SKIP, "no index yet")
    with open_reader(ctx.db) as store:
        found = too_big(store.conn)
    if not found:
        return Check("memory files", OK, "MEMORY.md, daily logs and guidance files fit the index")
    return Check(
        "memory files",
        WARN,
        describe(found),
        fix="trim or split each file (move old sections elsewhere), then run `recall sync`",
        details=[f.path for f in found],
    )
