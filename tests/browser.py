"""What the browser tests share (test_browser.py, test_hub.py): Debian's chromium, free ports, bounded
waits, stopping a server's process group, typing into a notebook cell and screenshots."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
import warnings
from pathlib import Path

import pytest

from autograder._config import chromium

# Debian's chromium: Playwright's own browsers are never downloaded. The variable lets a
# developer point elsewhere, or at a missing file to check the skip.
CHROMIUM = chromium()
# As root, on a closed network: without the background-networking flags chromium keeps
# retrying refused connections.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Lab settings for a deterministic page: every cell attached to the DOM (so outputs can be
# read anywhere in the notebook) and no news toast, whose fetch would need the internet.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


def require(available: bool, reason: str) -> None:
    # CI must really run these tests: there a missing browser is a broken set-up, not a skip.
    if available:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: there the browser tests must run, not be skipped)")
    pytest.skip(reason)


def require_browser() -> None:
    require(
        CHROMIUM.exists(), f"no browser at {CHROMIUM}: Debian's chromium, which `make test` installs when run as root"
    )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        require(False, "the playwright module is missing: pip install -e '.[test]'")


def write_lab_settings(folder: Path) -> None:
    """LAB_SETTINGS as a user's own JupyterLab settings in `folder`."""
    for name, values in LAB_SETTINGS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(values))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


def wait_until(condition, timeout: float, what: str, interval: float = 0.25):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def stop(process: subprocess.Popen) -> None:
    """End a server started in its own process group, and everything in that group."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=20)
    except ProcessLookupError:
        process.wait(timeout=20)


def type_lines(page, cell, text: str) -> None:
    """Replace a cell's source by typing `text`, as a student would.

    CodeMirror indents a new line by itself (after a colon, or like the line above): Shift+Home
    selects whatever it inserted and Delete removes it (at the end of the text, nothing else), so
    each line is typed with exactly its own indentation.
    """
    cell.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    for n, line in enumerate(text.split("\n")):
        if n:
            page.keyboard.press("Enter")
            page.keyboard.press("Shift+Home")
            page.keyboard.press("Delete")
        page.keyboard.type(line)
    typed = cell.locator(".cm-line").evaluate_all("lines => lines.map(l => l.textContent).join('\\n')")
    assert typed == text, f"the editor holds\n{typed}\ninstead of\n{text}"


def screenshot(page, path: Path) -> None:
    """The whole notebook in one image: JupyterLab scrolls inside the page, so grow the window."""
    try:
        extra = page.evaluate(
            """() => {
                const outer = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
                const cells = outer ? outer.querySelectorAll('.jp-Cell') : [];
                if (!cells.length) return 0;
                outer.scrollTop = 0;
                const last = cells[cells.length - 1].getBoundingClientRect();
                const below = last.bottom - outer.getBoundingClientRect().bottom;
                return Math.ceil(Math.max(0, below));
            }"""
        )
        size = page.viewport_size
        page.set_viewport_size({"width": size["width"], "height": min(size["height"] + extra + 40, 12000)})
        # Two animation frames: the re-layout for the new size has been painted.
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    except Exception as error:  # noqa: BLE001  (then the window as it is)
        warnings.warn(f"could not fit the notebook into the screenshot: {error}", stacklevel=1)
    try:
        page.screenshot(path=str(path), full_page=True)
    except Exception as error:  # noqa: BLE001  (a missing screenshot must not hide the real failure)
        warnings.warn(f"could not save the screenshot {path}: {error}", stacklevel=1)
