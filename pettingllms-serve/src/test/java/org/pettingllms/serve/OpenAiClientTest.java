package org.pettingllms.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.ChatMessage;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.http.Http;
import org.pettingllms.testkit.NodeClient;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * The server as OpenAI clients see it: LangChain4j's OpenAI chat models (blocking and streaming) and raw HTTP for
 * what they do not send (completions streams, prompt lists, refused fields). The model is the shipped tiny planner
 * with a chat template beside its character tokenizer (the template joins the messages' contents into the compact
 * prompt it was trained on, and lists tools when given).
 */
class OpenAiClientTest {
    static final String TEMPLATE = "{% if tools %}tools:{% for t in tools %} {{ t.function.name }}{% endfor %};"
            + "{% endif %}{% for m in messages %}{{ m.content }}{% endfor %}";
    static final String BOARD = "plan-path-v1 plan\n#.A\n..G\ntool: D\n>";
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    static Path dir;

    static EmbeddedEngine engine;
    static InferenceServer server;
    static String model;

    @BeforeAll
    static void start() throws Exception {
        Path shipped = SharedFiles.projectRoot().resolve("models/plan-path-tiny");
        for (String f : List.of("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")) {
            Files.copy(shipped.resolve(f), dir.resolve(f));
        }
        Files.writeString(dir.resolve("chat_template.jinja"), TEMPLATE);
        model = dir.toString();
        engine = EmbeddedEngine.forServing(model, "cpu");
        server = new InferenceServer(engine, model, new InferenceServer.Options("127.0.0.1", 0, "tiny", 4)).start();
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    static Completion inProcess(String prompt, int maxTokens, long seed) {
        return engine.sampler()
                .sample(
                        PolicyRef.of(model),
                        new Prompt(List.of(ChatMessage.user(prompt)), PromptStyle.CHAT),
                        1,
                        new SamplingParams(1.0, 0, 1.0, maxTokens, List.of(), seed))
                .get(0);
    }

    @Test
    void aCharacterModelWithAChatTemplateChatsThroughLangChain4j() {
        OpenAiChatModel chat = OpenAiChatModel.builder()
                .baseUrl(server.uri() + "/v1")
                .apiKey("unused")
                .modelName("tiny")
                .temperature(1.0)
                .seed(7)
                .maxTokens(12)
                .build();
        ChatResponse r = chat.chat(UserMessage.from(BOARD));
        Completion local = inProcess(BOARD, 12, 7);
        assertThat(r.aiMessage().text()).isEqualTo(local.text()).isNotEmpty();
        assertThat(r.tokenUsage().outputTokenCount()).isEqualTo(local.tokens().size());
        assertThat(r.tokenUsage().inputTokenCount()).isEqualTo(BOARD.length());
    }

    @Test
    void langChain4jsStreamingModelReceivesEveryChunkAndTheUsage() throws Exception {
        OpenAiStreamingChatModel chat = OpenAiStreamingChatModel.builder()
                .baseUrl(server.uri() + "/v1")
                .apiKey("unused")
                .modelName("tiny")
                .temperature(1.0)
                .seed(11)
                .maxTokens(20)
                .build();
        List<String> partial = new ArrayList<>();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        chat.chat(BOARD, new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String text) {
                partial.add(text);
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        ChatResponse r = done.get(60, TimeUnit.SECONDS);
        Completion local = inProcess(BOARD, 20, 11);
        assertThat(String.join("", partial)).isEqualTo(local.text());
        assertThat(partial.size()).as("a chunk per token").isGreaterThan(1);
        assertThat(r.aiMessage().text()).isEqualTo(local.text());
        assertThat(r.tokenUsage()).as("usage from the last chunk").isNotNull();
        assertThat(r.tokenUsage().outputTokenCount()).isEqualTo(local.tokens().size());
    }

    @Test
    void aRefusedFieldReachesTheClientAsTheServersMessage() {
        OpenAiChatModel chat = OpenAiChatModel.builder()
                .baseUrl(server.uri() + "/v1")
                .apiKey("unused")
                .modelName("tiny")
                .maxRetries(0)
                .logitBias(Map.of("5", 10))
                .build();
        assertThatThrownBy(() -> chat.chat(UserMessage.from(BOARD)))
                .hasMessageContaining("logit_bias")
                .hasMessageContaining("not applied");
    }

    /**
     * The official OpenAI Node client, where it is installed ({@code node} on the path, the {@code openai} package in
     * the folder named by {@code PETTINGLLMS_NODE_MODULES}): chat, streamed chat with usage, a streamed completion,
     * and a refused field read as the client reads errors.
     */
    @Test
    void theOfficialNodeClientChatsStreamsAndReadsErrors() throws Exception {
        String modules = NodeClient.modules();
        Path script = Path.of(
                OpenAiClientTest.class.getResource("/programs/serve_client.cjs").toURI());
        ProcessBuilder pb = new ProcessBuilder("node", script.toString()).redirectErrorStream(true);
        pb.environment().put("NODE_PATH", modules);
        pb.environment().put("OPENAI_BASE_URL", server.uri() + "/v1");
        pb.environment().put("OPENAI_API_KEY", "unused");
        pb.environment().put("BOARD", BOARD);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        JsonNode r = Http.JSON.readTree(out.strip().lines().reduce((a, b) -> b).orElseThrow());
        String expected = inProcess(BOARD, 8, 3).text();
        assertThat(r.path("chat").asText()).isEqualTo(expected);
        assertThat(r.path("streamed").asText()).isEqualTo(expected);
        assertThat(r.at("/usage/prompt_tokens").asInt()).isEqualTo(BOARD.length());
        assertThat(r.path("completion").asText()).isEqualTo(expected); // the template's prompt is the text itself
        assertThat(r.at("/refused/status").asInt()).isEqualTo(400);
        assertThat(r.at("/refused/param").asText()).isEqualTo("presence_penalty");
        assertThat(r.at("/refused/message").asText()).contains("penalties are not applied");
        // completions logprobs: 1, one alternative a token, as vLLM answers it
        int tokens = r.path("scoredTokens").asInt();
        assertThat(tokens).isEqualTo(inProcess(BOARD, 8, 3).tokens().size());
        assertThat(r.path("scoredTop"))
                .hasSize(tokens)
                .allSatisfy(n -> assertThat(n.asInt()).isBetween(1, 2));
        // the Responses API: the same sample as the chat request, whole and as the accumulated stream
        assertThat(r.path("responseText").asText()).isEqualTo(expected);
        assertThat(r.at("/responseUsage/input_tokens").asInt()).isEqualTo(BOARD.length());
        assertThat(r.at("/responseUsage/output_tokens").asInt()).isEqualTo(tokens);
        assertThat(r.path("responseStatus").asText()).isIn("completed", "incomplete");
        assertThat(r.path("finalText").asText()).isEqualTo(expected);
        List<String> types = new ArrayList<>();
        r.path("types").forEach(t -> types.add(t.asText()));
        assertThat(types.subList(0, 4))
                .containsExactly(
                        "response.created",
                        "response.in_progress",
                        "response.output_item.added",
                        "response.content_part.added");
        assertThat(types).contains("response.output_text.delta", "response.output_text.done");
        assertThat(types.get(types.size() - 1)).isIn("response.completed", "response.incomplete");
        assertThat(r.at("/responsesRefused/status").asInt()).isEqualTo(400);
        assertThat(r.at("/responsesRefused/param").asText()).isEqualTo("previous_response_id");
    }

    /**
     * A 400 in OpenAI's error shape whose param, and message, name the refused field; the message names the model as
     * clients know it, never where it lies on the server's disk.
     */
    static void assertRefusedByName(String path, String body, String param) {
        HttpResponse<String> r;
        JsonNode error;
        try {
            r = post(path, body);
            error = json(r).path("error");
        } catch (Exception e) {
            throw new AssertionError(body, e);
        }
        assertThat(r.statusCode()).as(body + " -> " + r.body()).isEqualTo(400);
        assertThat(error.path("param").asText()).as(r.body()).isEqualTo(param);
        assertThat(error.path("message").asText()).contains(param).doesNotContain(model);
        assertThat(error.path("type").asText()).isEqualTo("BadRequestError");
        assertThat(error.path("code").asInt()).isEqualTo(400);
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(server.uri().resolve(path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return Http.JSON.readTree(r.body());
    }

    /** The events of a server-sent-events body, checking each line's framing; the last must be [DONE]. */
    static List<JsonNode> events(HttpResponse<String> r) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        List<JsonNode> out = new ArrayList<>();
        String[] blocks = r.body().split("\n\n");
        for (int i = 0; i < blocks.length; i++) {
            assertThat(blocks[i]).startsWith("data: ");
            String data = blocks[i].substring("data: ".length());
            if (i == blocks.length - 1) {
                assertThat(data).isEqualTo("[DONE]");
            } else {
                out.add(Http.JSON.readTree(data));
            }
        }
        return out;
    }

    @Test
    void aStreamedCompletionIsTheWholeAnswerInChunksWithUsageLast() throws Exception {
        String request = "{\"model\":\"tiny\",\"prompt\":" + Http.JSON.writeValueAsString(BOARD)
                + ",\"n\":2,\"max_tokens\":16,\"seed\":5,\"logprobs\":0";
        JsonNode whole = json(post("/v1/completions", request + "}"));
        List<JsonNode> chunks = events(
                post("/v1/completions", request + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"));
        StringBuilder[] text = {new StringBuilder(), new StringBuilder()};
        double[] logprobSum = new double[2];
        String[] finish = new String[2];
        for (JsonNode c : chunks.subList(0, chunks.size() - 1)) {
            assertThat(c.path("object").asText()).isEqualTo("text_completion");
            JsonNode choice = c.path("choices").get(0);
            int i = choice.path("index").asInt();
            text[i].append(choice.path("text").asText());
            for (JsonNode lp : choice.path("logprobs").path("token_logprobs")) {
                logprobSum[i] += lp.asDouble();
            }
            if (!choice.path("finish_reason").isNull()) {
                assertThat(finish[i]).as("one final chunk per choice").isNull();
                finish[i] = choice.path("finish_reason").asText();
            }
        }
        for (int i = 0; i < 2; i++) {
            JsonNode expected = whole.path("choices").get(i);
            assertThat(text[i].toString()).isEqualTo(expected.path("text").asText());
            assertThat(finish[i]).isEqualTo(expected.path("finish_reason").asText());
            double sum = 0;
            for (JsonNode lp : expected.path("logprobs").path("token_logprobs")) {
                sum += lp.asDouble();
            }
            assertThat(logprobSum[i]).isCloseTo(sum, org.assertj.core.data.Offset.offset(1e-4));
        }
        JsonNode usage = chunks.get(chunks.size() - 1);
        assertThat(usage.path("choices")).isEmpty();
        assertThat(usage.path("usage")).isEqualTo(whole.path("usage"));
    }

    @Test
    void aStreamStopsWhereTheWholeAnswerStopsWhenAStopStringSpansTokens() throws Exception {
        String request = "{\"model\":\"tiny\",\"prompt\":" + Http.JSON.writeValueAsString(BOARD)
                + ",\"n\":4,\"max_tokens\":24,\"seed\":8,\"stop\":[\"RD\",\"DR\",\"RR\",\"DD\"]";
        JsonNode whole = json(post("/v1/completions", request + "}"));
        List<JsonNode> chunks = events(post("/v1/completions", request + ",\"stream\":true}"));
        StringBuilder[] text = {new StringBuilder(), new StringBuilder(), new StringBuilder(), new StringBuilder()};
        for (JsonNode c : chunks) {
            text[c.at("/choices/0/index").asInt()].append(
                    c.at("/choices/0/text").asText());
        }
        int stopped = 0;
        for (int i = 0; i < 4; i++) {
            JsonNode expected = whole.path("choices").get(i);
            assertThat(text[i].toString()).isEqualTo(expected.path("text").asText());
            stopped += expected.path("stop_reason").isTextual() ? 1 : 0;
        }
        assertThat(stopped)
                .as("some answers end at a two-character stop string")
                .isPositive();
    }

    @Test
    void aStreamedChatOpensWithTheRoleAndEndsWithTheFinishReason() throws Exception {
        List<JsonNode> chunks = events(post(
                "/v1/chat/completions",
                "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":"
                        + Http.JSON.writeValueAsString(BOARD)
                        + "}],\"max_tokens\":8,\"seed\":3,\"stream\":true,\"logprobs\":true}"));
        assertThat(chunks.get(0).path("object").asText()).isEqualTo("chat.completion.chunk");
        assertThat(chunks.get(0).at("/choices/0/delta/role").asText()).isEqualTo("assistant");
        JsonNode last = chunks.get(chunks.size() - 1).path("choices").get(0);
        assertThat(last.path("finish_reason").asText()).isIn("stop", "length");
        StringBuilder text = new StringBuilder();
        int tokens = 0;
        for (JsonNode c : chunks) {
            text.append(c.at("/choices/0/delta/content").asText(""));
            tokens += c.at("/choices/0/logprobs/content").size();
        }
        Completion local = inProcess(BOARD, 8, 3);
        assertThat(text.toString()).isEqualTo(local.text());
        assertThat(tokens).isEqualTo(local.tokens().size());
    }

    @Test
    void promptListsAnswerEveryPromptAndNoTokensAnswersAtOnce() throws Exception {
        JsonNode two = json(post(
                "/v1/completions",
                "{\"model\":\"tiny\",\"prompt\":[\"ab\",[7,8,9]],\"n\":2,\"max_tokens\":5,\"seed\":9}"));
        assertThat(two.path("choices")).hasSize(4);
        JsonNode second = json(
                post("/v1/completions", "{\"model\":\"tiny\",\"prompt\":[7,8,9],\"n\":2,\"max_tokens\":5,\"seed\":9}"));
        assertThat(two.at("/choices/3/text")).isEqualTo(second.at("/choices/1/text"));
        assertThat(two.at("/choices/3/index").asInt()).isEqualTo(3);
        assertThat(two.at("/usage/prompt_tokens").asInt()).isEqualTo(5);

        HttpResponse<String> scored =
                post("/v1/completions", "{\"model\":\"tiny\",\"prompt\":\"abc\",\"max_tokens\":0,\"echo\":true}");
        assertThat(scored.statusCode()).as(scored.body()).isEqualTo(200);
        JsonNode none = json(scored);
        assertThat(none.at("/choices/0/text").asText()).isEqualTo("abc");
        assertThat(none.at("/choices/0/finish_reason").asText()).isEqualTo("length");
        assertThat(none.at("/usage/completion_tokens").asInt()).isZero();
    }

    @Test
    void promptScoringGivesTheLogprobsTheSamplerDrewTheTokensWith() throws Exception {
        // sample a continuation with its logprobs, then score prompt + continuation (vLLM's echo + max_tokens 0)
        int[] prompt = engine.codec(model).encode(BOARD);
        Completion sampled = engine.sampler()
                .sampleTokens(PolicyRef.of(model), prompt, 1, new SamplingParams(1.0, 0, 1.0, 10, List.of(), 21))
                .get(0);
        int[] all = java.util.stream.IntStream.concat(
                        java.util.Arrays.stream(prompt),
                        java.util.Arrays.stream(sampled.tokens().toArray()))
                .toArray();
        JsonNode r = json(post(
                "/v1/completions",
                "{\"model\":\"tiny\",\"prompt\":" + java.util.Arrays.toString(all)
                        + ",\"max_tokens\":0,\"echo\":true,\"logprobs\":0}"));
        JsonNode values = r.at("/choices/0/logprobs/token_logprobs");
        assertThat(values).hasSize(all.length);
        assertThat(values.get(0).isNull()).as("the first token has no logprob").isTrue();
        assertThat(r.at("/choices/0/text").asText())
                .isEqualTo(engine.codec(model).decode(all));
        for (int t = 0; t < sampled.tokens().size(); t++) {
            assertThat(values.get(prompt.length + t).asDouble())
                    .as("token %d", t)
                    .isCloseTo(sampled.logprobs().get(t), org.assertj.core.data.Offset.offset(1e-4));
        }
        for (int t = 1; t < prompt.length; t++) {
            assertThat(values.get(t).asDouble()).isNegative();
        }
    }

    @Test
    void chatMessagesMayBeTextPartsDeveloperAndToolTurns() throws Exception {
        JsonNode r = json(post(
                "/v1/chat/completions",
                "{\"model\":\"tiny\",\"max_tokens\":1,\"return_token_ids\":true,"
                        + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"read_board\"}}],"
                        + "\"messages\":[{\"role\":\"developer\",\"content\":\"D|\"},"
                        + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                        + "{\"type\":\"text\",\"text\":\"b\"}]},"
                        + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\","
                        + "\"type\":\"function\",\"function\":{\"name\":\"read_board\",\"arguments\":\"{}\"}}]},"
                        + "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"|T\"}]}"));
        int[] prompt = new int[r.path("prompt_token_ids").size()];
        for (int i = 0; i < prompt.length; i++) {
            prompt[i] = r.path("prompt_token_ids").get(i).asInt();
        }
        assertThat(engine.codec(model).decode(prompt)).isEqualTo("tools: read_board;D|a\nb|T");
        assertThat(r.at("/choices/0/token_ids")).hasSize(1);
    }

    @Test
    void responsesInputItemsBecomeTheChatTurnsTheTemplateRenders() throws Exception {
        // instructions, a user message of text parts, the model's earlier call and its output, a flat function tool
        JsonNode r = json(post(
                "/v1/responses",
                "{\"model\":\"tiny\",\"max_output_tokens\":3,\"seed\":5,\"instructions\":\"D|\","
                        + "\"tools\":[{\"type\":\"function\",\"name\":\"read_board\",\"parameters\":{}}],"
                        + "\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"a\"}]},"
                        + "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"read_board\",\"arguments\":\"{}\"},"
                        + "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"|T\"}]}"));
        String prompt = "tools: read_board;D|a|T";
        assertThat(r.path("object").asText()).isEqualTo("response");
        assertThat(r.path("id").asText()).startsWith("resp_");
        assertThat(r.at("/usage/input_tokens").asInt()).isEqualTo(prompt.length());
        assertThat(r.at("/usage/total_tokens").asInt())
                .isEqualTo(prompt.length() + r.at("/usage/output_tokens").asInt());
        assertThat(r.path("output")).isNotEmpty();
        assertThat(r.at("/output/0/type").asText()).isIn("message", "function_call");
        assertThat(r.at("/tools/0/name").asText()).isEqualTo("read_board");
        assertThat(r.path("store").asBoolean(true)).isFalse();
    }

    @Test
    void aStreamedResponseIsNamedEventsNumberedInOrderEndingWithTheWholeResponse() throws Exception {
        String body = "{\"model\":\"tiny\",\"input\":\"" + BOARD.replace("\n", "\\n")
                + "\",\"max_output_tokens\":6,\"seed\":9";
        HttpResponse<String> streamed = post("/v1/responses", body + ",\"stream\":true}");
        assertThat(streamed.statusCode()).isEqualTo(200);
        assertThat(streamed.body()).doesNotContain("[DONE]");
        List<JsonNode> events = new ArrayList<>();
        for (String block : streamed.body().strip().split("\n\n")) {
            String[] lines = block.split("\n", 2);
            assertThat(lines[0]).startsWith("event: ");
            assertThat(lines[1]).startsWith("data: ");
            JsonNode e = Http.JSON.readTree(lines[1].substring(6));
            assertThat(e.path("type").asText()).isEqualTo(lines[0].substring(7));
            assertThat(e.path("sequence_number").asInt()).isEqualTo(events.size());
            events.add(e);
        }
        assertThat(events.get(0).path("type").asText()).isEqualTo("response.created");
        assertThat(events.get(0).at("/response/status").asText()).isEqualTo("in_progress");
        JsonNode last = events.get(events.size() - 1);
        assertThat(last.path("type").asText()).isIn("response.completed", "response.incomplete");
        StringBuilder deltas = new StringBuilder();
        events.stream()
                .filter(e -> e.path("type").asText().equals("response.output_text.delta"))
                .forEach(e -> deltas.append(e.path("delta").asText()));
        JsonNode whole = json(post("/v1/responses", body + "}"));
        assertThat(deltas.toString())
                .isEqualTo(last.at("/response/output/0/content/0/text").asText())
                .isEqualTo(whole.at("/output/0/content/0/text").asText())
                .isEqualTo(inProcess(BOARD, 6, 9).text());
        assertThat(whole.path("status").asText())
                .isEqualTo(last.at("/response/status").asText());
        if (whole.path("status").asText().equals("incomplete")) {
            assertThat(whole.at("/incomplete_details/reason").asText()).isEqualTo("max_output_tokens");
        }
    }

    @Test
    void responsesRefuseWhatThisServerDoesNotDoByName() throws Exception {
        String base = "{\"model\":\"tiny\",\"input\":\"x\"";
        Map<String, String> refused = new java.util.LinkedHashMap<>();
        refused.put(base + ",\"store\":true}", "store");
        refused.put(base + ",\"previous_response_id\":\"resp_1\"}", "previous_response_id");
        refused.put(base + ",\"reasoning\":{\"effort\":\"low\"}}", "reasoning");
        refused.put(base + ",\"text\":{\"format\":{\"type\":\"json_schema\"}}}", "text");
        refused.put(base + ",\"tools\":[{\"type\":\"web_search\"}]}", "tools[0].type");
        refused.put("{\"model\":\"tiny\",\"input\":[{\"type\":\"file_search_call\"}]}", "input[0].type");
        refused.put("{\"model\":\"tiny\",\"input\":[]}", "input");
        refused.put(base + ",\"max_output_tokens\":-1}", "max_output_tokens");
        refused.forEach((body, param) -> assertRefusedByName("/v1/responses", body, param));
    }

    @Test
    void everyUnsupportedRequestIsRefusedByNameInOpenAisErrorShape() throws Exception {
        String chat = "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]";
        String completion = "{\"model\":\"tiny\",\"prompt\":\"x\"";
        Map<String, String> refused = new java.util.LinkedHashMap<>();
        refused.put(completion + ",\"presence_penalty\":0.5}", "presence_penalty");
        refused.put(completion + ",\"frequency_penalty\":-1}", "frequency_penalty");
        refused.put(completion + ",\"logprobs\":21}", "logprobs");
        refused.put(completion + ",\"echo\":true,\"logprobs\":2}", "logprobs");
        refused.put(completion + ",\"echo\":true,\"logprobs\":0,\"stream\":true}", "echo");
        refused.put(completion + ",\"suffix\":\"end\"}", "suffix");
        refused.put(completion + ",\"stream_options\":{\"include_usage\":true}}", "stream_options");
        refused.put(completion + ",\"guided_json\":{}}", "guided_json");
        refused.put(chat + ",\"top_logprobs\":2}", "top_logprobs");
        refused.put(chat + ",\"top_logprobs\":21,\"logprobs\":true}", "top_logprobs");
        refused.put(chat + ",\"response_format\":{\"type\":\"json_object\"}}", "response_format");
        refused.put(chat + ",\"tool_choice\":\"required\"}", "tool_choice");
        refused.put(chat + ",\"logit_bias\":{\"5\":3}}", "logit_bias");
        refused.put("{\"model\":\"tiny\",\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}", "messages[0].role");
        // a PNG's signature and header (1 x 1): enough for the server to read its size
        String png = org.pettingllms.core.data.Image.png(new byte[] {
                    (byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1
                })
                .toDataUrl();
        refused.put(
                "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\"}]}]}",
                "messages[0].content[0].image_url");
        // a text model takes no images; remote images are never fetched
        refused.put(
                "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
                        + "\"see\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"" + png + "\"}}]}]}",
                "messages[0].content[1]");
        refused.put(
                "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\","
                        + "\"image_url\":{\"url\":\"https://example.org/board.png\"}}]}]}",
                "messages[0].content[0].image_url");
        for (var e : refused.entrySet()) {
            String path = e.getKey().contains("messages") ? "/v1/chat/completions" : "/v1/completions";
            assertRefusedByName(path, e.getKey(), e.getValue());
        }
        for (String neutral : List.of(
                completion + ",\"presence_penalty\":0,\"logit_bias\":{},\"max_tokens\":1}",
                chat + ",\"response_format\":{\"type\":\"text\"},\"tool_choice\":\"none\",\"max_tokens\":1}")) {
            String path = neutral.contains("messages") ? "/v1/chat/completions" : "/v1/completions";
            assertThat(post(path, neutral).statusCode()).as(neutral).isEqualTo(200);
        }
    }

    @Test
    void modelsAndUnknownRoutesAnswerJson() throws Exception {
        HttpResponse<String> one = HTTP.send(
                HttpRequest.newBuilder(server.uri().resolve("/v1/models/tiny")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(json(one).path("id").asText()).isEqualTo("tiny");
        HttpResponse<String> missing = HTTP.send(
                HttpRequest.newBuilder(server.uri().resolve("/v1/models/other")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(json(missing).at("/error/message").asText()).contains("other");
        HttpResponse<String> route = post("/v1/embeddings", "{}");
        assertThat(route.statusCode()).isEqualTo(404);
        assertThat(route.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        assertThat(json(route).at("/error/message").asText()).contains("/v1/embeddings");
    }
}
