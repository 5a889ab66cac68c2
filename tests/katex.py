"""LaTeX checked by the KaTeX that Streamlit's front end ships (the one that draws st.latex in
the browser), run with Node: the errors it raises where the browser would show red text."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import streamlit

#: Streamlit's own KaTeX bundle (an ES module), found by name: its hash changes per release.
BUNDLES = sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("katex.*.js"))

_SCRIPT = """
const katex = (await import(process.argv[2])).default;
const texts = JSON.parse(require("fs").readFileSync(0, "utf8"));
const errors = {};
for (const tex of texts) {
  try { katex.renderToString(tex, {throwOnError: true, displayMode: true}); }
  catch (err) { errors[tex] = err.message; }
}
console.log(JSON.stringify(errors));
"""


def katex_errors(texts: list[str], tmp: Path) -> dict[str, str]:
    """{tex: KaTeX's message} for every text of ``texts`` that KaTeX refuses."""
    node = shutil.which("node")
    if node is None or len(BUNDLES) != 1:
        if os.environ.get("CI") == "true":
            raise AssertionError(f"node ({node}) and one KaTeX bundle ({BUNDLES}) are needed")
        pytest.skip("Node.js or Streamlit's KaTeX bundle is missing")
    bundle = tmp / "katex.mjs"  # Node reads a .js file outside a package as CommonJS
    bundle.write_bytes(BUNDLES[0].read_bytes())
    script = tmp / "check.cjs"
    script.write_text("(async () => {" + _SCRIPT + "})();", "utf-8")
    done = subprocess.run(
        [node, str(script), bundle.as_uri()],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(done.stdout)
