package org.pettingllms.torch.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.pettingllms.core.algo.LrSchedule;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Task;
import org.pettingllms.text.TextCodec;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.InputEncoder;

/**
 * Supervised warm-up of a base model on a task's demonstrations ({@link Demonstrations#of}: the task's own, or
 * its scripted team's first-turn answers): each step takes the next {@code batch} training problems, one example
 * per role's demonstration (the answer followed by the end token, so the model learns to stop), the mean token
 * negative log-likelihood, AdamW with warm-up then cosine decay.
 */
public final class SupervisedTraining {
    /**
     * @param roles only these roles' demonstrations (empty: all)
     * @param keep  a role's demonstration kept for only this fraction of the problems (rehearsal)
     * @param alone the fraction of the problems that also give a demonstration of the single-agent task (the main
     *              role alone, its prompt without the other roles' answers), so that the base model's single agent
     *              is a weak player of its own prompt rather than one that never saw it
     */
    public record Settings(
            int steps,
            int batch,
            double peakLr,
            Demonstrations.Settings demos,
            List<String> roles,
            Map<String, Double> keep,
            double alone) {
        public Settings {
            if (steps < 1 || batch < 1 || peakLr <= 0) {
                throw new IllegalArgumentException("need steps >= 1, batch >= 1 and a positive learning rate");
            }
            if (alone < 0 || alone > 1) {
                throw new IllegalArgumentException("the single-agent fraction must be in [0, 1], got " + alone);
            }
            roles = List.copyOf(roles);
            keep = Map.copyOf(keep);
        }

        public Settings(
                int steps,
                int batch,
                double peakLr,
                Demonstrations.Settings demos,
                List<String> roles,
                Map<String, Double> keep) {
            this(steps, batch, peakLr, demos, roles, keep, 0);
        }
    }

    /**
     * A problem's demonstrations: the task's, and with probability {@code s.alone()} the single-agent task's too
     * (no random draw when that is 0, so that recipes written before it give the same data).
     */
    public static List<Demonstrations.Demo> demonstrations(
            Task<?> task, Task<?> single, Problem p, PromptStyle style, Settings s, SplittableRandom rng) {
        List<Demonstrations.Demo> demos = new ArrayList<>(Demonstrations.of(task, p, style, s.demos(), rng));
        if (s.alone() > 0 && rng.nextDouble() < s.alone()) {
            demos.addAll(Demonstrations.of(single, p, style, s.demos(), rng));
        }
        return demos;
    }

    /** Told after every optimizer step: the step (1-based), the total and the loss smoothed over recent steps. */
    public interface Progress {
        void step(int step, int steps, double smoothedLoss);
    }

    private SupervisedTraining() {}

    /** Trains {@code base} in place; returns the final smoothed loss. */
    public static double run(
            Task<?> task,
            ProblemSource problems,
            PromptStyle style,
            TorchLearner learner,
            PolicyRef base,
            TextCodec codec,
            Settings s,
            long seed,
            Progress progress) {
        return run(task, null, problems, style, learner, base, codec, s, seed, progress);
    }

    /**
     * A demonstration prompt's ids: its text through the codec; with images, the codec's placeholders expanded by
     * the model's family (the same ids the sampler gives that prompt).
     */
    private static int[] promptIds(Prompt prompt, TextCodec codec, TorchLearner learner, PolicyRef base) {
        if (prompt.images().isEmpty()) {
            return codec.encode(prompt.text());
        }
        DecoderModel model = learner.registry().model(base.model());
        InputEncoder encoder = model.inputEncoder();
        if (encoder == null) {
            throw new IllegalArgumentException("model '" + base.model() + "' (model_type "
                    + model.config().modelType() + ") takes no images; the task's demonstrations show them");
        }
        return encoder.expand(codec.encodePrompt(prompt), prompt.images(), "demonstration");
    }

    /**
     * As above; {@code single} is the task's single-agent form (its main role alone), whose demonstrations are
     * added for {@code s.alone()} of the problems (needs {@code single} when that is above 0).
     */
    public static double run(
            Task<?> task,
            Task<?> single,
            ProblemSource problems,
            PromptStyle style,
            TorchLearner learner,
            PolicyRef base,
            TextCodec codec,
            Settings s,
            long seed,
            Progress progress) {
        if (s.alone() > 0 && single == null) {
            throw new IllegalArgumentException("single-agent demonstrations asked for, but no single-agent task");
        }
        if (!Demonstrations.available(task)) {
            throw new IllegalArgumentException("task " + task.id() + " offers no demonstrations: it implements "
                    + "neither Demonstrations nor ScriptedPlay");
        }
        return run(
                (p, rng) -> demonstrations(task, single, p, style, s, rng),
                task.roles(),
                problems,
                learner,
                base,
                codec,
                s,
                seed,
                progress);
    }

    /** A problem's demonstrations, drawn from {@code rng}. */
    @FunctionalInterface
    public interface DemoSource {
        List<Demonstrations.Demo> of(Problem problem, SplittableRandom rng);
    }

    /**
     * Trains {@code base} in place on what {@code demos} gives each training problem (a designed system's warm-up:
     * its designer's and executors' demonstrations); {@code roles} names the roles there are, for messages. Returns
     * the final smoothed loss.
     */
    public static double run(
            DemoSource demos,
            List<String> roles,
            ProblemSource problems,
            TorchLearner learner,
            PolicyRef base,
            TextCodec codec,
            Settings s,
            long seed,
            Progress progress) {
        LrSchedule schedule =
                new LrSchedule(LrSchedule.Kind.COSINE, s.peakLr(), Math.max(1, s.steps() / 20), s.steps(), 0.1);
        OptimParams adamW = OptimParams.adamW(s.peakLr(), 0.01, 1.0);
        SplittableRandom rng = new SplittableRandom(seed);
        double ema = Double.NaN;
        for (int step = 0; step < s.steps(); step++) {
            List<TrainExample> examples = new ArrayList<>();
            for (Problem p : problems.problems(Split.TRAIN, (long) step * s.batch(), s.batch())) {
                for (Demonstrations.Demo d : demos.of(p, rng)) {
                    if (!s.roles().isEmpty() && !s.roles().contains(d.role())) {
                        continue;
                    }
                    if (s.keep().containsKey(d.role())
                            && rng.nextDouble() >= s.keep().get(d.role())) {
                        continue;
                    }
                    int[] answer = codec.encode(d.answer());
                    int[] completion = Arrays.copyOf(answer, answer.length + 1);
                    completion[answer.length] = codec.stopTokenIds()[0];
                    List<Image> images = d.prompt().images();
                    examples.add(new TrainExample(
                            IntSeq.of(promptIds(d.prompt(), codec, learner, base)),
                            IntSeq.of(completion),
                            FloatSeq.of(new float[completion.length]),
                            0,
                            images));
                }
            }
            if (examples.isEmpty()) {
                throw new IllegalStateException(
                        "step " + (step + 1) + ": no demonstrations (roles " + s.roles() + " of " + roles + ")");
            }
            // similar lengths share a micro-batch: a short answer is not padded to a long program
            examples.sort(Comparator.comparingInt(
                    e -> e.promptTokens().size() + e.completionTokens().size()));
            double loss = learner.forwardBackwardSupervised(base, examples).loss();
            learner.optimStep(base, adamW.withLearningRate(schedule.lr(step)));
            ema = Double.isNaN(ema) ? loss : 0.95 * ema + 0.05 * loss;
            progress.step(step + 1, s.steps(), ema);
        }
        learner.publish(base);
        return ema;
    }
}
