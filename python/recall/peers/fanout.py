"""`recall search … --computer A B`: ask every named computer at once, merge, say who failed.

Each peer is asked on its own thread with its own deadline (its `timeout`);
a peer that is down, slow or refuses becomes one entry in `errors` and the
others still answer. The threads are daemons, so a peer that never answers
costs at most its timeout, even at exit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from recall import config
from recall.peers.client import PeerError
from recall.peers.merge import merge
from recall.peers.protocol import SEARCH, search_params
from recall.peers.registry import resolve, target
from recall.peers.wire import outcome_of
from recall.search.request import TEAM, SearchRequest, is_team
from recall.search.results import SearchOutput

if TYPE_CHECKING:
    from recall.search.modes import Outcome

Answer = tuple["Outcome", bool]
LocalSearch = Callable[[SearchRequest], Answer]


def _ask_peer(peer: config.PeerConfig, request: SearchRequest) -> Answer:
    answer = outcome_of(target(peer).get_json(SEARCH, [*search_params(request), ("marks", "1")]))
    for r in answer[0].output.results:
        r.computer = peer.name  # the name `--computer` and `show --computer` take
    return answer


def _ask_team(request: SearchRequest, names: list[str], skip_own: bool) -> Answer:
    """The team's index asked `request` (docs/team.md); `skip_own`: this computer is asked
    too, so the rows this person pushed from it are left to its own, fresher answer."""
    from recall.errors import RecallError
    from recall.team.ask import ask

    try:
        return ask(request, names, config.computer_name() if skip_own else None)
    except RecallError as exc:
        raise PeerError(str(exc).removeprefix("team index: ")) from None


def search_computers(request: SearchRequest, local: LocalSearch) -> Answer:
    """Every computer `request.computers` names, its results tagged and merged into one
    ranking (each computer's own order kept), plus failures. `local` is this computer's
    search (`search.engine.search`), asked through its warm daemon when one runs; the
    team's index (`team`, `team:…`) is one more source, asked and merged the same way."""
    from recall.search.modes import Outcome

    team = [n for n in request.computers if is_team(n)]
    computers = [n for n in request.computers if not is_team(n)]
    if team and not computers:  # the team alone: its failure is the command's
        from recall.team.ask import ask

        return ask(request, team, None)
    here, chosen = resolve(computers)
    jobs: list[tuple[str, float, Callable[[], Answer]]] = []
    if here:
        from recall.peers.warm import ask_daemon

        jobs.append(
            (config.computer_name(), float("inf"), lambda: ask_daemon(request) or local(request))
        )
    for peer in chosen:
        jobs.append((peer.name, peer.timeout, lambda p=peer: _ask_peer(p, request)))  # type: ignore[misc]
    if team:
        deadline = config.load_config().team.timeout * 3  # connect, settings, the search
        jobs.append((TEAM, deadline, lambda: _ask_team(request, team, here)))
    answers: dict[str, Any] = {}

    def run(name: str, job: Callable[[], Answer]) -> None:
        try:
            answers[name] = job()
        except Exception as exc:
            answers[name] = exc

    started = time.monotonic()
    threads = []
    for name, _, job in jobs:
        t = threading.Thread(target=run, args=(name, job), name=f"recall-ask-{name}", daemon=True)
        t.start()
        threads.append(t)
    lists, errors, notes, modes, indexed, corrected = [], [], [], set(), False, None
    for (name, timeout, _), t in zip(jobs, threads, strict=True):
        t.join(None if timeout == float("inf") else max(0.0, started + timeout - time.monotonic()))
        got = answers.get(name)
        if t.is_alive() or got is None:
            errors.append({"computer": name, "error": f"no answer within {timeout:g}s"})
        elif isinstance(got, PeerError):
            errors.append({"computer": name, "error": str(got)})
        elif isinstance(got, BaseException):
            if jobs[0][0] != name or not here:
                errors.append({"computer": name, "error": f"{type(got).__name__}: {got}"})
            else:
                raise got  # this computer's own error is the command's error
        else:
            outcome, has = got
            lists.append(outcome.output.results)
            modes.add(outcome.mode)
            indexed = indexed or has
            corrected = corrected or outcome.output.corrected
            if outcome.note:
                notes.append(outcome.note if len(jobs) == 1 else f"{name}: {outcome.note}")
    results = merge(request.text, lists, request.limit)
    output = SearchOutput(request.text, len(results), results, errors=errors, corrected=corrected)
    mode = modes.pop() if len(modes) == 1 else "mixed"
    return Outcome(output, mode, "; ".join(notes) or None), indexed
