"""hograd_serving/patches.py: the internals each patch relies on are still there, and the
patch does what it says. A Streamlit upgrade that renames or drops one fails here, loudly,
instead of silently leaving deep links on a fresh server without the app's navigation."""

from __future__ import annotations

import inspect

import pytest


def test_pages_directory_mode_is_the_flag_st_navigation_sets_and_the_runner_reads() -> None:
    from streamlit.commands import navigation
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import script_runner

    assert "uses_pages_directory" in vars(PagesManager), (
        "Streamlit's PagesManager has no uses_pages_directory any more: "
        "hograd_serving/patches.py.leave_pages_directory_mode needs a new way"
    )
    # st.navigation ends the mode by this very assignment: the patch does what it does
    assert "PagesManager.uses_pages_directory = False" in inspect.getsource(navigation.navigation)
    # and the script runner reads it to choose between a page file alone and the main script
    assert "PagesManager.uses_pages_directory" in inspect.getsource(script_runner)


def test_leaving_pages_directory_mode_sets_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.runtime.pages_manager import PagesManager

    from hograd_serving.patches import leave_pages_directory_mode

    monkeypatch.setattr(PagesManager, "uses_pages_directory", True)
    leave_pages_directory_mode()
    assert PagesManager.uses_pages_directory is False
