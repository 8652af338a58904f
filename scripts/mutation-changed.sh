#!/usr/bin/env bash
# Mutation testing of what changed (docs/mutation.md, "In CI: what changed"): PIT on the classes of domain and
# application whose source or test changed since BASE, each module failing below its own pit.mutationThreshold.
# .ci/run runs it after `mvn -B verify` (whose build it reuses); the full run is `mvn -B -Pmutation verify`.
#
#   bash scripts/mutation-changed.sh [BASE]     # BASE: a commit; default below
#
# BASE, first that applies: the argument; $FORGEFLOW_MUTATION_BASE (the commit main was at before a landing of
# several commits); HEAD's first parent when HEAD is a merge (what the merge brought); the merge base with origin/main
# when HEAD is not on it (a branch); else HEAD~1 (the last commit).
# A changed src/main class is mutated; a changed test FooTest/FooIT/FooContractTest mutates Foo of the same package
# when it exists. With nothing to mutate, it says so and mutates the whole domain instead (about a minute), so the
# phase still proves PIT runs and its threshold holds. It fails when a module PIT should have run left no fresh
# report: PIT cannot be skipped or misconfigured silently.
# Extra Maven arguments: $MUTATION_MAVEN_ARGS (e.g. -o).
set -euo pipefail
cd "$(dirname "$0")/.."
modules=(domain application)

base="${1:-${FORGEFLOW_MUTATION_BASE:-}}"
why="given"
# the commit main was at when the previous session's work landed, kept in .ci/last-landing by whoever submits
if [ -z "$base" ] && [ -s .ci/last-landing ]; then
  base=$(tr -d '[:space:]' < .ci/last-landing); why="the last landing (.ci/last-landing)"
fi
if [ -z "$base" ]; then
  if git rev-parse -q --verify 'HEAD^2' >/dev/null; then
    base=$(git rev-parse 'HEAD^1'); why="HEAD is a merge: its first parent"
  elif git rev-parse -q --verify origin/main >/dev/null && ! git merge-base --is-ancestor HEAD origin/main; then
    base=$(git merge-base HEAD origin/main); why="merge base with origin/main"
  elif git rev-parse -q --verify 'HEAD~1' >/dev/null; then
    base=$(git rev-parse 'HEAD~1'); why="the last commit (set FORGEFLOW_MUTATION_BASE to cover a landing of several)"
  else
    base=""; why="no history"
  fi
fi
if [ -n "$base" ] && ! git rev-parse -q --verify "${base}^{commit}" >/dev/null; then
  echo "mutation: base '$base' is not a commit of this clone (is the history there? git fetch --unshallow)" >&2
  exit 2
fi
echo "mutation: changes since ${base:-(none)} (${why})"

# changed files (added, copied, modified, renamed; not deleted) under the modules' src/main and src/test
changed=()
if [ -n "$base" ]; then
  mapfile -t changed < <(git diff --name-only --diff-filter=ACMR "$base" HEAD -- \
      $(for m in "${modules[@]}"; do printf '%s/src/main/java %s/src/test/java ' "$m" "$m"; done))
fi

declare -A targets=()   # module -> space-separated class patterns
for file in "${changed[@]}"; do
  module=${file%%/src/*}
  rel=${file#"$module"/src/*/java/}
  class=${rel%.java}; class=${class//\//.}
  case "$file" in
    */src/main/java/*) ;;
    */src/test/java/*)
      main=$(sed -E 's/(ContractTest|Test|IT)$//' <<<"$class")
      [ "$main" != "$class" ] && [ -f "$module/src/main/java/${main//.//}.java" ] || continue
      class=$main ;;
  esac
  targets[$module]+=" $class ${class}\$*"
done

patterns=""
for m in "${modules[@]}"; do
  [ -n "${targets[$m]:-}" ] || continue
  # unique patterns, comma-separated
  patterns+=$(tr ' ' '\n' <<<"${targets[$m]}" | sed '/^$/d' | sort -u | paste -sd, -),
done
patterns=${patterns%,}

run_modules=()
if [ -z "$patterns" ]; then
  echo "mutation: nothing changed in domain's or application's classes or their tests since ${base:-(none)};"
  echo "mutation: mutating the whole domain instead (a check that PIT and its threshold still work)"
  patterns='io.forgeflow.*'
  run_modules=(domain)
else
  for m in "${modules[@]}"; do [ -n "${targets[$m]:-}" ] && run_modules+=("$m"); done
  echo "mutation: classes to mutate: ${patterns//,/ }"
fi

# the reactor is always domain,application (application's build needs domain's, not a stale one from ~/.m2);
# PIT is skipped in a module with nothing to mutate
skip_args=()
for m in "${modules[@]}"; do
  if [[ " ${run_modules[*]} " != *" $m "* ]]; then skip_args+=("-Dpit.skip.$m=true"); fi
done

started=$(date +%s)
sleep 1   # report timestamps are in whole seconds
# their unit tests and SpotBugs ran in `mvn -B verify`: maven.test.skip.exec skips Surefire's second run, not PIT's
mvn -B ${MUTATION_MAVEN_ARGS:-} -Pmutation -pl "$(IFS=,; echo "${modules[*]}")" verify -Dmaven.test.skip.exec=true \
    -Dspotbugs.skip=true \
    "-Dpit.targetClasses=$patterns" "${skip_args[@]}"

# every module that should have run PIT left a fresh mutations.xml; print what it measured
status=0
for m in "${run_modules[@]}"; do
  report="$m/target/pit-reports/mutations.xml"
  if [ ! -f "$report" ] || [ "$(stat -c %Y "$report")" -lt "$started" ]; then
    echo "mutation: FAILED: PIT left no report in $report for this run (skipped or misconfigured?)" >&2
    status=1
    continue
  fi
  python3 - "$m" "$report" <<'EOF'
import sys, xml.etree.ElementTree as ET
module, path = sys.argv[1], sys.argv[2]
mutants = ET.parse(path).getroot().findall("mutation")
killed = sum(1 for x in mutants if x.get("status") in ("KILLED", "TIMED_OUT", "MEMORY_ERROR"))
classes = sorted({x.findtext("mutatedClass").split("$")[0] for x in mutants})
score = f"{100 * killed / len(mutants):.1f} %" if mutants else "n/a"
print(f"mutation: {module}: {len(mutants)} mutants in {len(classes)} classes, {killed} killed, score {score}")
if not mutants:
    print(f"mutation: {module}: the changed classes have no code PIT can mutate (interfaces, constants)")
EOF
done
exit $status
