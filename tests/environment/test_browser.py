"""A student's first session, in a real browser: JupyterLab serves an exercise, a right answer and a wrong
one are typed into it, every cell runs, the wrong answer's message shows without scrolling, and nbgrader's
Validate button reports the rest, its first failure's message on its first screen."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    free_port,
    get_json,
    require_browser,
    screenshot,
    stop,
    type_lines,
    wait_until,
    write_lab_settings,
)
from support import ROOT, VENV_BIN, solution_sources

pytestmark = pytest.mark.environment

ASSIGNMENT = "01_arrays"
ARTIFACTS = ROOT / "test-artifacts" / "browser"
PROMPT_DONE = re.compile(r"^\[\d+\]:$")
# A wrong answer a NumPy user might write first: centred, but not divided by the standard deviation.
WRONG = {"standardize": "def standardize(x):\n    return x - x.mean(axis=0)\n"}
WRONG_TEST, WRONG_SAYS = "test_standardize", "CheckFailed: standardize(x) differs"


def _shows_its_top(page, element, within=None) -> bool:
    """Whether `element`'s first line is on screen (inside `within`'s visible box, if given), unscrolled."""
    return page.evaluate(
        """([e, box]) => { const r = e.getBoundingClientRect();
             const b = box ? box.getBoundingClientRect() : {top: 0, bottom: window.innerHeight};
             return r.top >= b.top && r.top + 18 <= b.bottom; }""",
        [element.element_handle(), within.element_handle() if within else None],
    )


def _start_lab(folder: Path, port: int, token: str) -> subprocess.Popen:
    settings = folder / "lab-settings"
    write_lab_settings(settings)
    env = {
        **os.environ,
        "BROWSER": "true",
        # The developer's own Jupyter and IPython configuration stays out of the test.
        "JUPYTER_CONFIG_DIR": str(folder / "jupyter-config"),
        "IPYTHONDIR": str(folder / "ipython"),
    }
    # A log file, not a pipe: nobody reads the server's output while the test runs.
    log = open(folder / "lab.log", "w")
    with log:
        # Its own process group, so that jupyter and its kernels stop together.
        return subprocess.Popen(
            [
                str(VENV_BIN / "jupyter"),
                "lab",
                "--no-browser",
                "--ip=127.0.0.1",
                f"--port={port}",
                f"--ServerApp.root_dir={folder / 'notebooks'}",
                f"--IdentityProvider.token={token}",
                "--allow-root",
                f"--LabApp.user_settings_dir={settings}",
                f"--LabApp.workspaces_dir={folder / 'workspaces'}",
            ],
            cwd=folder / "notebooks",
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )


def test_a_typed_answer_passes_its_tests_in_jupyterlab_and_validate_reports_the_rest(tmp_path):
    require_browser()
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect, sync_playwright

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    notebook = notebooks / f"{ASSIGNMENT}.ipynb"
    shutil.copy(ROOT / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", notebook)
    cells = nbformat.read(notebook, as_version=4).cells
    grade_ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in cells]
    answer = solution_sources(ASSIGNMENT)["softmax"]
    tests = {i: g for i, g in enumerate(grade_ids) if g and g.startswith("test_")}
    # The reference softmax is already the stable one, so Problem 6's test passes with it; every
    # other test calls a function that still raises NotImplementedError.
    passing = {g for i, g in tests.items() if re.search(r"\bsoftmax\(", cells[i].source)}
    assert "test_softmax" in passing and len(passing) < len(tests), passing

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob(f"{ASSIGNMENT}*.png"):  # never mistaken for this run's
        old.unlink()
    port, token = free_port(), secrets.token_hex(16)
    base = f"http://127.0.0.1:{port}"
    lab = _start_lab(tmp_path, port, token)
    try:

        def status():
            if lab.poll() is not None:
                raise AssertionError(
                    f"JupyterLab exited {lab.returncode}:\n{(tmp_path / 'lab.log').read_text()[-3000:]}"
                )
            try:
                return get_json(f"{base}/api/status?token={token}")
            except OSError:
                return None

        wait_until(status, 60, "JupyterLab to answer /api/status")

        def kernel_idle():
            try:
                sessions = get_json(f"{base}/api/sessions?token={token}")
            except OSError:
                return False
            return any(s["path"].endswith(notebook.name) and s["kernel"]["execution_state"] == "idle" for s in sessions)

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch_persistent_context(
                str(tmp_path / "chromium-profile"),
                executable_path=str(CHROMIUM),
                args=CHROMIUM_ARGS,
                headless=True,
                viewport={"width": 1280, "height": 900},
            )
            page = browser.pages[0] if browser.pages else browser.new_page()
            page.set_default_timeout(30_000)
            try:
                page.goto(f"{base}/lab/tree/{notebook.name}?token={token}")
                dom_cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
                expect(dom_cells).to_have_count(len(cells), timeout=60_000)
                indicator = page.locator(".jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator")
                expect(indicator).to_have_attribute("data-status", "idle", timeout=60_000)
                wait_until(kernel_idle, 60, "the notebook's kernel to be idle")

                # Type the answers as a student would: one right, one wrong.
                type_lines(page, dom_cells.nth(grade_ids.index("softmax")), answer)
                page.keyboard.press("Escape")
                type_lines(page, dom_cells.nth(grade_ids.index("standardize")), WRONG["standardize"])
                page.keyboard.press("Escape")

                # Run All (JupyterLab 4.6) sends every cell at once with stop_on_error: the kernel
                # aborts everything queued behind the first error (test_standardize), and those
                # cells stay "[ ]". So, as a student does, run one cell at a time with Shift+Enter
                # and wait for it to finish: nothing is ever queued behind a failing cell.
                # From the top (the badge): clicking the setup cell's prompt would unfold its code,
                # which a student sees folded (its title only).
                setup = dom_cells.nth(grade_ids.index("colab_setup"))
                expect(setup.locator(".jp-InputPlaceholder")).to_be_visible()
                dom_cells.nth(0).locator(".jp-InputPrompt").click()
                for i in range(len(cells)):
                    expect(dom_cells.nth(i)).to_have_class(re.compile(r"\bjp-mod-active\b"))
                    # Shift+Enter on the last cell would add a new one below it.
                    page.keyboard.press("Shift+Enter" if i < len(cells) - 1 else "ControlOrMeta+Enter")
                    # A folded cell's prompt stays blank: the next cell's prompt says the kernel got past it.
                    if cells[i].cell_type == "code" and grade_ids[i] != "colab_setup":
                        expect(dom_cells.nth(i).locator(".jp-InputPrompt")).to_have_text(PROMPT_DONE, timeout=60_000)
                expect(indicator).to_have_attribute("data-status", "idle", timeout=60_000)
                wait_until(kernel_idle, 30, "the kernel to be idle after the last cell")
                expect(dom_cells).to_have_count(len(cells))
                expect(setup.locator(".jp-InputPlaceholder")).to_be_visible()

                # What the student sees under each test cell.
                for i, grade_id in tests.items():
                    shown = dom_cells.nth(i).locator(".jp-OutputArea-output").all_inner_texts()
                    if grade_id in passing:
                        assert not any(re.search(r"Error|Traceback", text) for text in shown), (grade_id, shown)
                    elif grade_id == WRONG_TEST:
                        assert any(WRONG_SAYS in text for text in shown), (grade_id, shown)
                    else:
                        assert any("is not answered yet" in text for text in shown), (grade_id, shown)
                # The wrong answer's message: the first line of its test's output, short, no grader code.
                failed = dom_cells.nth(grade_ids.index(WRONG_TEST)).locator(".jp-OutputArea-output").first
                failed.evaluate("e => e.scrollIntoView({block: 'start'})")
                text = failed.inner_text()
                assert text.startswith(WRONG_SAYS) and "autograder/" not in text and len(text.splitlines()) <= 15, text
                assert _shows_its_top(page, failed), "the wrong answer's message is not on screen"

                # ... and what was saved.
                page.locator('.jp-NotebookPanel-toolbar [data-command="docmanager:save"]').click()

                def saved():
                    try:
                        written = nbformat.read(notebook, as_version=4).cells
                    except (OSError, ValueError):  # caught mid-write
                        return None
                    return written if all(c.get("execution_count") for c in written if c.cell_type == "code") else None

                on_disk = wait_until(saved, 20, "the executed notebook to be saved")
                assert on_disk[grade_ids.index("softmax")].source == answer
                assert on_disk[grade_ids.index("standardize")].source == WRONG["standardize"]
                for i, grade_id in tests.items():
                    errors = [o.ename for o in on_disk[i].outputs if o.output_type == "error"]
                    wanted = (
                        []
                        if grade_id in passing
                        else ["CheckFailed" if grade_id == WRONG_TEST else "NotImplementedError"]
                    )
                    assert errors == wanted, (grade_id, errors)

                # nbgrader's lab extension (from the course's dependencies) adds Validate to the
                # toolbar; it validates the notebook as saved on disk.
                validate = page.locator(".jp-NotebookPanel-toolbar .validate-button")
                try:
                    validate.wait_for(timeout=30_000)
                except PlaywrightTimeout:
                    pytest.fail(
                        "nbgrader's Validate button is not in the notebook toolbar (its lab extension is missing)"
                    )
                validate.click()
                message = page.locator(".jp-Dialog #validation-message")
                expect(message).to_be_visible(timeout=60_000)
                text = message.inner_text()
                page.screenshot(path=str(ARTIFACTS / f"{ASSIGNMENT}-validate.png"))
                expect(message).to_have_class(re.compile(r"\bvalidation-failed\b"))
                assert "failed" in text and text.count("The following cell failed:") == len(tests) - len(passing), text
                assert "NotImplementedError" in text, text
                # Its first screen: the first failing cell (the wrong answer's test) and its message, unscrolled.
                body = page.locator(".jp-Dialog .jp-Dialog-body")
                first_error = message.locator(".jp-RenderedText pre").nth(1)
                assert first_error.inner_text().startswith(WRONG_SAYS), first_error.inner_text()
                assert _shows_its_top(page, first_error, within=body), "Validate's first message needs scrolling"
                page.locator(".jp-Dialog .jp-mod-accept").click()
                expect(page.locator(".jp-Dialog")).to_have_count(0)

                # The self-check, as the exercise's instructions say: `ag.check_my_work()` in a new
                # cell. Far from the repository, it runs the package's tests, hidden ones included.
                dom_cells.nth(len(cells) - 1).locator(".jp-InputPrompt").click()
                page.keyboard.press("Escape")
                page.keyboard.press("b")
                expect(dom_cells).to_have_count(len(cells) + 1)
                check = dom_cells.nth(len(cells))
                check.locator(".cm-content").click()
                page.keyboard.type("import autograder as ag; report = ag.check_my_work()")
                page.keyboard.press("ControlOrMeta+Enter")
                expect(check.locator(".jp-InputPrompt")).to_have_text(PROMPT_DONE, timeout=180_000)
                shown = "\n".join(check.locator(".jp-OutputArea-output").all_inner_texts())
                assert f"Self-check of {notebook.name}: visible and hidden tests" in shown, shown
                for grade_id in tests.values():
                    state = "passed" if grade_id in passing else "FAILED"  # the wrong answer's too
                    # A row of the report's table: its cells are separated by tabs in the page's text.
                    row = rf"^\s*{state}\s.*\({grade_id}\)(; timing not judged: .*)?\s*$"
                    assert re.search(row, shown, re.MULTILINE), (grade_id, shown)
                assert "not answered yet" in shown and "Traceback" not in shown, shown
                assert check.locator(".jp-OutputArea-output table").count() == 1, "the report is shown once, as a table"
                assert "SelfCheck(" not in shown and "<self-check of" not in shown, shown
            finally:
                screenshot(page, ARTIFACTS / f"{ASSIGNMENT}.png")
                browser.close()
    finally:
        stop(lab)
