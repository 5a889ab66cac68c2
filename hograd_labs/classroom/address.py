"""The address the class link and its QR code carry: one the students' phones can reach.

First found first:

1. ``HOGRAD_PUBLIC_URL`` in Streamlit's secrets or the environment (``make serve`` and
   compose.yaml pass it on): the address the lecturer chose, e.g. ``https://hograd.example.edu``;
2. the address of the lecturer's browser, unless it is a loopback one (``localhost``,
   ``127.0.0.1``, ``::1``), which names the lecturer's own machine on every phone: then the
   address of this machine on the local network, when the server listens there.

:func:`where` says which, so the panel can tell the lecturer plainly when the link may not
reach the students (a loopback or a private address, a server that listens on loopback only).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import streamlit as st

__all__ = ["NAME", "Address", "lan_ip", "public_url", "where"]

NAME = "HOGRAD_PUBLIC_URL"
MAX_URL = 200  # characters of a configured address read at all

#: what the lecturer is told about the link's address (translation keys of this lab; "" for
#: nothing to say: a configured or a public address)
LOOPBACK = "classroom.address.loopback"  # the browser's was loopback: the local network's used
PRIVATE = "classroom.address.private"  # a private address: only devices on that network
UNREACHABLE = "classroom.address.unreachable"  # loopback, and no other address to offer


def _clean(value: object) -> str | None:
    """An http(s) address with a host, without its query, fragment and trailing slash."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_URL:
        return None
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    path = parts.path.rstrip("/")
    path = path.removesuffix("/lesson")
    return f"{parts.scheme}://{parts.netloc}{path}"


def public_url() -> str | None:
    """``HOGRAD_PUBLIC_URL`` from Streamlit's secrets, else the environment; None when neither
    holds an http(s) address."""
    if st.secrets.load_if_toml_exists():
        found = _clean(st.secrets.get(NAME))
        if found is not None:
            return found
    return _clean(os.environ.get(NAME))


def _kind(host: str) -> str:
    """ "loopback", "private" (a private, link-local or single-label name) or "public"."""
    if host in ("localhost",) or host.endswith(".localhost"):
        return "loopback"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return "private" if "." not in host or host.endswith((".local", ".lan")) else "public"
    if ip.is_loopback or ip.is_unspecified:
        return "loopback"
    return "private" if ip.is_private or ip.is_link_local else "public"


def lan_ip() -> str | None:
    """This machine's address on its local network: the source address the system would use
    to reach an outside address (a UDP socket that connects sends nothing), or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1 (RFC 5737): routed, never answered
            ip = s.getsockname()[0]
    except OSError:
        return None
    return None if ipaddress.ip_address(ip).is_loopback else ip


@dataclass(frozen=True)
class Address:
    base: str  # scheme, host, port (and a path prefix), no trailing slash
    note: str  # a translation key to tell the lecturer, or "" (nothing to say)
    shown: str  # the browser's address, for the note


def where(browser_url: str, listens: str | None) -> Address:
    """The base address of the class link. ``browser_url``: the lecturer's page address
    (``st.context.url``); ``listens``: the server's ``server.address`` option (None or "" when
    it listens on every interface)."""
    configured = public_url()
    if configured is not None:
        return Address(configured, "", "")
    parts = urlsplit(browser_url or "")
    host = parts.hostname or "localhost"
    base = f"{parts.scheme or 'http'}://{parts.netloc or host}"
    kind = _kind(host)
    if kind == "public":
        return Address(base, "", "")
    if kind == "private":
        return Address(base, PRIVATE, base)
    ip = lan_ip()
    if ip is None or (listens and _kind(listens) == "loopback"):
        return Address(base, UNREACHABLE, base)
    port = f":{parts.port}" if parts.port else ""
    return Address(f"{parts.scheme or 'http'}://{ip}{port}", LOOPBACK, base)
