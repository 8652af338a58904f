#!/usr/bin/env bash
# The deployment kit's light checks, about a minute (.ci/run runs them; they install what they use from Debian's
# packages and the npm registry):
#   promtool check rules / test rules / check config on the alert rules and both Prometheus configurations
#   the Kubernetes manifests against the Kubernetes OpenAPI schemas and ForgeFlow's rules (deploy/kubernetes/validate)
#   compose.yaml: valid for the Compose schema (Debian's docker-compose, which needs no daemon for this), it refuses
#   to start without FORGEFLOW_ADMIN_TOKEN, and the files it mounts exist
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
FORGEFLOW_ADMIN_TOKEN=check docker-compose -f compose.yaml config -q
echo "compose.yaml: valid for the Compose schema"
if env -u FORGEFLOW_ADMIN_TOKEN docker-compose -f compose.yaml config -q 2>/dev/null; then
  echo "compose.yaml starts without FORGEFLOW_ADMIN_TOKEN: its nodes would listen without a token" >&2
  exit 1
fi
echo "compose.yaml: refuses to start without FORGEFLOW_ADMIN_TOKEN"
echo "deployment checks: passed"
