#!/usr/bin/env bash
# The deployment kit's light checks, about a minute (.ci/run runs them; they install what they use from Debian's
# packages and the npm registry):
#   promtool check rules / test rules / check config on the alert rules and both Prometheus configurations
#   the Kubernetes manifests against the Kubernetes OpenAPI schemas and ForgeFlow's rules (deploy/kubernetes/validate)
#   compose.yaml: valid for the Compose schema (Debian's docker-compose, which needs no daemon for this), it refuses
#   to start without FORGEFLOW_SECRETS_DIR, the files it mounts exist, and every node runs with least privilege
#   (no capability but a root worker's SETUID, SETGID, KILL and SYS_ADMIN, a read-only root, no-new-privileges,
#   its secrets as files)
# The full test of the compose stack is scripts/compose-smoke.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/podman-env.sh
command -v promtool >/dev/null 2>&1 || ff_need_packages prometheus
{ command -v node && command -v npm; } >/dev/null 2>&1 || ff_need_packages nodejs npm
command -v docker-compose >/dev/null 2>&1 || ff_need_packages docker-compose

echo "--- Prometheus: alert rules and configuration"
promtool check rules docs/forgeflow-alerts.yml
promtool test rules deploy/prometheus/forgeflow-alerts.test.yml
# the compose stack's configuration, laid out as compose.yaml mounts it into /etc/prometheus
etc=$(mktemp -d)
trap 'rm -rf "$etc"' EXIT
cp deploy/prometheus/prometheus.yml docs/forgeflow-alerts.yml "$etc/"
promtool check config "$etc/prometheus.yml"
# the example for a cluster: its rule file beside it; its token file is the operator's, so syntax only for the rest
promtool check config --syntax-only docs/prometheus.yml
grep -q '^  - forgeflow-alerts.yml' docs/prometheus.yml && [ -f docs/forgeflow-alerts.yml ]

echo "--- Kubernetes manifests"
(cd deploy/kubernetes/validate && npm ci --no-audit --no-fund --loglevel=error >/dev/null && node validate.mjs ..)

echo "--- compose.yaml"
python3 - <<'PY'
import re, sys, os
text = open("compose.yaml").read()
missing = [m for m in re.findall(r"^\s+- \./([^:]+):", text, re.M) if not os.path.exists(m)]
if missing:
    sys.exit("compose.yaml mounts files that do not exist: " + ", ".join(missing))
print("compose.yaml: every mounted file exists")
PY
FORGEFLOW_SECRETS_DIR=/check docker-compose -f compose.yaml config -q
echo "compose.yaml: valid for the Compose schema"
if env -u FORGEFLOW_SECRETS_DIR docker-compose -f compose.yaml config -q 2>/dev/null; then
  echo "compose.yaml starts without FORGEFLOW_SECRETS_DIR: its nodes would have no secrets" >&2
  exit 1
fi
echo "compose.yaml: refuses to start without FORGEFLOW_SECRETS_DIR"
FORGEFLOW_SECRETS_DIR=/check docker-compose -f compose.yaml config | python3 -c '
import sys, yaml
services = yaml.safe_load(sys.stdin)["services"]
problems = []
for name, service in services.items():
    if "forgeflow" not in service.get("image", "") or service.get("build") is None:
        continue  # the nodes are the services built from the Dockerfile
    env = service.get("environment") or {}
    roles = env.get("FORGEFLOW_ROLES", "api,scheduler,worker")
    user = str(service.get("user", "10001"))
    added = set(service.get("cap_add") or [])
    if "ALL" not in (service.get("cap_drop") or []):
        problems.append(f"{name}: cap_drop must be [ALL]")
    if service.get("read_only") is not True:
        problems.append(f"{name}: read_only must be true")
    if "no-new-privileges:true" not in (service.get("security_opt") or []):
        problems.append(f"{name}: security_opt must hold no-new-privileges:true")
    if user.split(":")[0] in ("0", "root"):
        if "worker" not in roles or env.get("FORGEFLOW_JOB_USER") in (None, "", "root"):
            problems.append(f"{name}: root only for a worker whose FORGEFLOW_JOB_USER is another user")
        if added - {"SETUID", "SETGID", "KILL", "SYS_ADMIN"}:
            problems.append(f"{name}: a root worker adds only SETUID, SETGID, KILL, SYS_ADMIN, not {sorted(added)}")
    elif added:
        problems.append(f"{name}: a non-root node gets no capability, not {sorted(added)}")
    for variable in ("FORGEFLOW_DATABASE_URL", "FORGEFLOW_API_TOKENS"):
        if variable in env:
            problems.append(f"{name}: {variable} in the environment: use {variable}_FILE and a compose secret")
        secrets = [s if isinstance(s, str) else s.get("source") for s in service.get("secrets") or []]
        path = env.get(variable + "_FILE", "")
        if not path.startswith("/run/secrets/") or path[len("/run/secrets/"):] not in secrets:
            problems.append(f"{name}: {variable}_FILE must name one of its compose secrets under /run/secrets")
if problems:
    sys.exit("compose.yaml:\n  " + "\n  ".join(problems))
print("compose.yaml: every node runs with least privilege, its secrets as files")
'
echo "deployment checks: passed"
