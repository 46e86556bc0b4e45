"""Defences against submissions that tamper with the grader. What is and is not defended: INTEGRITY.md.

Two layers, both active in stock `nbgrader autograde` and in `jax-course grade`:

- `RefuseTampering`, an nbgrader preprocessor of the sanitize step (wired in
  `nbgrader_config.py`): every cell a student could edit is read (not run) and a cell
  that reaches for the grader's tools (replaces a module's function, touches builtins
  or `sys.modules`, ends or signals processes, runs code from strings, ...) is not run:
  its source becomes an error saying why. Points for other problems stay honest.
- `guard()`, run by the kernel before any notebook cell (nbgrader's `Execute`
  passes it as an IPython exec line): it limits file sizes and records trusted
  references to the timers and comparison functions; every check calls `verify()`
  first and fails if any of them was replaced since.
"""

from __future__ import annotations

import ast
import builtins
import functools
import sys
import time
from typing import Any

from ._errors import CheckFailed

# --- reading student cells --------------------------------------------------------------------

# Calls that end, signal or spawn processes, run code from text, or reach interpreter internals.
_FORBIDDEN_CALLS = {
    "exec", "eval", "compile", "setattr", "delattr", "__import__", "globals", "vars",
    "sys.exit", "exit", "quit", "os._exit", "os.kill", "os.killpg", "os.fork", "os.forkpty", "os.system",
    "os.execv", "os.execl", "os.execve", "os.popen", "os.spawnl", "os.posix_spawn", "os.abort",
    "sys.settrace", "sys.setprofile", "sys._getframe", "signal.signal", "signal.alarm",
    "threading.Thread", "multiprocessing.Process", "gc.get_referrers", "gc.get_objects",
}
_FORBIDDEN_MODULES = {
    "builtins", "ctypes", "gc", "importlib", "subprocess", "signal", "threading", "_thread",
    "multiprocessing", "inspect", "resource", "pty", "shutil", "socket", "pickle", "marshal", "types",
}
# Builtins that reach everything: even naming one (to call it under another name) is refused.
_FORBIDDEN_NAMES = {"exec", "eval", "compile", "setattr", "delattr", "__import__", "globals", "vars", "getattr",
                    "__builtins__", "breakpoint"}
# Names the test cells use: rebinding one swaps a grader tool for the student's own. (Rebinding
# `print` or `len` in the notebook cannot reach the checks, which resolve builtins in their module.)
_PROTECTED_NAMES = {"ag", "autograder", "np", "numpy", "jnp", "jax", "__builtins__", "__import__"}


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


# Modules under their usual names, even where this cell does not import them (another cell may).
_USUAL_MODULES = {name: name for name in ("time", "timeit", "os", "sys", "math", "random", "functools", "operator",
                                          "numpy", "jax", "autograder", "scipy", "builtins")}
_USUAL_MODULES.update(np="numpy", jnp="jax.numpy", ag="autograder", lax="jax.lax")


def imported_names(source: str) -> dict[str, str]:
    """Names that `source` binds to modules (or to things taken from modules)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def tampering(source: str, elsewhere: dict[str, str] | None = None) -> list[str]:
    """What in `source` reaches for the grader's tools, one phrase per finding ([] if nothing).

    `elsewhere`: names other cells of the notebook bind to modules.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # IPython magics or a plain mistake: running it fails on its own
    modules: dict[str, str] = {**_USUAL_MODULES, **(elsewhere or {})}  # name -> module it is bound to
    findings: list[str] = []

    def note(node: ast.AST, text: str) -> None:
        findings.append(f"line {getattr(node, 'lineno', '?')}: {text}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name.split(".")[0]] = alias.name
                if alias.name.split(".")[0] in _FORBIDDEN_MODULES:
                    note(node, f"imports {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            base = (node.module or "").split(".")[0]
            if base in _FORBIDDEN_MODULES:
                note(node, f"imports from {node.module}")
            for alias in node.names:
                # `from numpy import testing`: an attribute of what it names belongs to that module.
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if alias.name == "*" and base in ("os", "sys", "time", "timeit"):
                    note(node, f"imports * from {node.module}")
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    name = _dotted(sub) if isinstance(sub, ast.Attribute) else None
                    root = name.split(".")[0] if name else None
                    if name and (root in modules or root in _PROTECTED_NAMES):
                        note(node, f"replaces {name}, which the grader relies on")
                        break
                    if isinstance(sub, ast.Subscript) and _dotted(sub.value) in ("sys.modules", "__builtins__", "os.environ"):
                        note(node, f"changes {_dotted(sub.value)}")
                        break
                    if isinstance(sub, ast.Name) and sub.id in _PROTECTED_NAMES and isinstance(sub.ctx, (ast.Store, ast.Del)):
                        note(node, f"rebinds the name {sub.id}, which the grader uses")
                        break
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                if name in _PROTECTED_NAMES:
                    note(node, f"rebinds the name {name}, which the grader uses")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in _FORBIDDEN_NAMES:
            note(node, f"uses {node.id}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in _PROTECTED_NAMES:
            note(node, f"defines {node.name}, hiding the grader's own")
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name:
                root, _, rest = name.partition(".")
                resolved = f"{modules.get(root, root)}.{rest}" if rest else modules.get(root, root)
                if resolved in _FORBIDDEN_CALLS or name in _FORBIDDEN_CALLS:
                    note(node, f"calls {name}")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr not in (
            "__init__", "__call__", "__name__", "__doc__", "__class__", "__len__", "__getitem__", "__array__",
        ):
            note(node, f"reaches for {node.attr}")
    return findings


def refusal(findings: list[str]) -> str:
    """The source a refused cell is replaced by: running it says why, in the student's terms."""
    listed = "; ".join(findings[:3]) + ("; ..." if len(findings) > 3 else "")
    message = (
        f"The grader did not run this cell: {listed}. Checks rely on time, numpy, jax, autograder, builtins "
        "and the process staying as they are, so a cell that changes them, ends or signals processes, or runs "
        "code from text is not run, and what it defines is missing. Remove that code and submit again."
    )
    return f"raise RuntimeError({message!r})"


@functools.cache
def _refuse_tampering() -> type:
    from nbgrader.preprocessors import NbGraderPreprocessor

    class RefuseTampering(NbGraderPreprocessor):
        """Sanitize step: student-editable code cells that tamper with grading are not run."""

        def preprocess(self, nb, resources):
            refused, elsewhere = [], {}
            for cell in nb.cells:
                if cell.cell_type == "code":
                    elsewhere.update(imported_names(cell.source))
            for cell in nb.cells:
                if cell.metadata.get("nbgrader") == {}:
                    # A copy of a graded cell, stripped by DeduplicateIds: without this, nbgrader's
                    # CheckCellMetadata raises SchemaTooOldError, which stops a whole stock batch.
                    del cell.metadata["nbgrader"]
                meta = cell.metadata.get("nbgrader", {})
                if cell.cell_type != "code" or meta.get("locked"):
                    continue  # locked cells were restored from the course's source by OverwriteCells
                findings = tampering(cell.source, elsewhere)
                if findings:
                    refused.append(f"{meta.get('grade_id', 'a cell you added')}: {findings[0]}")
                    cell.source = refusal(findings)
            if refused:
                nb.metadata.setdefault("jax_course", {})["refused"] = refused
            return nb, resources

    RefuseTampering.__module__, RefuseTampering.__qualname__ = __name__, "RefuseTampering"
    return RefuseTampering


def __getattr__(name: str) -> Any:
    # `RefuseTampering` (named in nbgrader_config.py) is built on first use: importing nbgrader
    # takes about 3 s, and every grading kernel imports this module for `guard()` without needing it.
    if name == "RefuseTampering":
        return _refuse_tampering()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- at run time, in the kernel ------------------------------------------------------------------

_trusted: dict[str, Any] = {}


def _tools() -> dict[str, Any]:
    import jax
    import numpy as np

    import autograder

    tools = {
        "time.perf_counter": time.perf_counter, "time.perf_counter_ns": time.perf_counter_ns,
        "time.time": time.time, "time.monotonic": time.monotonic,
        "numpy.allclose": np.allclose, "numpy.array_equal": np.array_equal,
        "numpy.testing.assert_allclose": np.testing.assert_allclose, "numpy.asarray": np.asarray,
        "jax.block_until_ready": jax.block_until_ready, "jax.numpy.allclose": jax.numpy.allclose,
        "builtins.AssertionError": builtins.AssertionError, "builtins.print": builtins.print,
        "builtins.__import__": builtins.__import__, "builtins.isinstance": builtins.isinstance,
        "sys.modules[autograder]": sys.modules.get("autograder"), "sys.modules[numpy]": sys.modules.get("numpy"),
        "sys.modules[jax]": sys.modules.get("jax"),
    }
    if "timeit" in sys.modules:
        tools["timeit.default_timer"] = sys.modules["timeit"].default_timer
    for name in autograder.__all__:
        tools[f"autograder.{name}"] = getattr(autograder, name)
    return tools


def guard(max_file_bytes: int = 256 * 2**20) -> None:
    """Before any cell runs: cap file sizes and remember the tools the checks trust."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        limit = max_file_bytes if hard == resource.RLIM_INFINITY else min(max_file_bytes, hard)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    except (ImportError, ValueError, OSError):
        pass
    _trusted.clear()
    _trusted.update(_tools())


def verify() -> None:
    """Fail the current check if a trusted tool was replaced since `guard()` (no-op without it)."""
    if not _trusted:
        return
    now = _tools()
    changed = [name for name, tool in _trusted.items() if now.get(name) is not tool]
    if changed:
        raise CheckFailed(
            f"the grader's tools were changed by code in this notebook ({', '.join(changed[:4])}), "
            "so no check can be trusted. Remove the code that replaces them and run the notebook again.",
        )
