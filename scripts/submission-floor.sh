#!/usr/bin/env bash
# The database's own ceiling for one-off submissions on this machine, with nothing else running: pgbench sends a
# statement shaped like ForgeFlow's submission (JobSql/insertWithRun.sql for one, insertBatchWithRuns.sql for a group
# commit's batch: a job row and its first run in one statement, into the real schema with all its indexes and checks)
# and reports submissions per second and the whole machine's CPU time per submission (pgbench's own included).
#
# It bounds what the bench's W2 can reach: W2's 4 producers each wait for their own commit, and the submissions
# that arrive together share one (batches of about 2 with 4 producers). Every submission then still has to be
# claimed, executed and acknowledged on the same cores. See docs/BENCHMARKS.md, "What bounds these figures".
#
#   bash scripts/submission-floor.sh                  # PostgreSQL at 127.0.0.1:5432 as postgres; 10 s per case
#   SECONDS_PER_CASE=20 PGHOST=... PGPORT=... PGUSER=... bash scripts/submission-floor.sh
set -euo pipefail
cd "$(dirname "$0")/.."

export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
PER_CASE="${SECONDS_PER_CASE:-10}"
JAR=server/target/forgeflow.jar
[ -f "$JAR" ] || mvn -B -q package -DskipTests
command -v pgbench >/dev/null || { echo "submission-floor.sh needs pgbench (Debian: postgresql-contrib or the server package)"; exit 2; }

DB="ff_floor_$$"
WORK=$(mktemp -d)
cleanup() {
  psql -d postgres -qc "DROP DATABASE IF EXISTS ${DB} WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
psql -d postgres -qc "CREATE DATABASE ${DB}"
FORGEFLOW_DATABASE_URL="postgresql://${PGUSER}@${PGHOST}:${PGPORT}/${DB}" \
  java -jar "$JAR" db migrate server/src/main/resources/forgeflow.example.yml >"$WORK/migrate.log" 2>&1 \
  || { cat "$WORK/migrate.log"; exit 1; }

# One statement storing $1 submissions: time-ordered ids (as Ids.java makes them), a small JSON payload, a run due now.
statement() {
  cat <<SQL
\\set p random(0, 1000000)
WITH input AS MATERIALIZED (
    SELECT (lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
            || substr(md5(random()::text), 1, 20))::uuid AS id,
           (lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
            || substr(md5(random()::text), 1, 20))::uuid AS run_id
    FROM generate_series(1, $1)
), job AS (
    INSERT INTO jobs (id, name, executor, payload, cron_expr, run_at, timezone, priority, max_attempts, timeout_seconds,
                      catch_up, idempotency_key, status, next_run_at, created_at, updated_at, queue, concurrency_key,
                      max_concurrent, overlap)
    SELECT id, 'floor', 'noop', jsonb_build_object('i', CAST(:p AS integer)), NULL, NULL, 'UTC', 5, 3, 3600, 'skip',
           NULL, 'active', NULL, now(), now(), 'default', NULL, NULL, 'allow'
    FROM input
    ORDER BY id
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING *
), run AS (
    INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, payload,
                      timeout_seconds, created_at, queue, concurrency_key, max_concurrent)
    SELECT i.run_id, job.id, 'pending', 5, now(), 0, 3, job.executor, job.payload, job.timeout_seconds, now(),
           job.queue, NULL, NULL
    FROM job
    JOIN input i ON i.id = job.id
    RETURNING id
)
SELECT job.* FROM job;
SQL
}

busy_seconds() { awk '/^cpu / {print ($2 + $3 + $4 + $7 + $8) / 100}' /proc/stat; }
cores=$(nproc)
printf '%-44s %10s %14s %12s %18s\n' case "stmts/s" "submissions/s" "machine busy" "CPU us/submission"
for c in "1 4" "1 16" "2 2" "2 4" "4 1" "16 4"; do
  set -- $c
  size=$1 clients=$2
  statement "$size" >"$WORK/s$size.sql"
  before=$(busy_seconds)
  tps=$(pgbench -n -M prepared -f "$WORK/s$size.sql" -c "$clients" -j "$(( clients < cores ? clients : cores ))" \
          -T "$PER_CASE" "$DB" 2>"$WORK/err" | awk '/^tps/ {print $3}')
  after=$(busy_seconds)
  [ -n "$tps" ] || { cat "$WORK/err"; exit 1; }
  awk -v s="$size" -v c="$clients" -v tps="$tps" -v b="$before" -v a="$after" -v t="$PER_CASE" -v n="$cores" 'BEGIN {
    subs = tps * s; busy = (a - b) / (t * n)
    printf "%-44s %10.0f %14.0f %11.0f%% %18.0f\n", s " per statement, " c " clients", tps, subs, busy * 100,
           (a - b) / (subs * t) * 1e6 }'
done
echo "($cores cores; machine busy = all processes' CPU over the case's wall time. The runs table keeps every row"
echo " written here: later cases write into larger tables, as a long W2 run does.)"
