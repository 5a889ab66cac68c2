"""The teacher's key on the server's side: `make run`'s start-up prints the teacher's link with a
key it makes up, or with the machine's own; the app reads the key from Streamlit's secrets or
the environment."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from streamlit.testing.v1 import AppTest

from hograd_serving import teacher_key
from hograd_ui.i18n import tr
from tests.app.conftest import APP
from tests.apptest import APP_TEST_CEILING


def _link(out: str) -> str:
    return next(line.strip() for line in out.splitlines() if "/lesson?key=" in line)


def test_make_run_makes_up_a_key_and_prints_the_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no .streamlit/secrets.toml here
    monkeypatch.delenv(teacher_key.NAME, raising=False)
    teacher_key.main(["--port", "8765"])
    key = os.environ[teacher_key.NAME]  # what the server started next will read
    assert len(key) >= 32
    link = urlparse(_link(capsys.readouterr().out))
    assert (link.netloc, link.path) == ("localhost:8765", "/lesson")
    assert parse_qs(link.query) == {"key": [key]}
    teacher_key.main([])  # a second start keeps the key it finds
    assert os.environ[teacher_key.NAME] == key


def test_the_machines_key_is_used_secrets_file_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(teacher_key.NAME, "from-the-environment")
    teacher_key.main([])
    assert parse_qs(urlparse(_link(capsys.readouterr().out)).query)["key"] == [
        "from-the-environment"
    ]
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text(
        f'{teacher_key.NAME} = "from the file/&?"\n'
    )
    teacher_key.main([])
    assert parse_qs(urlparse(_link(capsys.readouterr().out)).query)["key"] == [
        "from the file/&?"  # quoted in the link, read back whole
    ]


def test_the_app_reads_the_key_from_streamlits_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(teacher_key.NAME, raising=False)
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    at.secrets[teacher_key.NAME] = "the-secrets-box-key-0123456789"
    at.query_params["key"] = "the-secrets-box-key-0123456789"
    at.switch_page("pages/lesson.py")
    at.run()
    assert not at.exception
    assert tr("lesson.teacher.on") in [w.value for w in at.warning]
    assert "key" not in at.query_params
