#!/usr/bin/env bash
# Chaos demo: a small ForgeFlow cluster on loopback (one api+scheduler node, three workers), a slow job, and a
# SIGKILL of the worker that holds it. Prints what happened and cleans up every process it started.
#
#   bash scripts/chaos.sh            # builds the jar if missing; uses FORGEFLOW_DATABASE_URL or the local PostgreSQL
#
# Watch it live in another terminal:  watch -n1 "curl -s localhost:18080/api/runs?limit=3"
set -euo pipefail
cd "$(dirname "$0")/.."

JAR=server/target/forgeflow.jar
[ -f "$JAR" ] || mvn -B -q package -DskipTests
command -v curl >/dev/null || { echo "chaos.sh needs curl"; exit 2; }

DB="forgeflow_chaos_$$"
if [ -z "${FORGEFLOW_DATABASE_URL:-}" ]; then
  psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE ${DB}" \
    || { echo "no PostgreSQL at 127.0.0.1:5432: set FORGEFLOW_DATABASE_URL"; exit 2; }
  export FORGEFLOW_DATABASE_URL="postgresql://postgres@127.0.0.1:5432/${DB}"
  CREATED_DB=1
fi

LOGS=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pkill -f "sleep 12 && echo survived the chaos" 2>/dev/null || true
  if [ "${CREATED_DB:-0}" = 1 ]; then
    psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS ${DB} WITH (FORCE)" || true
  fi
  echo "cleaned up (logs in ${LOGS})"
}
trap cleanup EXIT

export FORGEFLOW_LEASE_DURATION=6s FORGEFLOW_HEARTBEAT_INTERVAL=2s FORGEFLOW_POLL_INTERVAL=250ms FORGEFLOW_SCHEDULER_TICK=500ms LANG=C.UTF-8
start() { # name roles port
  FORGEFLOW_WORKER_ID=$1 FORGEFLOW_ROLES=$2 FORGEFLOW_LISTEN_ADDR=127.0.0.1:$3 FORGEFLOW_ADMIN_LISTEN_ADDR=127.0.0.1:$(( $3 + 1 )) \
    java -Xmx256m -jar "$JAR" server > "$LOGS/$1.log" 2>&1 &
  PIDS+=($!)
  eval "PID_$1=$!"
}
ready() { for _ in $(seq 1 90); do curl -sf "localhost:$1/readyz" >/dev/null && return 0; sleep 1; done; echo "node on $1 did not start"; exit 1; }

echo "starting control (api,scheduler) on :18080 and workers w1 w2 w3"
start control api,scheduler 18080
start w1 worker 18090
start w2 worker 18092
start w3 worker 18094
for p in 18080 18090 18092 18094; do ready $p; done
curl -s localhost:18080/api/nodes; echo

JOB=$(curl -s -X POST localhost:18080/api/jobs -d '{"name": "chaos", "executor": "shell", "payload": {"command": "sleep 12 && echo survived the chaos"}}' \
  | sed -E 's/.*"id":"([^"]+)".*/\1/')
echo "submitted job $JOB"
run_field() { curl -s "localhost:18080/api/runs?job_id=$JOB" | sed -E "s/.*\"$1\":(\"[^\"]*\"|null|[0-9]+).*/\1/" | tr -d '"'; }

for _ in $(seq 1 60); do [ "$(run_field status)" = running ] && break; sleep 0.5; done
HOLDER=$(run_field worker_id)
eval "VICTIM=\$PID_$HOLDER"
echo "run is held by $HOLDER (pid $VICTIM): kill -9"
kill -9 "$VICTIM"

for _ in $(seq 1 120); do
  s=$(run_field status); w=$(run_field worker_id)
  printf '  status=%-9s worker=%s\n' "$s" "$w"
  [ "$s" = succeeded ] && break
  sleep 1
done
RUN=$(curl -s "localhost:18080/api/runs?job_id=$JOB" | sed -E 's/.*"items":\[\{"id":"([^"]+)".*/\1/')
echo "attempts of run $RUN:"
curl -s "localhost:18080/api/runs/$RUN" | tr '{' '\n' | grep '"outcome"' | sed -E 's/.*"attempt":([0-9]+).*"worker_id":"([^"]*)".*"outcome":"([^"]*)".*/  attempt \1 on \2: \3/'
[ "$(run_field status)" = succeeded ] && echo "RESULT: the run survived the SIGKILL of its worker" || { echo "RESULT: the run did not finish"; exit 1; }
