package org.pettingllms.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.pettingllms.envs.search.Bm25Index;
import org.pettingllms.envs.search.Passage;
import org.pettingllms.envs.search.RemoteRetriever;
import org.pettingllms.envs.search.Retriever;
import org.pettingllms.http.Access;

/**
 * {@code serve --retriever}: Search-R1's {@code /retrieve} contract over the project's BM25 index, the project's own
 * client getting what the index gives in process, hostile queries answered, malformed requests refused by field.
 */
class RetrievalServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<Passage> CORPUS = List.of(
            new Passage("0", "Kavio Labs", "Kavio Labs is a software company founded by Mira Olsen."),
            new Passage("1", "Mira Olsen", "Mira Olsen is an engineer who was born in Ashford."),
            new Passage("2", "Kavio Foods", "Kavio Foods is a food company founded by Tom Olsen."));
    static Bm25Index index;
    static RetrievalServer server;

    @BeforeAll
    static void start() {
        index = Bm25Index.of(CORPUS);
        server = new RetrievalServer(index, new RetrievalServer.Options("127.0.0.1", 0, 8, Access.open())).start();
    }

    @AfterAll
    static void stop() {
        server.close();
        index.close();
    }

    static HttpResponse<String> post(String body) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.uri() + "/retrieve"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theClientGetsWhatTheIndexGivesInProcess() {
        RemoteRetriever client = new RemoteRetriever(server.uri().toString(), Duration.ofSeconds(10));
        for (String q : List.of("Kavio founder", "Mira Olsen born", "Olsen", "title:x AND (", "", "\u0000")) {
            List<Retriever.Hit> remote = client.search(q, 2);
            List<Retriever.Hit> local = index.search(q, 2);
            assertThat(remote)
                    .extracting(Retriever.Hit::passage)
                    .as(q)
                    .isEqualTo(local.stream().map(Retriever.Hit::passage).toList());
            for (int i = 0; i < remote.size(); i++) {
                assertThat(remote.get(i).score())
                        .isCloseTo(local.get(i).score(), org.assertj.core.data.Offset.offset(1e-4));
            }
        }
    }

    @Test
    void answersABatchInSearchR1sShapes() throws Exception {
        HttpResponse<String> r =
                post("{\"queries\": [\"Kavio\", \"Ashford\", \"zzz\"], \"topk\": 2, \"return_scores\": true}");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode result = JSON.readTree(r.body()).get("result");
        assertThat(result).hasSize(3);
        assertThat(result.get(0)).hasSize(2);
        assertThat(result.get(0).get(0).get("document").get("contents").asText())
                .startsWith("\"Kavio ");
        assertThat(result.get(0).get(0).get("score").asDouble()).isPositive();
        assertThat(result.get(1).get(0).get("document").get("id").asText()).isEqualTo("1");
        assertThat(result.get(2)).isEmpty();
        // without scores (Search-R1's default): documents only; topk defaults to 3
        JsonNode plain = JSON.readTree(post("{\"queries\": [\"company\"]}").body())
                .get("result")
                .get(0);
        assertThat(plain).hasSize(2);
        assertThat(plain.get(0).has("contents")).isTrue();
        assertThat(plain.get(0).has("score")).isFalse();
    }

    @Test
    void malformedRequestsAreRefusedByField() throws Exception {
        for (String[] c : new String[][] {
            {"{}", "queries"},
            {"{\"queries\": []}", "queries"},
            {"{\"queries\": [1]}", "queries"},
            {"{\"queries\": \"x\"}", "queries"},
            {"{\"queries\": [\"x\"], \"topk\": 0}", "topk"},
            {"{\"queries\": [\"x\"], \"topk\": 1000}", "topk"},
            {"{\"queries\": [\"x\"], \"top_k\": 3}", "top_k"},
            {"not json", ""},
        }) {
            HttpResponse<String> r = post(c[0]);
            assertThat(r.statusCode()).as(c[0]).isEqualTo(400);
            assertThat(r.body()).as(c[0]).contains(c[1]);
        }
        StringBuilder many = new StringBuilder("{\"queries\": [");
        for (int i = 0; i <= RetrievalServer.MAX_QUERIES; i++) {
            many.append(i == 0 ? "" : ",").append("\"q\"");
        }
        assertThat(post(many.append("]}").toString()).body()).contains("at most " + RetrievalServer.MAX_QUERIES);
    }
}
