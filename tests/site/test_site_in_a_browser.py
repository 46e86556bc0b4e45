"""A reader on the site: from the landing page to lecture 04, its figures and its launch links; search;
and every page as axe-core's WCAG 2.1 A and AA rules see it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograder.grading.authoring._colab import repository

from browser import CHROMIUM, CHROMIUM_ARGS, free_port, require, require_browser, stop, wait_until
from support import ROOT

pytestmark = pytest.mark.site

SITE = ROOT / "build" / "site"
REPOSITORY = repository(ROOT).removeprefix("https://github.com/")
# WCAG 2.1 at levels A and AA, as axe-core tags its rules (2.0's rules and those 2.1 added).
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def _serve(port: int) -> subprocess.Popen:
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(SITE)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def test_a_reader_goes_from_the_landing_page_to_lecture_04_and_can_launch_it():
    require_browser()
    from playwright.sync_api import expect, sync_playwright

    assert (SITE / "index.html").is_file(), "run `make site` first (`make test` does)"
    port = free_port()
    server = _serve(port)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page()
            wait_until(lambda: _answers(page, f"http://127.0.0.1:{port}/"), 20, "the site's server")
            page.get_by_role("link", name="course/04_jit.ipynb").first.click()
            expect(page).to_have_url(f"http://127.0.0.1:{port}/course/04_jit.html")
            expect(page.get_by_role("heading", level=1).first).to_contain_text("Lecture 4")

            figure = page.locator("div.cell_output img").first
            figure.scroll_into_view_if_needed()
            expect(figure).to_be_visible()
            assert figure.evaluate("img => img.complete && img.naturalWidth > 0"), "the figure did not load"

            launch = {
                link.get_attribute("href")
                for link in page.locator("a[href*='mybinder.org'], a[href*='colab.research.google.com']").all()
            }
            assert f"https://mybinder.org/v2/gh/{REPOSITORY}/main?urlpath=lab/tree/course/04_jit.ipynb" in launch
            assert f"https://colab.research.google.com/github/{REPOSITORY}/blob/main/course/04_jit.ipynb" in launch
            page.get_by_role("button", name="Launch interactive content").click()
            expect(page.locator(".dropdown-launch-buttons").get_by_role("link", name="Binder")).to_be_visible()

            page.goto(f"http://127.0.0.1:{port}/search.html?q=in_axes")
            expect(page.locator("#search-results a[href*='course/05_vmap.html']").first).to_be_visible(timeout=15_000)
            browser.close()
    finally:
        stop(server)


# The lecture pages take about as long as all the others together: two halves, one per worker.
@pytest.mark.parametrize("half", ["lectures", "other pages"])
def test_every_page_passes_axe_cores_wcag_21_a_and_aa_rules(half):
    require_browser()
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        require(False, "the axe_playwright_python module is missing: pip install -e '.[test]'")
    from playwright.sync_api import sync_playwright

    assert (SITE / "index.html").is_file(), "run `make site` first (`make test` does)"
    # _static/ holds the theme's own templates and scripts, not pages.
    paths = sorted(p.relative_to(SITE) for p in SITE.rglob("*.html"))
    paths = [path.as_posix() for path in paths if "_static" not in path.parts]
    paths = [path for path in paths if path.startswith("course/") == (half == "lectures")]
    assert paths, f"the site has no {half}"
    axe = Axe()
    failures = []
    port = free_port()
    server = _serve(port)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page()
            wait_until(lambda: _answers(page, f"http://127.0.0.1:{port}/"), 20, "the site's server")
            for path in paths:
                page.goto(f"http://127.0.0.1:{port}/{path}")
                options = {"runOnly": {"type": "tag", "values": WCAG_21_AA}, "resultTypes": ["violations"]}
                violations = axe.run(page, options=options).response["violations"]
                if violations:
                    failures.append(_report(path, violations))
            browser.close()
    finally:
        stop(server)
    assert not failures, f"axe-core finds WCAG 2.1 A/AA violations on {len(failures)} pages:\n" + "\n".join(failures)


def _report(path: str, violations: list[dict]) -> str:
    """A page's violations: each rule, its help text, and every element it fails on."""
    lines = [f"{path}:"]
    for violation in violations:
        lines.append(f"  {violation['id']} ({violation['help']}), {len(violation['nodes'])} elements:")
        for node in violation["nodes"]:
            html = " ".join(node["html"].split())
            lines.append(f"    {' '.join(map(str, node['target']))}: {html[:160]}")
    return "\n".join(lines)


def _answers(page, url: str) -> bool:
    try:
        page.goto(url)
    except Exception:  # noqa: BLE001  (not listening yet)
        return False
    return True
