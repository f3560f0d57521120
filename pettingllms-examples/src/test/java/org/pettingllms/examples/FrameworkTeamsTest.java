package org.pettingllms.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
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
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.task.Task;
import org.pettingllms.endpoint.RecordingEndpoint;
import org.pettingllms.langchain4j.AgentProgram;
import org.pettingllms.langchain4j.ProgramRollouts;
import org.pettingllms.langchain4j.TaskTeam;

/**
 * The team written with LangGraph4j and with Spring AI trains on the samples of the team written as a plain
 * LangChain4j program: same calls, same prompts, same order, same rewards, so the measured learning of one is the
 * others'.
 */
class FrameworkTeamsTest {
    static final List<String> ROLES = List.of("a", "b");
    static final PolicyMap POLICIES = PolicyMap.forLevel(Level.L2, ROLES, "m", Set.of());
    static RecordingEndpoint endpoint;

    @BeforeAll
    static void start() {
        endpoint = new RecordingEndpoint("127.0.0.1", 0).start();
    }

    @AfterAll
    static void stop() {
        endpoint.close();
    }

    /**
     * Two roles add a digit each to a counter, solved when it reaches {@code target}, over past it or after
     * {@code turns} turns. At 15 turns the graph has 30 role nodes to visit, beyond LangGraph4j's default bound of 25.
     */
    static Task<Integer> count(int turns, int target) {
        return new Task<>() {
            @Override
            public String id() {
                return "count-v1";
            }

            @Override
            public List<String> roles() {
                return ROLES;
            }

            @Override
            public int maxTurns() {
                return turns;
            }

            @Override
            public Integer initialState(Problem problem) {
                return 0;
            }

            @Override
            public Prompt prompt(Integer state, String role, int turn, PromptStyle style) {
                return Prompt.chat("add a digit to reach the target", role + " at " + state + ", turn " + turn);
            }

            @Override
            public Transition<Integer> step(Integer state, String role, Completion completion) {
                int next = state + Integer.parseInt(completion.text().strip());
                boolean solved = next == target;
                boolean over = next > target;
                return new Transition<>(
                        next,
                        RewardParts.ZERO,
                        solved || over,
                        solved,
                        solved ? StepOutcome.SOLVED : StepOutcome.OK,
                        "");
            }
        };
    }

    /** A digit per seed (0-3, so 20 takes several turns), token id 1000 + digit, logprob -0.5. */
    static final Sampler DIGITS = (PolicyRef policy, Prompt prompt, int n, SamplingParams params) -> {
        List<Completion> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int d = new SplittableRandom(params.seed() * 31 + i).nextInt(4);
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

    static RolloutResult roll(AgentProgram program) {
        List<Problem> problems = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            problems.add(new Problem("p" + i, 20, Map.of()));
        }
        RolloutConfig config = new RolloutConfig(
                RolloutConfig.Mode.TREE,
                3,
                true,
                PromptStyle.CHAT,
                new SamplingParams(1.0, 0, 1.0, 8, List.of(), 7),
                RewardMix.PAPER,
                2);
        return new ProgramRollouts(program, ROLES, DIGITS, 1.0, 64, RolloutProgress.NONE)
                .run(problems, POLICIES, config);
    }

    static void assertSameSamples(RolloutResult a, RolloutResult b) {
        List<Sample> x = a.samples();
        List<Sample> y = b.samples();
        assertThat(y).hasSameSizeAs(x);
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
    void theLangGraph4jTeamTrainsOnTheSamplesOfThePlainProgram() {
        Task<Integer> task = count(15, 20);
        RolloutResult plain = roll(new TaskTeam<>(task, PromptStyle.CHAT));
        RolloutResult graph = roll(new GraphTeam<>(task, PromptStyle.CHAT));
        assertSameSamples(plain, graph);
        assertThat(plain.samples())
                .as("both rewards")
                .anyMatch(s -> s.reward() > 0)
                .anyMatch(s -> s.reward() <= 0);
        assertThat(plain.samples())
                .as("calls late in an episode: the graph loops past LangGraph4j's default bound")
                .anyMatch(s -> s.turn() >= 10);

        Task<Integer> endless = count(15, 1000);
        RolloutResult allTurns = roll(new GraphTeam<>(endless, PromptStyle.CHAT));
        assertSameSamples(roll(new TaskTeam<>(endless, PromptStyle.CHAT)), allTurns);
        assertThat(allTurns.samples())
                .as("every episode plays all 15 turns: the graph's bound leaves room for all 30 calls")
                .anyMatch(s -> s.turn() == 14);
    }

    @Tag("heavy")
    @Test
    void theSpringAiTeamTrainsOnTheSamplesOfThePlainProgramOverTheEndpoint() {
        Task<Integer> task = count(4, 8);
        RolloutResult plain = roll(new TaskTeam<>(task, PromptStyle.CHAT));
        RolloutResult spring = roll(endpoint.program(new SpringAiTeam<>(task, PromptStyle.CHAT)));
        assertSameSamples(plain, spring);
        assertThat(plain.samples())
                .as("both rewards")
                .anyMatch(s -> s.reward() > 0)
                .anyMatch(s -> s.reward() <= 0);
    }
}
