"""Reading a student's cells for code that reaches for the grader's tools (without running it).

Used by the `RefuseTampering` preprocessor (`_preprocessors.py`): a cell that replaces a module's
function, touches builtins or `sys.modules`, ends or signals processes, or runs code from
strings is not run. What is and is not defended: autograder/INTEGRITY.md.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

# Calls that end, signal or spawn processes, run code from text, or reach interpreter internals.
_FORBIDDEN_CALLS = {
    "exec",
    "eval",
    "compile",
    "setattr",
    "delattr",
    "__import__",
    "globals",
    "vars",
    "sys.exit",
    "exit",
    "quit",
    "os._exit",
    "os.kill",
    "os.killpg",
    "os.fork",
    "os.forkpty",
    "os.system",
    "os.execv",
    "os.execl",
    "os.execve",
    "os.popen",
    "os.spawnl",
    "os.posix_spawn",
    "os.abort",
    "sys.settrace",
    "sys.setprofile",
    "sys._getframe",
    "signal.signal",
    "signal.alarm",
    "threading.Thread",
    "multiprocessing.Process",
    "gc.get_referrers",
    "gc.get_objects",
}
_FORBIDDEN_MODULES = {
    "builtins",
    "ctypes",
    "gc",
    "importlib",
    "subprocess",
    "signal",
    "threading",
    "_thread",
    "multiprocessing",
    "inspect",
    "resource",
    "pty",
    "shutil",
    "socket",
    "pickle",
    "marshal",
    "types",
}
# Builtins that reach everything: even naming one (to call it under another name) is refused.
_FORBIDDEN_NAMES = {
    "exec",
    "eval",
    "compile",
    "setattr",
    "delattr",
    "__import__",
    "globals",
    "vars",
    "getattr",
    "__builtins__",
    "breakpoint",
}
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
_USUAL_MODULES = {
    name: name
    for name in (
        "time",
        "timeit",
        "os",
        "sys",
        "math",
        "random",
        "functools",
        "operator",
        "numpy",
        "jax",
        "autograder",
        "scipy",
        "builtins",
    )
}
_USUAL_MODULES.update(np="numpy", jnp="jax.numpy", ag="autograder", lax="jax.lax")


def imported_names(source: str) -> dict[str, str]:
    """Names that `source` binds to modules (or to things taken from modules)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    names: dict[str, str] = {}
    _bind_imports(tree, names)
    return names


# What leads to another function's frame, and through it to a check's own variables (its counters, its timings).
_FRAME_ATTRIBUTES = {
    "f_back",
    "f_locals",
    "f_globals",
    "f_builtins",
    "f_trace",
    "tb_frame",
    "tb_next",
    "gi_frame",
    "cr_frame",
    "ag_frame",
}

_HARMLESS_DUNDERS = ("__init__", "__call__", "__name__", "__doc__", "__class__", "__len__", "__getitem__", "__array__")


def _bind_imports(tree: ast.AST, modules: dict[str, str]) -> list[tuple[ast.AST, str]]:
    """Record in `modules` what each import binds; return the forbidden imports found."""
    found: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name.split(".")[0]] = alias.name
                if alias.name.split(".")[0] in _FORBIDDEN_MODULES:
                    found.append((node, f"imports {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            base = (node.module or "").split(".")[0]
            if base in _FORBIDDEN_MODULES:
                found.append((node, f"imports from {node.module}"))
            for alias in node.names:
                # `from numpy import testing`: an attribute of what it names belongs to that module.
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if alias.name == "*" and base in ("os", "sys", "time", "timeit"):
                    found.append((node, f"imports * from {node.module}"))
    return found


def _assigned(target: ast.AST, modules: dict[str, str]) -> str | None:
    """What an assignment to `target` would replace that the grader relies on, if anything."""
    for sub in ast.walk(target):
        name = _dotted(sub) if isinstance(sub, ast.Attribute) else None
        if name and (name.split(".")[0] in modules or name.split(".")[0] in _PROTECTED_NAMES):
            return f"replaces {name}, which the grader relies on"
        if isinstance(sub, ast.Subscript) and _dotted(sub.value) in ("sys.modules", "__builtins__", "os.environ"):
            return f"changes {_dotted(sub.value)}"
        if isinstance(sub, ast.Name) and sub.id in _PROTECTED_NAMES and isinstance(sub.ctx, (ast.Store, ast.Del)):
            return f"rebinds the name {sub.id}, which the grader uses"
    return None


def _findings(node: ast.AST, modules: dict[str, str]) -> list[str]:
    """What this one node does that reaches for the grader's tools."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        return [found for target in targets if (found := _assigned(target, modules))]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return [f"rebinds the name {name}, which the grader uses" for name in node.names if name in _PROTECTED_NAMES]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in _FORBIDDEN_NAMES:
        return [f"uses {node.id}"]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in _PROTECTED_NAMES:
        return [f"defines {node.name}, hiding the grader's own"]
    if isinstance(node, ast.Call) and (name := _dotted(node.func)):
        root, _, rest = name.partition(".")
        resolved = f"{modules.get(root, root)}.{rest}" if rest else modules.get(root, root)
        return [f"calls {name}"] if resolved in _FORBIDDEN_CALLS or name in _FORBIDDEN_CALLS else []
    if isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr not in _HARMLESS_DUNDERS:
        return [f"reaches for {node.attr}"]
    if isinstance(node, ast.Attribute) and node.attr in _FRAME_ATTRIBUTES:
        return [f"reaches for {node.attr}, another function's frame"]
    return []


def tampering(source: str, elsewhere: dict[str, str] | None = None) -> list[str]:
    """What in `source` reaches for the grader's tools, one phrase per finding ([] if nothing).

    `elsewhere`: names other cells of the notebook bind to modules.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # IPython magics or a plain mistake: running it fails on its own
    modules: dict[str, str] = {**_USUAL_MODULES, **(elsewhere or {})}  # name -> module it is bound to
    found = _bind_imports(tree, modules)
    found += [(node, text) for node in ast.walk(tree) for text in _findings(node, modules)]
    return [f"line {getattr(node, 'lineno', '?')}: {text}" for node, text in found]


def refusal(findings: list[str]) -> str:
    """The source a refused cell is replaced by: running it says why, in the student's terms."""
    listed = "; ".join(findings[:3]) + ("; ..." if len(findings) > 3 else "")
    message = (
        f"The grader did not run this cell: {listed}. Checks rely on time, numpy, jax, autograder, builtins "
        "and the process staying as they are, so a cell that changes them, ends or signals processes, or runs "
        "code from text is not run, and what it defines is missing. Remove that code and submit again."
    )
    return f"raise RuntimeError({message!r})"


def shadowing(folder: Path) -> list[str]:
    """Files handed in beside the notebook named like a module the kernel could import instead.

    The grading kernel never imports them (the guard puts the submission's folder last on
    `sys.path`, and Python reads `.pth` files only from site directories): they are named in
    the report so that the instructor knows why a student's file had no effect.
    """
    found = []
    for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
        name = entry.stem if entry.suffix == ".py" else entry.name if entry.is_dir() else ""
        if entry.suffix == ".pth" or name in ("sitecustomize", "usercustomize"):
            found.append(entry.name)
        elif name.isidentifier() and (name in sys.stdlib_module_names or importlib.util.find_spec(name) is not None):
            found.append(entry.name)
    return found
