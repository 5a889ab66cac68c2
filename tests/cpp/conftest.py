"""One compile for every C++ program of tests/cpp.

Compiling ``<torch/torch.h>`` is most of a build (15-35 s); the three modules' programs (the
flag lab's twins, the CLI's programs, the code page's) went into three bundles, three builds
on the one worker that takes tests/cpp (tests/conftest.py, ONE_AT_A_TIME). :func:`cpp_printed`
puts them all in one bundle (tests/cpp_build.py), built once a session, and hands each
module what its programs printed. A module run alone builds the same one bundle (and a later
run finds it under tests/artifacts/cpp)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from tests.cpp_build import require_gpp, run_bundle


def _programs() -> dict[str, Callable[[], Mapping[str, str]]]:
    """Each module's programs, by module (name -> C++ source), made when asked."""
    from tests.cpp import test_cpp_code_page, test_cpp_flaglab, test_cpp_programs

    return {
        "flaglab": test_cpp_flaglab.programs,
        "programs": test_cpp_programs.programs,
        "code_page": test_cpp_code_page.programs,
    }


@pytest.fixture(scope="session")
def cpp_printed() -> dict[str, dict[str, list[str]]]:
    """What every C++ program of tests/cpp printed, by module, then by program name."""
    require_gpp()
    made = {module: dict(make()) for module, make in _programs().items()}
    printed = run_bundle(
        {
            f"{module} {name}": src
            for module, sources in made.items()
            for name, src in sources.items()
        }
    )
    return {
        module: {name: printed[f"{module} {name}"] for name in sources}
        for module, sources in made.items()
    }
