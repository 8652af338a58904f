package io.forgeflow.adapter.rest;

import io.dropwizard.auth.AuthFilter;
import io.dropwizard.auth.Authorizer;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;

/**
 * Bearer-token authentication and scopes (dropwizard-auth), for every request Jersey serves except {@code /healthz},
 * {@code /readyz} and reads of {@code /api/openapi.json}: {@code Authorization: Bearer <token>}, the token one of
 * {@link ApiTokens}, with the scope {@link RouteScopes} names for the route.
 *
 * <ul>
 *   <li>no token, a malformed {@code Authorization} header, or a token that matches none: 401 with
 *       {@code WWW-Authenticate: Bearer realm="forgeflow"} (RFC 6750; {@code error="invalid_token"} for a wrong one);</li>
 *   <li>a valid token without the scope: 403, {@code error="insufficient_scope"} and the scope needed.</li>
 * </ul>
 *
 * Both answer the API's error shape. A token in the query string ({@code ?access_token=}) is never accepted: URLs end
 * up in logs and browser histories. The filter runs before resource matching ({@link PreMatching}), so an unknown
 * path under {@code /api} is a 401 to a stranger, not a map of the API. Tokens are never logged nor echoed.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION)
public final class BearerTokenAuthFilter extends AuthFilter<String, ApiPrincipal> {
    private static final Logger LOG = LoggerFactory.getLogger(BearerTokenAuthFilter.class);
    static final String REALM = "forgeflow";
    static final String PREFIX = "Bearer";

    /** The filter for these tokens. */
    static BearerTokenAuthFilter of(ApiTokens tokens) {
        return (BearerTokenAuthFilter) new Builder()
                .setAuthenticator(tokens::authenticate)
                .setAuthorizer(new ScopeAuthorizer())
                .setPrefix(PREFIX)
                .setRealm(REALM)
                .buildAuthFilter();
    }

    private BearerTokenAuthFilter() {
    }

    @Override
    public void filter(ContainerRequestContext request) {
        Optional<Scope> needed = RouteScopes.required(request.getMethod(), request.getUriInfo().getPath());
        if (needed.isEmpty()) {
            return;
        }
        List<String> headers = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
        String token = headers != null && headers.size() == 1 ? bearer(headers.get(0)) : null;
        String refusal = headers == null || headers.isEmpty()
                ? missing(tokenInQuery(request.getUriInfo().getRequestUri().getRawQuery()))
                : token == null ? MALFORMED : !authenticate(request, token, PREFIX) ? INVALID : null;
        if (refusal != null) {
            request.abortWith(unauthorized(refusal, headers != null && !headers.isEmpty()));
            return;
        }
        Scope scope = needed.get();
        if (!request.getSecurityContext().isUserInRole(scope.wireName())) {
            ApiPrincipal principal = (ApiPrincipal) request.getSecurityContext().getUserPrincipal();
            LOG.info("refused {} {} to {}: needs scope {}", request.getMethod(),
                    JsonBody.shorten(request.getUriInfo().getRequestUri().getRawPath()), principal, scope.wireName());
            request.abortWith(forbidden(scope, request.getMethod()));
        }
    }

    /** The token of {@code Bearer <token>} (the scheme in any case), or null when the header is not that. */
    static String bearer(String header) {
        if (header == null) {
            return null;
        }
        String h = header.strip();
        if (h.length() <= PREFIX.length() + 1 || !h.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
                || h.charAt(PREFIX.length()) != ' ') {
            return null;
        }
        String token = h.substring(PREFIX.length() + 1).strip();
        return token.isEmpty() ? null : token;
    }

    /** The 401 message for a request without a token. */
    static String missing(boolean tokenInQuery) {
        return "authentication required: send the header \"Authorization: Bearer "
                + "<token>\" with a token configured on the server (" + ApiTokens.VARIABLE + ")"
                + (tokenInQuery ? "; tokens in the URL are ignored, send it in that header only" : "");
    }

    static final String MALFORMED = "malformed Authorization header: send exactly one, as "
            + "\"Authorization: Bearer <token>\"";
    static final String INVALID = "the bearer token is not valid: send a token configured on the server ("
            + ApiTokens.VARIABLE + ")";

    /** The {@code WWW-Authenticate} header of a 401. */
    static String challenge(boolean invalidToken) {
        return PREFIX + " realm=\"" + REALM + "\"" + (invalidToken ? ", error=\"invalid_token\"" : "");
    }

    static boolean tokenInQuery(String query) {
        return query != null && query.toLowerCase(java.util.Locale.ROOT).contains("token");
    }

    private static Response unauthorized(String message, boolean invalidToken) {
        return Response.fromResponse(ErrorBody.response(401, message, null))
                .header(HttpHeaders.WWW_AUTHENTICATE, challenge(invalidToken))
                .build();
    }

    private static Response forbidden(Scope scope, String method) {
        String what = scope == Scope.ADMIN ? method + " on this path" : scope == Scope.READ ? "reading"
                : scope == Scope.SUBMIT ? "submitting jobs" : "job and run controls";
        return Response.fromResponse(ErrorBody.response(403, "this token lacks the '" + scope.wireName()
                        + "' scope that " + what + " needs: use a token with " + scope.wireName()
                        + (scope == Scope.ADMIN ? "" : " or admin") + " (" + ApiTokens.VARIABLE + ")", null))
                .header(HttpHeaders.WWW_AUTHENTICATE, PREFIX + " realm=\"" + REALM
                        + "\", error=\"insufficient_scope\", scope=\"" + scope.wireName() + "\"")
                .build();
    }

    /** A principal may use a route when it has the route's scope, or admin. */
    static final class ScopeAuthorizer implements Authorizer<ApiPrincipal> {
        @Override
        public boolean authorize(ApiPrincipal principal, String role, ContainerRequestContext requestContext) {
            Scope scope = Scope.fromWire(role);
            return principal != null && scope != null && principal.has(scope);
        }
    }

    private static final class Builder extends AuthFilterBuilder<String, ApiPrincipal, BearerTokenAuthFilter> {
        @Override
        protected BearerTokenAuthFilter newInstance() {
            return new BearerTokenAuthFilter();
        }
    }
}
