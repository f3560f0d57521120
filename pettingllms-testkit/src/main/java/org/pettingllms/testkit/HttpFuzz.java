package org.pettingllms.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * What a careless or hostile client sends a JSON route, for the servers' fuzz tests: a correct body with one field
 * anywhere in it (objects and the first element of lists, to {@link #DEPTH} levels) replaced by a wrong type, a huge,
 * negative or out-of-vocabulary value, or removed; an unknown field; bodies that are not JSON objects; and, on a raw
 * socket, bodies cut short and answers the client stops reading.
 */
public final class HttpFuzz {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How deep mutations reach: {@code a.b[0].c} is depth 4 (the list index counts). */
    public static final int DEPTH = 6;

    /** Values each field is set to in turn. */
    public static final List<String> VALUES = List.of(
            "null",
            "\"x\"",
            "\"\"",
            "-1",
            "0",
            "1e308",
            "-1e308",
            "9223372036854775807",
            "-9223372036854775808",
            "1.5",
            "true",
            "[]",
            "{}",
            "[1,\"a\"]",
            "[99999999]",
            "[-5]",
            "{\"a\":1}",
            "[[1,2],[3]]",
            "\"NaN\"");

    /** Bodies that are not a JSON object, or not JSON. */
    public static final List<String> RAW = List.of(
            "",
            "{",
            "}",
            "[]",
            "null",
            "123",
            "\"str\"",
            "{\"prompt\":",
            "{\"prompt\":[1,2,]}",
            "\u0000\u00ff",
            "[".repeat(5000) + "]".repeat(5000),
            "{\"a\":" + "1".repeat(5000) + "}");

    private HttpFuzz() {}

    /** One mutated body. {@code path} names the field changed ({@code a.b.0.c}); empty for an added unknown field. */
    public record Mutation(String path, String body) {}

    /** Every mutation of {@code template}: each field replaced by each of {@link #VALUES} or removed, plus one unknown. */
    public static List<Mutation> mutations(String template) {
        JsonNode root;
        try {
            root = JSON.readTree(template);
        } catch (Exception e) {
            throw new IllegalArgumentException("the template is not JSON: " + template, e);
        }
        List<List<String>> paths = new ArrayList<>();
        collect(root, new ArrayList<>(), paths);
        List<Mutation> out = new ArrayList<>();
        for (List<String> p : paths) {
            String name = String.join(".", p);
            for (String v : VALUES) {
                out.add(new Mutation(name, with(root, p, read(v)).toString()));
            }
            out.add(new Mutation(name, with(root, p, null).toString()));
        }
        ObjectNode unknown = root.deepCopy();
        unknown.put("zz_unknown_field", 1);
        out.add(new Mutation("", unknown.toString()));
        return out;
    }

    private static void collect(JsonNode node, List<String> at, List<List<String>> paths) {
        if (at.size() >= DEPTH) {
            return;
        }
        if (node.isObject()) {
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                List<String> p = new ArrayList<>(at);
                p.add(f);
                paths.add(p);
                collect(node.get(f), p, paths);
            }
        } else if (node.isArray() && !node.isEmpty() && node.get(0).isContainerNode()) {
            List<String> p = new ArrayList<>(at);
            p.add("0");
            collect(node.get(0), p, paths);
        }
    }

    private static JsonNode read(String v) {
        try {
            return JSON.readTree(v);
        } catch (Exception e) {
            throw new IllegalArgumentException(v, e);
        }
    }

    /** {@code root} with the field at {@code path} set to {@code value}, or removed when it is null. */
    public static JsonNode with(JsonNode root, List<String> path, JsonNode value) {
        JsonNode copy = root.deepCopy();
        JsonNode parent = copy;
        for (int i = 0; i < path.size() - 1; i++) {
            parent = parent.isArray() ? parent.get(Integer.parseInt(path.get(i))) : parent.get(path.get(i));
        }
        String last = path.get(path.size() - 1);
        if (parent instanceof ArrayNode list) {
            list.set(Integer.parseInt(last), value);
        } else if (value == null) {
            ((ObjectNode) parent).remove(last);
        } else {
            ((ObjectNode) parent).set(last, value);
        }
        return copy;
    }

    /**
     * Writes {@code request} (a whole HTTP/1.1 request) on a socket to {@code server}; reads the first bytes of the
     * answer and drops the connection ({@code readSome}), or ends its output at once (a body cut short).
     */
    public static void raw(URI server, String request, boolean readSome) throws Exception {
        try (Socket s = new Socket(server.getHost(), server.getPort())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            if (readSome) {
                InputStream in = s.getInputStream();
                in.read(new byte[64]);
            } else {
                s.shutdownOutput();
            }
        }
    }

    /** A POST of {@code body} to {@code path} with a Content-Length of {@code declared} bytes. */
    public static String post(String path, String body, int declared) {
        return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " + declared
                + "\r\n\r\n" + body;
    }

    /** A POST of {@code body} to {@code path}, its length declared truly. */
    public static String post(String path, String body) {
        return post(path, body, body.getBytes(StandardCharsets.UTF_8).length);
    }
}
