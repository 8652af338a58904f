#!/usr/bin/env bash
# End-to-end check of compose.yaml with podman-compose, on loopback ports, on a machine with no Docker and no image
# registry (installs the Debian packages it needs; builds the images with scripts/build-images.sh):
#   1. PostgreSQL, the api + scheduler node, three workers and Prometheus start; the three workers register; the
#      health checks of PostgreSQL and the five nodes pass (run with `podman healthcheck run`: no systemd for timers)
#   2. the README's first job runs and succeeds
#   3. a worker container is killed with SIGKILL during `sleep 8 && echo survived`; the run finishes on another worker
#   4. Prometheus scraped the nodes: forgeflow_runs_total counts the successes, and the alert rules are loaded
# Then everything is torn down (containers, network, volume), also on failure. Grafana has no Debian package, so it
# starts only when FORGEFLOW_GRAFANA_IMAGE names an image that podman already has.
# Takes 5-15 minutes on 2 busy cores (the first time, building the images takes most of it).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/podman-env.sh
ff_podman_env

bash scripts/build-images.sh "$@"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export FORGEFLOW_IMAGE=localhost/forgeflow:latest
export FORGEFLOW_POSTGRES_IMAGE=localhost/forgeflow-postgres:15
export FORGEFLOW_PROMETHEUS_IMAGE=localhost/forgeflow-prometheus:latest
FORGEFLOW_ADMIN_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
FORGEFLOW_DB_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
FORGEFLOW_API_PORT=$(free_port)
FORGEFLOW_PROMETHEUS_PORT=$(free_port)
FORGEFLOW_GRAFANA_PORT=$(free_port)
export FORGEFLOW_ADMIN_TOKEN FORGEFLOW_DB_PASSWORD FORGEFLOW_API_PORT FORGEFLOW_PROMETHEUS_PORT FORGEFLOW_GRAFANA_PORT
project="forgeflow-smoke-$$"
compose() { podman-compose --project-name "$project" -f compose.yaml "$@"; }
services=(postgres api worker-1 worker-2 worker-3 prometheus)
if [ -n "${FORGEFLOW_GRAFANA_IMAGE:-}" ] && podman image exists "$FORGEFLOW_GRAFANA_IMAGE"; then services+=(grafana); fi

passed=0
failed=0
volumes_before=$(podman volume ls -q)
teardown() {
  local rc=$?
  echo "--- tearing down $project"
  if [ "$rc" -ne 0 ]; then
    for c in $(podman ps -a --filter "label=io.podman.compose.project=$project" --format '{{.Names}}'); do
      echo "--- last log lines of $c"; podman logs --tail 15 "$c" 2>&1 | sed 's/^/    /' || true
    done
  fi
  [ -z "${events_pid:-}" ] || kill "$events_pid" 2>/dev/null || true
  # rm -v: the containers' anonymous volumes (the images' VOLUME folders) go with them
  podman ps -a -q --filter "label=io.podman.compose.project=$project" | xargs -r podman rm -f -v -t 5 >/dev/null 2>&1 || true
  compose down --volumes >/dev/null 2>&1 || true
  podman volume ls -q | grep "^${project}_" | xargs -r podman volume rm -f >/dev/null 2>&1 || true
  # anonymous volumes that this run left unused (a killed and restarted container may leave one)
  for v in $(podman volume ls -q --filter dangling=true); do
    grep -qx "$v" <<<"$volumes_before" || podman volume rm -f "$v" >/dev/null 2>&1 || true
  done
  podman network ls -q | grep "^${project}_" | xargs -r podman network rm -f >/dev/null 2>&1 || true
  [ "$rc" -ne 0 ] && failed=$((failed + 1))
  echo "compose smoke: ${passed} passed, ${failed} failed"
  exit "$rc"
}
trap teardown EXIT

api="http://127.0.0.1:${FORGEFLOW_API_PORT}"
prom="http://127.0.0.1:${FORGEFLOW_PROMETHEUS_PORT}"
auth=(-H "Authorization: Bearer ${FORGEFLOW_ADMIN_TOKEN}")
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }
# json EXPR: evaluates a Python expression over the JSON on stdin (bound to j)
json() { python3 -c "import json, sys; j = json.load(sys.stdin); print($1)"; }
wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...: until COMMAND succeeds
  local deadline=$((SECONDS + $1)) what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || fail "$what (gave up after ${deadline}s of the run)"
    sleep 2
  done
}
run_field() { curl -fsS "${auth[@]}" "$api/api/runs/$1" | json "$2"; }
run_is() { [ "$(run_field "$1" "j['status']")" = "$2" ]; }
has_runs() { curl -fsS "${auth[@]}" "$api/api/runs?job_id=$1" | json "j['items'][0]['id']"; }
submit() { # submit NAME COMMAND: prints the id of the job's first run
  local job
  job=$(curl -fsS "${auth[@]}" -X POST "$api/api/jobs" -H 'Content-Type: application/json' \
    -d "{\"name\": \"$1\", \"executor\": \"shell\", \"payload\": {\"command\": \"$2\"}}" | json "j['id']")
  wait_for 60 "a run of job $job" has_runs "$job"
  has_runs "$job"
}
events_pid=""
live_workers() { curl -fsS "${auth[@]}" "$api/api/nodes" | json "sum(1 for n in j['items'] if 'worker' in n['roles'] and n['status'] == 'live')"; }
workers_at_least() { [ "$(live_workers)" -ge "$1" ]; }
# increase() rather than the counters' sum: the killed worker's counters restart from 0 with its container
succeeded_total() { curl -fsS "$prom/api/v1/query" --data-urlencode 'query=sum(increase(forgeflow_runs_total{status="succeeded"}[1h]))' | json "round(float(j['data']['result'][0]['value'][1]), 1) if j['data']['result'] else 0"; }
succeeded_at_least() { python3 -c "import sys; sys.exit(0 if $(succeeded_total) >= $1 else 1)"; }

volumes_before=$(podman volume ls -q)
echo "--- starting ${services[*]} as $project (API on $api, Prometheus on $prom)"
# the named volume made beforehand, labelled as podman-compose labels it: podman-compose 1.0.3 otherwise runs `podman
# volume inspect` first and prints its "no such volume" error before it creates the volume
podman volume create --label "io.podman.compose.project=$project" "${project}_pgdata" >/dev/null
# Without systemd (these machines), podman cannot start the timers of the images' and compose.yaml's health checks
# and logs "unable to get systemd connection" for every container: those lines (and conmon's syslog complaint) are
# filtered out here, the rest of podman's errors shown. The checks themselves are run below with `podman healthcheck
# run`. Debian's podman-compose 1.0.3 also ignores depends_on's service_healthy: a node that starts before PostgreSQL
# accepts connections exits, and `restart: on-failure` starts it again.
up_errors=$(mktemp)
compose up -d "${services[@]}" >/dev/null 2>"$up_errors" || { cat "$up_errors" >&2; fail "podman-compose up"; }
grep -v -E 'unable to get systemd connection to (add|start) healthchecks|^failed to connect to syslog' "$up_errors" >&2 || true
timer_errors=$(grep -c 'unable to get systemd connection' "$up_errors" || true)
[ "$timer_errors" -eq 0 ] || echo "--- (podman logged $timer_errors systemd health-check timer errors: no systemd here, the checks run on demand below)"
rm -f "$up_errors"
wait_for 300 "the api node answers /readyz" curl -fsS "$api/readyz"
wait_for 300 "three workers registered" workers_at_least 3
ok "the stack is up: api ready, $(live_workers) workers registered"

# the health checks (the node image's HEALTHCHECK on /healthz, compose.yaml's pg_isready), run on demand
unhealthy=() checked=0
for c in $(podman ps --filter "label=io.podman.compose.project=$project" --format '{{.Names}}'); do
  [ -n "$(podman inspect --format '{{if .Config.Healthcheck}}yes{{end}}' "$c")" ] || continue
  checked=$((checked + 1))
  deadline=$((SECONDS + 60))
  until podman healthcheck run "$c" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || { unhealthy+=("$c"); break; }
    sleep 2
  done
done
[ "${#unhealthy[@]}" -eq 0 ] || fail "health check failing for 60 s: ${unhealthy[*]}"
[ "$checked" -ge 5 ] || fail "only $checked containers have a health check (postgres, api and three workers should)"
ok "health checks pass in ${checked} containers (postgres, api, workers)"

hello=$(submit hello 'echo hello from forgeflow')
wait_for 120 "the README's first job succeeds" run_is "$hello" succeeded
[ "$(run_field "$hello" "j['output'].strip()")" = "hello from forgeflow" ] || fail "hello's output: $(run_field "$hello" "j['output']")"
ok "the README's first job succeeded with its output"

# which container is which worker, known before the run starts: after it starts, 8 seconds must be enough to kill it
declare -A container_of
for c in $(podman ps --filter "label=io.podman.compose.project=$project" --format '{{.Names}}'); do
  container_of[$(podman inspect --format '{{.Config.Hostname}}' "$c")]=$c
done
# the run's start is seen on the event stream (polling could miss an 8-second run on a busy machine)
events=$(mktemp)
curl -sN "${auth[@]}" "$api/api/events" > "$events" &
events_pid=$!
survivor_job=$(curl -fsS "${auth[@]}" -X POST "$api/api/jobs" -H 'Content-Type: application/json' \
  -d '{"name": "survivor", "executor": "shell", "payload": {"command": "sleep 8 && echo survived"}}' | json "j['id']")
started() { grep '^data:' "$events" | grep "\"job_id\":\"$survivor_job\"" | grep -m1 '"status":"running"'; }
deadline=$((SECONDS + 120))
until started >/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the sleep job's run started (no running event in 120 s)"
  sleep 0.2
done
holder=$(started | sed -n 's/.*"worker_id":"\([^"]*\)".*/\1/p')
victim=${container_of[${holder%-*-*}]:-}
[ -n "$victim" ] && podman kill --signal KILL "$victim" >/dev/null
killed_at=$SECONDS
survivor=$(started | sed -n 's/.*"run_id":"\([^"]*\)".*/\1/p')
kill "$events_pid" 2>/dev/null; events_pid=""
rm -f "$events"
[ -n "$victim" ] || fail "no container of $project runs worker $holder"
echo "--- killed $victim (worker $holder) with SIGKILL; waiting for the lease to expire and another worker to finish the run"
wait_for 240 "the killed worker's run finishes elsewhere" run_is "$survivor" succeeded
[ "$(run_field "$survivor" "j['output'].strip()")" = "survived" ] || fail "survivor's output: $(run_field "$survivor" "j['output']")"
story=$(run_field "$survivor" "'; '.join(a['worker_id'] + ' ' + a['outcome'] for a in j['attempts'])")
run_field "$survivor" "[a for a in j['attempts'] if a['worker_id'] == '$holder'][0]['outcome']" | grep -qx lease_expired \
  || fail "the killed worker's attempt was not recovered as lease_expired: $story"
[ "$(run_field "$survivor" "j['attempts'][-1]['worker_id']")" != "$holder" ] || fail "the run finished on the killed worker: $story"
ok "the run survived SIGKILL of its worker in $((SECONDS - killed_at)) s: $story"

wait_for 120 "Prometheus counts both successes in forgeflow_runs_total" succeeded_at_least 2
rules=$(curl -fsS "$prom/api/v1/rules" | json "sum(len(g['rules']) for g in j['data']['groups'])")
[ "$rules" -eq 5 ] || fail "Prometheus loaded $rules alert rules, expected the 5 of docs/forgeflow-alerts.yml"
ok "Prometheus scraped forgeflow_runs_total (succeeded: $(succeeded_total)) and loaded $rules alert rules"
