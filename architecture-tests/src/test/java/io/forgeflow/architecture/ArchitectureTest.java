package io.forgeflow.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import java.util.List;
import java.util.Set;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The arrows point inward: each rule says why. Every rule has been seen to fail on a deliberate violation;
 * docs/architecture.md lists which violation broke which rule.
 */
@AnalyzeClasses(packages = "io.forgeflow", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule domainIsPlainJava = classes().that().resideInAPackage("io.forgeflow.domain..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("io.forgeflow.domain..", "java..")
            .because("the run state machine and the retry policy must be testable without a database or framework");

    @ArchTest
    static final ArchRule applicationDependsOnlyOnTheDomain = classes().that().resideInAPackage("io.forgeflow.application..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("io.forgeflow.application..", "io.forgeflow.domain..",
                    "java..", "com.cronutils..", "org.slf4j..")
            .because("use cases speak to the world only through the domain's ports");

    @ArchTest
    static final ArchRule adaptersMeetOnlyThroughPorts = slices().matching("io.forgeflow.adapter.(*)..")
            .should().notDependOnEachOther()
            .because("adapters meet only through ports; the server wires them together");

    @ArchTest
    static final ArchRule onlyTheServerWiresAdapters = noClasses().that()
            .resideOutsideOfPackages("io.forgeflow.adapter..", "io.forgeflow.server..", "io.forgeflow.embedded..",
                    "io.forgeflow.bench..")
            .should().dependOnClassesThat().resideInAPackage("io.forgeflow.adapter..")
            .because("the server (and the embedded worker, a composition root inside an application) chooses which "
                    + "adapter stands behind each port; the bench, a measuring tool outside the node's jar, assembles "
                    + "nodes the same way");

    @ArchTest
    static final ArchRule theEmbeddedWorkerIsNoServer = noClasses().that().resideInAPackage("io.forgeflow.embedded..")
            .should().dependOnClassesThat().resideInAnyPackage("io.dropwizard..", "org.eclipse.jetty..",
                    "org.glassfish.jersey..", "jakarta.ws.rs..", "jakarta.servlet..", "io.forgeflow.adapter.rest..",
                    "io.forgeflow.adapter.executor..", "io.forgeflow.server..", "io.forgeflow.client..",
                    "io.prometheus..", "okhttp3..")
            .because("an application embeds the worker in its own JVM: it brings the application and persistence "
                    + "layers only, never an HTTP server, the REST adapter, the node's executors or its metrics");

    @ArchTest
    static final ArchRule theEmbeddedWorkerIsReallyThere = classes().that().haveFullyQualifiedName(
                    "io.forgeflow.embedded.ForgeFlowWorker")
            .should().bePublic().because("the embedded worker is on the analysed classpath, so the rule above is not vacuous");

    @ArchTest
    static final ArchRule layers = layeredArchitecture().consideringOnlyDependenciesInAnyPackage("io.forgeflow..")
            .layer("Domain").definedBy("io.forgeflow.domain..")
            .layer("Application").definedBy("io.forgeflow.application..")
            .layer("Adapters").definedBy("io.forgeflow.adapter..")
            .layer("Server").definedBy("io.forgeflow.server..")
            .layer("Embedded").definedBy("io.forgeflow.embedded..")
            .layer("Client").definedBy("io.forgeflow.client..")
            .layer("Cli").definedBy("io.forgeflow.cli..")
            .layer("DevDatabase").definedBy("io.forgeflow.devdatabase..")
            .layer("Desktop").definedBy("io.forgeflow.admin..")
            .layer("Bench").definedBy("io.forgeflow.bench..")
            .whereLayer("Bench").mayNotBeAccessedByAnyLayer()
            .whereLayer("Server").mayNotBeAccessedByAnyLayer()
            .whereLayer("Embedded").mayOnlyBeAccessedByLayers("Bench") // the scale test hosts embedded workers (issue 46)
            .whereLayer("Desktop").mayNotBeAccessedByAnyLayer()
            .whereLayer("Cli").mayOnlyBeAccessedByLayers("Server")
            .whereLayer("DevDatabase").mayOnlyBeAccessedByLayers("Server", "Bench")
            .whereLayer("Client").mayOnlyBeAccessedByLayers("Desktop", "Cli", "Bench")
            .whereLayer("Adapters").mayOnlyBeAccessedByLayers("Server", "Embedded", "Bench")
            .whereLayer("Application").mayOnlyBeAccessedByLayers("Adapters", "Server", "Embedded", "Bench")
            .whereLayer("Domain").mayOnlyBeAccessedByLayers("Application", "Adapters", "Server", "Embedded", "Bench")
            .because("only the server knows every module and nothing depends on it (the bench, a tool outside the "
                    + "node's jar, shares only the development database with it), nothing depends on the embedded "
                    + "worker, and the clients are for the desktop, the command line and the bench only (the node's "
                    + "jar carries the command line's commands)");

    @ArchTest
    static final ArchRule theCommandLineSpeaksOnlyTheRestContract = classes().that().resideInAPackage("io.forgeflow.cli..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("io.forgeflow.cli..", "io.forgeflow.client",
                    "java..", "net.sourceforge.argparse4j..", "com.fasterxml.jackson..")
            .because("the command line talks to a node over REST through the client, never to its database: its own "
                    + "jar holds the client, argparse4j and Jackson, and nothing of the node");

    @ArchTest
    static final ArchRule theCommandLineIsReallyThere = classes().that().haveFullyQualifiedName(
                    "io.forgeflow.cli.ForgeFlowCli")
            .should().bePublic().because("the command line is on the analysed classpath, so the rule above is not vacuous");

    @ArchTest
    static final ArchRule desktopSpeaksOnlyTheRestContract = noClasses().that().resideInAPackage("io.forgeflow.admin..")
            .should().dependOnClassesThat().resideInAnyPackage("io.forgeflow.domain..", "io.forgeflow.application..",
                    "io.forgeflow.adapter..", "io.forgeflow.server..")
            .because("the admin desktop operates a cluster over REST only, like any other client");

    @ArchTest
    static final ArchRule theDashboardNeedsOnlyTheJdk = classes().that().resideInAPackage("io.forgeflow.dashboard..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("io.forgeflow.dashboard..", "java..")
            .because("the web dashboard speaks the REST contract only, from the browser, like the desktop: its module "
                    + "is files and the JDK-only class that reads them");

    @ArchTest
    static final ArchRule onlyTheServerServesTheDashboard = noClasses().that()
            .resideOutsideOfPackages("io.forgeflow.server..", "io.forgeflow.dashboard..")
            .should().dependOnClassesThat().resideInAPackage("io.forgeflow.dashboard..")
            .because("the node serves the dashboard's files; nothing else has a use for them");

    @ArchTest
    static final ArchRule theDashboardIsReallyThere = classes().that().haveFullyQualifiedName(
                    "io.forgeflow.dashboard.DashboardFiles")
            .should().bePublic().because("the dashboard is on the analysed classpath, so the rules above are not vacuous");

    @ArchTest
    static final ArchRule theClientStandsAlone = noClasses().that().resideInAPackage("io.forgeflow.client..")
            .should().dependOnClassesThat().resideInAnyPackage("io.forgeflow.domain..", "io.forgeflow.application..",
                    "io.forgeflow.adapter..", "io.forgeflow.server..", "io.forgeflow.admin..")
            .because("the client is the REST contract as a library: whoever embeds it (the desktop, a CLI, a user's "
                    + "program) gets no server classes, and the wire format is its only coupling to the node");

    @ArchTest
    static final ArchRule theJdbcClientNeedsOnlyJavaSql = classes().that().resideInAPackage("io.forgeflow.client.jdbc..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("io.forgeflow.client.jdbc..", "java..")
            .because("an application enqueues in its own transaction with whatever driver and pool it has: the helper "
                    + "brings no library, not even the REST client");

    @ArchTest
    static final ArchRule theJdbcClientIsReallyThere = classes().that().haveFullyQualifiedName(
                    "io.forgeflow.client.jdbc.ForgeFlowJdbc")
            .should().bePublic().because("the JDBC helper is on the analysed classpath, so the rule above is not vacuous");

    @ArchTest
    static final ArchRule coreUsesNoInfrastructure = noClasses().that()
            .resideInAnyPackage("io.forgeflow.domain..", "io.forgeflow.application..")
            .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "javax.sql..", "org.jdbi..",
                    "io.dropwizard..", "org.glassfish.jersey..", "jakarta.ws.rs..", "com.fasterxml.jackson..",
                    "okhttp3..", "org.postgresql..", "io.opentelemetry..")
            .because("the core is infrastructure-free; adapters bring the technology (traces: adapters-otel)");

    @ArchTest
    static final ArchRule viewModelsAreToolkitFree = noClasses().that().haveSimpleNameEndingWith("ViewModel")
            .should().dependOnClassesThat().resideInAPackage("javafx.scene..")
            .because("view models are tested without starting JavaFX");

    @ArchTest
    static final ArchRule domainPackagesHaveNoCycles = slices().matching("io.forgeflow.domain.(*)..")
            .should().beFreeOfCycles()
            .because("domain concepts build on each other in one direction");

    @ArchTest
    static final ArchRule applicationPackagesHaveNoCycles = slices().matching("io.forgeflow.application.(*)..")
            .should().beFreeOfCycles()
            .because("use cases build on shared support, never on each other in circles");

    /** Each package is its own slice: io.forgeflow.server and io.forgeflow.server.secrets are two. */
    @ArchTest
    static final ArchRule noPackageCycles = slices().matching("io.forgeflow.(**)")
            .should().beFreeOfCycles()
            .because("packages that need each other are one package in disguise: neither can be understood, tested "
                    + "or moved alone");

    /** An interface of the domain's port package with no implementing class outside the domain. */
    static final ArchCondition<JavaClass> HAVE_AN_ADAPTER = new ArchCondition<>(
            "be implemented by at least one class outside the domain") {
        @Override
        public void check(JavaClass port, ConditionEvents events) {
            List<String> adapters = port.getAllSubclasses().stream()
                    .filter(c -> !c.isInterface() && !c.getPackageName().startsWith("io.forgeflow.domain"))
                    .map(JavaClass::getName)
                    .sorted()
                    .toList();
            String message = adapters.isEmpty()
                    ? "port " + port.getName() + " has no implementation outside the domain"
                    : "port " + port.getName() + " is implemented by " + String.join(", ", adapters);
            events.add(new SimpleConditionEvent(port, !adapters.isEmpty(), message));
        }
    };

    @ArchTest
    static final ArchRule everyPortHasAnAdapter = classes().that().resideInAPackage("io.forgeflow.domain.port")
            .and().areInterfaces().and().areTopLevelClasses()
            .should(HAVE_AN_ADAPTER)
            .because("a port nobody implements cannot be wired: it is either dead weight or a missing adapter "
                    + "(nested callback interfaces such as RunEvents.Listener are implemented by whoever subscribes)");

    /**
     * What the embedded worker may use of the database classes: the application's pool it is given
     * ({@code javax.sql.DataSource}) and the {@code Jdbi} it hands to the adapters, never a statement.
     */
    static final DescribedPredicate<JavaClass> EMBEDDED_POOL_HANDOVER = new DescribedPredicate<>(
            "the pool and the Jdbi the embedded worker hands to adapters-postgres") {
        @Override
        public boolean test(JavaClass target) {
            return target.getName().equals("javax.sql.DataSource") || target.getName().equals("org.jdbi.v3.core.Jdbi");
        }
    };

    @ArchTest
    static final ArchRule onlyThePersistenceAdapterAndTheServerTalkToTheDatabase = noClasses().that()
            .resideOutsideOfPackages("io.forgeflow.adapter.postgres..", "io.forgeflow.server..",
                    "io.forgeflow.client.jdbc..", "io.forgeflow.bench..", "io.forgeflow.devdatabase..")
            .should().dependOnClassesThat(resideInAnyPackage("java.sql..", "javax.sql..", "org.jdbi..",
                    "org.postgresql..", "liquibase..").and(DescribedPredicate.not(EMBEDDED_POOL_HANDOVER)))
            .because("SQL is written in one place, adapters-postgres, with bound parameters only: no text from a "
                    + "request can reach a statement built anywhere else (the JDBC client, for applications, makes "
                    + "one statement, the call of forgeflow.enqueue() with bound parameters; the bench, outside the "
                    + "node's jar, makes its workloads' databases and probes; the development database creates its "
                    + "database 'forgeflow', a statement without parameters)");

    @ArchTest
    static final ArchRule theEmbeddedWorkerWritesNoSql = noClasses().that().resideInAPackage("io.forgeflow.embedded..")
            .should().dependOnClassesThat(resideInAnyPackage("java.sql..", "javax.sql..", "org.jdbi..",
                    "org.postgresql..", "liquibase..").and(DescribedPredicate.not(EMBEDDED_POOL_HANDOVER)))
            .because("the embedded worker wires adapters-postgres with the application's pool; its SQL stays there");

    /** Statement creation by JDBI: where SQL text enters JDBI outside a SqlObject's .sql file. */
    static final DescribedPredicate<JavaMethodCall> JDBI_STATEMENT_CREATION = new DescribedPredicate<>(
            "create a JDBI statement from SQL text") {
        private final Set<String> methods = Set.of("createQuery", "createUpdate", "createCall", "createScript",
                "prepareBatch", "execute", "select");

        @Override
        public boolean test(JavaMethodCall call) {
            return call.getTargetOwner().getPackageName().startsWith("org.jdbi")
                    && call.getTargetOwner().getSimpleName().equals("Handle")
                    && methods.contains(call.getName());
        }
    };

    @ArchTest
    static final ArchRule theServerWiresJdbiButWritesNoStatements = noClasses().that()
            .resideInAPackage("io.forgeflow.server..")
            .should().callMethodWhere(JDBI_STATEMENT_CREATION)
            .because("the composition root hands Jdbi to the adapter; statements live in adapters-postgres's .sql "
                    + "files with bound parameters (BoundParametersTest checks those)");

    /**
     * A decorator of a port (a class that implements a port of the domain and holds another instance of that port)
     * declares every method of the port: a method it left to the port's default would skip the decoration, or
     * reach the default's fallback instead of the store it wraps (PublishedJobs once dropped pause notes through
     * the default pause, and a 500 followed).
     */
    static final ArchCondition<JavaClass> DECLARE_EVERY_METHOD_OF_THE_PORTS_THEY_WRAP = new ArchCondition<>(
            "declare every method of the port they wrap") {
        @Override
        public void check(JavaClass type, ConditionEvents events) {
            for (JavaClass port : type.getAllRawInterfaces()) {
                if (!port.getPackageName().startsWith("io.forgeflow.domain.port")) {
                    continue;
                }
                boolean wraps = type.getAllFields().stream().anyMatch(f -> f.getRawType().equals(port));
                if (!wraps) {
                    continue;
                }
                for (com.tngtech.archunit.core.domain.JavaMethod method : port.getMethods()) {
                    if (method.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.STATIC)) {
                        continue;
                    }
                    List<String> parameters = method.getRawParameterTypes().stream().map(JavaClass::getName).toList();
                    boolean declared = type.getMethods().stream().anyMatch(m -> m.getName().equals(method.getName())
                            && m.getRawParameterTypes().stream().map(JavaClass::getName).toList().equals(parameters));
                    if (!declared) {
                        events.add(SimpleConditionEvent.violated(type, type.getName() + " wraps " + port.getSimpleName()
                                + " but leaves " + method.getName() + parameters + " to the port's default"));
                    }
                }
            }
        }
    };

    @ArchTest
    static final ArchRule decoratorsPassEveryPortMethodThrough = classes().that()
            .resideInAPackage("io.forgeflow..").and().areNotInterfaces()
            .should(DECLARE_EVERY_METHOD_OF_THE_PORTS_THEY_WRAP)
            .because("a new method of a port must reach the store behind every decorator, or the build says which "
                    + "decorator forgot it");

    /**
     * A record of a job's or a run's fields with shorter constructors beside its full one (JobSpec, JobDraft, Job,
     * Run, the client's JobRequest) is built by the main
     * code through the full one only: a shorter one fills what it does not name with defaults, so a caller that
     * used it would drop a field added later without a compiler error (the flow-control merge found three fakes that
     * lost {@code snoozes} that way). The shorter ones stay for tests and for the record's own delegation.
     */
    /** Where the records of a job's and a run's fields live: the domain's and the Java client's. */
    static final Set<String> FIELD_SET_PACKAGES = Set.of("io.forgeflow.domain.job", "io.forgeflow.domain.run",
            "io.forgeflow.client", "io.forgeflow.client.jdbc");

    static final ArchCondition<JavaClass> BUILD_RECORDS_WITH_THEIR_FULL_CONSTRUCTOR = new ArchCondition<>(
            "build ForgeFlow records with their full constructor") {
        @Override
        public void check(JavaClass type, ConditionEvents events) {
            for (com.tngtech.archunit.core.domain.JavaConstructorCall call : type.getConstructorCallsFromSelf()) {
                JavaClass record = call.getTargetOwner();
                if (record.equals(type) || !FIELD_SET_PACKAGES.contains(record.getPackageName())
                        || !record.getRawSuperclass().map(c -> c.getName().equals("java.lang.Record")).orElse(false)) {
                    continue;
                }
                int full = record.getConstructors().stream().mapToInt(c -> c.getRawParameterTypes().size()).max()
                        .orElse(0);
                int used = call.getTarget().getRawParameterTypes().size();
                if (used < full) {
                    events.add(SimpleConditionEvent.violated(call, call.getDescription() + " uses a " + used
                            + "-argument constructor of " + record.getSimpleName() + " (the full one takes " + full
                            + ")"));
                }
            }
        }
    };

    @ArchTest
    static final ArchRule recordsAreBuiltWithEveryField = classes().that().resideInAPackage("io.forgeflow..")
            .should(BUILD_RECORDS_WITH_THEIR_FULL_CONSTRUCTOR)
            .because("a field added to a record must be given by every caller in the main code, or the build says "
                    + "which caller forgot it");
}
