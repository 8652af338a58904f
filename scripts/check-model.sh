#!/usr/bin/env bash
# Checks the lease protocol's model (docs/model/lease.pml) exhaustively with Spin: the correct model must hold every
# assertion; each mutant (a protocol rule removed with a -D flag) must be found violating one. Fails otherwise.
# Needs spin and a C compiler (Debian: apt-get install spin gcc). Prints the states explored and the time.
set -euo pipefail
cd "$(dirname "$0")/.."
model="$PWD/docs/model/lease.pml"
command -v spin >/dev/null 2>&1 || { echo "check-model: spin is not installed (Debian package spin)" >&2; exit 2; }
command -v gcc >/dev/null 2>&1 || { echo "check-model: gcc is not installed" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$model" "$work/lease.pml"
cd "$work"

failures=0
total_states=0
start_all=$(date +%s)

# verify NAME EXPECT FLAGS...: EXPECT is "holds" or "violated"
verify() {
  local name="$1" expect="$2"; shift 2
  local dir="$work/$name" t0 t1 out states errors verdict opt=-O0
  [ "$expect" = holds ] && opt=-O2   # a full search is worth a slower compile; a mutant's search is short
  mkdir -p "$dir"; cp lease.pml "$dir/"
  t0=$(date +%s.%N)
  ( cd "$dir" && spin -a "$@" lease.pml >spin.log 2>&1 && \
    gcc "$opt" -w -DSAFETY -DNOBOUNDCHECK -DMEMLIM=2048 -o pan pan.c >>spin.log 2>&1 ) || {
      echo "check-model: $name: could not build the verifier"; cat "$dir/spin.log"; failures=$((failures + 1)); return; }
  out="$(cd "$dir" && ./pan -m1000000 -w24 2>&1 || true)"
  t1=$(date +%s.%N)
  states=$(awk '/states, stored/ {print $1; exit}' <<<"$out")
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out" | sed -n 1p)
  if [ "${errors:-0}" = 0 ] && grep -q "Search not completed\|max search depth too small" <<<"$out"; then
    verdict="incomplete"   # memory or depth bound reached without an error: not a proof
  elif [ "${errors:-0}" = 0 ]; then verdict="holds"; else verdict="violated"; fi
  total_states=$((total_states + ${states:-0}))
  printf '%-36s %-9s %12s states  %6.1f s' "$name" "$verdict" "${states:-?}" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')"
  if [ "$verdict" = violated ]; then
    case "$(grep -o 'assertion violated.*' <<<"$out" | sed -n 1p)" in
      *eatt*)   printf '  (two executions of one run at once)' ;;
      *orphan*) printf '  (a run running without a live owner past one lease)' ;;
      *faulty*) printf "  (a healthy worker's run killed for want of a lease)" ;;
      *)        printf '  (%s)' "$(grep -o 'assertion violated.*' <<<"$out" | sed -n 1p)" ;;
    esac
  fi
  printf '\n'
  if [ "$verdict" != "$expect" ]; then
    echo "check-model: $name: expected '$expect', got '$verdict'"
    sed -n '1,40p' <<<"$out"
    if [ "$verdict" = violated ]; then
      (cd "$dir" && spin -t "$@" lease.pml >trail.txt 2>&1; grep -v '^\s*$' trail.txt | grep -v '^\s*[a-z]*\[' | sed -n '1,80p') || true
    fi
    failures=$((failures + 1))
  fi
}

echo "model: docs/model/lease.pml (spin $(spin -V | awk '{print $3}'))"
# the protocol, two processes with one label: one run (two attempts) with up to 2 faults; two runs (one attempt
# each) with up to 1
verify "correct: 1 run, 2 faults"            holds    -DNRUNS=1 -DMAXFAULTS=2
verify "correct: 2 runs, 1 fault"            holds    -DNRUNS=2 -DMAXFAULTS=1 -DMAXATT=1
# each rule removed must be seen failing (the issue's three first)
verify "mutant: fence by label only"         violated -DMAXFAULTS=2 -DMUT_LABEL
verify "mutant: fence without attempt"       violated -DMAXFAULTS=2 -DMUT_NO_ATTEMPT -DMAXATT=3
verify "mutant: heartbeat waits on a lock"   violated -DMAXFAULTS=2 -DMUT_HB_WAITS
verify "mutant: release before settled"      violated -DMAXFAULTS=2 -DMUT_NO_SETTLE
verify "mutant: release not rechecked"       violated -DMAXFAULTS=2 -DMUT_NO_RECHECK
verify "mutant: recovery ignores run lease"  violated -DMAXFAULTS=2 -DMUT_NO_RUN_LEASE
verify "mutant: run lease after expiry"      violated -DMAXFAULTS=2 -DMUT_RUN_LEASE_UNCHECKED
verify "mutant: late claim reply started"    violated -DMAXFAULTS=2 -DMUT_START_LATE
verify "mutant: deadline from heartbeat end" violated -DMAXFAULTS=2 -DMUT_DEADLINE_FROM_END

echo "states explored in all: $total_states; $(( $(date +%s) - start_all )) s"
if [ "$failures" -ne 0 ]; then
  echo "check-model: FAILED ($failures)"
  exit 1
fi
echo "check-model: the protocol holds and every mutant was found violating it"
