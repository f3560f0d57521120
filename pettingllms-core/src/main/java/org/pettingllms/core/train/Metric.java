package org.pettingllms.core.train;

/**
 * The names of a training step's numbers ({@link StepReport}), slash-namespaced as they appear in
 * {@code metrics.jsonl}. Validation numbers carry the {@link #VAL} prefix; per-role and per-policy names are made
 * by the methods below.
 */
public final class Metric {
    /** Prefix of the validation rollout's numbers: {@code val/success/rate}. */
    public static final String VAL = "val/";
    /** Success of the episodes the rollout kept (best of K at each decision, in tree mode). */
    public static final String SUCCESS = "success/rate";

    public static final String TURNS = "episode/turns";
    public static final String EPISODES = "episode/count";
    public static final String TEAM_REWARD = "reward/team/mean";
    public static final String SAMPLES = "samples/count";
    public static final String SAMPLES_TRAINED = "samples/trained";
    public static final String GROUPS = "groups/count";
    /** Share of groups whose rewards are all equal: they teach nothing. */
    public static final String GROUPS_CONSTANT = "groups/constant_frac";

    public static final String ADV_NONZERO = "adv/nonzero_frac";
    public static final String ADV_ABS_MEAN = "adv/abs_mean";
    /** State groups (GiGPO): share of steps with a non-zero step advantage. */
    public static final String STATE_ADV_NONZERO = "adv/state_nonzero_frac";

    public static final String COMPLETION_TOKENS = "tokens/completion";
    public static final String PROMPT_TOKENS = "tokens/prompt";
    /** Completion tokens per second of rollout and update together. */
    public static final String TOKENS_PER_S = "tokens/per_s";

    public static final String ROLLOUT_S = "time/rollout_s";
    public static final String UPDATE_S = "time/update_s";
    public static final String VALIDATE_S = "time/validate_s";
    public static final String STEP_S = "time/step_s";

    /** Asynchronous training: training steps between the weights that sampled a step and those it trains. */
    public static final String ASYNC_STALENESS = "async/staleness";
    /** Share of the step's completion tokens the off-policy correction dropped (over the cap, or masked). */
    public static final String ASYNC_DROPPED = "async/dropped_frac";
    /** Mean token weight (decoupled PPO's pi_prox / pi_behav) over the tokens kept. */
    public static final String ASYNC_WEIGHT = "async/weight_mean";
    /** Token mean of |log pi_prox - log pi_behav|: how far the policy moved between sampling and this update. */
    public static final String ASYNC_LAG = "async/logprob_lag";
    /** Seconds the trainer waited for the step's rollouts. */
    public static final String ASYNC_WAIT_ROLLOUT = "async/wait_rollout_s";
    /** Seconds the step's rollouts waited for their weights (the learner behind). */
    public static final String ASYNC_WAIT_WEIGHTS = "async/wait_weights_s";
    /** Seconds the update's optimizer steps were held for rollouts on the weights they change. */
    public static final String ASYNC_WAIT_HOLD = "async/wait_hold_s";

    private Metric() {}

    /** A role's mean path reward; {@code local()} and {@code team()} parts under .../local and .../team. */
    public static String reward(String role) {
        return "reward/" + role + "/mean";
    }

    /** The share of all the role's sampled answers whose own step had {@code outcome} (solved, invalid, ...). */
    public static String sampled(String role, String outcome) {
        return "sampled/" + role + "/" + outcome;
    }

    /** A policy's training number ({@code loss}, {@code clip_frac}, {@code grad_norm}, ...). */
    public static String train(String name, Object policy) {
        return "train/" + name + "/" + policy;
    }
}
