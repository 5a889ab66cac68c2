"""The one place hograd writes into another library's internals, each kept because a goal
needs it (docs/performance.md, "No patches of other libraries' internals"), each with a test
that fails loudly when the internal it relies on changes (tests/serving/test_patches.py).

- :func:`leave_pages_directory_mode`: Streamlit starts in its old "pages directory" mode
  because pages/ exists, and leaves it for good only when a script calls st.navigation. Until
  app.py has done so, a deep link (a shared lesson link, often opened by a whole class at once
  on a fresh server or a fresh replica) runs the page file alone, without the sidebar, the
  language switch or the other pages. hograd_ui/parts/ui.py calls this from such a run and
  reruns, which goes through app.py. It sets the flag exactly as st.navigation itself does
  (``PagesManager.uses_pages_directory = False``). Calling st.navigation from the page run
  instead was tried (2026-12-04) and left the first visitor on a blank page.
"""

from __future__ import annotations

__all__ = ["leave_pages_directory_mode"]


def leave_pages_directory_mode() -> None:
    """End Streamlit's pages-directory mode for this process, as st.navigation does."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False
