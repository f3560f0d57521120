package org.pettingllms.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
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
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.RolloutException;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutResult;

/**
 * Per-call groups by replay on a two-role program: a scout guesses a digit, a solver answers having seen the guess;
 * the reward is 1 when the solver names the problem's digit. The sampler answers random digits per seed, with
 * token ids that are not the text's characters, so a test can tell sampled ids from a re-tokenised text.
 */
class ProgramRolloutsTest {
    static final List<String> ROLES = List.of("scout", "solver");
    static final PolicyMap POLICIES = PolicyMap.forLevel(Level.L2, ROLES, "m", Set.of());

    /** Answers a random digit; token ids are 1000 + digit then 7, as no character tokenizer would encode it. */
    static final class DigitSampler implements Sampler {
        final List<Prompt> requests = new ArrayList<>();

        @Override
        public synchronized List<Completion> sample(
                org.pettingllms.core.data.PolicyRef policy, Prompt prompt, int n, SamplingParams params) {
            requests.add(prompt);
            List<Completion> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int d = new SplittableRandom(params.seed() * 31 + i).nextInt(10);
                out.add(new Completion(
                        IntSeq.of(prompt.text().length()),
                        IntSeq.of(1000 + d, 7),
                        FloatSeq.of(-0.5f, -0.25f),
                        Integer.toString(d),
                        FinishReason.EOS,
                        3));
            }
            return out;
        }
    }

    static int target(Problem p) {
        return Integer.parseInt(p.id().substring(1));
    }

    static final AgentProgram GUESS = (problem, models) -> {
        String guess = models.chat("scout").chat("guess a digit");
        String answer = models.chat("solver").chat("the scout guessed " + guess + "; your digit?");
        return answer.equals(Integer.toString(target(problem))) ? 1.0 : 0.0;
    };

    static List<Problem> problems(int n) {
        List<Problem> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Problem("p" + (i % 10), i, Map.of()));
        }
        return out;
    }

    static RolloutConfig config(RolloutConfig.Mode mode, int k) {
        return new RolloutConfig(
                mode,
                k,
                true,
                PromptStyle.COMPACT,
                new SamplingParams(1.0, 0, 1.0, 8, List.of(), 42),
                RewardMix.PAPER,
                4);
    }

    static ProgramRollouts rollouts(AgentProgram program, Sampler sampler) {
        return new ProgramRollouts(program, ROLES, sampler, 1.0, 16, RolloutProgress.NONE);
    }

    @Test
    void eachCallIsAGroupOfKAnswersToOnePromptScoredByTheRunItContinued() {
        DigitSampler sampler = new DigitSampler();
        RolloutResult r = rollouts(GUESS, sampler).run(problems(10), POLICIES, config(RolloutConfig.Mode.TREE, 4));
        assertThat(r.episodes()).hasSize(10);
        for (EpisodeResult e : r.episodes()) {
            Map<GroupKey, List<Sample>> groups = e.samples().stream()
                    .collect(Collectors.groupingBy(s -> new GroupKey(s.problemId(), s.role(), s.turn())));
            assertThat(groups.keySet())
                    .extracting(GroupKey::role, GroupKey::turn)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple("scout", 0),
                            org.assertj.core.groups.Tuple.tuple("solver", 1));
            List<Sample> solver = groups.get(new GroupKey(e.problem().id(), "solver", 1));
            List<Sample> scout = groups.get(new GroupKey(e.problem().id(), "scout", 0));
            for (List<Sample> g : List.of(scout, solver)) {
                assertThat(g).hasSize(4);
                assertThat(g).extracting(Sample::prompt).containsOnly(g.get(0).prompt());
                assertThat(g).extracting(Sample::unitId).doesNotHaveDuplicates();
                assertThat(g.stream().filter(Sample::chosen)).hasSize(1);
            }
            // the solver's call is the last: a candidate's reward is whether it names the digit
            for (Sample s : solver) {
                boolean right = s.completion().text().equals(Integer.toString(target(e.problem())));
                assertThat(s.reward()).isEqualTo(right ? 1.0 : 0.0);
            }
            // the path continued from the best scout answer: the solver was shown it
            Sample chosenScout =
                    scout.stream().filter(Sample::chosen).findFirst().orElseThrow();
            assertThat(solver.get(0).prompt().text())
                    .isEqualTo("the scout guessed " + chosenScout.completion().text() + "; your digit?");
            double best = scout.stream().mapToDouble(Sample::reward).max().orElseThrow();
            assertThat(chosenScout.reward()).isEqualTo(best);
            assertThat(e.success()).isEqualTo(solver.stream().anyMatch(s -> s.reward() == 1.0));
        }
        assertThat(r.episodes().stream().filter(EpisodeResult::success).count())
                .as("best of 4 solver answers: some problems solved, not all")
                .isBetween(1L, 9L);
    }

    @Test
    void replayedCallsAreAnsweredFromTheRecordingAndTheSampledIdsAreWhatTrains() {
        DigitSampler sampler = new DigitSampler();
        ProgramRollouts rollouts = rollouts(GUESS, sampler);
        RolloutResult r = rollouts.run(problems(1), POLICIES, config(RolloutConfig.Mode.TREE, 4));
        // call 0: K scout candidates in one request, then a fresh solver answer in each of the 4 runs; call 1: the
        // scout's call replayed (no request), the K solver candidates in one request
        assertThat(sampler.requests).hasSize(1 + 4 + 1);
        assertThat(rollouts.drainMetrics())
                .containsEntry("program/runs", 8.0)
                .containsEntry("program/divergences", 0.0)
                .as("8 runs of 2 calls; the 4 runs of call 1's branch replay call 0")
                .containsEntry("program/calls", 16.0)
                .containsEntry("program/replayed_calls", 4.0);
        for (Sample s : r.samples()) {
            int digit = Integer.parseInt(s.completion().text());
            assertThat(s.completionTokens().toArray()).containsExactly(1000 + digit, 7);
            assertThat(s.samplingLogprobs().toArray()).containsExactly(-0.5f, -0.25f);
            assertThat(s.completion().weightVersion()).isEqualTo(3);
            assertThat(s.policy()).isEqualTo(POLICIES.policyOf(s.role()));
        }
    }

    @Test
    void aProgramThatIsNotDeterministicFallsBackToWholeEpisodeGroups() {
        AtomicInteger runs = new AtomicInteger();
        AgentProgram clocked = (problem, models) -> {
            String guess = models.chat("scout").chat("run " + runs.incrementAndGet() + ": guess a digit");
            String answer = models.chat("solver").chat("the scout guessed " + guess);
            return answer.equals(Integer.toString(target(problem))) ? 1.0 : 0.0;
        };
        ProgramRollouts rollouts = rollouts(clocked, new DigitSampler());
        RolloutResult r = rollouts.run(problems(1), POLICIES, config(RolloutConfig.Mode.TREE, 3));
        assertThat(rollouts.drainMetrics()).containsEntry("program/divergences", 1.0);
        List<Sample> samples = r.samples();
        assertThat(samples).hasSize(3 * 2).allSatisfy(s -> assertThat(s.turn()).isEqualTo(GroupKey.ANY_TURN));
        Map<String, List<Sample>> units = samples.stream().collect(Collectors.groupingBy(Sample::unitId));
        assertThat(units).hasSize(3);
        units.values().forEach(u -> {
            assertThat(u).extracting(Sample::role).containsExactly("scout", "solver");
            assertThat(u).extracting(Sample::reward).containsOnly(u.get(0).reward());
        });
    }

    @Test
    void aReplayThatEndsEarlyOrADivergenceTheProgramCatchesIsStillReported() {
        AtomicInteger runs = new AtomicInteger();
        AgentProgram shortens = (problem, models) -> { // its first run asks twice, every later run once
            String guess = models.chat("scout").chat("guess a digit");
            if (runs.incrementAndGet() == 1) {
                models.chat("solver").chat("the scout guessed " + guess);
            }
            return 0.0;
        };
        ProgramRollouts a = rollouts(shortens, new DigitSampler());
        a.run(problems(1), POLICIES, config(RolloutConfig.Mode.TREE, 2));
        assertThat(a.drainMetrics()).containsEntry("program/divergences", 1.0);

        AtomicInteger count = new AtomicInteger();
        AgentProgram swallows = (problem, models) -> {
            try {
                models.chat("scout").chat("run " + count.incrementAndGet());
            } catch (RuntimeException ignored) {
                // a program that carries on after a failed call
            }
            models.chat("solver").chat("go on");
            return 0.0;
        };
        ProgramRollouts b = rollouts(swallows, new DigitSampler());
        RolloutResult r = b.run(problems(1), POLICIES, config(RolloutConfig.Mode.TREE, 2));
        assertThat(b.drainMetrics()).containsEntry("program/divergences", 1.0);
        assertThat(r.samples()).allSatisfy(s -> assertThat(s.turn()).isEqualTo(GroupKey.ANY_TURN));
    }

    @Test
    void aDivergenceNamesTheCallAndTheFirstDifference() {
        ProgramRun run = new ProgramRun(
                List.of(new ProgramCall(
                        "scout",
                        POLICIES.policyOf("scout"),
                        Prompt.compact("board 3x3, seed 17"),
                        Completion.ofText("1"))),
                (i, role, policy, prompt, params) -> Completion.ofText("x"),
                8);
        assertThatThrownBy(
                        () -> run.call("scout", POLICIES.policyOf("scout"), Prompt.compact("board 3x3, seed 18"), null))
                .isInstanceOf(ReplayDivergence.class)
                .hasMessageContaining("call 0 (scout)")
                .hasMessageContaining("character 17")
                .hasMessageContaining("3x3, seed 17\"")
                .hasMessageContaining("3x3, seed 18\"");
        ProgramRun other = new ProgramRun(
                List.of(new ProgramCall(
                        "scout", POLICIES.policyOf("scout"), Prompt.compact("a"), Completion.ofText("1"))),
                (i, role, policy, prompt, params) -> Completion.ofText("x"),
                8);
        assertThatThrownBy(() -> other.call("solver", POLICIES.policyOf("solver"), Prompt.compact("a"), null))
                .hasMessageContaining("recorded role 'scout', replay asked 'solver'");
    }

    @Test
    void parallelModeRunsTheProgramFromTheStartKTimes() {
        DigitSampler sampler = new DigitSampler();
        RolloutResult r = rollouts(GUESS, sampler).run(problems(3), POLICIES, config(RolloutConfig.Mode.PARALLEL, 2));
        assertThat(r.episodes()).hasSize(6);
        assertThat(sampler.requests).hasSize(12);
        assertThat(r.episodes()).allSatisfy(e -> {
            assertThat(e.turns()).isEqualTo(2);
            assertThat(e.success()).isEqualTo(e.samples().get(1).reward() == 1.0);
        });
        RolloutResult validation =
                rollouts(GUESS, sampler).run(problems(3), POLICIES, config(RolloutConfig.Mode.PARALLEL, 1));
        assertThat(validation.episodes()).hasSize(3);
    }

    @Test
    void aRunawayProgramOrOneThatThrowsFailsTheRolloutNamingTheProblem() {
        AgentProgram loop = (problem, models) -> {
            while (true) {
                models.chat("scout").chat("again");
            }
        };
        assertThatThrownBy(() -> new ProgramRollouts(loop, ROLES, new DigitSampler(), 1.0, 5, RolloutProgress.NONE)
                        .run(problems(1), POLICIES, config(RolloutConfig.Mode.PARALLEL, 1)))
                .isInstanceOf(RolloutException.class)
                .hasMessageContaining("problem p0")
                .hasMessageContaining("more than 5 model calls");
        AgentProgram swallows = (problem, models) -> { // as a streaming handler's onError would
            for (int i = 0; i < 50; i++) {
                try {
                    models.chat("scout").chat("again");
                } catch (IllegalStateException ignored) {
                    // carries on
                }
            }
            return 1.0;
        };
        assertThatThrownBy(() -> new ProgramRollouts(swallows, ROLES, new DigitSampler(), 1.0, 5, RolloutProgress.NONE)
                        .run(problems(1), POLICIES, config(RolloutConfig.Mode.PARALLEL, 1)))
                .isInstanceOf(RolloutException.class)
                .hasMessageContaining("more than 5 model calls");
    }

    @Test
    void requestsMayShortenTheBudgetButNotChangeTheDistribution() {
        List<SamplingParams> seen = new ArrayList<>();
        ProgramRun run = new ProgramRun(
                List.of(),
                (i, role, policy, prompt, params) -> {
                    seen.add(params);
                    return Completion.ofText("ok");
                },
                8);
        SamplingParams sampling = new SamplingParams(1.0, 0, 1.0, 8, List.of("\n"), 5);
        ChatModel model = new PolicyChatModel(
                "scout", POLICIES.policyOf("scout"), run, PromptStyle.COMPACT, sampling, Optional.empty());
        model.chat(ChatRequest.builder()
                .messages(UserMessage.from("hi"))
                .maxOutputTokens(3)
                .stopSequences(List.of("."))
                .build());
        assertThat(seen.get(0).maxTokens()).isEqualTo(3);
        assertThat(seen.get(0).stop()).containsExactly("\n", ".");
        assertThatThrownBy(() -> model.chat(ChatRequest.builder()
                        .messages(UserMessage.from("hi"))
                        .temperature(0.2)
                        .build()))
                .hasMessageContaining("temperature")
                .hasMessageContaining("rollout");
        assertThatThrownBy(() -> model.chat(ChatRequest.builder()
                        .messages(UserMessage.from("hi"))
                        .toolSpecifications(
                                ToolSpecification.builder().name("look").build())
                        .build()))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("tools need the model's chat template");
        assertThatThrownBy(() -> model.chat(
                        UserMessage.from(TextContent.from("see"), ImageContent.from("http://127.0.0.1/x.png"))))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("message 0");
    }
}
