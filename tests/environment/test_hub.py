"""The instructor's loop on a real JupyterHub, on loopback (issue 20, loop 1): the instructor releases;
two students log in, fetch in the Assignments tab, answer and submit; the instructor collects, grades
with `jax-course grade` and returns feedback; the students fetch it and read it.

The hub runs hub/jupyterhub_config.py, the file an instructor copies, with its user names, and its
proxy from hub/package-lock.json (`make hub`). This test adds only loopback addresses, a temporary
exchange, and JupyterHub's two stand-ins for a machine's logins and users: DummyAuthenticator (any
password) and SimpleLocalProcessSpawner (every server runs as this test's system user, each in its own
home folder, which is why the shipped config names each student to nbgrader itself). The students
work only through the browser; the instructor types commands, as in a terminal on the hub, with the
environment the hub gave their server.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import nbformat
import psutil
import pytest

from browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    free_port,
    get_json,
    require,
    require_browser,
    screenshot,
    stop,
    type_lines,
    wait_until,
    write_lab_settings,
)
from support import ROOT, VENV_BIN, read_scores, solution_sources, test_points

pytestmark = pytest.mark.environment

ASSIGNMENT = "03_tracing"
HUB = ROOT / "hub"
PROXY = HUB / "node_modules" / ".bin" / "configurable-http-proxy"
ARTIFACTS = ROOT / "test-artifacts" / "hub"
INSTRUCTOR = "instructor"
# Problem 1 (`affine`, 1 point, and 2 for its jaxpr in problem 2): alice's answer is the reference;
# bob's adds b[0], which the visible test cannot tell (its b is constant) but the hidden one can.
ANSWERS = {"alice": solution_sources(ASSIGNMENT)["affine"], "bob": "def affine(W, x, b):\n    return W @ x + b[0]"}
SCORES = {"alice": {"test_affine": 1.0, "test_affine_jaxpr": 2.0}, "bob": {}}
HIDDEN_MESSAGE = "CheckFailed: affine on a hidden input differs from the expected values"


def _hub_config(tmp: Path, ports: dict[str, int]) -> Path:
    """hub/jupyterhub_config.py, then what this test changes: addresses, stand-ins, the exchange."""
    overrides = tmp / "exchange-config"
    overrides.mkdir()
    (overrides / "nbgrader_config.py").write_text(f"c = get_config()\nc.Exchange.root = {str(tmp / 'exchange')!r}\n")
    lines = [
        f"load_subconfig({str(HUB / 'jupyterhub_config.py')!r})",
        "import os",
        'c.JupyterHub.authenticator_class = "dummy"',
        'c.JupyterHub.spawner_class = "simple"',
        f"c.SimpleLocalProcessSpawner.home_dir_template = {str(tmp / 'home')!r} + '/{{username}}'",
        f"c.JupyterHub.bind_url = 'http://127.0.0.1:{ports['public']}'",
        f"c.JupyterHub.hub_bind_url = 'http://127.0.0.1:{ports['hub']}'",
        f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{ports['proxy_api']}'",
        # Root (a container, this kind of machine) must say so to Jupyter explicitly.
        f"c.Spawner.args = {['--allow-root'] if os.getuid() == 0 else []!r}",
        # The temporary exchange: a folder read before the shipped nbgrader_config.py.
        "_shipped = c.Spawner.environment['JUPYTER_CONFIG_PATH']",
        f"c.Spawner.environment['JUPYTER_CONFIG_PATH'] = lambda s: {str(overrides)!r} + os.pathsep + _shipped(s)",
    ]
    config = tmp / "jupyterhub_config.py"
    config.write_text("\n".join(lines) + "\n")
    return config


def _start_hub(tmp: Path) -> tuple[subprocess.Popen, str]:
    """The hub, its proxy and every server it spawns, in one folder; the URL students open."""
    ports = {name: free_port() for name in ("public", "hub", "proxy_api")}
    config = _hub_config(tmp, ports)
    for user in (INSTRUCTOR, *ANSWERS):
        write_lab_settings(tmp / "home" / user / ".jupyter" / "lab" / "user-settings")
    state = tmp / "hub-state"  # its database and cookie secret
    state.mkdir()
    with open(tmp / "hub.log", "w") as log:
        hub = subprocess.Popen(
            [str(VENV_BIN / "jupyterhub"), "-f", str(config)],
            cwd=state,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{ports['public']}"

    def answers():
        if hub.poll() is not None:
            raise AssertionError(f"JupyterHub exited {hub.returncode}:\n{(tmp / 'hub.log').read_text()[-3000:]}")
        try:
            return get_json(f"{base}/hub/api/")
        except OSError:
            return None

    try:
        version = wait_until(answers, 60, "JupyterHub to answer through its proxy at /hub/api/")
        assert version["version"] == "6.1.1", version
    except BaseException:
        _stop_hub(hub, tmp)
        raise
    return hub, base


def _stop_hub(hub: subprocess.Popen, tmp: Path) -> None:
    """End the hub, which ends its proxy and the users' servers (each in its own session), then check."""
    spawned = psutil.Process(hub.pid).children(recursive=True) if hub.poll() is None else []
    stop(hub)
    _, alive = psutil.wait_procs(spawned, timeout=20)
    for process in alive:
        process.kill()
    left = [p.info for p in psutil.process_iter(["pid", "name", "cwd"]) if str(tmp) in (p.info["cwd"] or "")]
    assert not left and not alive, f"the hub left processes behind: {left or alive}"


def _login(browser, base: str, user: str):
    """A new browser session in which `user` logs in and JupyterLab opens (the hub starts their server)."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{base}/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", "any password: the test's stand-in authenticator")
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{user}/lab**", timeout=90_000)
    page.locator(".jp-LabShell").wait_for(timeout=60_000)
    return page


def _nbgrader_menu(page) -> list[str]:
    """The labels of the Nbgrader menu (a turned-off extension leaves an empty entry), then closes it."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    labels = [label.strip() for label in page.locator(".lm-Menu-itemLabel").all_inner_texts()]
    page.keyboard.press("Escape")
    return [label for label in labels if label]


def _assignments(page):
    """The Assignments tab (Nbgrader > Assignment List), opened or brought to the front."""
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="Assignments")
    if tab.count():
        tab.click()
    else:
        page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
        page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    panel = page.locator("#assignments")
    panel.wait_for()
    return panel


def _server_environment(hub: subprocess.Popen, user: str) -> dict[str, str]:
    """The environment of `user`'s server, which a terminal they open in JupyterLab inherits."""
    for process in psutil.Process(hub.pid).children(recursive=True):
        try:
            environment = process.environ()
        except psutil.Error:
            continue
        if environment.get("JUPYTERHUB_USER") == user and "jupyterhub-singleuser" in " ".join(process.cmdline()):
            return environment
    raise AssertionError(f"no server of {user} among the hub's processes")


def _instructor(environment: dict[str, str], course: Path, *command: str) -> str:
    """Run a command in the instructor's course folder, as typed in their terminal on the hub."""
    done = subprocess.run(command, cwd=course, env=environment, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{output[-4000:]}"
    return output


def _fetch_answer_submit(page, home: Path, answer: str) -> None:
    """In the Assignments tab: fetch, open the notebook, type the answer to problem 1, save, submit."""
    from playwright.sync_api import expect

    panel = _assignments(page)
    panel.locator("#released_assignments_list .list_item", has_text=ASSIGNMENT).get_by_role(
        "button", name="Fetch"
    ).click()
    fetched = panel.locator("#fetched_assignments_list > .list_item", has_text=ASSIGNMENT)
    fetched.locator("a.assignment-notebooks-link").click()
    fetched.locator(".nested_list_item a", has_text=ASSIGNMENT).click()

    notebook = home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    grade_ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nbformat.read(notebook, as_version=4).cells]
    cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    expect(cells).to_have_count(len(grade_ids), timeout=60_000)
    type_lines(page, cells.nth(grade_ids.index("affine")), answer)
    page.keyboard.press("Escape")
    page.keyboard.press("ControlOrMeta+s")

    def saved():
        try:
            return nbformat.read(notebook, as_version=4).cells[grade_ids.index("affine")].source == answer
        except (OSError, ValueError):  # caught mid-write
            return False

    wait_until(saved, 20, f"the answer to be saved in {notebook}")
    panel = _assignments(page)
    fetched.get_by_role("button", name="Submit").click()
    expect(panel.locator("#submitted_assignments_list > .list_item", has_text=ASSIGNMENT)).to_be_visible()


def _read_feedback(page) -> str:
    """In the Assignments tab: fetch the feedback, follow "view feedback" and open it; its text as shown."""
    from playwright.sync_api import expect

    panel = _assignments(page)
    panel.locator("#refresh_assignments_list").click()
    submitted = panel.locator("#submitted_assignments_list > .list_item", has_text=ASSIGNMENT)
    submitted.get_by_role("button", name="Fetch Feedback").click()
    submitted.locator("a", has_text="view feedback").click()  # the file browser goes to the file
    page.locator(".jp-DirListing-item", has_text=f"{ASSIGNMENT}.html").dblclick()
    body = page.frame_locator(".jp-HTMLViewer iframe").locator("body")
    expect(body).to_contain_text("Score:", timeout=30_000)
    return body.inner_text()


def _hidden_test_lines() -> list[str]:
    """The lines of the assignment's hidden tests that its release does not show (a student must never see them)."""
    nb = nbformat.read(ROOT / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    release = (ROOT / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    lines = []
    for cell in nb.cells:
        hidden = re.search(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", cell.source, re.S)
        lines += [line.strip() for line in hidden[1].splitlines()] if hidden else []
    lines = [line for line in lines if line and json.dumps(line)[1:-1] not in release]
    assert len(lines) > 5, lines
    return lines


def _course(home: Path) -> Path:
    """The instructor's copy of the course (a clone, in real life): its config, the set's source and release."""
    course = home / "jax-course"
    course.mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    for folder in ("solutions", "exercises"):
        shutil.copytree(ROOT / folder / ASSIGNMENT, course / folder / ASSIGNMENT)
    return course


def test_release_submit_grade_and_return_feedback_on_a_jupyterhub(tmp_path):
    require_browser()
    require(PROXY.exists(), f"no {PROXY.relative_to(ROOT)}: `make hub` installs the hub's proxy (needs npm)")
    require((VENV_BIN / "jupyterhub").exists(), "JupyterHub is missing: pip install -e '.[course,test]'")
    from playwright.sync_api import sync_playwright

    lap = _Laps()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    course = _course(tmp_path / "home" / INSTRUCTOR)
    hub, base = _start_hub(tmp_path)
    pages = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            try:
                lap("hub started")
                _loop(hub, base, browser, pages, course, tmp_path, lap)
            finally:
                for user, page in pages.items():
                    screenshot(page, ARTIFACTS / f"{user}.png")
                browser.close()
    finally:
        shutil.copy(tmp_path / "hub.log", ARTIFACTS / "hub.log")
        _stop_hub(hub, tmp_path)
    lap("hub stopped")
    print("seconds per step:", lap.seconds)


class _Laps:
    """Seconds per step, printed at the end (`pytest -s`): where the test's time goes."""

    def __init__(self):
        self.last, self.seconds = time.monotonic(), {}

    def __call__(self, step: str) -> None:
        now = time.monotonic()
        self.seconds[step], self.last = round(now - self.last, 1), now


def _loop(hub, base, browser, pages, course, tmp_path, lap):
    # The instructor logs in (their server has the formgrader) and releases from a terminal.
    pages[INSTRUCTOR] = _login(browser, base, INSTRUCTOR)
    assert "Formgrader" in _nbgrader_menu(pages[INSTRUCTOR])
    assert pages[INSTRUCTOR].request.get(f"{base}/user/{INSTRUCTOR}/formgrader").ok
    terminal = _server_environment(hub, INSTRUCTOR)
    assert terminal["COURSE_STUDENT_ID"] == "", "an instructor must not be a student to nbgrader"
    _instructor(terminal, course, "nbgrader", "generate_assignment", ASSIGNMENT, "--force")
    _instructor(terminal, course, "nbgrader", "release_assignment", ASSIGNMENT)
    lap("instructor logged in, released")

    # Each student logs in, sees only the Assignment List, fetches, answers problem 1 and submits.
    for user, answer in ANSWERS.items():
        pages[user] = _login(browser, base, user)
        assert _nbgrader_menu(pages[user]) == ["Assignment List"], "a student sees the instructor's tools"
        assert pages[user].request.get(f"{base}/user/{user}/formgrader").status == 404, "a student has the formgrader"
        _fetch_answer_submit(pages[user], tmp_path / "home" / user, answer)
        lap(f"{user} logged in, fetched, answered, submitted")
    inbound = sorted(p.name.split("+")[0] for p in (tmp_path / "exchange" / "jax-course" / "inbound").iterdir())
    assert inbound == sorted(ANSWERS), f"submitted under {inbound}, not under the students' hub names"

    # The instructor collects, grades, and returns feedback.
    _instructor(terminal, course, "nbgrader", "collect", ASSIGNMENT)
    lap("collected")
    _instructor(terminal, course, "jax-course", "grade", ASSIGNMENT)
    lap("graded")
    _instructor(terminal, course, "nbgrader", "generate_feedback", ASSIGNMENT)
    _instructor(terminal, course, "nbgrader", "release_feedback", ASSIGNMENT)
    lap("feedback generated and released")

    # The gradebook holds both students, each with the points of their answer (no other answered).
    points = test_points(ASSIGNMENT)
    expected = {user: {test: scores.get(test, 0.0) for test in points} for user, scores in SCORES.items()}
    assert read_scores(course, ASSIGNMENT) == expected

    # Each student reads their feedback: their score, each failing test's message, no hidden test code.
    hidden = _hidden_test_lines()
    for user in ANSWERS:
        shown = _read_feedback(pages[user])
        assert f"{ASSIGNMENT} (Score: {sum(expected[user].values()):.1f} / {sum(points.values()):.1f})" in shown
        assert "NotImplementedError" in shown  # the problems left unanswered
        assert (HIDDEN_MESSAGE in shown) == (user == "bob"), shown[:3000]
        leaked = [line for line in hidden if line in shown]
        assert not leaked, f"{user}'s feedback shows hidden test code: {leaked}"
        lap(f"{user} read their feedback")
