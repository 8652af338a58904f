package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An OTLP/HTTP trace receiver on loopback: {@code POST /v1/traces} with a protobuf or a JSON body, decoded into
 * {@link Received} spans (ids in hex, attribute values as text). Records the content types it was sent.
 */
final class OtlpReceiver implements AutoCloseable {
    /** One received span. */
    record Received(String name, String traceId, String spanId, String parentSpanId, Map<String, String> attributes,
                    List<String> linkedTraceIds, List<String> linkedSpanIds, int kind) {
        String attribute(String key) {
            return attributes.get(key);
        }
    }

    private final HttpServer server;
    final List<Received> spans = new CopyOnWriteArrayList<>();
    final List<String> contentTypes = new CopyOnWriteArrayList<>();

    OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/traces", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                byte[] body = in.readAllBytes();
                String type = String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type"));
                contentTypes.add(type);
                if (type.startsWith("application/json")) {
                    spans.addAll(fromJson(body));
                } else {
                    spans.addAll(fromProtobuf(body));
                }
                byte[] reply = type.startsWith("application/json") ? "{}".getBytes()
                        : new byte[0];
                exchange.getResponseHeaders().set("Content-Type", type);
                exchange.sendResponseHeaders(200, reply.length == 0 ? -1 : reply.length);
                if (reply.length > 0) {
                    exchange.getResponseBody().write(reply);
                }
            } catch (RuntimeException e) {
                exchange.sendResponseHeaders(400, -1);
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<Received> named(String name) {
        return spans.stream().filter(s -> s.name().equals(name)).toList();
    }

    private static List<Received> fromProtobuf(byte[] body) throws IOException {
        List<Received> out = new ArrayList<>();
        HexFormat hex = HexFormat.of();
        for (ResourceSpans rs : ExportTraceServiceRequest.parseFrom(body).getResourceSpansList()) {
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                for (io.opentelemetry.proto.trace.v1.Span s : ss.getSpansList()) {
                    Map<String, String> attributes = new HashMap<>();
                    for (KeyValue kv : s.getAttributesList()) {
                        attributes.put(kv.getKey(), text(kv.getValue()));
                    }
                    for (KeyValue kv : rs.getResource().getAttributesList()) {
                        attributes.putIfAbsent("resource." + kv.getKey(), text(kv.getValue()));
                    }
                    out.add(new Received(s.getName(), hex.formatHex(s.getTraceId().toByteArray()),
                            hex.formatHex(s.getSpanId().toByteArray()), hex.formatHex(s.getParentSpanId().toByteArray()),
                            attributes,
                            s.getLinksList().stream().map(l -> hex.formatHex(l.getTraceId().toByteArray())).toList(),
                            s.getLinksList().stream().map(l -> hex.formatHex(l.getSpanId().toByteArray())).toList(),
                            s.getKindValue()));
                }
            }
        }
        return out;
    }

    private static String text(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case INT_VALUE -> Long.toString(v.getIntValue());
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            default -> v.toString();
        };
    }

    /** OTLP/JSON: ids are hex strings, 64-bit integers are strings, enums are numbers. */
    private static List<Received> fromJson(byte[] body) throws IOException {
        List<Received> out = new ArrayList<>();
        JsonNode root = new ObjectMapper().readTree(body);
        for (JsonNode rs : root.path("resourceSpans")) {
            for (JsonNode ss : rs.path("scopeSpans")) {
                for (JsonNode s : ss.path("spans")) {
                    Map<String, String> attributes = new HashMap<>();
                    for (JsonNode kv : s.path("attributes")) {
                        JsonNode value = kv.path("value");
                        String text = value.has("stringValue") ? value.get("stringValue").asText()
                                : value.has("intValue") ? value.get("intValue").asText() : value.toString();
                        attributes.put(kv.path("key").asText(), text);
                    }
                    for (JsonNode kv : rs.path("resource").path("attributes")) {
                        attributes.putIfAbsent("resource." + kv.path("key").asText(),
                                kv.path("value").path("stringValue").asText(kv.path("value").toString()));
                    }
                    List<String> linkTraces = new ArrayList<>();
                    List<String> linkSpans = new ArrayList<>();
                    for (JsonNode l : s.path("links")) {
                        linkTraces.add(l.path("traceId").asText());
                        linkSpans.add(l.path("spanId").asText());
                    }
                    out.add(new Received(s.path("name").asText(), s.path("traceId").asText(),
                            s.path("spanId").asText(), s.path("parentSpanId").asText(""), attributes, linkTraces,
                            linkSpans, s.path("kind").asInt()));
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
