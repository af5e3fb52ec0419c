"""The team commands as the CLI, the daemon's worker and `recall forget` run them: each
opens what it needs (the local index, the encoder, one connection) and closes it."""

from __future__ import annotations

from collections.abc import Callable

from recall.config import computer_name, embedding_provider
from recall.team import connect, schema
from recall.team.push import PushReport
from recall.team.status import TeamStatus


def local_model() -> str | None:
    """The model id this computer's vectors carry, found without loading the model; None
    when embedding is off or no model is installed (then only text is pushed)."""
    if embedding_provider() == "none":
        return None
    from recall.semantic import ModelError
    from recall.semantic.provider import current_model_id

    try:
        return current_model_id()
    except ModelError:
        return None


def model_plan(model: str | None, dims: int | None) -> schema.Plan:
    """What `init` fixes: the model given, else this computer's, and its dimension."""
    from recall.errors import UsageError

    model = model or local_model()
    if model is None:
        raise UsageError(
            "no embedding model here to fix the team's vectors by: give --model ID --dims N"
        )
    if dims is None:
        from recall.config import load_config
        from recall.semantic.manifest import load_manifest

        manifest = load_manifest(load_config().model)
        if not model.startswith(manifest.id) and not model.startswith(manifest.name):
            raise UsageError(f"the dimension of {model!r} is unknown here: give --dims N")
        dims = manifest.dims
    if not 1 <= dims <= 16000:
        raise UsageError("--dims must be between 1 and 16000")
    return schema.Plan(model, dims)


def init(model: str | None = None, dims: int | None = None) -> tuple[list[str], schema.Plan]:
    plan = model_plan(model, dims)
    with connect.connect() as conn:
        return schema.init(conn, plan), plan


def push(progress: Callable[[int], None] | None = None) -> PushReport:
    """Push this computer's allowed sessions now."""
    from recall.store import open_reader
    from recall.team.push import push as run

    team = connect.settings()
    with connect.connect(team) as conn, open_reader() as store:
        return run(conn, store.conn, team, computer_name(), local_model(), progress)


def forget(keys: list[tuple[str, str]]) -> int:
    """Delete these (agent, session id) from the team now; the number of sessions deleted."""
    from recall.team.push import forget as run

    with connect.connect() as conn:
        return run(conn, computer_name(), keys)


def status() -> TeamStatus:
    from recall.team.status import status as run

    with connect.connect() as conn:
        return run(conn, computer_name())
