"""The class link's address (hograd_labs/classroom/address.py): a configured public URL first;
else the browser's address unless it is loopback, which names the lecturer's machine on every
phone: then this machine's local-network address, with a note that says so. The oracle for
"loopback" and "private" is Python's ipaddress module on the same hosts."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from hograd_labs.classroom import address


@pytest.fixture(autouse=True)
def _no_public_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(address.NAME, raising=False)
    monkeypatch.setattr(address.st.secrets, "load_if_toml_exists", lambda: False)


@pytest.mark.parametrize(
    ("value", "base"),
    [
        ("https://hograd.example.edu", "https://hograd.example.edu"),
        ("https://hograd.example.edu/", "https://hograd.example.edu"),
        ("http://192.168.1.20:8080/lesson", "http://192.168.1.20:8080"),
        ("https://uni.example/apps/hograd/?x=1#y", "https://uni.example/apps/hograd"),
    ],
)
def test_a_configured_address_wins(monkeypatch: pytest.MonkeyPatch, value: str, base: str) -> None:
    monkeypatch.setenv(address.NAME, value)
    found = address.where("http://localhost:8501/lesson?key=x", "")
    assert found == address.Address(base, "", "")


@pytest.mark.parametrize("value", ["", " ", "ftp://x", "javascript:alert(1)", "hograd", "x" * 300])
def test_a_configured_value_that_is_no_address_is_ignored(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(address.NAME, value)
    assert address.public_url() is None


@pytest.mark.parametrize(
    "url", ["https://hograd.example.edu/lesson", "http://93.184.216.34:8080/lesson?lang=zh"]
)
def test_a_public_browser_address_is_used_as_it_is(url: str) -> None:
    found = address.where(url, "")
    assert url.startswith(found.base) and found.note == ""


@pytest.mark.parametrize(
    "url", ["http://192.168.1.20:8501/lesson", "http://10.0.0.7/lesson", "http://hallpc:8501/"]
)
def test_a_private_browser_address_is_used_with_a_note(url: str) -> None:
    found = address.where(url, "")
    assert url.startswith(found.base) and found.note == address.PRIVATE
    host = url.split("/")[2].split(":")[0]
    if host[0].isdigit():
        assert ipaddress.ip_address(host).is_private  # the oracle agrees


@pytest.mark.parametrize(
    "url", ["http://localhost:8501/lesson", "http://127.0.0.1:8501/", "http://[::1]:8501/"]
)
def test_a_loopback_address_gives_way_to_the_local_network(
    monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.setattr(address, "lan_ip", lambda: "192.168.1.20")
    found = address.where(url, "")
    assert found == address.Address("http://192.168.1.20:8501", address.LOOPBACK, found.shown)
    assert "8501" in found.shown
    # a server that listens on loopback only cannot be reached that way: said, not offered
    assert address.where(url, "127.0.0.1").note == address.UNREACHABLE
    monkeypatch.setattr(address, "lan_ip", lambda: None)
    assert address.where(url, "").note == address.UNREACHABLE


def test_the_local_network_address_is_one_of_this_machine() -> None:
    ip = address.lan_ip()
    if ip is None:
        pytest.skip("this machine has no route off loopback")
    assert not ipaddress.ip_address(ip).is_loopback
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((ip, 0))  # only an address of this machine can be bound
