"""tests/apptest.scan_components_once: the suite's AppTests share one scan for Streamlit's v2
components, so a page run in a new AppTest costs the page, not the installed packages."""

from __future__ import annotations

from pathlib import Path

from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest

from tests.apptest import APP_TEST_CEILING, scan_components_once

ROOT = Path(__file__).resolve().parents[2]


def test_a_new_apptest_does_not_scan_the_installed_packages_again(monkeypatch) -> None:
    scans: list[int] = []

    def counted() -> list:
        scans.append(1)
        return []

    monkeypatch.setattr(manifest_scanner, "scan_component_manifests", counted)
    scan_components_once()  # as tests/conftest.py does, on the scanner in place now
    for _ in range(3):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TEST_CEILING)
        at.run()
        assert not at.exception
    assert len(scans) == 1  # Streamlit's own AppTest scans on every new AppTest's first run
