#!/usr/bin/env bash
# The scale test of issue 46 (not part of CI): 500 embedded workers (5 JVMs x 100, each worker with its own id,
# incarnation and small pool) and 4 api nodes (one also the scheduler), all through one PgBouncer in transaction
# mode, against one PostgreSQL that PgBouncer holds to SERVER_CONNECTIONS server connections.
#   (a) a drain of DRAIN_RUNS no-op runs: nothing lost, nothing executed twice (the workers' own count per run id,
#       and the database's runs and attempts);
#   (b) a steady W2-like load of RATES runs/s for SECONDS_STEADY, submitted with client-jdbc through PgBouncer
#       (STEADY_VIA=jdbc, or jdbc-grouped) or through the api nodes' REST API (STEADY_VIA=rest): pickup latency p50/p99 (the claim's
#       start minus the run's due time), goal p99 < 100 ms.
# It creates a fresh database and a role for the pooled side on PG_HOST:PG_PORT (as PG_USER, trust auth) and drops
# both at the end. It prints the figures and exits non-zero when a run is lost or executed twice, a phase fails, or
# PostgreSQL saw more than SERVER_CONNECTIONS from PgBouncer. Needs the jars:
#   mvn -B -q package -pl server,bench -am -DskipTests
# and Debian's pgbouncer (/usr/sbin/pgbouncer). Takes 8 to 11 minutes on a busy 2-core machine (the 500/s phase
# falls behind there and drains its backlog); figures in docs/BENCHMARKS.md, "Issue 46: 500 workers through PgBouncer".
set -euo pipefail
cd "$(dirname "$0")/.."
# the whole script is one block, read before it runs: editing the file meanwhile cannot change a running test
{

PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
PG_USER=${PG_USER:-postgres}
WORKER_JVMS=${WORKER_JVMS:-5}
WORKERS_PER_JVM=${WORKERS_PER_JVM:-100}
CONCURRENCY=${CONCURRENCY:-4}          # execution slots per embedded worker
WORKER_POOL=${WORKER_POOL:-8}          # each embedded worker's own pool (1 held for good, up to 5 borrowed)
POLL_MS=${POLL_MS:-1000}               # the embedded workers' poll interval
API_NODES=${API_NODES:-4}
SERVER_CONNECTIONS=${SERVER_CONNECTIONS:-100}  # PgBouncer's max_db_connections = default_pool_size
DRAIN_RUNS=${DRAIN_RUNS:-20000}
RATES=${RATES:-500}                    # steady phases, one after the other (e.g. "100 500")
SECONDS_STEADY=${SECONDS_STEADY:-60}
STEADY_VIA=${STEADY_VIA:-jdbc}          # jdbc: forgeflow.enqueue() through PgBouncer, a commit each; jdbc-grouped: what is
                                        # due committed together (as the nodes' group commit); rest: POST /api/jobs
PGBOUNCER=${PGBOUNCER:-/usr/sbin/pgbouncer}

SERVER_JAR=server/target/forgeflow.jar
BENCH_JAR=bench/target/forgeflow-bench.jar
for jar in "$SERVER_JAR" "$BENCH_JAR"; do
  [[ -f $jar ]] || { echo "missing $jar: mvn -B -q package -pl server,bench -am -DskipTests" >&2; exit 2; }
done
[[ -x $PGBOUNCER ]] || { echo "missing $PGBOUNCER (apt-get install pgbouncer)" >&2; exit 2; }

DB=forgeflow_scale_$$
APP_USER=$DB   # the role of everything through PgBouncer (the sampler counts its backends); the driver is PG_USER
WORK=$(mktemp -d /tmp/forgeflow-scale.XXXXXX)
chmod 755 "$WORK"
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER")
# the driver's own direct connections (role PG_USER) are not counted by the sampler
DIRECT_JDBC="jdbc:postgresql://$PG_HOST:$PG_PORT/$DB?user=$PG_USER&ApplicationName=scale-driver"
PIDS=()

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

cleanup() {
  local rc=$?
  touch "$WORK/stop-sampling"
  # workers and nodes first, PgBouncer (the first started) last
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill "${PIDS[$i]}" 2>/dev/null || true; wait "${PIDS[$i]}" 2>/dev/null || true; done
  "${PSQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" || true
  "${PSQL[@]}" -d postgres -c "DROP ROLE IF EXISTS $APP_USER" || true
  echo "logs: $WORK"
  exit $rc
}
trap cleanup EXIT

echo "== $(date -u '+%Y-%m-%d %H:%M:%S') UTC, $(nproc) cores, $(uptime | sed 's/.*load/load/')"
# PgBouncer must not take connections PostgreSQL does not have to give: its max_connections, less what others use
# now and a margin of 6 (superusers' reserve, the driver's and the sampler's direct connections)
read -r pg_max pg_used < <("${PSQL[@]}" -d postgres -At -F ' ' -c \
  "SELECT current_setting('max_connections')::int, (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')")
if (( SERVER_CONNECTIONS > pg_max - pg_used - 6 )); then
  echo "== PostgreSQL has max_connections $pg_max with $pg_used in use: PgBouncer's limit lowered from" \
       "$SERVER_CONNECTIONS to $((pg_max - pg_used - 6))"
  SERVER_CONNECTIONS=$((pg_max - pg_used - 6))
fi
echo "== database $DB on $PG_HOST:$PG_PORT; logs in $WORK"
"${PSQL[@]}" -d postgres -c "CREATE ROLE $APP_USER LOGIN"
"${PSQL[@]}" -d postgres -c "CREATE DATABASE $DB OWNER $APP_USER"
# what a transaction pooler cannot carry, the role has in this database (README "Behind PgBouncer"; the nodes' defaults)
for setting in "search_path = forgeflow" "statement_timeout = '30s'" "lock_timeout = '5s'" \
               "idle_in_transaction_session_timeout = '10s'"; do
  "${PSQL[@]}" -d postgres -c "ALTER ROLE $APP_USER IN DATABASE $DB SET $setting"
done
# migrations need a session (their advisory lock): once, directly
FORGEFLOW_DATABASE_URL="postgresql://$APP_USER@$PG_HOST:$PG_PORT/$DB" java -jar "$SERVER_JAR" db migrate \
  > "$WORK/migrate.log" 2>&1 || { cat "$WORK/migrate.log"; exit 1; }

# the sampler: the test's server connections as PostgreSQL sees them, every 100 ms until the end
java -cp "$BENCH_JAR" io.forgeflow.bench.ScaleDriver sample "$DIRECT_JDBC" "$DB" "$APP_USER" "$WORK/stop-sampling" \
  > "$WORK/sampler.out" 2>&1 &
SAMPLER=$!

BOUNCER_PORT=$(free_port)
cat > "$WORK/pgbouncer.ini" <<EOF
[databases]
$DB = host=$PG_HOST port=$PG_PORT dbname=$DB
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $WORK/users.txt
pool_mode = transaction
default_pool_size = $SERVER_CONNECTIONS
max_db_connections = $SERVER_CONNECTIONS
reserve_pool_size = 0
max_client_conn = 10000
ignore_startup_parameters = extra_float_digits
server_reset_query =
EOF
echo "\"$APP_USER\" \"\"" > "$WORK/users.txt"
BOUNCER_USER=()
[[ $(id -u) == 0 ]] && BOUNCER_USER=(-u nobody)   # it refuses to run as root
ulimit -n 20000 2>/dev/null || true
"$PGBOUNCER" "${BOUNCER_USER[@]}" "$WORK/pgbouncer.ini" > "$WORK/pgbouncer.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$BOUNCER_PORT") 2>/dev/null && break; sleep 0.1; done
echo "== PgBouncer 127.0.0.1:$BOUNCER_PORT, transaction mode, max_db_connections $SERVER_CONNECTIONS"

# the api nodes: everything through PgBouncer, no session URL (wake-ups by polling, leadership by the lease row)
APIS=""
for n in $(seq 1 "$API_NODES"); do
  port=$(free_port)
  roles=api; [[ $n == 1 ]] && roles=api,scheduler
  env -u FORGEFLOW_DATABASE_SESSION_URL \
    FORGEFLOW_DATABASE_URL="postgresql://$APP_USER@127.0.0.1:$BOUNCER_PORT/$DB" \
    FORGEFLOW_DATABASE_POOLING=transaction FORGEFLOW_ROLES=$roles FORGEFLOW_WORKER_ID=scale-api-$n \
    FORGEFLOW_LISTEN_ADDR=127.0.0.1:$port FORGEFLOW_ADMIN_LISTEN_ADDR=127.0.0.1:$(free_port) \
    java -Xmx512m -jar "$SERVER_JAR" server > "$WORK/api-$n.log" 2>&1 &
  PIDS+=($!)
  APIS+="${APIS:+,}http://127.0.0.1:$port"
done
for url in ${APIS//,/ }; do
  for i in $(seq 180); do
    curl -fs "$url/readyz" > /dev/null 2>&1 && break
    [[ $i == 180 ]] && { echo "api node $url not ready" >&2; exit 1; }
    sleep 0.5
  done
done
echo "== $API_NODES api nodes ready: $APIS"

# the worker JVMs: WORKERS_PER_JVM embedded workers each, every one with its own pool to PgBouncer
WORKER_JDBC="jdbc:postgresql://127.0.0.1:$BOUNCER_PORT/$DB?user=$APP_USER&prepareThreshold=0"
WORKER_PIDS=()
for j in $(seq 1 "$WORKER_JVMS"); do
  java -Xmx768m -Xss512k -cp "$BENCH_JAR" io.forgeflow.bench.ScaleWorkers "$WORKER_JDBC" "scale-j$j" \
    "$WORKERS_PER_JVM" "$CONCURRENCY" "$WORKER_POOL" "$POLL_MS" "$WORK/j$j.executions" > "$WORK/workers-$j.log" 2>&1 &
  PIDS+=($!)
  WORKER_PIDS+=($!)
done
for j in $(seq 1 "$WORKER_JVMS"); do
  for i in $(seq 600); do
    grep -q '^ready' "$WORK/workers-$j.log" 2>/dev/null && break
    kill -0 "${WORKER_PIDS[$((j - 1))]}" 2>/dev/null || { echo "worker JVM $j exited" >&2; tail -20 "$WORK/workers-$j.log" >&2; exit 1; }
    [[ $i == 600 ]] && { echo "worker JVM $j not ready" >&2; exit 1; }
    sleep 0.5
  done
done
echo "== $((WORKER_JVMS * WORKERS_PER_JVM)) embedded workers ready ($WORKER_JVMS JVMs x $WORKERS_PER_JVM, $CONCURRENCY slots, pools of $WORKER_POOL, poll ${POLL_MS} ms); $(uptime | sed 's/.*load/load/')"

status=0
sleep 10 # the workers' first heartbeats and announcements
java -cp "$BENCH_JAR" io.forgeflow.bench.ScaleDriver idle "$DIRECT_JDBC" "$DB" 10 || status=1
echo "== (a) drain"
java -cp "$BENCH_JAR" io.forgeflow.bench.ScaleDriver drain "$APIS" "$DIRECT_JDBC" "$DRAIN_RUNS" || status=1
echo "   $(uptime | sed 's/.*load/load/')"
for rate in $RATES; do
  echo "== (b) steady $rate/s for $SECONDS_STEADY s"
  pooled=()
  [[ $STEADY_VIA == jdbc* ]] && pooled=("jdbc:postgresql://127.0.0.1:$BOUNCER_PORT/$DB?user=$APP_USER&prepareThreshold=0")
  [[ $STEADY_VIA == jdbc-grouped ]] && pooled+=(grouped)
  java -cp "$BENCH_JAR" io.forgeflow.bench.ScaleDriver steady "$APIS" "$DIRECT_JDBC" "$rate" "$SECONDS_STEADY" \
    "${pooled[@]}" || status=1
  echo "   $(uptime | sed 's/.*load/load/')"
done

# the workers write what they executed as they go; stopped, they have written everything
for pid in "${WORKER_PIDS[@]}"; do kill "$pid"; done
for pid in "${WORKER_PIDS[@]}"; do wait "$pid" || true; done
touch "$WORK/stop-sampling"
wait "$SAMPLER" || true
echo "== check"
java -cp "$BENCH_JAR" io.forgeflow.bench.ScaleDriver check "$DIRECT_JDBC" "$WORK" || status=1
cat "$WORK/sampler.out"
max=$(sed -n 's/.*max \([0-9]*\) .*/\1/p' "$WORK/sampler.out")
if [[ -z $max || $max -gt $SERVER_CONNECTIONS ]]; then
  echo "FAILED: PostgreSQL saw ${max:-?} connections of the test, more than $SERVER_CONNECTIONS" >&2
  status=1
fi
errors=$(cat "$WORK"/api-*.log "$WORK"/workers-*.log | grep -c -E '(^| )(ERROR|WARN) |Exception' || true)
echo "== WARN/ERROR/exception lines in the nodes' and workers' logs: $errors (in $WORK); the most frequent:"
cat "$WORK"/api-*.log "$WORK"/workers-*.log | grep -E '(^| )(ERROR|WARN) ' | cut -c1-160 \
  | sed -E 's/^[0-9:. -]*//; s/\[[^]]*\]//; s/w[0-9]{3}/wNNN/g; s/[0-9]+ ms/N ms/' | sort | uniq -c | sort -rn | head -5
echo "== PgBouncer dropped notifications (\"when not linked\"): $(grep -c 'when not linked' "$WORK/pgbouncer.log" || true)"
exit $status
}
