package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.forgeflow.domain.error.ValidationException;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a request body as one JSON object into plain Java values (maps, lists, strings, Integer/Long/BigInteger,
 * finite Double, Boolean, null), strictly and with the JSON path of every problem:
 * <ul>
 *   <li>400: an empty body, a body that is not one JSON object, malformed JSON, a key given twice
 *       ({@link StreamReadFeature#STRICT_DUPLICATE_DETECTION}), anything after the object;</li>
 *   <li>413: more than the body limit;</li>
 *   <li>422 naming the field: a number too large for a double (1e309), nesting deeper than {@link #MAX_DEPTH},
 *       text with an unpaired UTF-16 surrogate (it could not be stored or written back as UTF-8).</li>
 * </ul>
 * Parsing by hand rather than binding a DTO keeps Jackson's messages (and Java type names) out of the API and
 * works the same whatever {@code ObjectMapper} the server configures.
 */
final class JsonBody {
    /** Deepest nesting of objects and arrays accepted (the body itself is level 1). */
    static final int MAX_DEPTH = 64;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_DEPTH + 16)
                    .maxNumberLength(1_000)
                    .maxStringLength((int) BodyLimitFilter.MAX_BATCH_BODY_BYTES)
                    .build())
            .build();
    private static final Pattern DUPLICATE = Pattern.compile("Duplicate field '(.*)'", Pattern.DOTALL);

    private final Deque<Object> path = new ArrayDeque<>();
    private JsonParser parser;

    private JsonBody() {
    }

    /**
     * The body as a JSON object.
     *
     * @param example a short valid body, quoted in the message when the body is empty or not an object
     */
    static Map<String, Object> readObject(InputStream body, String example) {
        return readObject(body, example, BodyLimitFilter.MAX_BODY_BYTES);
    }

    /** The body as a JSON object of at most {@code limit} bytes. */
    static Map<String, Object> readObject(InputStream body, String example, long limit) {
        byte[] bytes = readAll(body, limit);
        return new JsonBody().parse(bytes, example);
    }

    private static byte[] readAll(InputStream body, long limit) {
        if (body == null) {
            return new byte[0];
        }
        try {
            byte[] bytes = body.readNBytes((int) limit + 1);
            if (bytes.length > limit) {
                throw ApiException.tooLarge(limit);
            }
            return bytes;
        } catch (BodyTooLargeException e) {
            throw ApiException.tooLarge(e.limit());
        } catch (BodyTooSlowException e) {
            throw e.refusal();
        } catch (IOException e) {
            throw ApiException.badRequest("the request body could not be read completely (" + e.getMessage()
                    + "): send it again");
        }
    }

    private Map<String, Object> parse(byte[] bytes, String example) {
        try (JsonParser p = FACTORY.createParser(bytes)) {
            parser = p;
            JsonToken first = p.nextToken();
            if (first == null) {
                throw ApiException.badRequest("the request body is empty: send a JSON object such as " + example);
            }
            if (first != JsonToken.START_OBJECT) {
                throw ApiException.badRequest("the request body must be a JSON object such as " + example + ", not "
                        + describe(first));
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> object = (Map<String, Object>) value(p, first, 1);
            JsonToken after = p.nextToken();
            if (after != null) {
                throw ApiException.badRequest("the request body holds more than one JSON value: send exactly one "
                        + "object, with nothing after its closing brace");
            }
            return object;
        } catch (StreamConstraintsException e) {
            // Jackson reads a value together with its key, so the parser's context knows the key before our path does
            String field = parser == null ? field() : pathOf(parser);
            throw new ValidationException(field, (field == null ? "the body" : field) + " exceeds a size limit: "
                    + "numbers may have at most 1000 digits and documents may nest at most " + MAX_DEPTH + " levels");
        } catch (JsonParseException e) {
            Matcher dup = DUPLICATE.matcher(String.valueOf(e.getOriginalMessage()));
            if (dup.find()) {
                throw duplicate(dup.group(1));
            }
            throw new ApiException(400, "the request body is not valid JSON: " + e.getOriginalMessage()
                    + location(e) + ". Send a JSON object such as " + example, null);
        } catch (JsonProcessingException e) {
            throw new ApiException(400, "the request body is not valid JSON: " + e.getOriginalMessage() + location(e), null);
        } catch (IOException e) {
            throw ApiException.badRequest("the request body could not be read: " + e.getMessage());
        }
    }

    private Object value(JsonParser p, JsonToken token, int depth) throws IOException {
        switch (token) {
            case START_OBJECT: {
                checkDepth(depth);
                Map<String, Object> map = new LinkedHashMap<>();
                for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
                    String key = p.currentName();
                    if (map.containsKey(key)) {
                        throw duplicate(key);
                    }
                    path.addLast(key);
                    checkText(key);
                    map.put(key, value(p, p.nextToken(), depth + 1));
                    path.removeLast();
                }
                return map;
            }
            case START_ARRAY: {
                checkDepth(depth);
                List<Object> list = new ArrayList<>();
                int index = 0;
                for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                    path.addLast(index++);
                    list.add(value(p, t, depth + 1));
                    path.removeLast();
                }
                return list;
            }
            case VALUE_STRING: {
                String s = p.getText();
                checkText(s);
                return s;
            }
            case VALUE_NUMBER_INT:
                switch (p.getNumberType()) {
                    case INT:
                        return p.getIntValue();
                    case LONG:
                        return p.getLongValue();
                    default:
                        return p.getBigIntegerValue();
                }
            case VALUE_NUMBER_FLOAT: {
                double d = p.getDoubleValue();
                if (!Double.isFinite(d)) {
                    String field = field();
                    throw new ValidationException(field, (field == null ? "a number" : field) + " is out of range: "
                            + shorten(p.getText()) + " is too large for a 64-bit floating-point number");
                }
                return d;
            }
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                throw ApiException.badRequest("the request body is not valid JSON: unexpected " + token);
        }
    }

    private void checkDepth(int depth) {
        if (depth > MAX_DEPTH) {
            String top = path.isEmpty() ? null : String.valueOf(path.peekFirst());
            throw new ValidationException(top, (top == null ? "the body" : top) + " nests deeper than " + MAX_DEPTH
                    + " levels (at " + shorten(field()) + "): flatten the document");
        }
    }

    /** Rejects text with an unpaired surrogate: it has no UTF-8 encoding, so it could be neither stored nor echoed. */
    private void checkText(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                String field = field();
                throw new ValidationException(field, (field == null ? "a key" : field) + " contains an unpaired UTF-16 "
                        + "surrogate (\\u" + Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT)
                        + "): send valid Unicode text");
            }
        }
    }

    private ApiException duplicate(String key) {
        String parent = field();
        String field = parent == null ? key : parent + "." + key;
        // a duplicate key makes the document ambiguous (which value wins?): malformed, so 400 rather than 422
        return new ApiException(400, "the key '" + shorten(key) + "' appears twice in the same JSON object"
                + (parent == null ? "" : " (in " + parent + ")") + ": give each key once", field);
    }

    /** The JSON path of the value being read: {@code payload.headers.x}, {@code payload.items[2]}; null at the top. */
    private String field() {
        if (path.isEmpty()) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        for (Iterator<Object> it = path.iterator(); it.hasNext(); ) {
            Object part = it.next();
            if (part instanceof Integer) {
                sb.append('[').append(part).append(']');
            } else {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(part);
            }
        }
        return sb.toString();
    }

    /** The JSON path of the parser's current position, as {@link #field()} writes it; null at the top. */
    private static String pathOf(JsonParser p) {
        Deque<String> parts = new ArrayDeque<>();
        for (JsonStreamContext c = p.getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inObject() && c.getCurrentName() != null) {
                parts.addFirst(c.getCurrentName());
            } else if (c.inArray() && c.getCurrentIndex() >= 0) {
                parts.addFirst("[" + c.getCurrentIndex() + "]");
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String part : parts) {
            if (sb.length() > 0 && !part.startsWith("[")) {
                sb.append('.');
            }
            sb.append(part);
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    private static String location(JsonProcessingException e) {
        if (e.getLocation() == null || e.getLocation().getLineNr() < 1) {
            return "";
        }
        return " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
    }

    private static String describe(JsonToken token) {
        switch (token) {
            case START_ARRAY:
                return "an array";
            case VALUE_STRING:
                return "a string";
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return "a number";
            case VALUE_TRUE:
            case VALUE_FALSE:
                return "a boolean";
            case VALUE_NULL:
                return "null";
            default:
                return String.valueOf(token);
        }
    }

    static String shorten(String s) {
        if (s == null) {
            return "null";
        }
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }
}
