#!/usr/bin/env bash
# ForgeFlow beside db-scheduler on the same PostgreSQL, in one sitting: builds the peer harness of
# ../shared/peers/dbsched (read at run time only; nothing of it is copied here), then runs, alternately and ROUNDS
# times each, the peer's W1 and W2 (polling and immediate) and our W1, W2 (submitted with SubmitJob in process) and
# W2-SQL (enqueued through client-jdbc, as the peer's producers schedule in process), and prints one table of ratios.
#
#   bash scripts/bench-vs-peer.sh                     # FORGEFLOW_DATABASE_URL, or the local PostgreSQL
#   ROUNDS=3 RATE=1000 W2_SECONDS=30 N=20000 bash scripts/bench-vs-peer.sh
#
# Takes about 12 minutes with the defaults. Each figure in the table is the median of the rounds. CPU per run:
# ours is the JVM's plus the database backends' CPU per run as the bench measures them; the peer's is the machine's
# busy share over its measured window (it prints no split), times the cores, per run: an upper bound for it.
set -euo pipefail
cd "$(dirname "$0")/.."
PEER_DIR=${PEER_DIR:-../shared/peers/dbsched}
ROUNDS=${ROUNDS:-2}
RATE=${RATE:-1000}
LOW_RATE=${LOW_RATE:-200}
W2_SECONDS=${W2_SECONDS:-30}
N=${N:-20000}
[ -d "$PEER_DIR" ] || { echo "no peer harness at $PEER_DIR (set PEER_DIR)"; exit 2; }
command -v psql >/dev/null || { echo "bench-vs-peer.sh needs psql"; exit 2; }

export FORGEFLOW_DATABASE_URL=${FORGEFLOW_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
HOSTPORT=$(echo "$FORGEFLOW_DATABASE_URL" | sed -E 's#^[a-z]+://([^@/]*@)?([^/?]+).*#\2#')
DB_USER=$(echo "$FORGEFLOW_DATABASE_URL" | sed -nE 's#^[a-z]+://([^:@/]+)[:@].*#\1#p')
DB_USER=${DB_USER:-postgres}
PEER_DB=bench_dbsched
PEER_URL="jdbc:postgresql://${HOSTPORT}/${PEER_DB}"
ADMIN_URL=$(echo "$FORGEFLOW_DATABASE_URL" | sed -E 's#(://[^/]+)/[^?]*#\1/postgres#')

echo "building the peer harness ($PEER_DIR) and ForgeFlow's bench"
(cd "$PEER_DIR" && mvn -q -B package)
[ -f bench/target/forgeflow-bench.jar ] || mvn -B -q package -DskipTests
PEER_JAVA=(java -Xmx1g -cp "$PEER_DIR/target/peers-dbsched-1.0.jar:$PEER_DIR/target/lib/*" bench.Main)
OURS=(java -Xmx1g -jar bench/target/forgeflow-bench.jar)
OUT=$(mktemp -d)
echo "raw results in $OUT"

fresh_peer_db() {
  psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS ${PEER_DB} WITH (FORCE)" -c "CREATE DATABASE ${PEER_DB}" >/dev/null
}
peer() { # label args...: one RESULT line into $OUT/peer.txt
  local label=$1; shift
  fresh_peer_db
  "${PEER_JAVA[@]}" "$@" url="$PEER_URL" user="$DB_USER" | grep '^RESULT|' | sed "s/^/$label|/" | tee -a "$OUT/peer.txt"
}
ours() { # name args...
  local name=$1; shift
  "${OURS[@]}" "$@" --out "$OUT/$name.json" | grep -E '^(W1|W2)' || true
}

for round in $(seq 1 "$ROUNDS"); do
  echo "=== round $round of $ROUNDS"
  peer w1 w1 n="$N" strategy=lockfetch threads=16 pollMs=100
  ours "w1-$round" --workloads W1 --n "$N"
  peer w2poll w2 rate="$RATE" durationS="$W2_SECONDS" warmupS=3 strategy=lockfetch threads=16 pollMs=100 producers=4
  ours "w2-$round" --workloads W2 --rates "$LOW_RATE,$RATE" --measure-seconds "$W2_SECONDS" --warmup-seconds 3
  ours "w2sql-$round" --workloads W2-SQL --rates "$RATE" --measure-seconds "$W2_SECONDS" --warmup-seconds 3
  peer w2imm w2 rate="$RATE" durationS="$W2_SECONDS" warmupS=3 strategy=lockfetch threads=16 pollMs=100 producers=4 immediate=true
done
psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS ${PEER_DB} WITH (FORCE)" >/dev/null || true

CORES=$(nproc) RATE=$RATE LOW_RATE=$LOW_RATE python3 - "$OUT" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
cores, rate, low = int(os.environ["CORES"]), int(os.environ["RATE"]), int(os.environ["LOW_RATE"])
med = lambda xs: statistics.median(xs) if xs else float("nan")

peer = {}
for line in open(os.path.join(out, "peer.txt")):
    parts = line.strip().split("|")
    fields = dict(p.split("=", 1) for p in parts[4:] if "=" in p)
    peer.setdefault(parts[0], []).append(fields)

def ours(prefix, match):
    rows = []
    for f in sorted(glob.glob(os.path.join(out, prefix + "-*.json"))):
        for r in json.load(open(f))["results"]:
            if match(r["workload"]):
                rows.append(r)
    return rows

def num(v):
    return float("nan") if v in (None, "NaN") else float(v)

w1 = ours("w1", lambda w: w.startswith("W1 drain"))
w2 = ours("w2", lambda w: w.startswith("W2 steady rate %d/s" % rate))
w2low = ours("w2", lambda w: w.startswith("W2 steady rate %d/s" % low))
ff_w1 = med([num(r["runs_per_second"]) for r in w1])
ff_p99 = med([num(r["p99_ms"]) for r in w2])
ff_p99_low = med([num(r["p99_ms"]) for r in w2low])
ff_cpu = med([(num(r["jvm_cpu_us_per_op"]) + num(r["db_cpu_us_per_op"])) / 1000 for r in w2])
w2sql = ours("w2sql", lambda w: w.startswith("W2-SQL steady rate %d/s" % rate))
ff_sql_p99 = med([num(r["p99_ms"]) for r in w2sql])
ff_sql_cpu = med([(num(r["jvm_cpu_us_per_op"]) + num(r["db_cpu_us_per_op"])) / 1000 for r in w2sql])
ff_sql_db = med([num(r["db_cpu_us_per_op"]) for r in w2sql])
ff_db = med([num(r["db_cpu_us_per_op"]) for r in w2])
pe_w1 = med([num(f["runs_per_s"]) for f in peer.get("w1", [])])
pe_poll = med([num(f["p99_ms"]) for f in peer.get("w2poll", [])])
pe_imm = med([num(f["p99_ms"]) for f in peer.get("w2imm", [])])
pe_cpu = med([num(f["cpu_busy_pct"]) / 100 * cores * 1000 / rate for f in peer.get("w2imm", []) + peer.get("w2poll", [])])

rows = [
    ("W1 drain, runs/s", ff_w1, pe_w1, ff_w1 / pe_w1, ">= 3.0", ff_w1 / pe_w1 >= 3.0),
    ("W2 %d/s pickup p99, ms (peer: immediate)" % rate, ff_p99, pe_imm, ff_p99 / pe_imm, "<= 1.0", ff_p99 <= pe_imm),
    ("W2 %d/s pickup p99, ms (peer: polling)" % rate, ff_p99, pe_poll, ff_p99 / pe_poll, "", None),
    ("W2 %d/s CPU per run, ms (JVM + database; SubmitJob in process)" % rate, ff_cpu, pe_cpu, ff_cpu / pe_cpu,
     "<= 1.0", ff_cpu / pe_cpu <= 1.0),
    ("W2 %d/s database CPU per run, us" % rate, ff_db, float("nan"), float("nan"), "<= 450", ff_db <= 450),
    ("W2-SQL %d/s pickup p99, ms (peer: immediate)" % rate, ff_sql_p99, pe_imm, ff_sql_p99 / pe_imm, "<= 1.0",
     ff_sql_p99 <= pe_imm),
    ("W2-SQL %d/s CPU per run, ms (JVM + database; client-jdbc enqueue)" % rate, ff_sql_cpu, pe_cpu,
     ff_sql_cpu / pe_cpu, "<= 0.5", ff_sql_cpu / pe_cpu <= 0.5),
    ("W2-SQL %d/s database CPU per run, us" % rate, ff_sql_db, float("nan"), float("nan"), "", None),
    ("W2 %d/s pickup p99, ms" % low, ff_p99_low, float("nan"), float("nan"), "< 10 ms", ff_p99_low < 10),
]
print()
print("| workload | ForgeFlow | db-scheduler | ratio | goal | met |")
print("| --- | ---: | ---: | ---: | --- | --- |")
for name, a, b, r, goal, ok in rows:
    f = lambda v: "-" if v != v else ("%.1f" % v if v < 100 else "{:,.0f}".format(v))
    print("| %s | %s | %s | %s | %s | %s |" % (name, f(a), f(b), "-" if r != r else "%.2f" % r, goal,
                                               "" if ok is None else ("yes" if ok else "no")))
lost = sum(int(r["lost"]) + int(r["duplicated"]) for r in w1 + w2 + w2low + w2sql)
print()
print("medians of %d round(s); ForgeFlow lost or duplicated %d runs; machine: %d cores" % (len(w1), lost, cores))
PY
