"""How long a test lets one of Streamlit's AppTest runs take before calling it hung.

AppTest's ``default_timeout`` is a timer: a run that has not finished by then raises "AppTest
script run timed out", although it would have finished. On a quiet machine the slowest page run
here takes a few seconds; on a 2-core machine running the rest of the suite beside it, the same
run took over a minute. The ceiling only ends a run that never finishes, so it is far above
either; a run that finishes returns at once, whatever the ceiling.
"""

import functools

APP_TEST_CEILING = 900.0  # s


def scan_components_once() -> None:
    """Let every AppTest of this process share one scan for Streamlit's v2 components.

    Each new AppTest's first run looks for installed v2 components by reading the metadata of
    every installed distribution (``manifest_scanner.scan_component_manifests``): 0.10-0.17 s
    of CPU here, against 0.02-0.03 s for the page run itself (a new AppTest of pages/hvp.py:
    118-350 ms fresh, 27-43 ms with the scan shared; /tmp figures of 2026-12-07, six runs
    each). The installed distributions do not change while the suite runs, so the first
    scan's answer is kept for the process; the server the browser tests start scans once, as
    always. tests/project/test_apptest_scan.py checks that a second AppTest does not scan.
    """
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    if not hasattr(scan, "cache_info"):  # once per process
        manifest_scanner.scan_component_manifests = functools.cache(scan)
