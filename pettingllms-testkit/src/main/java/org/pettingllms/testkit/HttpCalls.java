package org.pettingllms.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** The JDK's HTTP client as the servers' tests call it: JSON bodies, string answers. */
public final class HttpCalls {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpCalls() {}

    /** A JSON POST. */
    public static HttpResponse<String> post(URI uri, String body) throws Exception {
        return send(uri, "POST", body);
    }

    /** A request with a JSON body (none when null) and headers given as name, value, name, value, ... */
    public static HttpResponse<String> send(URI uri, String method, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("Content-Type", "application/json");
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The answer's body as JSON. */
    public static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }
}
