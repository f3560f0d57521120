package org.pettingllms.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/**
 * What every {@link Sampler} must do (embedded, remote, fakes): exactly {@code n} completions with one logprob per
 * token, the token budget and stop strings honoured, the same answers for the same seed, safe concurrent calls,
 * and, when it comes with the learner that trains its weights, the weight version of the weights it used and
 * logprobs the learner recomputes. Extend it in a test class and supply the pieces.
 */
public abstract class SamplerContract {
    protected abstract Sampler sampler();

    protected abstract PolicyRef policy();

    /** A prompt the policy answers with a few tokens at temperature 1 (not always the same answer). */
    protected abstract Prompt prompt();

    /** The learner that trains this sampler's weights, or null for a sampler without one. */
    protected Learner learner() {
        return null;
    }

    /** Whether logprobs are real (a scripted sampler reports 0 for its deterministic answers). */
    protected boolean realLogprobs() {
        return true;
    }

    /** How close the learner's recomputed logprobs must be (mean absolute difference per token). */
    protected double logprobTolerance() {
        return 1e-4;
    }

    protected SamplingParams params(int maxTokens, long seed) {
        return new SamplingParams(1.0, 0, 1.0, maxTokens, List.of(), seed);
    }

    @Test
    public void returnsExactlyNCompletionsWithOneLogprobPerToken() {
        for (int n : new int[] {1, 3}) {
            List<Completion> out = sampler().sample(policy(), prompt(), n, params(6, 11));
            assertThat(out).hasSize(n);
            for (Completion c : out) {
                assertThat(c.logprobs().size()).isEqualTo(c.tokens().size());
                assertThat(c.tokens().size()).isBetween(0, 6);
                for (int t = 0; t < c.logprobs().size(); t++) {
                    assertThat((double) c.logprobs().get(t)).isFinite().isLessThanOrEqualTo(1e-6);
                }
                if (c.finish() == FinishReason.LENGTH) {
                    assertThat(c.tokens().size()).isEqualTo(6);
                }
            }
        }
    }

    @Test
    public void theSameSeedGivesTheSameCompletions() {
        List<Completion> a = sampler().sample(policy(), prompt(), 4, params(6, 21));
        List<Completion> b = sampler().sample(policy(), prompt(), 4, params(6, 21));
        for (int i = 0; i < a.size(); i++) {
            assertThat(b.get(i).tokens()).isEqualTo(a.get(i).tokens());
            assertThat(b.get(i).text()).isEqualTo(a.get(i).text());
            for (int t = 0; t < a.get(i).logprobs().size(); t++) {
                assertThat((double) b.get(i).logprobs().get(t))
                        .isCloseTo(a.get(i).logprobs().get(t), within(1e-5));
            }
        }
    }

    @Test
    public void stopStringsEndTheTextAndAreNotPartOfIt() {
        Completion free = sampler().sample(policy(), prompt(), 1, params(8, 31)).get(0);
        if (free.text().length() < 2) {
            return; // nothing to cut
        }
        String stop = free.text().substring(1, 2);
        Completion cut = sampler()
                .sample(policy(), prompt(), 1, new SamplingParams(1.0, 0, 1.0, 8, List.of(stop), 31))
                .get(0);
        assertThat(cut.text()).isEqualTo(free.text().substring(0, free.text().indexOf(stop)));
        assertThat(cut.finish()).isEqualTo(FinishReason.STOP_STRING);
    }

    @Test
    public void concurrentCallsGiveWhatSequentialCallsGive() throws Exception {
        List<List<Completion>> sequential = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            sequential.add(sampler().sample(policy(), prompt(), 2, params(5, 100 + i)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<List<Completion>>> futures = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                long seed = 100 + i;
                futures.add(pool.submit(() -> sampler().sample(policy(), prompt(), 2, params(5, seed))));
            }
            for (int i = 0; i < 6; i++) {
                List<Completion> got = futures.get(i).get();
                assertThat(got).hasSize(2);
                for (int c = 0; c < 2; c++) {
                    assertThat(got.get(c).tokens())
                            .as("request %d candidate %d", i, c)
                            .isEqualTo(sequential.get(i).get(c).tokens());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    public void completionsCarryTheVersionOfTheWeightsThatMadeThemAndTheLearnerAgrees() {
        Learner learner = learner();
        if (learner == null) {
            return;
        }
        long v0 = learner.publish(policy());
        List<Completion> out = sampler().sample(policy(), prompt(), 4, params(6, 41));
        out.forEach(c -> assertThat(c.weightVersion()).isEqualTo(v0));
        List<TrainExample> batch = new ArrayList<>();
        for (int i = 0; i < out.size(); i++) {
            Completion c = out.get(i);
            batch.add(new TrainExample(c.promptTokens(), c.tokens(), c.logprobs(), i % 2 == 0 ? 1.0 : -1.0));
        }
        if (realLogprobs()) {
            assertThat(LearnerContract.meanGap(learner.logprobs(policy(), batch), batch))
                    .as("the learner recomputes the sampler's logprobs")
                    .isLessThan(logprobTolerance());
        }
        learner.forwardBackward(policy(), batch, LossConfig.DEFAULT);
        assertThat(learner.optimStep(policy(), OptimParams.adamW(1e-2, 0, 1.0)).skipped())
                .isFalse();
        long v1 = learner.publish(policy());
        assertThat(v1).as("an optimizer step moves the weight version").isNotEqualTo(v0);
        sampler()
                .sample(policy(), prompt(), 2, params(6, 42))
                .forEach(c -> assertThat(c.weightVersion()).isEqualTo(v1));
    }
}
