package org.pettingllms.core.workflow;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.util.Seeds;

/**
 * One execution of a parsed design, for {@link DesignedRollouts}: its calls sampled at the executors' settings,
 * each seeded by its problem, design, execution and call, so that a seed repeats it whatever the timing of threads;
 * with {@link DesignConfig#nodeCandidates} above 1, each call's candidates scored by the answer in their own output
 * and the best one continuing (AT-GRPO at the node). Apart from the rollout, which turns executions into rewards,
 * samples and episodes: how one execution is sampled and scored is a question of its own.
 */
final class DesignExecutor {
    /**
     * One execution's calls (prompt and chosen completion each), its outcome, and with tree sampling at node calls
     * every call's K candidates with their scores (empty lists without it).
     */
    record Ran(
            List<Prompt> prompts,
            List<Completion> completions,
            WorkflowRunner.Execution execution,
            double score,
            List<List<Completion>> candidates,
            List<List<Double>> candidateScores) {}

    private final DesignTask task;
    private final DesignConfig design;

    DesignExecutor(DesignTask task, DesignConfig design) {
        this.task = task;
        this.design = design;
    }

    /** Execution {@code j} of design {@code i} of {@code problem}, its calls sampled from {@code s}. */
    Ran execute(
            Problem problem,
            DesignTask.Posed posed,
            Workflow w,
            int i,
            int j,
            Sampler s,
            PolicyMap policies,
            RolloutConfig config) {
        List<Prompt> prompts = new ArrayList<>();
        List<Completion> completions = new ArrayList<>();
        List<List<Completion>> candidates = new ArrayList<>();
        List<List<Double>> candidateScores = new ArrayList<>();
        int k = design.nodeCandidates();
        // a program runs once per execution whoever asks (a candidate's scoring, then the runner for the chosen one)
        Map<String, String> ran = new HashMap<>();
        Map<String, WorkflowTool> tools = new LinkedHashMap<>();
        posed.tools()
                .forEach((name, tool) ->
                        tools.put(name, code -> ran.computeIfAbsent(name + "\n" + code, x -> tool.run(code))));
        WorkflowRunner runner = new WorkflowRunner(tools, posed.answerOf());
        WorkflowRunner.Execution e = runner.run(w, posed.text(), call -> {
            Prompt prompt = DesignPrompts.executor(call, config.style());
            SamplingParams params = executorSampling(config)
                    .withSeed(Seeds.derive(config.sampling().seed(), problem.id(), i, j, call.index()));
            List<Completion> cs = s.sample(policies.policyOf(call.role()), prompt, k, params);
            int best = 0;
            if (k > 1) { // AT-GRPO at the node: each candidate scored by the answer in its own output; the best
                // continues
                List<Double> scores = new ArrayList<>();
                for (Completion c : cs) {
                    scores.add(scoreOf(posed, runner.outputOf(call, c.text())));
                    if (scores.get(scores.size() - 1) > scores.get(best)) {
                        best = scores.size() - 1;
                    }
                }
                candidates.add(cs);
                candidateScores.add(scores);
            }
            prompts.add(prompt);
            completions.add(cs.get(best));
            return cs.get(best).text();
        });
        return new Ran(prompts, completions, e, scoreOf(posed, e.output()), candidates, candidateScores);
    }

    /** How the executors sample: the rollout's settings, at {@link DesignConfig#executorTemperature} when set. */
    private SamplingParams executorSampling(RolloutConfig config) {
        SamplingParams p = config.sampling();
        double t = design.executorTemperature();
        return t < 0 ? p : new SamplingParams(t, p.topK(), p.topP(), p.maxTokens(), p.stop(), p.seed());
    }

    /** The score of the answer the task reads in {@code output} (0 for none), checked to be in [0, 1]. */
    private double scoreOf(DesignTask.Posed posed, String output) {
        String answer = posed.answerOf().apply(output);
        double score = answer.isEmpty() ? 0 : posed.score().applyAsDouble(answer);
        if (!(score >= 0 && score <= 1)) {
            throw new IllegalStateException(task.id() + ": a score must be in [0, 1], got " + score);
        }
        return score;
    }
}
