"""deploy/kubernetes.yaml, checked without kubectl: the file is YAML in its JSON-compatible
flow style, so each document reads with ``json``; every field the manifest uses has the type
Kubernetes' schema gives it, and the parts point at each other (labels, ports, the Secret,
the probe the Dockerfile runs)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "deploy" / "kubernetes.yaml"

#: The fields the manifest uses, by kind: a dotted path (``[]`` for each item of a list) and
#: its type in Kubernetes' API (apps/v1 Deployment, v1 Service, gateway.networking.k8s.io/v1
#: HTTPRoute). A field of the file outside this table fails the test, so a new one gets a type.
SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "Deployment": {
        "apiVersion": str,
        "kind": str,
        "metadata.name": str,
        "spec.replicas": int,
        "spec.selector.matchLabels.app": str,
        "spec.template.metadata.labels.app": str,
        "spec.template.spec.containers[].name": str,
        "spec.template.spec.containers[].image": str,
        "spec.template.spec.containers[].ports[].containerPort": int,
        "spec.template.spec.containers[].env[].name": str,
        "spec.template.spec.containers[].env[].valueFrom.secretKeyRef.name": str,
        "spec.template.spec.containers[].env[].valueFrom.secretKeyRef.key": str,
        **{
            f"spec.template.spec.containers[].{probe}.{field}": kind
            for probe in ("readinessProbe", "livenessProbe")
            for field, kind in (
                ("exec.command[]", str),
                ("httpGet.path", str),
                ("httpGet.port", int),
                ("initialDelaySeconds", int),
                ("periodSeconds", int),
                ("timeoutSeconds", int),
                ("failureThreshold", int),
            )
        },
        "spec.template.spec.containers[].resources.requests.cpu": str,
        "spec.template.spec.containers[].resources.requests.memory": str,
        "spec.template.spec.containers[].resources.limits.memory": str,
    },
    "Service": {
        "apiVersion": str,
        "kind": str,
        "metadata.name": str,
        "spec.selector.app": str,
        "spec.ports[].port": int,
        "spec.ports[].targetPort": int,
    },
    "HTTPRoute": {
        "apiVersion": str,
        "kind": str,
        "metadata.name": str,
        "spec.parentRefs[].name": str,
        "spec.rules[].backendRefs[].name": str,
        "spec.rules[].backendRefs[].port": int,
        "spec.rules[].sessionPersistence.sessionName": str,
        "spec.rules[].sessionPersistence.type": str,
    },
}
API = {"Deployment": "apps/v1", "Service": "v1", "HTTPRoute": "gateway.networking.k8s.io/v1"}
QUANTITY = re.compile(r"\d+(\.\d+)?(m|Ki|Mi|Gi)?")


def documents(text: str) -> list[dict]:
    """The file's YAML documents, each read as JSON (whole-line comments left out)."""
    parts = re.split(r"^---\s*$", text, flags=re.M)
    kept = [
        "\n".join(ln for ln in p.splitlines() if not ln.lstrip().startswith("#")) for p in parts
    ]
    return [json.loads(p) for p in kept if p.strip()]


def leaves(value: object, path: str = "") -> list[tuple[str, object]]:
    if isinstance(value, dict):
        return [kv for k, v in value.items() for kv in leaves(v, f"{path}.{k}" if path else k)]
    if isinstance(value, list):
        return [kv for item in value for kv in leaves(item, f"{path}[]")]
    return [(path, value)]


@pytest.fixture(scope="module")
def docs() -> dict[str, dict]:
    found = documents(MANIFEST.read_text(encoding="utf-8"))
    assert [d["kind"] for d in found] == ["Deployment", "Service", "HTTPRoute"]
    return {d["kind"]: d for d in found}


def test_every_field_has_its_schema_type(docs: dict[str, dict]) -> None:
    for kind, doc in docs.items():
        assert doc["apiVersion"] == API[kind]
        for path, value in leaves(doc):
            assert path in SCHEMA[kind], f"{kind}: {path} is not in the schema table"
            want = SCHEMA[kind][path]
            # bool is an int in Python, never in Kubernetes
            assert isinstance(value, want) and not isinstance(value, bool), (kind, path, value)


def test_the_parts_point_at_each_other(docs: dict[str, dict]) -> None:
    deployment, service, route = docs["Deployment"], docs["Service"], docs["HTTPRoute"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert service["spec"]["selector"].items() <= labels.items()
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    ports = {p["containerPort"] for p in container["ports"]}
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= ports
    backends = [b for rule in route["spec"]["rules"] for b in rule["backendRefs"]]
    service_ports = {p["port"] for p in service["spec"]["ports"]}
    assert backends and all(b["name"] == service["metadata"]["name"] for b in backends)
    assert {b["port"] for b in backends} <= service_ports
    assert deployment["spec"]["replicas"] >= 2  # affinity matters only with replicas
    for rule in route["spec"]["rules"]:
        assert rule["sessionPersistence"]["type"] == "Cookie"
    for quantity in leaves(container["resources"]):
        assert QUANTITY.fullmatch(quantity[1]), quantity


def test_the_container_runs_what_the_dockerfile_does(docs: dict[str, dict]) -> None:
    (container,) = docs["Deployment"]["spec"]["template"]["spec"]["containers"]
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    port = container["ports"][0]["containerPort"]
    assert f"EXPOSE {port}" in dockerfile and f"--server.port {port}" in dockerfile
    ready = container["readinessProbe"]["httpGet"]  # the server's own answer, no process
    assert ready == {"path": "/_hograd/health", "port": port}
    command = container["livenessProbe"]["exec"]["command"]
    assert command[:3] == ["python", "-m", "hograd_serving.health"]
    assert importlib.util.find_spec(command[2]) is not None
    assert command[3] == f"http://127.0.0.1:{port}"
    timeout = float(command[command.index("--timeout") + 1])
    assert container["livenessProbe"]["timeoutSeconds"] > timeout  # the probe answers first
    # the image's own HEALTHCHECK runs the same probe; liveness lets a warming server be
    healthcheck = dockerfile.split("HEALTHCHECK", 1)[1].split("CMD", 1)[1].split("\n#", 1)[0]
    image = json.loads(healthcheck.replace("\\\n", " ").strip())
    assert [c for c in command if c != "--warming-ok"] == image and "--warming-ok" in command
    (secret,) = container["env"]
    assert secret["name"] == "STREAMLIT_SERVER_COOKIE_SECRET"  # the same on every replica


def test_the_guide_points_at_the_file_and_tells_how_to_make_the_secret(
    docs: dict[str, dict],
) -> None:
    guide = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Kubernetes") :]
    assert "deploy/kubernetes.yaml" in section
    ref = docs["Deployment"]["spec"]["template"]["spec"]["containers"][0]["env"][0]
    key = ref["valueFrom"]["secretKeyRef"]
    assert f"kubectl create secret generic {key['name']}" in section
    assert f"--from-literal={key['key']}=" in section
