#!/usr/bin/env bash
# End-to-end check of compose.yaml with podman-compose, on loopback ports, on a machine with no Docker and no image
# registry (installs the Debian packages it needs; builds the images with scripts/build-images.sh):
#   1. PostgreSQL, the api + scheduler node, three workers and Prometheus start; the three workers register; the
#      health checks of PostgreSQL and the five nodes pass (run with `podman healthcheck run`: no systemd for timers)
#   2. the README's first job runs and succeeds
#   3. a worker container is killed with SIGKILL during `sleep 8 && echo survived`; the run finishes on another worker
#   4. Prometheus scraped the nodes: forgeflow_runs_total counts the successes, and the alert rules are loaded
#   5. the protected setup as shipped: /api/nodes says every worker holds its jobs in a PID namespace as forgeflow-job;
#      a shell job that reads /proc/<node pid>/environ, walks /proc, reads the secret files and leaves its process
#      group (setsid, setsid -f, a double fork) runs as uid 10002, sees no secret, and leaves no process behind
#   6. the image as it is (uid 10001, no capability), started beside the stack (whose workers it pauses): it
#      reports process-group and no job user, warns that its jobs can read its secret files, and its job runs as
#      10001 and cannot read the node's /proc/<pid>/environ (the non-dumpable node)
#   7. a worker with the Kubernetes manifest's privileges (uid 0, SETUID, SETGID, KILL, no SYS_ADMIN): it reports
#      process-group and forgeflow-job, its job runs as 10002 without capabilities and cannot read the secret files,
#      and a cancelled job of that user ends (CAP_KILL)
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
# the secret files, as README says: root:10001, mode 0440 (compose-secrets.sh needs root, as this script does)
FORGEFLOW_SECRETS_DIR=$(mktemp -d)/secrets
FORGEFLOW_ADMIN_TOKEN=$(bash scripts/compose-secrets.sh "$FORGEFLOW_SECRETS_DIR")
db_password=$(cat "$FORGEFLOW_SECRETS_DIR/db-password")
FORGEFLOW_API_PORT=$(free_port)
FORGEFLOW_PROMETHEUS_PORT=$(free_port)
FORGEFLOW_GRAFANA_PORT=$(free_port)
export FORGEFLOW_SECRETS_DIR FORGEFLOW_API_PORT FORGEFLOW_PROMETHEUS_PORT FORGEFLOW_GRAFANA_PORT
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
  rm -rf "$(dirname "$FORGEFLOW_SECRETS_DIR")"
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
submit() { # submit NAME COMMAND [QUEUE]: prints the id of the job's first run
  local job body
  body=$(python3 -c 'import json, sys; print(json.dumps({"name": sys.argv[1], "executor": "shell", "queue": sys.argv[3],
    "payload": {"command": sys.argv[2]}}))' "$1" "$2" "${3:-default}")
  job=$(curl -fsS "${auth[@]}" -X POST "$api/api/jobs" -H 'Content-Type: application/json' -d "$body" | json "j['id']")
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

targets() { curl -fsS "$prom/api/v1/targets" | json "'; '.join(t['labels']['node'] + ' ' + t['health'] + ' ' + t['lastError'] for t in j['data']['activeTargets'])"; }
( wait_for 120 "Prometheus counts both successes in forgeflow_runs_total" succeeded_at_least 2 ) \
  || fail "Prometheus: succeeded $(succeeded_total); its targets: $(targets)"
rules=$(curl -fsS "$prom/api/v1/rules" | json "sum(len(g['rules']) for g in j['data']['groups'])")
[ "$rules" -eq 5 ] || fail "Prometheus loaded $rules alert rules, expected the 5 of docs/forgeflow-alerts.yml"
ok "Prometheus scraped forgeflow_runs_total (succeeded: $(succeeded_total)) and loaded $rules alert rules"

# --- 5. the protected setup as shipped: what the workers report, and what a hostile job can do
node_report() { curl -fsS "${auth[@]}" "$api/api/nodes" | json "sorted(set(n['containment'] + '/' + str(n['job_user']) for n in j['items'] if 'worker' in n['roles'] and n['status'] == 'live' and n['worker_id'].split('-')[0] != 'plain'))"; }
report=$(node_report)
[ "$report" = "['pid-namespace/forgeflow-job']" ] || fail "the workers report containment/job user $report, not pid-namespace/forgeflow-job"
workers=$(podman ps --filter "label=io.podman.compose.project=$project" --format '{{.Names}}' | grep worker)
node_pids=$(for c in $workers; do podman top "$c" pid args | awk '/java/ {print $1}'; done | sort -u | tr '\n' ' ')
[ -n "$node_pids" ] || fail "no node process found in the worker containers"
# what it tries: the node's environment by pid (as the worker containers number it) and as its parent, every
# process's environment and command line, the secret files; then three ways out of its process group
probe="id; grep -E '^Cap(Eff|Prm):' /proc/self/status; for p in $node_pids \$PPID; do echo \"environ of \$p:\"; tr '\\0' ' ' < /proc/\$p/environ; echo; done
for p in /proc/[0-9]*; do tr '\\0' ' ' < \$p/environ; tr '\\0' ' ' < \$p/cmdline; echo; done 2>/dev/null
for f in /run/secrets/* /proc/1/root/run/secrets/*; do echo \"file \$f:\"; cat \"\$f\"; echo; done
setsid sleep 3001 & setsid -f sleep 3002; (sh -c 'sleep 3003 &' &); echo escaped"
probe_run=$(submit probe "$probe")
wait_for 120 "the probe job ends" run_is "$probe_run" succeeded
probe_out=$(run_field "$probe_run" "j['output']")
grep -q 'uid=10002(forgeflow-job)' <<<"$probe_out" || fail "the probe job did not run as forgeflow-job: $probe_out"
grep -q '^escaped' <<<"$probe_out" || fail "the probe job did not reach its end: $probe_out"
[ "$(grep -cE '^Cap(Eff|Prm):[[:space:]]+0+$' <<<"$probe_out")" -eq 2 ] || fail "the probe job holds capabilities: $probe_out"
for secret in "$FORGEFLOW_ADMIN_TOKEN" "$db_password"; do
  if grep -qF "$secret" <<<"$probe_out"; then fail "the probe job read a secret of its node: $probe_out"; fi
done
if grep -q 'FORGEFLOW_DATABASE_URL\|FORGEFLOW_API_TOKENS' <<<"$probe_out"; then fail "the probe job saw a secret variable: $probe_out"; fi
[ "$(grep -c 'Permission denied' <<<"$probe_out")" -ge 2 ] || fail "the secret files were not refused with 'Permission denied': $probe_out"
escaped() { for c in $workers; do podman top "$c" args; done | grep -E 'sleep 300[123]'; }
deadline=$((SECONDS + 10))
while escaped >/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || fail "processes outlived the probe job by 10 s: $(escaped)"
  sleep 0.5
done
ok "a hostile job ran as forgeflow-job with no capability in a PID namespace: no secret in its output (environ of ${node_pids}and its parent, /proc, the secret files denied), nothing left of its setsid, setsid -f and double fork"

# --- 6. the image as it is: uid 10001, no capability, beside the stack as a worker of queue "plain"; the stack's
# workers take every queue, so they are paused (SIGSTOP, podman pause) while its job runs
network=$(podman network ls -q | grep "^${project}_" | head -1)
plain="${project}_plain"
podman run -d --name "$plain" --hostname plain --label "io.podman.compose.project=$project" --network "$network" \
  --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges \
  -v "$FORGEFLOW_SECRETS_DIR/database-url:/run/secrets/database-url:ro" \
  -v "$FORGEFLOW_SECRETS_DIR/api-tokens:/run/secrets/api-tokens:ro" \
  -e FORGEFLOW_DATABASE_URL_FILE=/run/secrets/database-url -e FORGEFLOW_API_TOKENS_FILE=/run/secrets/api-tokens \
  -e FORGEFLOW_ROLES=worker -e FORGEFLOW_QUEUES=plain "$FORGEFLOW_IMAGE" >/dev/null 2> >(grep -v 'systemd' >&2)
plain_report() { curl -fsS "${auth[@]}" "$api/api/nodes" | json "[n['containment'] + '/' + str(n['job_user']) for n in j['items'] if n['worker_id'].startswith('plain-') and n['status'] == 'live'][0]"; }
wait_for 180 "the image's default worker registers" plain_report
[ "$(plain_report)" = "process-group/None" ] || fail "the image's default worker reports $(plain_report), not process-group and no job user"
plain_log=$(podman logs "$plain" 2>&1)  # whole, then grep: grep -q would end podman logs with SIGPIPE (pipefail)
grep -q 'WARNING: FORGEFLOW_DATABASE_URL_FILE=/run/secrets/database-url: this worker runs as uid 10001' <<<"$plain_log" \
  || fail "the image's default worker did not warn that its jobs can read its secret files"
plain_pid=$(podman top "$plain" pid args | awk '/java/ {print $1}')
# shellcheck disable=SC2086
podman pause $workers >/dev/null
plain_run=$(submit plain-probe "id -u; if tr '\\0' ' ' < /proc/$plain_pid/environ; then echo; else echo environ refused; fi" plain)
wait_for 120 "the plain probe job ends" run_is "$plain_run" succeeded
plain_out=$(run_field "$plain_run" "j['output']")
# shellcheck disable=SC2086
podman unpause $workers >/dev/null
[ "$(head -1 <<<"$plain_out")" = 10001 ] || fail "the image's default worker ran its job as $(head -1 <<<"$plain_out"), not 10001"
for secret in "$FORGEFLOW_ADMIN_TOKEN" "$db_password"; do
  if grep -qF "$secret" <<<"$plain_out"; then fail "a job of the image's default worker read the node's environment: $plain_out"; fi
done
grep -q '^environ refused' <<<"$plain_out" || fail "the node's /proc/$plain_pid/environ was not refused: $plain_out"
ok "the image as it is reports what it has (process-group, no job user), warns that its jobs can read its secret files, and its job (uid 10001) cannot read the non-dumpable node's /proc/$plain_pid"

# --- 7. the Kubernetes worker's privileges: uid 0 with SETUID, SETGID and KILL only (no SYS_ADMIN), fsGroup 10001
kube="${project}_kube"
podman run -d --name "$kube" --hostname kube --label "io.podman.compose.project=$project" --network "$network" \
  --user 0:0 --group-add 10001 --read-only --tmpfs /tmp --cap-drop ALL --cap-add SETUID,SETGID,KILL \
  --security-opt no-new-privileges \
  -v "$FORGEFLOW_SECRETS_DIR/database-url:/run/secrets/forgeflow/database-url:ro" \
  -v "$FORGEFLOW_SECRETS_DIR/api-tokens:/run/secrets/forgeflow/api-tokens:ro" \
  -e FORGEFLOW_DATABASE_URL_FILE=/run/secrets/forgeflow/database-url \
  -e FORGEFLOW_API_TOKENS_FILE=/run/secrets/forgeflow/api-tokens \
  -e FORGEFLOW_ROLES=worker -e FORGEFLOW_QUEUES=kube -e FORGEFLOW_JOB_USER=forgeflow-job \
  "$FORGEFLOW_IMAGE" >/dev/null 2> >(grep -v 'systemd' >&2)
kube_report() { curl -fsS "${auth[@]}" "$api/api/nodes" | json "[n['containment'] + '/' + str(n['job_user']) for n in j['items'] if n['worker_id'].startswith('kube-') and n['status'] == 'live'][0]"; }
wait_for 180 "the Kubernetes-like worker registers" kube_report
[ "$(kube_report)" = "process-group/forgeflow-job" ] || fail "the Kubernetes-like worker reports $(kube_report), not process-group/forgeflow-job"
# shellcheck disable=SC2086
podman pause $workers >/dev/null
kube_run=$(submit kube-probe "id -u; grep -E '^CapEff:' /proc/self/status; cat /run/secrets/forgeflow/*; echo end" kube)
wait_for 120 "the Kubernetes-like probe job ends" run_is "$kube_run" succeeded
kube_out=$(run_field "$kube_run" "j['output']")
[ "$(head -1 <<<"$kube_out")" = 10002 ] || fail "the Kubernetes-like worker ran its job as $(head -1 <<<"$kube_out"), not 10002"
grep -qE '^CapEff:[[:space:]]+0+$' <<<"$kube_out" || fail "the Kubernetes-like worker's job holds capabilities: $kube_out"
for secret in "$FORGEFLOW_ADMIN_TOKEN" "$db_password"; do
  if grep -qF "$secret" <<<"$kube_out"; then fail "a job of the Kubernetes-like worker read a secret file: $kube_out"; fi
done
[ "$(grep -c 'Permission denied' <<<"$kube_out")" -ge 2 ] || fail "the secret files were not refused: $kube_out"
# CAP_KILL: a cancelled job of the job user ends (without it the root node's signals fail with EPERM)
sleeper=$(submit kube-sleeper "echo started; sleep 3005" kube)
wait_for 120 "the sleeper runs" run_is "$sleeper" running
kube_sleeps() { podman top "$kube" user args | grep 'sleep 3005'; }
wait_for 30 "the sleeper's process starts" kube_sleeps
curl -fsS "${auth[@]}" -X POST "$api/api/runs/$sleeper/cancel" >/dev/null
wait_for 30 "the cancelled sleeper ends" run_is "$sleeper" cancelled
deadline=$((SECONDS + 10))
while kube_sleeps >/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the cancelled job's process outlived it by 10 s: $(kube_sleeps)"
  sleep 0.5
done
# shellcheck disable=SC2086
podman unpause $workers >/dev/null
ok "the Kubernetes worker's privileges (uid 0, SETUID, SETGID, KILL): it reports process-group and forgeflow-job, its job runs as 10002 with no capability and cannot read the secret files, and a cancelled job of that user ends"
