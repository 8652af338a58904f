# Thin aliases of the commands the README documents; each target runs exactly the command shown beside it.
# `make help` lists them.
.PHONY: help run test test-integration chaos demo bench verify mutation mutation-record mutation-changed static-analysis \
        dependency-updates schema-snapshot slowest-tests

CHAOS ?= leader-stop worker-stop db-blackhole

help:                ## this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 22

run:                 ## build, then one node (API, scheduler, worker, dashboard) on 127.0.0.1:8080 (README, Quick start)
	mvn -B -q package -DskipTests && java -jar server/target/forgeflow.jar server

test:                ## the unit tests of every module (no integration tests)
	mvn -B verify -DskipITs

test-integration:    ## every module's tests, unit and integration: the README's test command
	mvn -B -T 2 verify

chaos:               ## the fault scenarios of README "Failure handling" on a loopback cluster (CHAOS="worker-stop" for one)
	for mode in $(CHAOS); do bash scripts/chaos.sh $$mode || exit 1; done

demo:                ## a loopback cluster, a 12 s job, SIGKILL of its worker, another worker finishes it (README "Watch it happen")
	bash scripts/chaos.sh

bench:               ## the bench's default set, 7-9 minutes on 2 cores (docs/BENCHMARKS.md)
	mvn -B -q package -DskipTests && java -Xmx256m -jar bench/target/forgeflow-bench.jar

verify:              ## what CI runs: deployment checks, every test, the quality gates, PIT on the core, incremental (docs/ci.md)
	bash .ci/run

mutation:            ## the full mutation run: the build plus PIT on four modules, about 30 minutes (docs/mutation.md)
	mvn -B -Pmutation verify

mutation-record:     ## CI's incremental mutation run, then its new history into .ci/pit-history/ (commit it with the change)
	bash scripts/mutation.sh --record

mutation-changed:    ## PIT on the classes of domain and application changed since BASE (default: see the script)
	bash scripts/mutation-changed.sh $(BASE)

static-analysis:     ## SpotBugs + FindSecBugs on main code, without the tests (docs/ci.md)
	mvn -B package -DskipTests

dependency-updates:  ## newer versions of the dependencies and plugins (versions-maven-plugin; a report, changes nothing)
	mvn -B versions:display-dependency-updates versions:display-plugin-updates -DprocessDependencyManagementTransitive=false

schema-snapshot:     ## rewrite adapters-postgres/src/test/resources/schema.sql after a migration changed (docs/ci.md)
	mvn -B -pl adapters-postgres -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=SchemaSnapshotIT -Dfailsafe.failIfNoSpecifiedTests=false -Dspotbugs.skip=true -Dforgeflow.updateSchemaSnapshot=true

slowest-tests:       ## the 25 slowest test classes and each module's test time, from the last build's reports
	bash scripts/slowest-tests.sh
