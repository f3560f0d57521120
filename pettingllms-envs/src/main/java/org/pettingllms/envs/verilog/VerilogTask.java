package org.pettingllms.envs.verilog;

import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.envs.data.DatasetTask;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.sandbox.CodeBlocks;

/**
 * {@code verilog-v1} (ENVIRONMENTS.md): a {@code designer} writes the module {@code TopModule} from a specification in
 * words, a {@code tester} writes test vectors from the same specification; the design is simulated on the tester's
 * vectors and the failures go into both roles' next prompts, so the designer may revise. Every design is simulated by
 * Icarus Verilog in the sandbox ({@link Icarus}, {@link Judge}).
 *
 * <p>Rewards. Designer, local and team: 1 when the design is equivalent to the reference on the hidden bench
 * (exhaustive for combinational modules of up to 10 input bits, random sequences from a reset for sequential ones),
 * else 0; the share of the bench's steps right is only reported. Why not the share: a design that is wrong on a few
 * steps would be paid nearly in full, so the best blind guess beats reading the words (an edge detector that fires
 * on every change is right on all steps but the other edge's; after normalising by a group's deviation, a group of
 * wrong designs would be pushed toward that guess); success alone is what the paper's code task and CodeV-R1 pay.
 * Tester, local: half the share of its vectors the reference passes (a vector the reference fails is a wrong
 * expectation) and half the share of the item's wrong designs a vector the reference passes catches (only the former
 * for a dataset row, which has no wrong designs); team: the team's answer's success. The team's answer is the latest
 * design that compiled and ran: a revision the simulator refuses scores 0 for its own turn but does not replace the
 * design before it ({@link VerilogState#answerPass}). The tester's answer never ends the episode: the designer reads
 * its verdict (failures, or {@code pass N}) and answers again, so that a revision which keeps a design is trained
 * beside one which changes it; the episode ends when a design from the second turn on passes all of the tester's
 * vectors, or after T turns.
 *
 * <p>With roles {@code [designer]}, the single agent, given the team's model calls and the feedback it can have
 * alone: {@link #CALLS_PER_TURN} designs for each of the team's T turns; a design the simulator refuses is shown with
 * its error, as the team's designer is, and revised; the episode ends at the first design that compiles and runs
 * (without a tester nothing more is shown) or when the calls run out. Each design is rewarded as the team's
 * designer's; the answer is the latest design that ran.
 */
public final class VerilogTask extends DatasetTask<VerilogState, VerilogItem> implements Demonstrations {
    public static final String DESIGNER = "designer";
    public static final String TESTER = "tester";
    /** Model calls the team makes per turn (designer, tester): the designs the designer alone gets per turn. */
    public static final int CALLS_PER_TURN = 2;

    private static final Pattern MODULE = Pattern.compile("\\bmodule\\s+" + VerilogItem.TOP + "\\b");

    private final Judge judge;
    private final int maxTesterTests;

    public VerilogTask(List<String> roles, int maxTurns, Items<VerilogItem> items, Icarus icarus, int maxTesterTests) {
        super(
                roles,
                List.of(DESIGNER, TESTER),
                DESIGNER,
                teamCalls(roles, maxTurns, CALLS_PER_TURN),
                items,
                VerilogState::start);
        this.judge = new Judge(icarus);
        this.maxTesterTests = maxTesterTests;
    }

    @Override
    public String id() {
        return "verilog-v1";
    }

    @Override
    protected Prompt compactPrompt(VerilogState state, String role, int turn) {
        return VerilogPrompts.compact(id(), state, role);
    }

    @Override
    protected Prompt chatPrompt(VerilogState state, String role, int turn) {
        return VerilogPrompts.chat(state, role);
    }

    @Override
    public Transition<VerilogState> step(VerilogState state, String role, Completion completion) {
        return checkRole(role).equals(DESIGNER)
                ? designerStep(state, completion.text())
                : testerStep(state, completion.text());
    }

    /**
     * The design in an answer: its last fenced block, else the whole answer; a body that does not declare
     * {@code TopModule} (a compact answer) is put inside the item's header.
     */
    static String design(String text, VerilogItem item) {
        String code = CodeBlocks.lastFenced(text)
                .orElse(text.contains("```") ? "" : text)
                .strip();
        if (code.isEmpty() || MODULE.matcher(code).find()) {
            return code;
        }
        return item.header() + "\n" + code + "\nendmodule\n";
    }

    private Transition<VerilogState> designerStep(VerilogState s, String text) {
        String design = design(text, s.item());
        if (design.isEmpty()) {
            return new Transition<>(s, RewardParts.ZERO, false, s.success(), StepOutcome.UNPARSEABLE, "no design");
        }
        Judge.DesignVerdict v = judge.design(s.item(), design, s.tests());
        double answer = v.runs() || s.design() == null ? v.hiddenPass() : s.answerPass();
        VerilogState next =
                new VerilogState(s.item(), design, v.problem(), s.tests(), v.mismatches(), v.hiddenPass(), answer);
        boolean passesTester =
                v.runs() && !s.tests().isEmpty() && v.mismatches().isEmpty();
        boolean done = alone() ? v.runs() : passesTester; // alone, a design that runs is its answer
        double equivalent = v.equivalent() ? 1 : 0; // this turn's design, whatever the team keeps
        return new Transition<>(
                next,
                new RewardParts(equivalent, equivalent, 0),
                done,
                next.success(),
                next.success() && done ? StepOutcome.SOLVED : v.runs() ? StepOutcome.OK : StepOutcome.INVALID_ACTION,
                v.runs()
                        ? "hidden bench %.0f%%, tester vectors %s"
                                .formatted(
                                        100 * v.hiddenPass(),
                                        s.tests().isEmpty()
                                                ? "none"
                                                : (s.tests().size()
                                                                - v.mismatches().size()) + "/"
                                                        + s.tests().size())
                        : v.problem()
                                + (s.design() != null && s.problem().isEmpty()
                                        ? " (the team keeps its previous design)"
                                        : ""));
    }

    private Transition<VerilogState> testerStep(VerilogState s, String text) {
        List<Vectors.Vector> tests = Vectors.parse(text, s.item(), maxTesterTests);
        if (tests.isEmpty()) {
            VerilogState next = new VerilogState(
                    s.item(), s.design(), s.problem(), List.of(), List.of(), s.hiddenPass(), s.answerPass());
            return new Transition<>(
                    next,
                    new RewardParts(0, s.success() ? 1 : 0, 0),
                    false,
                    s.success(),
                    StepOutcome.UNPARSEABLE,
                    "no test vectors");
        }
        Judge.BenchVerdict b = judge.bench(s.item(), tests);
        double local = s.item().mutants().isEmpty() ? b.referencePass() : (b.referencePass() + b.caught()) / 2;
        boolean runs = s.design() != null && s.problem().isEmpty();
        String problem = s.problem();
        List<Judge.Mismatch> mismatches = List.of();
        if (runs) { // the design may fail on inputs the hidden bench never gave it
            Judge.DesignVerdict v = judge.testsOnly(s.item(), s.design(), tests);
            mismatches = v.mismatches();
            problem = v.problem();
        }
        VerilogState next =
                new VerilogState(s.item(), s.design(), problem, tests, mismatches, s.hiddenPass(), s.answerPass());
        // The tester never ends the episode: the designer reads its verdict, failures or "pass N", and answers once
        // more (the episode ends when that answer passes the vectors, or after T turns).
        return new Transition<>(
                next,
                new RewardParts(local, s.success() ? 1 : 0, 0),
                false,
                s.success(),
                StepOutcome.OK,
                "%d vectors, reference passes %.0f%%, wrong designs caught %.0f%%, design fails %d"
                        .formatted(tests.size(), 100 * b.referencePass(), 100 * b.caught(), mismatches.size()));
    }

    /**
     * Warm-up demonstrations: for generated circuits {@link VerilogDemonstrations} (every reading's outputs from one
     * simulation a problem), for dataset rows the oracle's answers at skill {@code 1 - noise}, turn by turn.
     */
    @Override
    public List<Demo> demonstrations(Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        if (items() instanceof Items.Generated<VerilogItem>) {
            return VerilogDemonstrations.of(this, problem, style, settings, rng);
        }
        return oracleDemonstrations(problem, style, settings, rng);
    }

    /** Judges trusted designs for the oracle. */
    Judge judge() {
        return judge;
    }

    int maxTesterTests() {
        return maxTesterTests;
    }

    @Override
    protected TextPolicy oracle(List<VerilogItem> items, boolean wrong) {
        return new VerilogOracle(items, wrong, judge, maxTesterTests);
    }
}
