"""`nbgrader autograde`'s own options, as `jax-course grade` takes them.

Each option `nbgrader autograde --help-all` lists is read by nbgrader's own parser (its aliases such as
`--course-dir`, its flags such as `--quiet`), and either goes to nbgrader as it is or, where a batch cannot
do what it does, is refused by name.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from nbgrader.coursedir import CourseDirectory

# Options that make `nbgrader autograde` print something and grade nothing: not a batch's job.
_PRINT_ONLY = ("show_config", "show_config_json", "generate_config")


class OptionError(Exception):
    """An nbgrader option this command does not do: the message names it and says what to run instead."""


@dataclass
class Options:
    """What the command itself needs of nbgrader's options; the options still all go to nbgrader."""

    root: Path | None  # --course-dir or --CourseDirectory.root
    assignment: str  # --assignment (the positional argument is given separately)
    quiet: bool  # --quiet or a log level above errors: no table either
    extra: list[str]  # positional arguments beyond the assignment id
    passed: list[str]  # for nbgrader: all but the course folder, which goes as an absolute path


_ROOT = ("--course-dir", "--CourseDirectory.root")


def _without_root(options: list[str]) -> list[str]:
    kept, skip = [], False
    for option in options:
        if skip:
            skip = False
        elif option in _ROOT:
            skip = True  # its value is the next argument
        elif not option.startswith(tuple(f"{name}=" for name in _ROOT)):
            kept.append(option)
    return kept


def read(options: list[str]) -> Options:
    """nbgrader's reading of the command line `options` (not its config files, read once grading starts)."""
    from nbgrader.apps.autogradeapp import AutogradeApp

    app = AutogradeApp()
    app.parse_command_line(options)  # exits as nbgrader does on --help-all or a malformed option
    for section, values in app.config.items():
        for name in _PRINT_ONLY:
            if name in values:
                raise OptionError(
                    f"--{section}.{name}: `jax-course grade` grades; to see nbgrader's configuration run "
                    f"`nbgrader autograde --{section}.{name}=True`"
                )
    course = app.config.CourseDirectory
    root = course.get("root")
    return Options(
        root=Path(root).expanduser().resolve() if root else None,
        assignment=str(course.get("assignment_id") or ""),
        quiet=int(app.log_level) > logging.ERROR,
        extra=list(app.extra_args),
        passed=_without_root(options),
    )


def configured_root() -> Path | None:
    """The course folder nbgrader's config files name (`CourseDirectory.root` in ~/.jupyter or /etc/jupyter, as
    on a hub), when it is not the current folder."""
    from nbgrader.apps.autogradeapp import AutogradeApp

    app = AutogradeApp()
    app.initialize(["--log-level=CRITICAL"])
    root = Path(cast(CourseDirectory, app.coursedir).root).resolve()
    return None if root == Path.cwd().resolve() else root
