/** W3C trace context carried by jobs and runs (issue 31); no tracing library, only the wire format. */
package io.forgeflow.domain.trace;
