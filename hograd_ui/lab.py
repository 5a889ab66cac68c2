"""What a lab declares about itself, and the site that the app builds from the declarations.

Every lab's ``hograd_labs/<lab>/__init__.py`` exports one :class:`Lab` named ``LAB``: its URL
keys, the string keys it builds while it runs, its default views (warmed before the first
student comes) and the views other pages may embed. The pages layer (``pages/__init__.py``)
collects them into a :class:`Site`, page by page, and hands the site to the kit: the links
(hograd_ui/parts/links.py), the locale checks, the warm-up. Nothing below the labs names a
lab: the kit reads what the labs declare, as ``st.navigation`` reads ``st.Page`` values.

This module imports only the standard library, so that a lab's ``__init__.py`` stays as light
as its folder's name: importing a lab's compute module loads no Streamlit through it.

Example:
    >>> lab = Lab("hograd_labs.demo", prefixes=("demo.",), url=("demo.n", "demo.p.*"))
    >>> lab.name
    'demo'
    >>> site = Site({"demo": (lab,)})
    >>> site.known("demo", "demo.p.x"), site.known("demo", "demo.q")
    (True, False)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

__all__ = ["Lab", "Site"]


@dataclass(frozen=True)
class Lab:
    """One lab's declaration (or a page's own, for a page that groups several labs).

    Args:
        package: the lab's package, ``__name__`` in its ``__init__.py`` ("hograd_labs.newton");
            views are found in it, and its last part is the lab's name.
        title: the string key of its name where a page lists it (a tab's label).
        prefixes: the prefixes of its views' settings: their widget keys, and so their URL
            parameters, start with one ("lab.", "page.lab."). A shared view carries the
            parameters with these prefixes; a form's field with one is judged by the field.
        url: the URL parameters of its bound widgets and choices, in every view, as
            ``fnmatch`` patterns (``*`` for a variable's, a case's or a step's name). The
            widget that draws a parameter judges its value, on the run that draws it; a form's
            field (hograd_ui/parts/link_form.py) judges it even when its view is not drawn.
        params: URL parameters the lab reads itself with ``st.query_params`` ("lab.program").
        carried: parameters every page has (hograd_ui/parts/links.py's ``GLOBAL``) that a view
            of this lab shared with a class carries too (the lesson's open ``step``).
        runtime_keys: the string keys it builds while it runs (``f"hvp.kind.{kind}"``), so
            that they never appear whole in its source; the locale test counts them as used.
        warm: its default views, warmed before the first student: a URL path with an optional
            query ("backward?backward.decode=..."), "" for the home page.
        views: the views other pages may draw (the lesson, a tab of the why page), by name:
            ``"module:function"`` in the lab's package, imported only when asked for.
    """

    package: str
    title: str = ""
    prefixes: tuple[str, ...] = ()
    url: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    carried: tuple[str, ...] = ()
    runtime_keys: frozenset[str] = frozenset()
    warm: tuple[str, ...] = ()
    views: Mapping[str, str] = field(default_factory=dict, hash=False)

    @property
    def name(self) -> str:
        """The lab's folder name, which also starts its string keys ("newton")."""
        return self.package.rpartition(".")[2]

    def view(self, name: str) -> Callable[..., object]:
        """The view ``name`` of :attr:`views`, imported now.

        Raises:
            KeyError: the lab declares no view of that name.
        """
        module, _, function = self.views[name].partition(":")
        return getattr(importlib.import_module(f"{self.package}.{module}"), function)


@dataclass(frozen=True)
class Site:
    """Every page of the app by its URL path ("" is home), with the declarations drawn there.

    Args:
        pages: ``{path: (Lab, ...)}`` in the order the warm-up visits them.
    """

    pages: Mapping[str, tuple[Lab, ...]] = field(hash=False)

    def labs(self) -> Iterator[Lab]:
        """Every declaration once, page by page."""
        seen: set[str] = set()
        for labs in self.pages.values():
            for lab in labs:
                if lab.package not in seen:
                    seen.add(lab.package)
                    yield lab

    def prefixes(self, page: str) -> tuple[str, ...]:
        """The prefixes of ``page``'s settings (an unknown page has none)."""
        return tuple(p for lab in self.pages.get(page, ()) for p in lab.prefixes)

    def url(self, page: str) -> tuple[str, ...]:
        """The URL parameter patterns of ``page``'s bound widgets and choices."""
        return tuple(p for lab in self.pages.get(page, ()) for p in lab.url)

    def params(self, page: str) -> frozenset[str]:
        """The URL parameters ``page`` reads itself."""
        return frozenset(p for lab in self.pages.get(page, ()) for p in lab.params)

    def carried(self, page: str) -> frozenset[str]:
        """The parameters every page has that a shared view of ``page`` carries."""
        return frozenset(p for lab in self.pages.get(page, ()) for p in lab.carried)

    def known(self, page: str, name: str) -> bool:
        """Whether ``name`` matches one of ``page``'s URL parameter patterns."""
        return any(fnmatchcase(name, pattern) for pattern in self.url(page))

    def load_views(self, page: str, name: str) -> None:
        """Import the views of ``page``'s labs whose prefixes start ``name``: a form registers
        its fields when its module is imported, and a link may carry a field of a view this
        process has not drawn yet (a tab nobody opened since the server started)."""
        for lab in self.pages.get(page, ()):
            if lab.prefixes and name.startswith(lab.prefixes):
                for view in lab.views:
                    lab.view(view)

    def runtime_keys(self) -> frozenset[str]:
        """Every lab's runtime-built string keys."""
        return frozenset(key for lab in self.labs() for key in lab.runtime_keys)

    def warm(self) -> tuple[str, ...]:
        """Every default view, page by page."""
        return tuple(view for lab in self.labs() for view in lab.warm)
