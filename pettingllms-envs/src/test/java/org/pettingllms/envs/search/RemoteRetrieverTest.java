package org.pettingllms.envs.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The client against a local server that answers as Search-R1's retrieval server does (and as it fails). */
class RemoteRetrieverTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private HttpServer server;
    private final Deque<String[]> answers = new ArrayDeque<>(); // status, body
    private final List<JsonNode> requests = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/retrieve", ex -> {
            synchronized (requests) {
                requests.add(JSON.readTree(ex.getRequestBody()));
            }
            String[] a = answers.isEmpty() ? new String[] {"500", "no answer scripted"} : answers.poll();
            byte[] body = a[1].getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(Integer.parseInt(a[0]), body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private RemoteRetriever client() {
        return new RemoteRetriever("http://127.0.0.1:" + server.getAddress().getPort(), Duration.ofSeconds(5));
    }

    @Test
    void sendsTheContractsRequestAndReadsItsAnswer() {
        answers.add(new String[] {
            "200",
            "{\"result\": [[{\"document\": {\"id\": \"12\", \"contents\":"
                    + " \"\\\"Kavio Labs\\\"\\nA software company.\"}, \"score\": 7.5},"
                    + " {\"document\": {\"id\": \"13\", \"contents\": \"\\\"Kavio Foods\\\"\\nA food company.\"},"
                    + " \"score\": 3.25}]]}"
        });
        List<Retriever.Hit> hits = client().search("  Kavio\u0000 Labs \uD800", 2);
        assertThat(hits)
                .containsExactly(
                        new Retriever.Hit(new Passage("12", "Kavio Labs", "A software company."), 7.5),
                        new Retriever.Hit(new Passage("13", "Kavio Foods", "A food company."), 3.25));
        JsonNode req = requests.get(0);
        assertThat(req.get("queries").get(0).asText()).isEqualTo("Kavio  Labs"); // control and lone surrogate: spaces
        assertThat(req.get("topk").asInt()).isEqualTo(2);
        assertThat(req.get("return_scores").asBoolean()).isTrue();
    }

    @Test
    void readsDocumentsWithoutScoresAndEmptyResults() {
        answers.add(new String[] {"200", "{\"result\": [[{\"id\": \"1\", \"contents\": \"\\\"A\\\"\\nB\"}]]}"});
        answers.add(new String[] {"200", "{\"result\": [[]]}"});
        assertThat(client().search("x", 3)).containsExactly(new Retriever.Hit(new Passage("1", "A", "B"), 0));
        assertThat(client().search("x", 3)).isEmpty();
    }

    @Test
    void anEmptyQueryIsNotSentAndFindsNothing() {
        assertThat(client().search(" \u0001 ", 3)).isEmpty();
        assertThat(client().search(null, 3)).isEmpty();
        assertThat(requests).isEmpty();
        String huge = "q".repeat(50_000);
        assertThat(RemoteRetriever.clean(huge)).hasSize(Bm25Index.MAX_QUERY_CHARS);
        assertThat(RemoteRetriever.clean("a\uD83D\uDE00b")).isEqualTo("a\uD83D\uDE00b"); // a pair is kept
    }

    @Tag("heavy")
    @Test
    void serverErrorsAreRetriedThenOneLineNamingTheServer() {
        answers.add(new String[] {"503", "busy"});
        answers.add(new String[] {"200", "{\"result\": [[]]}"});
        assertThat(client().search("x", 3)).isEmpty();
        assertThat(requests).hasSize(2);
        requests.clear();
        answers.add(new String[] {"422", "{\"detail\": \"topk\"}"});
        assertThatThrownBy(() -> client().search("x", 3))
                .isInstanceOf(Retriever.RetrievalException.class)
                .hasMessageContaining("/retrieve did not answer: HTTP 422: {\"detail\": \"topk\"}");
        assertThat(requests).hasSize(1); // a client error is not retried
        answers.add(new String[] {"200", "{\"docs\": []}"});
        assertThatThrownBy(() -> client().search("x", 3)).hasMessageContaining("answered no 'result' list");
        server.stop(0);
        assertThatThrownBy(() -> client().search("x", 3)).hasMessageContaining("did not answer: ");
    }

    @Test
    void aServerIsAnHttpUrl() {
        assertThat(new RemoteRetriever("http://h:8000/", Duration.ofSeconds(1))
                        .endpoint()
                        .toString())
                .isEqualTo("http://h:8000/retrieve");
        assertThat(new RemoteRetriever("http://h:8000/retrieve", Duration.ofSeconds(1))
                        .endpoint()
                        .toString())
                .isEqualTo("http://h:8000/retrieve");
        assertThatThrownBy(() -> new RemoteRetriever("ftp://h", Duration.ofSeconds(1)))
                .hasMessageContaining("http(s) URL");
    }
}
