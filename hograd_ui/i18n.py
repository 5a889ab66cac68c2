"""Translations: the strings of ``locales/{lang}.toml``, looked up by key and filled in.

Each language file maps flat, dotted keys (``"app.page.home"``) to one string; both files hold
the same keys. Only the standard library is used, and nothing of hograd is imported: errors are
translated by duck typing on their ``key`` and ``params``.

Example:
    >>> tr("app.page.home", "zh")
    '首页'
    >>> placeholders("order {k} at {x0}") == {"k", "x0"}
    True
"""

from __future__ import annotations

import functools
import string
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

__all__ = [
    "LANGUAGES",
    "LOCALES",
    "RUNTIME_KEYS",
    "LocaleError",
    "catalogue",
    "error_text",
    "lab_folders",
    "placeholders",
    "tr",
]

#: Language codes, and the name each is shown under in the language switch.
LANGUAGES: dict[str, str] = {"en": "English", "zh": "简体中文"}

#: The folder that holds one ``{lang}.toml`` per language: the strings every page shares.
LOCALES: Path = Path(__file__).resolve().parent.parent / "locales"

#: Each lab keeps its own strings beside its code: ``hograd_labs/<lab>/{lang}.toml``.
LABS: Path = Path(__file__).resolve().parent.parent / "hograd_labs"

#: The error decoder's entries (hograd_core.flaglab.decoder.ENTRIES, named here so that
#: loading the strings imports no torch).
DECODER_ENTRIES: tuple[str, ...] = (
    "no_grad_fn",
    "freed_graph",
    "unused_input",
    "input_no_grad",
    "none_gradient",
    "nonleaf_grad",
    "reference_cycle",
    "inplace",
    "leaf_inplace",
    "nan_pow",
    "nan_sqrt",
    "nan_log",
    "nan_div",
    "nan_other",
    "custom_count",
    "custom_shape",
    "once_differentiable",
    "nonscalar_output",
    "grad_outputs_shape",
    "integer_requires_grad",
    "checkpoint_reentrant",
    "func_grad_nonscalar",
    "numpy_requires_grad",
    "vmap_item",
    "jacobian_mismatch",
)

#: Keys the kit and the kernel assemble while they run, so they never appear whole in the
#: source; each lab declares its own (``Lab.runtime_keys``, hograd_ui/lab.py). The test of
#: unused keys counts both as used; each group names the place that builds it.
RUNTIME_KEYS: frozenset[str] = frozenset(
    # hograd_core/hessian.py, point_vector: f"budget.{what}_size" for what = "point", "vector"
    {"budget.point_size", "budget.vector_size"}
    # hograd_core/flaglab/decoder.py: Decoded.keys, f"decoder.{id}" and its ".why" and ".fix",
    # for each entry of ENTRIES (tests/serving/test_error_decoder.py checks the ids are these)
    | {f"decoder.{entry}{part}" for entry in DECODER_ENTRIES for part in ("", ".why", ".fix")}
    # hograd_ui/tensor_drawing.py, pass_name: f"pass.{k}" for the forward pass and six backward
    | {f"pass.{k}" for k in range(7)}
    # hograd_ui/tensor_drawing.py, cue_name: f"pass.cue.{k}", the border of each pass's nodes
    | {f"pass.cue.{k}" for k in range(7)}
)


class LocaleError(ValueError):
    """A language file that cannot be used; the message names the file."""


class _Translatable(Protocol):
    """An error that carries its message as a translation key and parameters."""

    @property
    def key(self) -> str: ...

    @property
    def params(self) -> Mapping[str, object]: ...


def _read(path: Path) -> dict[str, str]:
    """One language file as ``{key: text}``, every value checked to be a string."""
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except FileNotFoundError as err:
        raise LocaleError(f"{path}: no such language file") from err
    except tomllib.TOMLDecodeError as err:
        hint = " (a key written twice?)" if "overwrite" in str(err) else ""
        raise LocaleError(f"{path}: not valid TOML: {err}{hint}") from err
    for key, value in data.items():
        if isinstance(value, dict):  # a [section] or an unquoted dotted key
            name = key
            while isinstance(value, dict) and value:
                inner, value = next(iter(value.items()))
                name += f".{inner}"
            raise LocaleError(
                f"{path}: {name} is read as nested tables, not as one key; write every key in "
                f'quotes ("{name}" = ...) and use no [sections]'
            )
        if not isinstance(value, str):
            raise LocaleError(
                f"{path}: the value of {key!r} should be a string, not {type(value).__name__}"
            )
    return data


def _keys_listed(keys: set[str], limit: int = 10) -> str:
    shown = ", ".join(sorted(keys)[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def _load(folder: Path, lang: str) -> Mapping[str, str]:
    """Read ``folder/{lang}.toml`` and check its keys against every other language's file.

    Args:
        folder: where the language files are (:data:`LOCALES` in the app, a temporary folder in
            the tests).
        lang: a code from :data:`LANGUAGES`.

    Returns:
        A read-only ``{key: text}``.

    Raises:
        LocaleError: an unknown language; a file missing, not valid TOML (a repeated key
            included) or with a value that is not a string; or two files whose keys differ.
    """
    if lang not in LANGUAGES:
        raise LocaleError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    path = folder / f"{lang}.toml"
    table = _read(path)
    for other in LANGUAGES:
        if other == lang:
            continue
        other_path = folder / f"{other}.toml"
        other_keys = _read(other_path).keys()
        only_here, only_there = table.keys() - other_keys, other_keys - table.keys()
        if only_here or only_there:
            raise LocaleError(
                f"{path} and {other_path} must have the same keys; "
                f"only in {path.name}: {_keys_listed(only_here) or '-'}; "
                f"only in {other_path.name}: {_keys_listed(only_there) or '-'}"
            )
    return MappingProxyType(table)


def lab_folders(root: Path = LABS) -> list[Path]:
    """The labs that carry strings: every ``root/<lab>/`` holding an ``en.toml``, by name."""
    return sorted(p.parent for p in root.glob("*/en.toml"))


def _merged(folders: list[Path], lang: str) -> Mapping[str, str]:
    """The strings of ``lang`` from every folder; a key defined in two folders is refused."""
    table: dict[str, str] = {}
    where: dict[str, Path] = {}
    for folder in folders:
        for key, text in _load(folder, lang).items():
            if key in table:
                raise LocaleError(
                    f"{key!r} is defined in both {where[key] / f'{lang}.toml'} and "
                    f"{folder / f'{lang}.toml'}"
                )
            table[key], where[key] = text, folder
    return MappingProxyType(table)


@functools.cache
def catalogue(lang: str) -> Mapping[str, str]:
    """Every string of ``lang``, read on first use from ``locales/{lang}.toml`` and from each
    lab's own ``hograd_labs/<lab>/{lang}.toml``.

    Args:
        lang: a code from :data:`LANGUAGES` ("en" or "zh").

    Returns:
        A read-only mapping from key to text.

    Raises:
        LocaleError: see :func:`_load`; the message names the file at fault.
    """
    return _merged([LOCALES, *lab_folders()], lang)


def tr(key: str, lang: str = "en", /, **params: object) -> str:
    """The string ``key`` in ``lang``, its ``{name}`` placeholders filled from ``params``.

    Args:
        key: a key of the language files, e.g. ``"app.page.home"``.
        lang: "zh" for Chinese; any other value gives English.
        **params: values for the placeholders. Without any, the text is returned as written
            (braces included).

    Returns:
        The translated text.

    Raises:
        KeyError: ``key`` is not in the files (a bug, caught by the tests).
    """
    text = catalogue("zh" if lang == "zh" else "en")[key]
    return text.format(**params) if params else text


def placeholders(text: str) -> set[str]:
    """The names of the ``{name}`` fields in ``text`` (``{{`` and ``}}`` are not fields).

    Args:
        text: a template as written in a language file.

    Returns:
        The field names, e.g. ``{"k", "x0"}`` for ``"order {k} at {x0}"``.
    """
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


def error_text(err: _Translatable, lang: str) -> str:
    """The message of an error that names its text by key (hograd_core's ``HogradError``).

    Args:
        err: any object with ``key`` (a translation key) and ``params`` (its placeholder
            values).
        lang: as for :func:`tr`.

    Returns:
        ``tr(err.key, lang, **err.params)``.
    """
    return tr(err.key, lang, **err.params)
