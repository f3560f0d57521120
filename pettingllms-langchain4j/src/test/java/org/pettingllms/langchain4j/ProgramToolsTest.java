package org.pettingllms.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.service.AiServices;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.rollout.RolloutException;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.text.ChatTemplate;

/**
 * Programs written the ways LangChain4j users write them: an AI service whose {@code @Tool} methods the model calls
 * (the request rendered by the chat template with the tools, the answer's calls executed by LangChain4j, the tool's
 * result in the next call's prompt), and streaming models.
 */
class ProgramToolsTest {
    static final PolicyMap POLICIES = PolicyMap.forLevel(Level.L2, List.of("reader"), "m", Set.of());

    /** Lists the tools with their parameter schemas, assistant calls, and tool answers with their call ids. */
    static final ChatTemplate TEMPLATE = new ChatTemplate(
            "{% if tools %}tools:{% for t in tools %} {{ t.function.name }}{{ t.function.parameters|tojson }}"
                    + "{% endfor %}\n{% endif %}"
                    + "{% for m in messages %}{% if m.role == 'tool' %}<tool_response {{ m.tool_call_id }}>"
                    + "{{ m.content }}</tool_response>\n{% elif m.tool_calls %}{% for c in m.tool_calls %}"
                    + "<tool_call>{{ c.function.name }} {{ c.function.arguments|tojson }}</tool_call>\n{% endfor %}"
                    + "{% else %}{{ m.role }}: {{ m.content }}\n{% endif %}{% endfor %}"
                    + "{% if add_generation_prompt %}assistant:{% endif %}",
            Map.of());

    /** The service a program builds over the reader's model; the model may look cells up with a tool. */
    interface Reader {
        String answer(String question);
    }

    /** A 2x2 board of letters; the tool counts its calls so a test can see LangChain4j executing it. */
    static final class Board {
        final List<String> looked = new CopyOnWriteArrayList<>();

        @Tool("the letter at a cell of the board")
        String cell(@P("row, from 0") int row, @P("column, from 0") int col) {
            looked.add(row + "," + col);
            return row == 0 && col == 1 ? "Q" : "Z";
        }
    }

    /**
     * Asked a question with tools offered and no tool answer yet, calls {@code cell} at a random cell; once the
     * prompt holds a tool answer, answers a random letter of {@code Q, Z}. Token ids are 2000 + the text's length.
     */
    static final class ToolSampler implements Sampler {
        final List<Prompt> requests = new CopyOnWriteArrayList<>();

        @Override
        public List<Completion> sample(PolicyRef policy, Prompt prompt, int n, SamplingParams params) {
            requests.add(prompt);
            List<Completion> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                SplittableRandom rnd = new SplittableRandom(params.seed() * 31 + i);
                String text = prompt.text().contains("<tool_response")
                        ? (rnd.nextBoolean() ? "Q" : "Z")
                        : "<tool_call>\n{\"name\": \"cell\", \"arguments\": {\"row\": " + rnd.nextInt(2) + ", \"col\": "
                                + rnd.nextInt(2) + "}}\n</tool_call>";
                out.add(new Completion(
                        IntSeq.of(prompt.text().length()),
                        IntSeq.of(2000 + text.length()),
                        FloatSeq.of(-0.5f),
                        text,
                        FinishReason.EOS,
                        1));
            }
            return out;
        }
    }

    static List<Problem> problems(int n) {
        List<Problem> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Problem("p" + i, i, Map.of()));
        }
        return out;
    }

    static RolloutConfig config(int k) {
        return ProgramRolloutsTest.config(RolloutConfig.Mode.TREE, k);
    }

    static ProgramRollouts rollouts(AgentProgram program, Sampler sampler, Optional<ChatTemplate> template) {
        return new ProgramRollouts(
                program, List.of("reader"), sampler, 1.0, 16, RolloutProgress.NONE, policy -> template);
    }

    @Test
    void anAiServiceCallsItsToolAndTheCallAndItsResultTrainAsTurns() {
        List<Board> boards = new CopyOnWriteArrayList<>();
        AgentProgram program = (problem, models) -> {
            Board board = new Board();
            boards.add(board);
            Reader reader = AiServices.builder(Reader.class)
                    .chatModel(models.chat("reader"))
                    .tools(board)
                    .build();
            return reader.answer("which letter is at row 0, column 1?").equals("Q") ? 1.0 : 0.0;
        };
        ToolSampler sampler = new ToolSampler();
        ProgramRollouts rollouts = rollouts(program, sampler, Optional.of(TEMPLATE));
        RolloutResult r = rollouts.run(problems(6), POLICIES, config(3));

        assertThat(rollouts.drainMetrics())
                .as("replays repeat the tool calls' ids, so they ask what the recording asked")
                .containsEntry("program/divergences", 0.0)
                .as("per problem: 3 runs of 2 calls at call 0, 3 at call 1 replaying call 0 (its tool call included)")
                .containsEntry("program/calls", 6 * 12.0)
                .containsEntry("program/replayed_calls", 6 * 3.0);
        for (var e : r.episodes()) {
            Map<Integer, List<Sample>> groups = e.samples().stream().collect(Collectors.groupingBy(Sample::turn));
            assertThat(groups.keySet()).containsExactly(0, 1);
            List<Sample> call = groups.get(0);
            List<Sample> after = groups.get(1);
            assertThat(call)
                    .hasSize(3)
                    .extracting(Sample::prompt)
                    .containsOnly(call.get(0).prompt());
            assertThat(call.get(0).prompt().text())
                    .as("the tool and its parameter schema, rendered by the chat template")
                    .startsWith("tools: cell{\"type\": \"object\", \"properties\": {\"row\": {\"type\": \"integer\","
                            + " \"description\": \"row, from 0\"}")
                    .endsWith("user: which letter is at row 0, column 1?\nassistant:");
            Sample chosen = call.stream().filter(Sample::chosen).findFirst().orElseThrow();
            assertThat(chosen.completionTokens().toArray())
                    .containsExactly(2000 + chosen.completion().text().length());
            String cell = chosen.completion().text().replaceAll("(?s).*\"row\": (\\d), \"col\": (\\d).*", "$1,$2");
            String letter = cell.equals("0,1") ? "Q" : "Z";
            assertThat(after)
                    .hasSize(3)
                    .extracting(Sample::prompt)
                    .containsOnly(after.get(0).prompt());
            assertThat(after.get(0).prompt().text())
                    .as("the chosen call, then the tool's answer under the call's id")
                    .contains("<tool_call>cell {\"row\": " + cell.charAt(0) + ", \"col\": " + cell.charAt(2) + "}")
                    .contains("<tool_response call_0_0>" + letter + "</tool_response>");
            for (Sample s : after) {
                assertThat(s.reward()).isEqualTo(s.completion().text().equals("Q") ? 1.0 : 0.0);
            }
        }
        assertThat(boards)
                .as("LangChain4j executed the tool in every run that got a call")
                .allSatisfy(b -> assertThat(b.looked).hasSize(1));
    }

    @Test
    void toolsNeedATemplateThatDescribesThem() {
        AgentProgram program = (problem, models) -> AiServices.builder(Reader.class)
                        .chatModel(models.chat("reader"))
                        .tools(new Board())
                        .build()
                        .answer("which letter?")
                        .isEmpty()
                ? 0.0
                : 1.0;
        assertThatThrownBy(() ->
                        rollouts(program, new ToolSampler(), Optional.empty()).run(problems(1), POLICIES, config(2)))
                .isInstanceOf(RolloutException.class)
                .hasMessageContaining("tools need the model's chat template, and model 'm' has none");
        ChatTemplate plain = new ChatTemplate("{% for m in messages %}{{ m.content }}{% endfor %}", Map.of());
        assertThatThrownBy(() ->
                        rollouts(program, new ToolSampler(), Optional.of(plain)).run(problems(1), POLICIES, config(2)))
                .hasMessageContaining("does not describe tools to the model");
    }

    @Test
    void aStreamingProgramTrainsOnTheSameSamplesAsItsWholeAnswerTwin() {
        AgentProgram streaming = (problem, models) -> {
            String guess = streamed(models, "scout", "guess a digit");
            String answer = streamed(models, "solver", "the scout guessed " + guess + "; your digit?");
            return answer.equals(Integer.toString(ProgramRolloutsTest.target(problem))) ? 1.0 : 0.0;
        };
        List<Problem> problems = ProgramRolloutsTest.problems(5);
        RolloutConfig config = ProgramRolloutsTest.config(RolloutConfig.Mode.TREE, 3);
        RolloutResult whole = ProgramRolloutsTest.rollouts(
                        ProgramRolloutsTest.GUESS, new ProgramRolloutsTest.DigitSampler())
                .run(problems, ProgramRolloutsTest.POLICIES, config);
        RolloutResult streamed = ProgramRolloutsTest.rollouts(streaming, new ProgramRolloutsTest.DigitSampler())
                .run(problems, ProgramRolloutsTest.POLICIES, config);
        assertThat(streamed.samples()).hasSameSizeAs(whole.samples()).isNotEmpty();
        for (int i = 0; i < whole.samples().size(); i++) {
            Sample a = whole.samples().get(i);
            Sample b = streamed.samples().get(i);
            assertThat(b.prompt()).isEqualTo(a.prompt());
            assertThat(b.completionTokens()).isEqualTo(a.completionTokens());
            assertThat(b.reward()).isEqualTo(a.reward());
            assertThat(b.turn()).isEqualTo(a.turn()).isNotEqualTo(GroupKey.ANY_TURN);
        }
    }

    /** A streaming call as programs write it: partial text gathered until the response is complete. */
    static String streamed(RoleModels models, String role, String text) {
        StringBuilder partial = new StringBuilder();
        ChatResponse[] done = new ChatResponse[1];
        models.streaming(role).chat(text, new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String piece) {
                partial.append(piece);
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done[0] = response;
            }

            @Override
            public void onError(Throwable error) {
                throw error instanceof RuntimeException x ? x : new IllegalStateException(error);
            }
        });
        assertThat(done[0]).as("the handler completed on the caller's thread").isNotNull();
        assertThat(partial.toString()).isEqualTo(done[0].aiMessage().text());
        return partial.toString();
    }

    @Test
    void aStreamedAnswerWithToolCallsReportsEachCallComplete() {
        List<CompleteToolCall> calls = new ArrayList<>();
        ChatResponse[] done = new ChatResponse[1];
        ProgramRun run = new ProgramRun(
                List.of(),
                (i, role, policy, prompt, params) -> Completion.ofText("look first <tool_call>{\"name\": \"cell\","
                        + " \"arguments\": {\"row\": 1, \"col\": 0}}</tool_call>"),
                4);
        RoleModels models = RoleModels.of(Map.of(
                "reader",
                new PolicyChatModel(
                        "reader",
                        POLICIES.policyOf("reader"),
                        run,
                        org.pettingllms.core.data.PromptStyle.COMPACT,
                        new SamplingParams(1.0, 0, 1.0, 8, List.of(), 1),
                        Optional.of(TEMPLATE))));
        models.streaming("reader")
                .chat(
                        dev.langchain4j.model.chat.request.ChatRequest.builder()
                                .messages(dev.langchain4j.data.message.UserMessage.from("which letter?"))
                                .toolSpecifications(
                                        dev.langchain4j.agent.tool.ToolSpecifications.toolSpecificationsFrom(
                                                Board.class))
                                .build(),
                        new StreamingChatResponseHandler() {
                            @Override
                            public void onCompleteToolCall(CompleteToolCall call) {
                                calls.add(call);
                            }

                            @Override
                            public void onCompleteResponse(ChatResponse response) {
                                done[0] = response;
                            }

                            @Override
                            public void onError(Throwable error) {
                                throw new IllegalStateException(error);
                            }
                        });
        assertThat(calls).singleElement().satisfies(c -> {
            assertThat(c.toolExecutionRequest().id()).isEqualTo("call_0_0");
            assertThat(c.toolExecutionRequest().name()).isEqualTo("cell");
            assertThat(c.toolExecutionRequest().arguments()).isEqualTo("{\"row\":1,\"col\":0}");
        });
        assertThat(done[0].aiMessage().text()).isEqualTo("look first");
        assertThat(done[0].finishReason()).isEqualTo(dev.langchain4j.model.output.FinishReason.TOOL_EXECUTION);
        assertThatThrownBy(() -> models.chat("writer"))
                .hasMessageContaining("no role 'writer'; the roles are [reader]");
    }
}
