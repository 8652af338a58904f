/**
 * The one REST client of ForgeFlow: typed methods for every route of the REST contract (shared/API.md), on OkHttp
 * and Jackson, depending on no server module. Start with {@link io.forgeflow.client.ForgeFlowClient#builder(String)}.
 *
 * <p>Errors the server answers become {@link io.forgeflow.client.ForgeFlowApiException} (HTTP status, the API's
 * {@code error} and {@code field}); a server that cannot be reached becomes
 * {@link io.forgeflow.client.ForgeFlowUnavailableException}. Both are unchecked and extend
 * {@link io.forgeflow.client.ForgeFlowException}. Unknown JSON fields are ignored, since servers add fields.
 */
package io.forgeflow.client;
