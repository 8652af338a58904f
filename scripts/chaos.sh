#!/usr/bin/env bash
# Chaos demo: a small ForgeFlow cluster on loopback (one api+scheduler node, three workers), a slow job, and a
# SIGKILL of the worker that holds it. Prints what happened and cleans up every process it started.
#
#   bash scripts/chaos.sh            # builds the jar if missing; uses FORGEFLOW_DATABASE_URL or the local PostgreSQL
#   bash scripts/chaos.sh leader-stop   # two api+scheduler nodes: SIGSTOP the leader, time until ticks resume, SIGCONT
#   bash scripts/chaos.sh worker-stop   # SIGSTOP the worker holding a sleeping shell job past its lease
#   bash scripts/chaos.sh db-blackhole  # drop every packet between the worker holding a shell job and PostgreSQL
#                                       # (the test proxy, server/src/test/.../FaultProxy.java, in between)
#
# Watch it live in another terminal:  watch -n1 "curl -s localhost:18080/api/runs?limit=3"
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-kill}
case "$MODE" in kill|leader-stop|worker-stop|db-blackhole) ;;
  *) echo "usage: chaos.sh [kill|leader-stop|worker-stop|db-blackhole]"; exit 2 ;; esac

JAR=server/target/forgeflow.jar
PROXY_CLASS=server/target/test-classes/io/forgeflow/server/FaultProxy.class
{ [ -f "$JAR" ] && [ -f "$PROXY_CLASS" ]; } || mvn -B -q package -DskipTests
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
  for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill -9 "$p" 2>/dev/null || true; done
  [ -n "${PROXY_PID:-}" ] && kill -9 "$PROXY_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  pkill -f "sleep 12 && echo survived the chaos" 2>/dev/null || true
  [ -n "${JOB_PID:-}" ] && kill -9 "$JOB_PID" 2>/dev/null || true
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

now_ms() { date +%s%3N; }
leader_of() { # prints the worker id of the node that leads, per the node rows
  curl -s "localhost:$1/api/nodes" | tr '{' '\n' | grep '"leader":true' | sed -E 's/.*"worker_id":"([^"]+)".*/\1/' | head -1
}

if [ "$MODE" = leader-stop ]; then
  echo "starting a and b (api,scheduler) on :18080 and :18082 and worker w1"
  start a api,scheduler 18080
  start b api,scheduler 18082
  start w1 worker 18090
  for p in 18080 18082 18090; do ready $p; done
  JOB=$(curl -s -X POST localhost:18080/api/jobs -d '{"name": "every-2s", "executor": "shell", "cron_expr": "*/2 * * * * *", "payload": {"command": "true"}}' \
    | sed -E 's/.*"id":"([^"]+)".*/\1/')
  echo "submitted job $JOB (*/2 * * * * *)"
  ticks() { curl -s "localhost:$1/api/runs?job_id=$JOB&limit=500" | tr '{' '\n' | grep -o '"scheduled_for":"[^"]*"' | cut -d'"' -f4; }
  for _ in $(seq 1 30); do L=$(leader_of 18080); [ -n "$L" ] && break; sleep 1; done
  [ "$L" = a ] && { STANDBY=b; SPORT=18082; } || { STANDBY=a; SPORT=18080; }
  eval "LEADER_PID=\$PID_$L"
  sleep 4
  LAST=$(ticks $SPORT | sort | tail -1)
  echo "leader is $L (pid $LEADER_PID), last tick $LAST: kill -STOP"
  T0=$(now_ms); kill -STOP "$LEADER_PID"
  SEEN=""
  for _ in $(seq 1 60); do
    NEW=$(ticks $SPORT | sort | tail -1)
    printf '  +%5d ms  latest tick %s\n' $(( $(now_ms) - T0 )) "$NEW"
    if [ "$NEW" \> "$LAST" ] && [ -z "$SEEN" ]; then SEEN=$(( $(now_ms) - T0 )); fi
    [ -n "$SEEN" ] && [ "$(leader_of $SPORT)" = "$STANDBY" ] && break
    sleep 1
  done
  echo "a new tick seen ${SEEN:-never} ms after the stop (polled about once a second); $STANDBY shown leading after $(( $(now_ms) - T0 )) ms; kill -CONT $L"
  kill -CONT "$LEADER_PID"
  for _ in $(seq 1 30); do grep -q "stepping down" "$LOGS/$L.log" && break; sleep 1; done
  grep -m1 "stepping down" "$LOGS/$L.log" | sed 's/^/  woken leader: /' || echo "  the woken leader logged no step-down"
  sleep 5
  DUP=$(ticks $SPORT | sort | uniq -d)
  echo "ticks fired: $(ticks $SPORT | wc -l), fired twice: ${DUP:-none}"
  [ -z "$DUP" ] && echo "RESULT: leadership moved and no tick fired twice" || { echo "RESULT: a tick fired twice"; exit 1; }
  exit 0
fi

if [ "$MODE" = worker-stop ]; then
  echo "starting control (api,scheduler) on :18080 and workers w1 w2 (lease 6s, heartbeat 2s)"
  start control api,scheduler 18080
  start w1 worker 18090
  start w2 worker 18092
  for p in 18080 18090 18092; do ready $p; done
  PIDFILE="$LOGS/job.pids"
  JOB=$(curl -s -X POST localhost:18080/api/jobs -d "{\"name\": \"sleeper\", \"executor\": \"shell\", \"payload\": {\"command\": \"echo \$\$ >> $PIDFILE; [ \$(wc -l < $PIDFILE) -gt 1 ] || sleep 60; echo done\"}}" \
    | sed -E 's/.*"id":"([^"]+)".*/\1/')
  echo "submitted job $JOB"
  run_field() { curl -s "localhost:18080/api/runs?job_id=$JOB" | sed -E "s/.*\"$1\":(\"[^\"]*\"|null|[0-9]+).*/\1/" | tr -d '"'; }
  for _ in $(seq 1 60); do [ -s "$PIDFILE" ] && [ "$(run_field status)" = running ] && break; sleep 0.5; done
  JOB_PID=$(head -1 "$PIDFILE")
  HOLDER=$(run_field worker_id)
  eval "VICTIM=\$PID_$HOLDER"
  echo "$HOLDER runs it as pid $JOB_PID: kill -STOP $HOLDER (pid $VICTIM)"
  T0=$(now_ms); kill -STOP "$VICTIM"
  for _ in $(seq 1 300); do kill -0 "$JOB_PID" 2>/dev/null && [ "$(ps -o stat= -p "$JOB_PID" | cut -c1)" != Z ] || break; sleep 0.1; done
  echo "the first execution (pid $JOB_PID) is gone after $(( $(now_ms) - T0 )) ms"
  for _ in $(seq 1 60); do [ "$(run_field status)" = succeeded ] && break; sleep 1; done
  echo "run $(run_field status) after $(( $(now_ms) - T0 )) ms; kill -CONT $HOLDER"
  kill -CONT "$VICTIM"
  RUN=$(curl -s "localhost:18080/api/runs?job_id=$JOB" | sed -E 's/.*"items":\[\{"id":"([^"]+)".*/\1/')
  ATTEMPTS=$(curl -s "localhost:18080/api/runs/$RUN" | tr '{' '\n' | grep '"outcome"' | sed -E 's/.*"attempt":([0-9]+).*"worker_id":"([^"]*)".*"started_at":"([^"]*)".*"outcome":"([^"]*)".*/  attempt \1 on \2 from \3: \4/')
  echo "$ATTEMPTS"
  if [ "$(run_field status)" = succeeded ] && echo "$ATTEMPTS" | grep -q "attempt 1 on $HOLDER.*lease_expired"; then
    echo "RESULT: the frozen worker's job died before the run ran again elsewhere"
  else
    echo "RESULT: not shown (the run did not move to another worker)"; exit 1
  fi
  exit 0
fi

if [ "$MODE" = db-blackhole ]; then
  DB_PORT=$(echo "$FORGEFLOW_DATABASE_URL" | sed -E 's#.*@[^:/]+:([0-9]+)/.*#\1#')
  DB_HOST=$(echo "$FORGEFLOW_DATABASE_URL" | sed -E 's#.*@([^:/]+):[0-9]+/.*#\1#')
  coproc PROXY { exec java -cp server/target/test-classes io.forgeflow.server.FaultProxy "$DB_HOST" "$DB_PORT"; }
  PROXY_PID=$PROXY_PID
  read -r _ PROXY_PORT <&"${PROXY[0]}"
  proxy() { echo "$1" >&"${PROXY[1]}"; read -r _ <&"${PROXY[0]}"; }
  PROXIED_URL=$(echo "$FORGEFLOW_DATABASE_URL" | sed -E "s#@([^:/]+):[0-9]+/#@127.0.0.1:${PROXY_PORT}/#")
  echo "starting control (api,scheduler) on :18080 and worker w1, whose database connections go through a proxy on :$PROXY_PORT (lease 6s, heartbeat 2s)"
  start control api,scheduler 18080
  FORGEFLOW_DATABASE_URL=$PROXIED_URL start w1 worker 18090
  for p in 18080 18090; do ready $p; done
  PIDFILE="$LOGS/job.pids"
  JOB=$(curl -s -X POST localhost:18080/api/jobs -d "{\"name\": \"sleeper\", \"executor\": \"shell\", \"payload\": {\"command\": \"echo \$\$ >> $PIDFILE; [ \$(wc -l < $PIDFILE) -gt 1 ] || sleep 60; echo done\"}}" \
    | sed -E 's/.*"id":"([^"]+)".*/\1/')
  echo "submitted job $JOB"
  run_field() { curl -s "localhost:18080/api/runs?job_id=$JOB" | sed -E "s/.*\"$1\":(\"[^\"]*\"|null|[0-9]+).*/\1/" | tr -d '"'; }
  for _ in $(seq 1 60); do [ -s "$PIDFILE" ] && [ "$(run_field status)" = running ] && break; sleep 0.5; done
  JOB_PID=$(head -1 "$PIDFILE")
  echo "w1 runs it as pid $JOB_PID; starting w2 (direct to the database)"
  start w2 worker 18092; ready 18092
  echo "blackhole w1's database traffic"
  T0=$(now_ms); proxy blackhole
  for _ in $(seq 1 300); do kill -0 "$JOB_PID" 2>/dev/null && [ "$(ps -o stat= -p "$JOB_PID" | cut -c1)" != Z ] || break; sleep 0.1; done
  GONE=$(now_ms); GONE_AT=$(date -u -d "@$(( GONE / 1000 )).$(( GONE % 1000 ))" +%Y-%m-%dT%H:%M:%S.%3NZ)
  LEASE=$(run_field lease_expires_at)
  echo "the first execution (pid $JOB_PID) is gone after $(( GONE - T0 )) ms, at $GONE_AT; its lease in the database ran until $LEASE"
  for _ in $(seq 1 60); do [ "$(run_field status)" = succeeded ] && break; sleep 1; done
  RUN=$(curl -s "localhost:18080/api/runs?job_id=$JOB" | sed -E 's/.*"items":\[\{"id":"([^"]+)".*/\1/')
  ATTEMPTS=$(curl -s "localhost:18080/api/runs/$RUN" | tr '{' '\n' | grep '"outcome"' | sed -E 's/.*"attempt":([0-9]+).*"worker_id":"([^"]*)".*"started_at":"([^"]*)".*"outcome":"([^"]*)".*/  attempt \1 on \2 from \3: \4/')
  echo "run $(run_field status) after $(( $(now_ms) - T0 )) ms; let w1's traffic through again"
  proxy pass
  echo "$ATTEMPTS"
  SECOND=$(echo "$ATTEMPTS" | grep "attempt 2 on" | sed -E 's/.* from ([^:]+:[^:]+:[^:]+): .*/\1/')
  if [ "$(run_field status)" = succeeded ] && [ "$(wc -l < "$PIDFILE")" -eq 2 ] && [ -n "$SECOND" ] && [[ "$GONE_AT" < "$SECOND" ]] \
      && [[ "$GONE_AT" < "$LEASE" ]]; then
    echo "RESULT: w1 killed its job (at $GONE_AT) before its lease could expire ($LEASE) and before the second attempt started (at $SECOND): never two at once"
  else
    echo "RESULT: not shown (see the attempts above)"; exit 1
  fi
  exit 0
fi

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
