package io.forgeflow.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import java.util.Set;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/** The arrows point inward: each rule says why. */
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
    static final ArchRule layers = layeredArchitecture().consideringOnlyDependenciesInAnyPackage("io.forgeflow..")
            .layer("Domain").definedBy("io.forgeflow.domain..")
            .layer("Application").definedBy("io.forgeflow.application..")
            .layer("Adapters").definedBy("io.forgeflow.adapter..")
            .layer("Server").definedBy("io.forgeflow.server..")
            .layer("Desktop").definedBy("io.forgeflow.admin..")
            .whereLayer("Server").mayNotBeAccessedByAnyLayer()
            .whereLayer("Desktop").mayNotBeAccessedByAnyLayer()
            .whereLayer("Adapters").mayOnlyBeAccessedByLayers("Server")
            .whereLayer("Application").mayOnlyBeAccessedByLayers("Adapters", "Server")
            .whereLayer("Domain").mayOnlyBeAccessedByLayers("Application", "Adapters", "Server")
            .because("only the server knows every module, and nothing depends on the server");

    @ArchTest
    static final ArchRule desktopSpeaksOnlyTheRestContract = noClasses().that().resideInAPackage("io.forgeflow.admin..")
            .should().dependOnClassesThat().resideInAnyPackage("io.forgeflow.domain..", "io.forgeflow.application..",
                    "io.forgeflow.adapter..", "io.forgeflow.server..")
            .because("the admin desktop operates a cluster over REST only, like any other client");

    @ArchTest
    static final ArchRule coreUsesNoInfrastructure = noClasses().that()
            .resideInAnyPackage("io.forgeflow.domain..", "io.forgeflow.application..")
            .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "javax.sql..", "org.jdbi..",
                    "io.dropwizard..", "org.glassfish.jersey..", "jakarta.ws.rs..", "com.fasterxml.jackson..",
                    "okhttp3..", "org.postgresql..")
            .because("the core is infrastructure-free; adapters bring the technology");

    @ArchTest
    static final ArchRule viewModelsAreToolkitFree = noClasses().that().haveSimpleNameEndingWith("ViewModel")
            .should().dependOnClassesThat().resideInAPackage("javafx.scene..")
            .allowEmptyShould(true)
            .because("view models are tested without starting JavaFX");

    @ArchTest
    static final ArchRule domainPackagesHaveNoCycles = slices().matching("io.forgeflow.domain.(*)..")
            .should().beFreeOfCycles()
            .because("domain concepts build on each other in one direction");

    @ArchTest
    static final ArchRule applicationPackagesHaveNoCycles = slices().matching("io.forgeflow.application.(*)..")
            .should().beFreeOfCycles()
            .because("use cases build on shared support, never on each other in circles");

    @ArchTest
    static final ArchRule onlyThePersistenceAdapterAndTheServerTalkToTheDatabase = noClasses().that()
            .resideOutsideOfPackages("io.forgeflow.adapter.postgres..", "io.forgeflow.server..")
            .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "javax.sql..", "org.jdbi..",
                    "org.postgresql..", "liquibase..")
            .because("SQL is written in one place, adapters-postgres, with bound parameters only: no text from a "
                    + "request can reach a statement built anywhere else");

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
}
