package org.pettingllms.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.backend.TextPolicySampler;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.task.Task;
import org.pettingllms.langchain4j.ProgramRollouts;
import org.pettingllms.langchain4j.TaskTeam;

/**
 * {@code bench program}: what replaying costs. The same problems, answers and K go through the built-in tree
 * rollouts and through the task played as an agent program ({@link TaskTeam}) with per-call groups by replay; the
 * scripted sampler is nearly free, so the times show the replays' own cost (the program and its environment steps
 * run again), and the counts show what a model would be asked: completions sampled on each path, program runs per
 * problem, and the share of the program's calls answered from the record instead of sampled.
 */
final class ProgramBench {
    private ProgramBench() {}

    /** Counts the completions a sampler returns. */
    private record Counting(Sampler inner, AtomicLong completions) implements Sampler {
        @Override
        public List<org.pettingllms.core.data.Completion> sample(
                org.pettingllms.core.data.PolicyRef policy,
                org.pettingllms.core.data.Prompt prompt,
                int n,
                SamplingParams params) {
            completions.addAndGet(n);
            return inner.sample(policy, prompt, n, params);
        }
    }

    static Map<String, Object> run(Task<?> task, TextPolicy answers, int k, int problems, int rounds, int warmup) {
        PolicyMap policies = PolicyMap.forLevel(Level.L2, task.roles(), "bench", Set.of());
        AtomicLong sampled = new AtomicLong();
        Sampler sampler = new Counting(new TextPolicySampler(answers), sampled);
        RolloutEngine builtIn = new RolloutEngine(sampler);
        ProgramRollouts program = new ProgramRollouts(
                new TaskTeam<>(task, PromptStyle.COMPACT), task.roles(), sampler, 1.0, 64, RolloutProgress.NONE);
        double[] builtInSeconds = new double[rounds];
        double[] programSeconds = new double[rounds];
        long builtInCompletions = 0;
        long programCompletions = 0;
        List<Map<String, Double>> metrics = new ArrayList<>();
        for (int round = 0; round < warmup + rounds; round++) {
            RolloutConfig cfg = BenchCommand.treeRound(k, problems, round);
            List<Problem> list =
                    new SeededProblems(task.id(), 0).problems(Split.TRAIN, (long) round * problems, problems);
            sampled.set(0);
            long start = System.nanoTime();
            builtIn.run(task, list, policies, cfg);
            double a = (System.nanoTime() - start) / 1e9;
            long aCompletions = sampled.getAndSet(0);
            program.drainMetrics();
            start = System.nanoTime();
            program.run(list, policies, cfg);
            double b = (System.nanoTime() - start) / 1e9;
            Map<String, Double> m = program.drainMetrics();
            if (round >= warmup) {
                builtInSeconds[round - warmup] = a;
                programSeconds[round - warmup] = b;
                builtInCompletions += aCompletions;
                programCompletions += sampled.get();
                metrics.add(m);
            }
        }
        double runs = metrics.stream().mapToDouble(m -> m.get("program/runs")).sum();
        double calls = metrics.stream().mapToDouble(m -> m.get("program/calls")).sum();
        double replayed = metrics.stream()
                .mapToDouble(m -> m.get("program/replayed_calls"))
                .sum();
        double divergences =
                metrics.stream().mapToDouble(m -> m.get("program/divergences")).sum();
        double perProblem = (double) rounds * problems;
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("benchmark", "program");
        json.put("task", task.id());
        json.put("k", k);
        json.put("problems_per_round", problems);
        json.put("rounds", rounds);
        json.put("built_in_s_per_round_median", round3(median(builtInSeconds)));
        json.put("program_s_per_round_median", round3(median(programSeconds)));
        json.put("program_over_built_in", round3(median(programSeconds) / median(builtInSeconds)));
        json.put("built_in_completions_per_problem", round3(builtInCompletions / perProblem));
        json.put("program_completions_per_problem", round3(programCompletions / perProblem));
        json.put("program_runs_per_problem", round3(runs / perProblem));
        json.put("program_calls_per_problem", round3(calls / perProblem));
        json.put("replayed_share_of_calls", round3(calls == 0 ? 0 : replayed / calls));
        json.put("divergences", (long) divergences);
        json.put("cores", Runtime.getRuntime().availableProcessors());
        return json;
    }

    private static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private static double round3(double x) {
        return Math.round(x * 1000) / 1000.0;
    }
}
