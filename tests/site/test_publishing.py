"""The GitHub Pages workflow publishes what `make site` builds."""

from __future__ import annotations

import pytest
import yaml

from support import ROOT

pytestmark = pytest.mark.unit


def test_the_pages_workflow_builds_with_make_site_and_publishes_its_folder():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "site.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    assert [s.get("run") for s in steps if "run" in s] == ["make site"]
    upload = [s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert upload and upload[0]["with"]["path"] == "build/site"
    assert workflow["permissions"]["pages"] == "write" and workflow["permissions"]["id-token"] == "write"
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert any(s.get("uses", "").startswith("actions/deploy-pages@") for s in deploy["steps"])
    makefile = (ROOT / "Makefile").read_text()
    assert "SITE_BUILD ?= build/site" in makefile
