package io.forgeflow.adapter.executor;

import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

import java.io.IOException;
import java.util.Set;

/**
 * Keeps a job's own headers (its {@code Authorization}, API keys, cookies) from following a redirect anywhere else:
 * a hop to another host or port, or from https to http, is sent without any header the job's payload set. OkHttp by
 * itself drops only {@code Authorization}. A network interceptor, so it sees every hop; the job's URL and header
 * names travel with the request as a tag.
 */
final class RedirectHeaders implements Interceptor {

    /** What the job asked for: its URL and the names of the headers it set. */
    record JobHeaders(HttpUrl origin, Set<String> names) {
        /** Whether a hop to {@code target} must go without the job's headers. */
        boolean strippedFor(HttpUrl target) {
            return !target.host().equalsIgnoreCase(origin.host()) || target.port() != origin.port()
                    || (origin.isHttps() && !target.isHttps());
        }
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        Request request = chain.request();
        JobHeaders job = request.tag(JobHeaders.class);
        if (job == null || job.names().isEmpty() || !job.strippedFor(request.url())) {
            return chain.proceed(request);
        }
        Request.Builder stripped = request.newBuilder();
        for (String name : job.names()) {
            stripped.removeHeader(name);
        }
        return chain.proceed(stripped.build());
    }
}
