package io.forgeflow.adapter.rest;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Every route of API.md, and the paths around them, with the scope each needs ("open": none). */
class RouteScopesTest {
    static final String ID = "01900000-0000-7000-8000-000000000000";

    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource({
            // Jobs
            "POST, /api/jobs,                      submit",
            "GET,  /api/jobs,                      read",
            "GET,  /api/jobs/" + ID + ",            read",
            "POST, /api/jobs/" + ID + "/pause,      operate",
            "POST, /api/jobs/" + ID + "/resume,     operate",
            "POST, /api/jobs/" + ID + "/cancel,     operate",
            "POST, /api/jobs/" + ID + "/trigger,    operate",
            // Runs
            "GET,  /api/runs,                      read",
            "GET,  /api/runs/" + ID + ",            read",
            "POST, /api/runs/" + ID + "/requeue,    operate",
            "POST, /api/runs/" + ID + "/cancel,     operate",
            // Queues
            "GET,  /api/queues,                    read",
            "GET,  /api/queues/reports,            read",
            "HEAD, /api/queues/reports,            read",
            "PUT,  /api/queues/reports,            operate",
            "POST, /api/queues/reports/pause,      operate",
            "POST, /api/queues/reports/resume,     operate",
            "PUT,  api/queues/reports/,            operate",
            "PUT,  //api//queues//reports,         operate",
            "POST, /api/queues/reports/pause/,     operate",
            "GET,  /api/tenants,                   read",
            "GET,  /api/tenants/acme,              read",
            "HEAD, /api/tenants/acme,              read",
            // Operations
            "GET,  /api/stats,                     read",
            "GET,  /api/nodes,                     read",
            "GET,  /api/events,                    read",
            "GET,  /healthz,                       open",
            "GET,  /readyz,                        open",
            "HEAD, /readyz,                        open",
            "POST, /healthz,                       open",
            "GET,  /api/openapi.json,              open",
            "HEAD, /api/openapi.json,              open",
            "GET,  //api/openapi.json/,            open",
            "GET,  /api/openapi.yaml,              read",
            "POST, /api/openapi.json,              admin",
            // the same routes written loosely
            "POST, api/jobs,                       submit",
            "POST, /api/jobs/,                     submit",
            "POST, //api//jobs,                    submit",
            "POST, /api/jobs/" + ID + "/pause/,     operate",
            "GET,  /readyz/,                       open",
            "HEAD, /api/jobs,                      read",
            // everything else needs admin
            "POST, /api/runs,                      admin",
            "POST, /api/jobs/" + ID + ",            admin",
            "POST, /api/jobs/" + ID + "/requeue,    admin",
            "POST, /api/runs/" + ID + "/trigger,    admin",
            "POST, /api/jobs/" + ID + "/pause/now,  admin",
            "POST, /api/jobs/" + ID + "/pause;x=1,  admin",
            "POST, /api/stats,                     admin",
            "POST, /api/jobz,                      admin",
            "POST, /jobs,                          admin",
            "PUT,  /api/jobs,                      admin",
            "PATCH, /api/jobs/" + ID + ",           submit",
            "DELETE, /api/jobs/" + ID + ",          operate",
            "DELETE, /api/runs/" + ID + ",          admin",
            "OPTIONS, /api/jobs,                   admin",
            "TRACE, /api/jobs,                     admin",
            "post, /api/jobs,                      admin",
            "GET,  /readyz;x=1,                    read",
            "GET,  /api/readyz,                    read",
            "POST, /healthz/x,                     admin",
            "GET,  /,                              read",
            "POST, /,                              admin",
            // queue routes that are not routes need admin
            "PUT,  /api/queues,                    admin",
            "PUT,  /api/tenants/acme,              admin",
            "PUT,  //api//tenants//acme/,          admin",
            "PUT,  /api/tenants,                   admin",
            "POST, /api/tenants/acme,              admin",
            "DELETE, /api/tenants/acme,            admin",
            "PUT,  /api/queues/reports/pause,      admin",
            "PUT,  /api/jobs/" + ID + ",            admin",
            "PUT,  /api/runs/reports,              admin",
            "PUT,  /queues/reports,                admin",
            "PUT,  /api/queues/a/b,                admin",
            "POST, /api/queues,                    admin",
            "POST, /api/queues/reports,            admin",
            "POST, /api/queues/reports/drain,      admin",
            "POST, /api/queues/reports/cancel,     admin",
            "POST, /api/queues/reports/trigger,    admin",
            "POST, /api/queues/reports/pause/now,  admin",
            "DELETE, /api/queues/reports,          admin",
            "PATCH, /api/queues/reports,           admin",
            "put,  /api/queues/reports,            admin"})
    void eachRouteNeedsItsScopeAndTheRestNeedsAdmin(String method, String path, String scope) {
        assertThat(RouteScopes.required(method, path).map(Scope::wireName).orElse("open")).isEqualTo(scope);
    }
}
