package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The OpenAPI document ({@code openapi.json}, as {@link OpenApiResource} serves it) as a checker of real responses:
 * finds the operation of a method and a concrete path, the response of a status (the operation's {@code default}
 * only for an error status it does not list), and validates the body against that response's schema with a JSON
 * Schema 2020-12 validator, {@code $ref}s resolved inside the document. Records which documented responses were seen.
 */
public final class OpenApiContract {
    static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> METHODS = List.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

    final JsonNode document;
    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));
    private final Map<String, Schema> schemas = new ConcurrentHashMap<>();
    /** "GET /api/jobs 200": every documented response a test has validated. */
    public final Set<String> seen = ConcurrentHashMap.newKeySet();

    OpenApiContract(byte[] document) {
        try {
            this.document = JSON.readTree(document);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static OpenApiContract load() {
        return new OpenApiContract(OpenApiResource.load());
    }

    /** An operation of the document: its path template, method (upper case) and node. */
    public record Operation(String path, String method, JsonNode node) {
        String key() {
            return method + " " + path;
        }

        /** The statuses it lists, without {@code default}. */
        Set<String> statuses() {
            Set<String> statuses = new LinkedHashSet<>();
            node.path("responses").fieldNames().forEachRemaining(s -> {
                if (!s.equals("default")) {
                    statuses.add(s);
                }
            });
            return statuses;
        }

        /** Its {@code x-forgeflow-scope}, null for a public operation. */
        String scope() {
            JsonNode scope = node.get("x-forgeflow-scope");
            return scope == null ? null : scope.asText();
        }

        boolean servlet() {
            return node.path("x-forgeflow-servlet").asBoolean(false);
        }
    }

    public List<Operation> operations() {
        List<Operation> ops = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = document.get("paths").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            for (String m : METHODS) {
                if (path.getValue().has(m)) {
                    ops.add(new Operation(path.getKey(), m.toUpperCase(Locale.ROOT), path.getValue().get(m)));
                }
            }
        }
        return ops;
    }

    /** The operation of {@code method} on the concrete {@code path} (no query), or null when none is documented. */
    Operation find(String method, String path) {
        for (Operation op : operations()) {
            if (op.method.equals(method) && matches(op.path, path)) {
                return op;
            }
        }
        return null;
    }

    static boolean matches(String template, String path) {
        String[] t = template.split("/", -1);
        String[] p = path.split("/", -1);
        if (t.length != p.length) {
            return false;
        }
        for (int i = 0; i < t.length; i++) {
            boolean param = t[i].startsWith("{") && t[i].endsWith("}");
            if (param ? p[i].isEmpty() : !t[i].equals(p[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * What is wrong with this response by the document: nothing (an empty list), or the reasons. {@code path} may
     * carry a query string; {@code contentType} is the response's, null when it has none.
     */
    public List<String> problems(String method, String path, int status, String contentType, String body) {
        String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
        Operation op = find(method, bare);
        if (op == null) {
            return List.of(method + " " + bare + " is not in the OpenAPI document");
        }
        String statusKey = Integer.toString(status);
        JsonNode response = op.node.get("responses").get(statusKey);
        String pointer = "#/paths/" + escape(op.path) + "/" + op.method.toLowerCase(Locale.ROOT) + "/responses/";
        if (response == null) {
            response = status >= 400 ? op.node.get("responses").get("default") : null;
            if (response == null) {
                return List.of(op.key() + " does not document status " + status);
            }
            pointer += "default";
        } else {
            pointer += statusKey;
            seen.add(op.key() + " " + statusKey);
        }
        if (response.has("$ref")) {
            pointer = response.get("$ref").asText();
            response = resolve(pointer);
        }
        JsonNode content = response.get("content");
        if (content == null || content.isEmpty()) {
            return body == null || body.isEmpty() ? List.of()
                    : List.of(op.key() + " " + status + " documents no body, got " + body);
        }
        String type = contentType == null ? "" : contentType.split(";")[0].strip().toLowerCase(Locale.ROOT);
        if (!content.has(type)) {
            return List.of(op.key() + " " + status + " documents " + names(content) + ", got Content-Type " + contentType);
        }
        if (!type.equals("application/json")) {
            return List.of();
        }
        JsonNode instance;
        try {
            instance = JSON.readTree(body);
        } catch (IOException e) {
            return List.of(op.key() + " " + status + " answered no JSON: " + body);
        }
        return validate(pointer + "/content/" + escape(type) + "/schema", instance);
    }

    /** The errors of {@code instance} against the schema at {@code pointer} ("#/components/schemas/Job"). */
    public List<String> validate(String pointer, JsonNode instance) {
        Schema schema = schemas.computeIfAbsent(pointer, p -> {
            ObjectNode root = document.deepCopy();
            root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
            root.put("$ref", p);
            return registry.getSchema(SchemaLocation.of("urn:forgeflow:openapi"), root);
        });
        List<String> problems = new ArrayList<>();
        for (Error e : schema.validate(instance)) {
            problems.add(pointer + ": " + e);
        }
        return problems;
    }

    /** The node a local {@code $ref} ("#/components/...") names, or null. */
    JsonNode resolve(String ref) {
        if (!ref.startsWith("#")) {
            return null;
        }
        JsonNode node = document.at(ref.substring(1));
        return node.isMissingNode() ? null : node;
    }

    static String escape(String segment) {
        return segment.replace("~", "~0").replace("/", "~1");
    }

    private static String names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names.toString();
    }
}
