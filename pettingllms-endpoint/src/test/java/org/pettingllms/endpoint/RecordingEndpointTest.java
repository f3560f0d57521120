package org.pettingllms.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.http.Http;
import org.pettingllms.langchain4j.AgentProgram;
import org.pettingllms.langchain4j.ProgramRollouts;
import org.pettingllms.testkit.NodeClient;

/**
 * Programs that reach their models over HTTP with an OpenAI client (LangChain4j's, blocking and streaming) train on
 * the same samples as the same program given the models in-process; a posted reward, a diverging replay and refused
 * fields behave as documented.
 */
class RecordingEndpointTest {
    static final List<String> ROLES = List.of("scout", "solver");
    static final PolicyMap POLICIES = PolicyMap.forLevel(Level.L2, ROLES, "m", Set.of());
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static RecordingEndpoint endpoint;

    @BeforeAll
    static void start() {
        endpoint = new RecordingEndpoint("127.0.0.1", 0).start();
    }

    @AfterAll
    static void stop() {
        endpoint.close();
    }

    /** Random digits per seed, token ids 1000 + digit (not the text's characters), logprob -0.5 per token. */
    static final Sampler DIGITS = (PolicyRef policy, Prompt prompt, int n, SamplingParams params) -> {
        List<Completion> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int d = new SplittableRandom(params.seed() * 31 + i).nextInt(10);
            out.add(new Completion(
                    IntSeq.of(prompt.text().length()),
                    IntSeq.of(1000 + d),
                    FloatSeq.of(-0.5f),
                    Integer.toString(d),
                    FinishReason.EOS,
                    0));
        }
        return out;
    };

    interface Chat {
        String chat(String role, String text) throws Exception;
    }

    /** The scout guesses, the solver answers having seen the guess; reward 1 when it names the problem's digit. */
    static double guess(Problem problem, Chat chat) throws Exception {
        String guess = chat.chat("scout", "guess a digit");
        String answer = chat.chat("solver", "the scout guessed " + guess + "; your digit?");
        return answer.strip().equals(Long.toString(problem.seed())) ? 1.0 : 0.0;
    }

    static RolloutResult roll(AgentProgram program) {
        List<Problem> problems = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            problems.add(new Problem("p" + i, i, Map.of()));
        }
        RolloutConfig config = new RolloutConfig(
                RolloutConfig.Mode.TREE,
                3,
                true,
                PromptStyle.COMPACT,
                new SamplingParams(1.0, 0, 1.0, 8, List.of(), 7),
                RewardMix.PAPER,
                2);
        return new ProgramRollouts(program, ROLES, DIGITS, 1.0, 16, RolloutProgress.NONE)
                .run(problems, POLICIES, config);
    }

    static void assertSameSamples(RolloutResult a, RolloutResult b) {
        List<Sample> x = a.samples();
        List<Sample> y = b.samples();
        assertThat(y).hasSameSizeAs(x).isNotEmpty();
        for (int i = 0; i < x.size(); i++) {
            Sample s = x.get(i);
            Sample t = y.get(i);
            assertThat(t.problemId()).isEqualTo(s.problemId());
            assertThat(t.role()).isEqualTo(s.role());
            assertThat(t.turn()).isEqualTo(s.turn());
            assertThat(t.prompt()).isEqualTo(s.prompt());
            assertThat(t.completionTokens()).isEqualTo(s.completionTokens());
            assertThat(t.reward()).isEqualTo(s.reward());
            assertThat(t.chosen()).isEqualTo(s.chosen());
        }
    }

    @Test
    void aLangChain4jOpenAiClientOverHttpTrainsOnTheSameSamplesAsInProcess() {
        RolloutResult inProcess = roll((problem, models) ->
                guess(problem, (role, text) -> models.chat(role).chat(text)));
        RolloutResult overHttp = roll(endpoint.program((problem, base) -> guess(problem, openAiChat(base))));
        assertSameSamples(inProcess, overHttp);
    }

    @Tag("heavy")
    @Test
    void aPythonProgramInItsOwnProcessTrainsOnTheSameSamples() throws Exception {
        Path script = Path.of(
                RecordingEndpointTest.class.getResource("/programs/guess.py").toURI());
        RolloutResult inProcess = roll((problem, models) ->
                guess(problem, (role, text) -> models.chat(role).chat(text)));
        RolloutResult process =
                roll(endpoint.program(new ProcessProgram("python3 '" + script + "'", Duration.ofSeconds(60))));
        assertSameSamples(inProcess, process);

        assertThatThrownBy(() ->
                        roll(endpoint.program(new ProcessProgram("echo broken >&2; exit 3", Duration.ofSeconds(5)))))
                .hasMessageContaining("exited with 3")
                .hasMessageContaining("broken");
    }

    /**
     * The official OpenAI Node client, where it is installed: {@code node} on the path and the {@code openai}
     * package in the folder named by {@code PETTINGLLMS_NODE_MODULES} (e.g. after {@code npm install openai} there).
     */
    @Tag("heavy")
    @Test
    void theOfficialNodeClientTrainsOnTheSameSamples() throws Exception {
        String modules = NodeClient.modules();
        Path script = Path.of(
                RecordingEndpointTest.class.getResource("/programs/guess.cjs").toURI());
        RolloutResult inProcess = roll((problem, models) ->
                guess(problem, (role, text) -> models.chat(role).chat(text)));
        RolloutResult node = roll(endpoint.program(
                new ProcessProgram("NODE_PATH='" + modules + "' node '" + script + "'", Duration.ofSeconds(60))));
        assertSameSamples(inProcess, node);
    }

    /**
     * The same two calls as a LangGraph4j {@code StateGraph} (a node per role, the scout's guess in the graph's
     * state for the solver's node), its nodes calling the role models in-process and, in a second program, LangChain4j
     * OpenAI clients over HTTP: both give the samples of the plain program.
     */
    @Test
    void aLangGraph4jStateGraphTrainsOnTheSameSamples() {
        RolloutResult inProcess = roll((problem, models) ->
                guess(problem, (role, text) -> models.chat(role).chat(text)));
        RolloutResult graph = roll((problem, models) ->
                graphGuess(problem, (role, text) -> models.chat(role).chat(text)));
        assertSameSamples(inProcess, graph);
        RolloutResult graphOverHttp = roll(endpoint.program((problem, base) -> graphGuess(problem, openAiChat(base))));
        assertSameSamples(inProcess, graphOverHttp);
    }

    /** {@link #guess} as a graph: START -> scout -> solver -> END. */
    static double graphGuess(Problem problem, Chat chat) throws Exception {
        var graph = new org.bsc.langgraph4j.StateGraph<>(org.bsc.langgraph4j.state.AgentState::new)
                .addNode(
                        "scout",
                        org.bsc.langgraph4j.action.AsyncNodeAction.node_async(
                                s -> Map.of("guess", chat.chat("scout", "guess a digit"))))
                .addNode(
                        "solver",
                        org.bsc.langgraph4j.action.AsyncNodeAction.node_async(s -> Map.of(
                                "answer",
                                chat.chat(
                                        "solver",
                                        "the scout guessed " + s.value("guess").orElse("") + "; your digit?"))))
                .addEdge(org.bsc.langgraph4j.StateGraph.START, "scout")
                .addEdge("scout", "solver")
                .addEdge("solver", org.bsc.langgraph4j.StateGraph.END)
                .compile();
        String answer =
                graph.invoke(Map.of()).flatMap(s -> s.<String>value("answer")).orElse("");
        return answer.strip().equals(Long.toString(problem.seed())) ? 1.0 : 0.0;
    }

    /** Spring AI's {@code ChatClient} over its OpenAI chat model: the same program, the same samples. */
    @Tag("heavy")
    @Test
    void aSpringAiChatClientTrainsOnTheSameSamples() {
        RolloutResult inProcess = roll((problem, models) ->
                guess(problem, (role, text) -> models.chat(role).chat(text)));
        RolloutResult spring = roll(endpoint.program((problem, base) -> {
            Map<String, org.springframework.ai.chat.client.ChatClient> clients =
                    Map.of("scout", springAi(base, "scout"), "solver", springAi(base, "solver"));
            return guess(
                    problem,
                    (role, text) -> clients.get(role).prompt().user(text).call().content());
        }));
        assertSameSamples(inProcess, spring);
    }

    /**
     * A Spring AI chat client for a role: the episode's base URL already ends in {@code /v1}, so the completions
     * path is the rest; the role is the model; no sampling options, which are the run's.
     */
    static org.springframework.ai.chat.client.ChatClient springAi(URI base, String role) {
        var api = org.springframework.ai.openai.api.OpenAiApi.builder()
                .baseUrl(base.toString())
                .apiKey("unused")
                .completionsPath("/chat/completions")
                .build();
        var model = org.springframework.ai.openai.OpenAiChatModel.builder()
                .openAiApi(api)
                .defaultOptions(org.springframework.ai.openai.OpenAiChatOptions.builder()
                        .model(role)
                        .build())
                .build();
        return org.springframework.ai.chat.client.ChatClient.create(model);
    }

    /** Each role's LangChain4j OpenAI client at the episode's base URL. */
    static Chat openAiChat(URI base) {
        Map<String, ChatModel> models = Map.of("scout", openAi(base, "scout"), "solver", openAi(base, "solver"));
        return (role, text) -> models.get(role).chat(text);
    }

    static OpenAiChatModel openAi(URI base, String role) {
        return OpenAiChatModel.builder()
                .baseUrl(base.toString())
                .apiKey("unused")
                .modelName(role)
                .maxRetries(0)
                .build();
    }

    @Test
    void aStreamingClientAndAPostedRewardWorkToo() {
        RolloutResult inProcess = roll((problem, models) ->
                guess(problem, (role, text) -> models.chat(role).chat(text)));
        RolloutResult streamed = roll(endpoint.program((problem, base) -> {
            double r = guess(problem, (role, text) -> {
                OpenAiStreamingChatModel model = OpenAiStreamingChatModel.builder()
                        .baseUrl(base.toString())
                        .apiKey("unused")
                        .modelName(role)
                        .build();
                CompletableFuture<ChatResponse> done = new CompletableFuture<>();
                model.chat(text, new StreamingChatResponseHandler() {
                    @Override
                    public void onCompleteResponse(ChatResponse response) {
                        done.complete(response);
                    }

                    @Override
                    public void onError(Throwable error) {
                        done.completeExceptionally(error);
                    }
                });
                return done.get(30, TimeUnit.SECONDS).aiMessage().text();
            });
            HttpResponse<String> posted = post(base.resolve(base.getPath() + "/../reward"), "{\"reward\":" + r + "}");
            assertThat(posted.statusCode()).as(posted.body()).isEqualTo(200);
            return Double.NaN; // the posted reward counts
        }));
        assertSameSamples(inProcess, streamed);
    }

    static HttpResponse<String> post(URI uri, String body) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(uri.normalize())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aDivergingReplayOverHttpFallsBackToWholeEpisodeGroups() {
        AtomicInteger runs = new AtomicInteger();
        List<Sample> samples = roll(endpoint.program((problem, base) -> {
                    ChatModel scout = openAi(base, "scout");
                    ChatModel solver = openAi(base, "solver");
                    String g = scout.chat("run " + runs.incrementAndGet() + ": guess");
                    return solver.chat("the scout guessed " + g).equals(Long.toString(problem.seed())) ? 1 : 0;
                }))
                .samples();
        assertThat(samples).isNotEmpty().allSatisfy(s -> assertThat(s.turn()).isEqualTo(-1));
    }

    @Test
    void sampingFieldsOfTheProgramsOwnAreRefusedByName() {
        roll(endpoint.program((problem, base) -> {
            for (String field : List.of("\"temperature\":0.3", "\"seed\":4", "\"logit_bias\":{\"1\":2}", "\"n\":2")) {
                HttpResponse<String> r = post(
                        URI.create(base + "/chat/completions"),
                        "{\"model\":\"scout\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]," + field + "}");
                assertThat(r.statusCode()).as(field + " " + r.body()).isEqualTo(400);
                JsonNode error = Http.JSON.readTree(r.body()).path("error");
                String name = field.substring(1, field.indexOf('"', 1));
                assertThat(error.path("param").asText()).as(r.body()).isEqualTo(name);
                assertThat(r.headers().firstValue("x-should-retry"))
                        .as("clients must not retry it")
                        .hasValue("false");
            }
            HttpResponse<String> role = post(
                    URI.create(base + "/chat/completions"),
                    "{\"model\":\"critic\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
            assertThat(role.statusCode()).isEqualTo(404);
            assertThat(role.body()).contains("scout").contains("solver");
            return guess(problem, (r, text) -> openAi(base, r).chat(text));
        }));
    }
}
