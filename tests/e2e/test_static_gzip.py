"""A real server started as `make run` starts it sends Streamlit's bundles gzipped, and the app
still opens (an HTTP check: no browser needed).

The oracle for the bytes is the same server's uncompressed answer to a client that does not
accept gzip; "opens" is hograd_serving.health's probe: the home page's script run over the
websocket, as a browser asks for it.
"""

from __future__ import annotations

import gzip
import re
import urllib.request

from hograd_serving.health import probe
from tests.e2e.conftest import running_server


def _get(url: str, accept: str | None) -> tuple[dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Accept-Encoding": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=60) as resp:
        return {k.lower(): v for k, v in resp.headers.items()}, resp.read()


def test_the_served_bundles_are_gzipped_and_the_app_opens() -> None:
    with running_server("gzip") as url:
        _, html = _get(f"{url}/", "gzip")
        bundles = re.findall(rb'(?:src|href)="\.?/?(static/(?:js|css)/[^"]+\.(?:js|css))"', html)
        assert bundles, html[:500]
        for bundle in sorted(set(bundles))[:4]:
            headers, body = _get(f"{url}/{bundle.decode()}", "gzip, deflate, br")
            assert headers.get("content-encoding") == "gzip", (bundle, headers)
            plain_headers, plain = _get(f"{url}/{bundle.decode()}", None)
            assert "content-encoding" not in plain_headers
            assert gzip.decompress(body) == plain
        assert probe(url, timeout=120) is None
