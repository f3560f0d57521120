package org.pettingllms.cli;

import java.util.List;
import java.util.Map;
import org.pettingllms.core.config.RunConfig;

/**
 * {@code PETTINGLLMS_SMOKE=1}: every command keeps its arguments but caps its work, so that the commands the docs
 * show can all run in minutes ({@code scripts/docs-check} runs them so). A run trains at most 2 steps of 2 problems
 * with 2 candidates and 16 new tokens, checkpoints and validates every step on 2 problems; {@code sft}, {@code bench},
 * {@code rollout} and {@code table} cap their steps, problems, rounds and seeds likewise. Never a different command:
 * the same config, files and code paths, less of them.
 */
final class Smoke {
    static final String VARIABLE = "PETTINGLLMS_SMOKE";

    private Smoke() {}

    static boolean on(Map<String, String> env) {
        String v = env.get(VARIABLE);
        return v != null && !v.isBlank() && !v.equals("0");
    }

    /** {@code value} capped at {@code max} in smoke mode; itself otherwise. */
    static int cap(Map<String, String> env, int value, int max) {
        return on(env) ? Math.min(value, max) : value;
    }

    /** Config overrides that cap a loaded run's work (appended after the command's own, so they win). */
    static List<String> caps(RunConfig cfg) {
        return List.of(
                "train.steps=" + Math.min(cfg.train().steps(), 2),
                "train.checkpointEvery=1",
                "train.validateEvery=1",
                "rollout.problemsPerStep=" + Math.min(cfg.rollout().problemsPerStep(), 2),
                "rollout.k=" + Math.min(cfg.rollout().k(), 2),
                "rollout.sampling.maxTokens="
                        + Math.min(cfg.rollout().sampling().maxTokens(), 16),
                "validation.problems=" + Math.min(cfg.validation().problems(), 2),
                "validation.sampling.maxTokens="
                        + Math.min(cfg.validation().sampling().maxTokens(), 16));
    }
}
