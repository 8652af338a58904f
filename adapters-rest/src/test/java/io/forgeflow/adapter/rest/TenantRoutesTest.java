package io.forgeflow.adapter.rest;

import io.forgeflow.domain.port.TenantDirectory.Kind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TenantRoutesTest {
    static final String ID = "0190a1b2-0000-7000-8000-000000000001";

    @Test
    void theCollectionsOfJobsRunsAndBatchesActInTheRequestsTenant() {
        for (String path : new String[]{"/api/jobs", "api/runs/", "//api/batches"}) {
            TenantRoutes.Route route = TenantRoutes.of("GET", path, null);
            assertThat(route.tenantScoped()).as(path).isTrue();
            assertThat(route.kind()).as(path).isNull();
        }
    }

    @Test
    void aPathUnderAnObjectNamesThatObject() {
        assertThat(TenantRoutes.of("PATCH", "/api/jobs/" + ID, null)).isEqualTo(new TenantRoutes.Route(true, Kind.JOB, ID));
        assertThat(TenantRoutes.of("POST", "/api/jobs/" + ID + "/backfill", null).kind()).isEqualTo(Kind.JOB);
        assertThat(TenantRoutes.of("GET", "/api/jobs/" + ID + "/backfill/x", null).id()).isEqualTo(ID);
        assertThat(TenantRoutes.of("POST", "/api/runs/" + ID + "/requeue", null).kind()).isEqualTo(Kind.RUN);
        assertThat(TenantRoutes.of("GET", "/api/batches/" + ID, null).kind()).isEqualTo(Kind.BATCH);
    }

    @Test
    void aSchedulePreviewNamesTheJobOfItsJobId() {
        assertThat(TenantRoutes.of("GET", "/api/schedules/preview", null)).isEqualTo(TenantRoutes.Route.SCOPED);
        assertThat(TenantRoutes.of("GET", "/api/schedules/preview", ID)).isEqualTo(new TenantRoutes.Route(true,
                Kind.JOB, ID));
        assertThat(TenantRoutes.of("GET", "/api/schedules/other", ID).tenantScoped()).isFalse();
    }

    @Test
    void probesAndTheApiDocumentAreOpen() {
        assertThat(TenantRoutes.of("GET", "/healthz", null).tenantScoped()).isTrue();
        assertThat(TenantRoutes.of("GET", "/readyz", null).tenantScoped()).isTrue();
        assertThat(TenantRoutes.of("GET", "/api/openapi.json", null).tenantScoped()).isTrue();
        assertThat(TenantRoutes.of("GET", "/api/stats", null)).as("a tenant's counts").isEqualTo(TenantRoutes.Route.SCOPED);
        assertThat(TenantRoutes.of("GET", "/api/events", null)).as("a tenant's events").isEqualTo(TenantRoutes.Route.SCOPED);
    }

    @Test
    void queuesAreTheRequestsTenantsForReadsAndWrites() {
        for (String method : new String[]{"GET", "PUT", "POST"}) {
            for (String path : new String[]{"/api/queues", "/api/queues/reports", "/api/queues/reports/pause",
                    "/api/queues/reports/resume"}) {
                assertThat(TenantRoutes.of(method, path, null)).as(method + " " + path)
                        .isEqualTo(TenantRoutes.Route.SCOPED);
            }
        }
    }

    @Test
    void tenantsWeightsAndLimitsAreClusterWideForReadsAndWrites() {
        for (String method : new String[]{"GET", "HEAD", "PUT"}) {
            for (String path : new String[]{"/api/tenants", "/api/tenants/acme", "api//tenants/default/"}) {
                assertThat(TenantRoutes.of(method, path, null)).as(method + " " + path)
                        .isEqualTo(TenantRoutes.Route.CLUSTER);
            }
        }
    }

    @Test
    void everythingElseIsClusterWideIncludingRoutesNoOneHasWrittenYet() {
        for (String path : new String[]{"/api/nodes", "/api/stats/x",
                "/api/events/x", "/api/tenants", "/api", "/", "/metrics", "/api/schedules", "/other/jobs"}) {
            assertThat(TenantRoutes.of("GET", path, null)).as(path).isEqualTo(TenantRoutes.Route.CLUSTER);
        }
    }
}
