package org.pettingllms.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.pettingllms.testkit.FakeInferenceServer.Response;

/** The fake server answers as scripted, records what it was sent, and injects its faults. */
class FakeInferenceServerTest {
    final HttpClient http = HttpClient.newHttpClient();

    HttpResponse<String> post(FakeInferenceServer server, String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(server.uri().resolve(path))
                        .header("X-Role", "tool")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void queuedAnswersComeFirstThenTheAnswererAndUnscriptedPathsGetAJson404() throws Exception {
        try (FakeInferenceServer server = FakeInferenceServer.start()) {
            server.enqueue("/v1/completions", Response.error(503, "overloaded"))
                    .enqueue("/v1/completions", Response.json(200, "{\"n\":1}"))
                    .answer("/v1/completions", r -> Response.json(200, "{\"echo\":" + r.body() + "}"));
            assertThat(post(server, "/v1/completions", "{}").statusCode()).isEqualTo(503);
            assertThat(post(server, "/v1/completions", "{}").body()).isEqualTo("{\"n\":1}");
            assertThat(post(server, "/v1/completions", "{\"a\":2}").body()).isEqualTo("{\"echo\":{\"a\":2}}");
            HttpResponse<String> missing = post(server, "/nope", "{}");
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(missing.headers().firstValue("Content-Type")).hasValue("application/json");
            assertThat(missing.body()).contains("\"object\":\"error\"").contains("/nope");
        }
    }

    @Test
    void requestsAreRecordedInArrivalOrderWithHeadersAndBodies() throws Exception {
        try (FakeInferenceServer server = FakeInferenceServer.start()) {
            server.answer("/generate", r -> Response.status(200));
            post(server, "/generate", "{\"input_ids\":[1,2]}");
            post(server, "/generate?x=1", "{\"input_ids\":[3]}");
            var first = server.takeRequest();
            assertThat(first.method()).isEqualTo("POST");
            assertThat(first.header("x-role")).isEqualTo("tool");
            assertThat(first.json().path("input_ids").toString()).isEqualTo("[1,2]");
            var second = server.takeRequest();
            assertThat(second.query()).isEqualTo("x=1");
            assertThat(server.requestCount("/generate")).isEqualTo(2);
            assertThat(server.requests()).containsExactly(first, second);
        }
    }

    @Test
    void aDroppedConnectionFailsTheClientAndAHeldAnswerWaitsForItsLatch() throws Exception {
        try (FakeInferenceServer server = FakeInferenceServer.start()) {
            server.enqueue("/v1/completions", Response.dropConnection());
            assertThatThrownBy(() -> post(server, "/v1/completions", "{}")).isInstanceOf(IOException.class);
            CountDownLatch release = new CountDownLatch(1);
            server.enqueue("/v1/completions", Response.json(200, "{}").heldUntil(release));
            CompletableFuture<HttpResponse<String>> held = CompletableFuture.supplyAsync(() -> {
                try {
                    return post(server, "/v1/completions", "{}");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            server.takeRequest(); // the dropped one
            server.takeRequest(); // the held one has arrived
            Thread.sleep(100);
            assertThat(held).isNotDone();
            release.countDown();
            assertThat(held.get().statusCode()).isEqualTo(200);
        }
    }
}
