package org.pettingllms.langchain4j;

import dev.langchain4j.model.chat.ChatModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutException;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.rollout.Rollouts;
import org.pettingllms.core.rollout.StepRecord;
import org.pettingllms.core.util.Seeds;
import org.pettingllms.text.ChatTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rollouts of an {@link AgentProgram}, with AT-GRPO's per-call groups made by deterministic replay.
 *
 * <p>Tree mode, for one problem: at call {@code t} (from 0), the program runs again from the start with calls
 * {@code 0..t-1} answered from the recorded path; call {@code t} gets {@code K} candidates sampled together for its
 * one prompt; the run answering candidate {@code k} continues with fresh samples to its end, and its reward is
 * candidate {@code k}'s. The {@code K} candidates form the group of (problem, role of call {@code t}, {@code t}),
 * each its own unit; the best (first on ties; candidate 0 without greedy selection) joins the recorded path, and
 * call {@code t + 1} is branched the same way until the chosen run makes no further call. A program run is
 * therefore repeated about {@code K} times per call; the metric {@code program/runs} counts them, {@code program/calls}
 * the model calls they made and {@code program/replayed_calls} those answered from the record (no sampling).
 *
 * <p>A replay that asks something else than the recording ({@link ReplayDivergence}) is logged with the first
 * difference, and that problem falls back to whole-episode groups: {@code K} independent runs, each run's calls
 * one unit with its reward, grouped per role over all calls ({@link GroupKey#ANY_TURN}), so no group compares
 * answers to different prompts as if they were alternatives. Parallel mode (the GRPO baseline, validation) is
 * such runs from the start.
 */
public final class ProgramRollouts implements Rollouts {
    private static final Logger LOG = LoggerFactory.getLogger(ProgramRollouts.class);
    private final AgentProgram program;
    private final List<String> roles;
    private final Sampler sampler;
    private final double successAt;
    private final int maxCalls;
    private final RolloutProgress progress;
    private final Function<PolicyRef, Optional<ChatTemplate>> templates;
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong divergences = new AtomicLong();
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong replayed = new AtomicLong();

    /** Rollouts whose models have no chat template at hand: programs that use tools are refused. */
    public ProgramRollouts(
            AgentProgram program,
            List<String> roles,
            Sampler sampler,
            double successAt,
            int maxCalls,
            RolloutProgress progress) {
        this(program, roles, sampler, successAt, maxCalls, progress, policy -> Optional.empty());
    }

    /**
     * @param roles     the roles the program calls models for, in the order metrics list them
     * @param successAt the reward at or above which an episode counts as solved
     * @param maxCalls  model calls one run may make (a runaway program fails the rollout)
     * @param templates each policy's chat template, which renders requests with tools
     */
    public ProgramRollouts(
            AgentProgram program,
            List<String> roles,
            Sampler sampler,
            double successAt,
            int maxCalls,
            RolloutProgress progress,
            Function<PolicyRef, Optional<ChatTemplate>> templates) {
        if (roles.isEmpty() || maxCalls < 1) {
            throw new IllegalArgumentException("need at least one role and maxCalls >= 1");
        }
        this.program = program;
        this.roles = List.copyOf(roles);
        this.sampler = sampler;
        this.successAt = successAt;
        this.maxCalls = maxCalls;
        this.progress = progress;
        this.templates = templates;
    }

    @Override
    public List<String> roles() {
        return roles;
    }

    @Override
    public Map<String, Double> drainMetrics() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("program/runs", (double) runs.getAndSet(0));
        m.put("program/divergences", (double) divergences.getAndSet(0));
        m.put("program/calls", (double) calls.getAndSet(0));
        m.put("program/replayed_calls", (double) replayed.getAndSet(0));
        return m;
    }

    @Override
    public RolloutResult run(List<Problem> problems, PolicyMap policies, RolloutConfig config) {
        roles.forEach(policies::policyOf); // fail before any work when a role has no policy
        long start = System.nanoTime();
        List<Callable<List<EpisodeResult>>> jobs = new ArrayList<>();
        for (Problem problem : problems) {
            jobs.add(() -> config.mode() == RolloutConfig.Mode.TREE && config.k() > 1
                    ? List.of(tree(problem, policies, config))
                    : independent(problem, policies, config, config.k(), "trajectory"));
        }
        List<EpisodeResult> episodes = new ArrayList<>();
        RolloutEngine.inParallel(jobs, config.concurrency(), progress).forEach(episodes::addAll);
        return new RolloutResult(episodes, (System.nanoTime() - start) / 1e9);
    }

    /** One run's outcome: its calls and its reward. */
    private record Played(List<ProgramCall> calls, double reward) {}

    private EpisodeResult tree(Problem problem, PolicyMap policies, RolloutConfig config) {
        List<ProgramCall> path = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        List<StepRecord> steps = new ArrayList<>();
        double reward = Double.NaN;
        long played = 0;
        try {
            for (int t = 0; ; t++) {
                int call = t;
                List<Completion> candidates = new ArrayList<>();
                // the first run samples the K candidates of call t (one request, one prompt) and plays candidate 0
                Played first = play(problem, policies, config, path, (i, role, policy, prompt, params) -> {
                    if (i == call) {
                        List<Completion> k = sampler.sample(
                                policy, prompt, config.k(), params.withSeed(Seeds.derive(params.seed(), "call", i)));
                        if (k.size() != config.k()) {
                            throw new IllegalStateException(
                                    "the sampler returned " + k.size() + " answers, " + config.k() + " were asked for");
                        }
                        candidates.addAll(k);
                        return candidates.get(0);
                    }
                    return fresh(policy, prompt, params, call, 0, i);
                });
                played++;
                if (first.calls().size() <= call) {
                    if (call > 0) { // the kept path's run went on to call t; this replay did not
                        throw ReplayDivergence.ended(call, call);
                    }
                    reward = first.reward(); // a program that makes no model call
                    break;
                }
                List<Played> runs = new ArrayList<>(List.of(first));
                for (int k = 1; k < config.k(); k++) {
                    int candidate = k;
                    runs.add(play(
                            problem,
                            policies,
                            config,
                            path,
                            (i, role, policy, prompt, params) -> i == call
                                    ? candidates.get(candidate)
                                    : fresh(policy, prompt, params, call, candidate, i)));
                    played++;
                }
                int best = 0;
                for (int k = 1; k < runs.size() && config.greedySelect(); k++) {
                    if (runs.get(k).reward() > runs.get(best).reward()) {
                        best = k;
                    }
                }
                ProgramCall asked = first.calls().get(call);
                for (int k = 0; k < runs.size(); k++) {
                    double r = runs.get(k).reward();
                    samples.add(new Sample(
                            problem.id(),
                            asked.role(),
                            call,
                            asked.policy(),
                            asked.prompt(),
                            candidates.get(k),
                            new RewardParts(0, r, 0),
                            outcome(r),
                            r,
                            problem.id() + "|call" + call + "|" + k,
                            k,
                            k == best));
                }
                Played chosen = runs.get(best);
                path.add(chosen.calls().get(call));
                reward = chosen.reward();
                boolean last = chosen.calls().size() == call + 1;
                steps.add(step(chosen.calls().get(call), call, reward, last));
                if (last) {
                    break;
                }
            }
        } catch (ReplayDivergence e) {
            divergences.incrementAndGet();
            runs.addAndGet(played);
            LOG.warn("problem {}: {}; whole-episode groups for this problem", problem.id(), e.getMessage());
            List<EpisodeResult> fallback = independent(problem, policies, config, config.k(), "fallback");
            return merged(problem, fallback);
        }
        runs.addAndGet(played);
        return new EpisodeResult(problem, 0, steps, reward >= successAt, steps.size(), samples, played);
    }

    /** {@code n} runs of the program from the start, each a trajectory of its own. */
    private List<EpisodeResult> independent(
            Problem problem, PolicyMap policies, RolloutConfig config, int n, String purpose) {
        List<EpisodeResult> out = new ArrayList<>(n);
        for (int j = 0; j < n; j++) {
            int trajectory = j;
            Played p = play(
                    problem,
                    policies,
                    config,
                    List.of(),
                    (i, role, policy, prompt, params) -> sampler.sample(
                                    policy,
                                    prompt,
                                    1,
                                    params.withSeed(Seeds.derive(params.seed(), purpose, trajectory, "call", i)))
                            .get(0));
            runs.incrementAndGet();
            List<Sample> samples = new ArrayList<>();
            List<StepRecord> steps = new ArrayList<>();
            for (int i = 0; i < p.calls().size(); i++) {
                ProgramCall c = p.calls().get(i);
                samples.add(new Sample(
                        problem.id(),
                        c.role(),
                        GroupKey.ANY_TURN,
                        c.policy(),
                        c.prompt(),
                        c.completion(),
                        new RewardParts(0, p.reward(), 0),
                        outcome(p.reward()),
                        p.reward(),
                        problem.id() + "|" + purpose + j,
                        j,
                        true));
                steps.add(step(c, i, p.reward(), i == p.calls().size() - 1));
            }
            out.add(new EpisodeResult(problem, j, steps, p.reward() >= successAt, steps.size(), samples, 1));
        }
        return out;
    }

    /** The fallback's trajectories as one episode (the tree mode's one episode per problem). */
    private EpisodeResult merged(Problem problem, List<EpisodeResult> trajectories) {
        EpisodeResult first = trajectories.get(0);
        List<Sample> samples = new ArrayList<>();
        trajectories.forEach(e -> samples.addAll(e.samples()));
        return new EpisodeResult(
                problem, 0, first.path(), first.success(), first.turns(), samples, trajectories.size());
    }

    /** A call after the branch: one fresh sample, seeded by the branch, the candidate and the call. */
    private Completion fresh(
            PolicyRef policy, Prompt prompt, SamplingParams params, int branch, int candidate, int call) {
        return sampler.sample(
                        policy,
                        prompt,
                        1,
                        params.withSeed(Seeds.derive(params.seed(), "branch", branch, candidate, "call", call)))
                .get(0);
    }

    /** Runs the program once: {@code recording} answers its first calls, {@code next} the others. */
    private Played play(
            Problem problem,
            PolicyMap policies,
            RolloutConfig config,
            List<ProgramCall> recording,
            ProgramRun.Answerer next) {
        ProgramRun run = new ProgramRun(recording, next, maxCalls);
        try {
            return played(problem, policies, config, run, recording.size());
        } finally { // every call answered counts, replayed ones (answered from the record, no sampling) apart
            int made = run.calls().size();
            calls.addAndGet(made);
            replayed.addAndGet(Math.min(made, recording.size()));
        }
    }

    private Played played(Problem problem, PolicyMap policies, RolloutConfig config, ProgramRun run, int recorded) {
        Map<String, ChatModel> models = new LinkedHashMap<>();
        for (String role : roles) {
            PolicyRef policy = policies.policyOf(role);
            models.put(
                    role,
                    new PolicyChatModel(
                            role,
                            policy,
                            run,
                            config.style(),
                            config.sampling()
                                    .withSeed(Seeds.derive(config.sampling().seed(), problem.id())),
                            templates.apply(policy)));
        }
        double reward;
        try {
            reward = program.run(problem, RoleModels.of(models));
        } catch (ReplayDivergence e) {
            throw e;
        } catch (Exception e) {
            if (run.divergence() != null) { // the program failed on (or wrapped) what its replayed call threw
                throw run.divergence();
            }
            throw new RolloutException("the program failed on problem " + problem.id() + ": " + e, e);
        }
        if (run.divergence() != null) { // the program caught it and went on
            throw run.divergence();
        }
        if (run.failure() != null) {
            throw new RolloutException(
                    "the program failed on problem " + problem.id() + ": "
                            + run.failure().getMessage(),
                    run.failure());
        }
        if (run.calls().size() < recorded) {
            throw ReplayDivergence.ended(run.calls().size(), run.calls().size());
        }
        if (!Double.isFinite(reward)) {
            throw new RolloutException("the program returned the reward " + reward + " on problem " + problem.id());
        }
        return new Played(run.calls(), reward);
    }

    private StepOutcome outcome(double reward) {
        return reward >= successAt ? StepOutcome.SOLVED : StepOutcome.OK;
    }

    /** A call of the kept path; the episode's reward is on its last call, so the path's return is the reward. */
    private StepRecord step(ProgramCall c, int call, double reward, boolean last) {
        return new StepRecord(
                c.role(),
                call,
                c.prompt(),
                c.completion().text(),
                last ? new RewardParts(0, reward, 0) : RewardParts.ZERO,
                last ? reward : 0,
                last ? outcome(reward) : StepOutcome.OK,
                "",
                last,
                last && reward >= successAt);
    }
}
