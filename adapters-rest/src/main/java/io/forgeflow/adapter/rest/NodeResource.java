package io.forgeflow.adapter.rest;

import io.forgeflow.application.node.QueryNodes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.Objects;
import java.util.stream.Collectors;

/** {@code /api/nodes}: the live nodes of the cluster, and those gone recently (status {@code gone}). */
@Path("/api/nodes")
@Produces(MediaType.APPLICATION_JSON)
public final class NodeResource {
    private final QueryNodes queryNodes;

    public NodeResource(QueryNodes queryNodes) {
        this.queryNodes = Objects.requireNonNull(queryNodes, "queryNodes");
    }

    @GET
    public NodesResponse nodes() {
        return new NodesResponse(queryNodes.recent().stream().map(NodeResponse::of).collect(Collectors.toList()));
    }
}
