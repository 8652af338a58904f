#!/usr/bin/env bash
# The claim's cost by the number of tenants with due runs (issue 42, docs/BENCHMARKS.md "Issue 42, part two"):
# one claim of 4 runs, in a transaction rolled back after it so that every claim sees the same table, timed by pgbench
# (one client, SECONDS each) over 20,000 due runs spread over 1, 2, 10, 100 and 1,000 tenants.
#
#   scripts/bench-tenant-claim.sh [SECONDS]     # default 10; needs psql, pgbench and server/target/forgeflow.jar
#
# TENANTS="1 1000" picks the rows (default: 1 2 10 100 1000). Uses the PostgreSQL of FORGEFLOW_BENCH_URL (default postgresql://postgres@127.0.0.1:5432/postgres) and a database
# of its own, dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
base="${FORGEFLOW_BENCH_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
db="ff_tenant_claim_$$"
url="${base%/*}/${db}"
pgbench="$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench | tail -n 1)"
psql "$base" -qc "CREATE DATABASE ${db}"
trap 'psql "$base" -qc "DROP DATABASE IF EXISTS ${db} WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
FORGEFLOW_DATABASE_URL="$url" java -jar server/target/forgeflow.jar db migrate >/dev/null 2>&1
script="$(mktemp)"
cat > "$script" <<'SQL'
BEGIN;
SELECT count(*) FROM forgeflow_claim('bench#1', '{noop}', NULL, '{}', 4, 30000, NULL, NULL, NULL, NULL);
ROLLBACK;
SQL
printf '%-8s %12s %12s\n' tenants "claims/s" "ms/claim"
for tenants in ${TENANTS:-1 2 10 100 1000}; do
  psql "$url" -q -v ON_ERROR_STOP=1 >/dev/null 2>&1 <<SQL
SET search_path = forgeflow;
TRUNCATE runs, jobs CASCADE;
DO \$\$ BEGIN IF to_regclass('tenant_shares') IS NOT NULL THEN TRUNCATE tenant_shares, tenants; END IF; END \$\$;
INSERT INTO jobs (id, name, executor, payload, status, created_at, updated_at, tenant)
SELECT gen_random_uuid(), 'j' || t, 'noop', '{}', 'active', now(), now(), CASE WHEN ${tenants} = 1 THEN 'default' ELSE 't' || t END
FROM generate_series(1, ${tenants}) t;
INSERT INTO runs (id, job_id, status, attempt, max_attempts, priority, scheduled_for, executor, payload,
                  timeout_seconds, created_at, tenant)
SELECT gen_random_uuid(), j.id, 'pending', 0, 3, 5, now() - interval '1 minute' + i * interval '1 ms', 'noop', '{}', 60,
       now(), j.tenant
FROM jobs j CROSS JOIN generate_series(1, 20000 / ${tenants}) i;
ANALYZE runs;
SQL
  out="$(PGOPTIONS="-c search_path=forgeflow" "$pgbench" -n -c 1 -T "$seconds" -f "$script" "$url" 2>&1)" || { echo "$out"; exit 1; }
  tps="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out")"
  lat="$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' <<<"$out")"
  printf '%-8s %12s %12s\n' "$tenants" "$tps" "$lat"
done
rm -f "$script"
