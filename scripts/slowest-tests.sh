#!/usr/bin/env bash
# The slowest test classes and the test time of each module, from the Surefire and Failsafe reports of the last build
# (every */target/{surefire,failsafe}-reports/TEST-*.xml under DIR, default: the repository root).
#
#   bash scripts/slowest-tests.sh [DIR] [N]     # N slowest classes, default 25
#
# A class's time is its report's (its @BeforeAll/@AfterAll and nested classes included). A module's time is the sum
# of its classes' times, unit (surefire) and integration (failsafe) apart; Maven's own overhead (compiling, packaging,
# starting the test JVM) is not in it: the reactor summary at the end of the build log has each module's wall time.
set -euo pipefail
dir="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
count="${2:-25}"

python3 - "$dir" "$count" <<'EOF'
import glob, os, sys
import xml.etree.ElementTree as ET

root, count = sys.argv[1], int(sys.argv[2])
classes = {}   # (module, kind, top-level class) -> [time of top-level report or None, sum of nested reports, tests]
for path in glob.glob(os.path.join(root, "**", "target", "*-reports", "TEST-*.xml"), recursive=True):
    kind = os.path.basename(os.path.dirname(path)).replace("-reports", "")
    if kind not in ("surefire", "failsafe"):
        continue
    module = os.path.relpath(path, root).split(os.sep + "target" + os.sep)[0]
    try:
        suite = ET.parse(path).getroot()
    except ET.ParseError:
        print(f"skipped (not readable yet): {path}", file=sys.stderr)
        continue
    name = suite.get("name", "?")
    top = name.split("$")[0]
    time = float(suite.get("time") or 0)
    entry = classes.setdefault((module, kind, top), [None, 0.0, 0])
    entry[2] += len(suite.findall("testcase"))
    if name == top:
        entry[0] = time
    else:
        entry[1] += time

if not classes:
    sys.exit(f"no TEST-*.xml under {root}/*/target/{{surefire,failsafe}}-reports: run the tests first")

# a top-level report already counts its nested classes; without one, the nested reports add up
rows = [(max(own or 0.0, nested), module, kind, cls, tests) for (module, kind, cls), (own, nested, tests) in classes.items()]
rows.sort(reverse=True)
total = sum(r[0] for r in rows)

print(f"{count} slowest test classes (of {len(rows)}, {total:.0f} s of test time in all)")
print(f"{'seconds':>8}  {'share':>5}  {'tests':>5}  {'kind':<8}  {'module':<22}  class")
for time, module, kind, cls, tests in rows[:count]:
    print(f"{time:8.1f}  {100 * time / total:4.1f}%  {tests:5d}  {kind:<8}  {module:<22}  {cls.split('.')[-1]}")

modules = {}
for time, module, kind, _, _ in rows:
    m = modules.setdefault(module, {"surefire": 0.0, "failsafe": 0.0})
    m[kind] += time
print()
print("test time per module (sum of its classes), slowest first")
print(f"{'total':>8}  {'unit':>8}  {'IT':>8}  module")
for module, m in sorted(modules.items(), key=lambda kv: -(kv[1]["surefire"] + kv[1]["failsafe"])):
    print(f"{m['surefire'] + m['failsafe']:8.1f}  {m['surefire']:8.1f}  {m['failsafe']:8.1f}  {module}")
EOF
