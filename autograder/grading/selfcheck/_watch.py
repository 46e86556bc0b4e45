"""`jax-course watch NOTEBOOK`: check the notebook again each time it is saved.

The first check prints the whole report; each later one prints a line for every test whose verdict
changed (or says that none did). Every check still runs in a fresh kernel, forked from the nursery
this process keeps (`kernels/`), so a check costs the notebook's own time and little more.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from ._selfreport import ProblemResult, SelfCheck

_SETTLE_SECONDS = 0.3  # a save is done when the file stops changing for this long


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return found.st_mtime_ns, found.st_size


def changes(before: SelfCheck, after: SelfCheck) -> list[str]:
    """One line per test whose points changed: what it scores now, and if it fails, the message's first line."""
    earlier = {r.test: r for r in before.results}
    lines = []
    for now in after.results:
        was = earlier.get(now.test)
        if was is not None and was.points == now.points:
            continue
        lines.append(_line(now))
    return lines


def _line(result: ProblemResult) -> str:
    score = f"{result.points:g}/{result.max_points:g}"
    if result.passed:
        return f"  passed  {result.problem} ({result.test}): {score}"
    first = (result.message.strip() or "the test did not run").splitlines()[0]
    return f"  FAILED  {result.problem} ({result.test}): {score}: {first}"


def _say(text: str) -> None:
    print(text, flush=True)  # at once, also into a pipe or a log


def watch(
    notebook: Path,
    check: Callable[[Path], SelfCheck],
    say: Callable[[str], None] = _say,
    poll_seconds: float = 0.25,
    checks: int | None = None,
) -> int:
    """Check `notebook` now and after every save, until Ctrl-C (or `checks` checks, for tests)."""
    say(f"Watching {notebook.name}: checked again each time you save it. Ctrl-C stops.")
    stamp = _stamp(notebook)  # taken before checking, so a save made while the check runs is checked too
    last = check(notebook)
    say(last.report())
    done = 1
    while checks is None or done < checks:
        time.sleep(poll_seconds)
        now = _stamp(notebook)
        if now == stamp or now is None:
            continue
        time.sleep(_SETTLE_SECONDS)
        if _stamp(notebook) != now:
            continue  # still being written
        stamp = now
        try:
            result = check(notebook)
        except (ValueError, RuntimeError) as error:
            say(f"Saved, but could not be checked: {error}")
            continue
        done += 1
        got, total = result.score
        lines = changes(last, result) or ["  no test changed"]
        say("\n".join([f"Saved at {time.strftime('%H:%M:%S')}: {got:g}/{total:g}", *lines]))
        last = result
    return 0
