"""`make lab`, the README's first command, serves the course with nbgrader's extensions, students first."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.request

import pytest

from browser import wait_until
from support import ROOT

pytestmark = pytest.mark.environment


def test_make_lab_serves_the_first_lecture_and_the_formgrader():
    # Its own process group, so that make, jupyter and any kernel stop together.
    lab = subprocess.Popen(
        ["make", "-s", "lab"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "BROWSER": "true"},
        start_new_session=True,
    )
    try:
        url, log, deadline = None, [], time.monotonic() + 90
        while url is None and time.monotonic() < deadline:
            line = lab.stdout.readline()
            if not line:
                break
            log.append(line)
            found = re.search(r"(http://127\.0\.0\.1:\d+)/lab\?token=(\w+)", line)
            if found:
                url = found.groups()
        assert url, "JupyterLab did not start:\n" + "".join(log[-30:])
        base, token = url

        # A request sent the moment Jupyter Server printed its URL was refused under load (seen
        # with the hub test beside it), though the server listened there a moment later.
        def answers():
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5):
                    return True
            except OSError:
                return False

        wait_until(answers, 30, f"JupyterLab to answer at {base}")
        with urllib.request.urlopen(f"{base}/lab/tree/course/01_arrays.ipynb?token={token}", timeout=30) as page:
            html = page.read().decode()
        config = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', html, re.S)
        assert config, "not JupyterLab's page"
        # A student is not greeted by the instructor's create-assignment panel, nor by a news prompt.
        assert "@jupyter/nbgrader:create-assignment" in json.loads(config[1])["disabledExtensions"]
        notification = f"{base}/lab/api/settings/@jupyterlab/apputils-extension:notification?token={token}"
        with urllib.request.urlopen(notification, timeout=30) as settings:
            defaults = {k: v.get("default") for k, v in json.loads(settings.read())["schema"]["properties"].items()}
        assert defaults["fetchNews"] == "false" and defaults["checkForUpdates"] is False, defaults
        # The whole course is served, not only course/: a student opens the lectures and the
        # exercises from the file browser (the page above loads for any path; the contents API does not).
        for notebook in ("course/01_arrays.ipynb", "exercises/01_arrays/01_arrays.ipynb"):
            with urllib.request.urlopen(f"{base}/api/contents/{notebook}?content=0&token={token}", timeout=30) as found:
                assert json.loads(found.read())["type"] == "notebook", f"no notebook at {notebook}"
        with urllib.request.urlopen(f"{base}/formgrader/api/assignments?token={token}", timeout=30) as api:
            assert "01_arrays" in api.read().decode()
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)
