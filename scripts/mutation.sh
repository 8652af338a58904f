#!/usr/bin/env bash
# Mutation testing of the core, incremental (docs/mutation.md, "In CI"): PIT on domain and application in full, each
# failing below its own pit.mutationThreshold, with PIT's history of the last recorded run (.ci/pit-history/) so that
# only mutants whose class or covering tests changed since are run again; the others keep their recorded result.
#
#   bash scripts/mutation.sh             # what .ci/run does, after the test command (whose build it reuses)
#   bash scripts/mutation.sh --record    # the same, then writes the new history into .ci/pit-history/ (commit it)
#   bash scripts/mutation.sh --full      # no history: every mutant runs (about 11 minutes); with --record, a fresh history
#
# A stale history costs time, never the verdict's scope: every mutant is counted against the threshold, whether it
# ran now or its result was carried over. The script fails when a module left no fresh mutations.xml.
# Extra Maven arguments: $MUTATION_MAVEN_ARGS (e.g. -o).
set -euo pipefail
cd "$(dirname "$0")/.."
modules=(domain application)
record=false full=false
for a in "$@"; do
  case "$a" in
    --record) record=true ;;
    --full) full=true ;;
    *) echo "usage: $0 [--record] [--full]" >&2; exit 2 ;;
  esac
done

for m in "${modules[@]}"; do
  mkdir -p "$m/target"
  rm -f "$m/target/pit-history.in" "$m/target/pit-history.out"
  h=".ci/pit-history/$m.hist.gz"
  if ! $full && [ -s "$h" ]; then
    gunzip -c "$h" > "$m/target/pit-history.in"
    echo "mutation: $m starts from $h (recorded at $(cat ".ci/pit-history/$m.commit" 2>/dev/null || echo '?'))"
  else
    echo "mutation: $m runs every mutant ($($full && echo '--full' || echo "no $h"))"
  fi
done

started=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
# shellcheck disable=SC2086
mvn -B ${MUTATION_MAVEN_ARGS:-} -Pmutation -pl "$(IFS=,; echo "${modules[*]}")" verify -Dmaven.test.skip.exec=true 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
echo

for m in "${modules[@]}"; do
  report="$m/target/pit-reports/mutations.xml"
  if [ ! -f "$report" ] || [ "$(stat -c %Y "$report")" -lt "$started" ]; then
    echo "mutation: $m left no fresh $report: PIT did not run there" >&2
    rc=1
    continue
  fi
  total=$(grep -o '<mutation ' "$report" | wc -l)
  killed=$(grep -o "<mutation detected='true'" "$report" | wc -l)
  echo "mutation: $m $killed/$total killed ($(awk -v k="$killed" -v t="$total" 'BEGIN { printf "%.1f %%", t ? 100 * k / t : 0 }'))"
done
grep -E 'Incremental analysis reduced number of mutations by' "$log" | sed 's/.*INFO : /mutation: /' || true

if [ "$rc" -eq 0 ] && $record; then
  mkdir -p .ci/pit-history
  for m in "${modules[@]}"; do
    gzip -n -9 -c "$m/target/pit-history.out" > ".ci/pit-history/$m.hist.gz"
    git rev-parse --short HEAD > ".ci/pit-history/$m.commit" 2>/dev/null || true
  done
  echo "mutation: history written to .ci/pit-history/ (commit it with the change it describes)"
fi
exit "$rc"
