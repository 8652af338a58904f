package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/** {@code GET /api/tenants}: every known tenant, by name, under {@code items} as every list of the API. */
public record TenantsResponse(@JsonProperty("items") List<TenantResponse> items) {
}
