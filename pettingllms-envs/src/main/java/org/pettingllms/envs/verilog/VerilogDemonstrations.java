package org.pettingllms.envs.verilog;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations.Demo;
import org.pettingllms.core.task.Demonstrations.Settings;

/**
 * Warm-up demonstrations of generated circuits, deliberately imperfect. Each answer follows what its role can read
 * with probability {@code 1 - noise}, else one of the problem's other readings (drawn per answer, the designer's and
 * the tester's apart). The designer's first module is the design its specification describes to the letter (the
 * reference, or where it reads a brief that leaves y's level out, the table active high:
 * {@link VerilogItem#briefReading}), except an edge detector's: one of the three kinds of edge drawn in equal shares,
 * whatever its words say, so that which word is which edge is left for reinforcement learning to find from the
 * simulator's reward (the learning check of docs/RESULTS.md, "Verilog"; the tester knows them). The tester writes
 * vectors with the reference's outputs: for a truth table, its listed rows copied in order and then other rows;
 * otherwise at the steps that tell the reference from the wrong designs ({@link VerilogOracle#steps}, the rest drawn;
 * a combinational module's in the order of its inputs). A second turn is demonstrated too ({@code sft --turns 2}), as
 * the task has one whatever the vectors said: the designer, shown that its design passes the tester's vectors, writes
 * the same design again; shown the failures, it writes what its document and the vectors together say
 * ({@link #revision}: the reference for a full specification, whatever the vectors expect; for a brief, of the two
 * levels it allows, the one more of the vectors agree with; for an edge detector, the kind they pass); the episode ends
 * there when it passes the vectors, as the task's does, else the tester answers afresh.
 * With {@code sft --habits} a generated clocked module's designer also has {@link Habits}, kept in both its designs.
 * One trusted simulation per problem gives every reading's outputs on the hidden bench ({@link Judge#readings}); with
 * habits, one more gives them as the designer writes them; no other simulation runs. ({@code adopt} has no meaning here.)
 */
final class VerilogDemonstrations {
    /** An edge detector's first readings: the three kinds of edge (rises, falls, changes). */
    private static final int EDGE_KINDS = 3;

    private VerilogDemonstrations() {}

    static List<Demo> of(
            VerilogTask task, Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        VerilogState state = task.initialState(problem);
        VerilogItem item = state.item();
        List<BigInteger[]> hidden = Stimulus.hidden(item);
        // the designer's habits in this episode (a generated clocked module's, whose designs all read
        // Circuits.RISING_EDGE and Circuits.RESET_HIGH): each kept in both its designs, as a habit is
        Habits habits =
                settings.habits() > 0 && item.sequential() && item.harness().isEmpty()
                        ? new Habits(rng.nextDouble() < settings.habits(), rng.nextDouble() < settings.habits())
                        : Habits.NONE;
        List<List<String>> truth = task.judge().readings(item); // [0]: what the reference prints
        List<String> written = habits.designs(item); // each reading as this designer writes it
        // what each of them prints (with habits, one more trusted simulation)
        List<List<String>> readings =
                habits.equals(Habits.NONE) ? truth : task.judge().trusted(item, written, hidden);
        List<Demo> out = new ArrayList<>();
        int design = 0;
        List<Integer> testSteps = List.of(); // the hidden bench's step of each of the tester's vectors
        for (int turn = 0; turn < Math.min(settings.turns(), task.maxTurns()); turn++) {
            for (String role : task.roles()) {
                var prompt = task.prompt(state, role, turn, style);
                if (role.equals(VerilogTask.DESIGNER)) {
                    // first its document to the letter; shown the vectors pass, the same design again; shown
                    // failures, what its document and the vectors say
                    int right = turn == 0
                            ? Circuits.edgeDetector(item) ? rng.nextInt(EDGE_KINDS) : item.briefReading()
                            : state.mismatches().isEmpty()
                                    ? design
                                    : revision(item, state.tests(), testSteps, readings, design);
                    int reading = reading(item, right, settings.noise(), rng);
                    design = reading;
                    String text = written.get(reading);
                    out.add(new Demo(
                            role,
                            prompt,
                            style == PromptStyle.COMPACT
                                    ? VerilogPrompts.body(text)
                                    : "```verilog\n" + text.strip() + "\n```"));
                    double pass = share(readings.get(design), truth.get(0)); // every demonstrated design runs
                    state = new VerilogState(
                            item,
                            text,
                            "",
                            state.tests(),
                            mismatches(item, state.tests(), testSteps, readings.get(design)),
                            pass,
                            pass);
                    if (!state.tests().isEmpty() && state.mismatches().isEmpty()) {
                        return out; // the second design passes the tester's vectors: the episode ends here
                    }
                    continue;
                }
                int reading = reading(item, 0, settings.noise(), rng);
                List<Vectors.Vector> tests = new ArrayList<>();
                List<Integer> kept = new ArrayList<>();
                List<Integer> steps;
                if (!item.brief().isEmpty()) {
                    steps = tableRows(truth.get(item.briefReading()), task.maxTesterTests());
                } else {
                    steps = new ArrayList<>(VerilogOracle.steps(item, truth, task.maxTesterTests(), rng));
                    if (!item.sequential()) {
                        steps.sort(null); // in the inputs' order
                    }
                }
                for (int step : steps) {
                    for (Vectors.Vector v : VerilogOracle.vectors(item, hidden, List.of(step), truth.get(reading))) {
                        tests.add(v);
                        kept.add(step);
                    }
                }
                testSteps = kept;
                String vectors = Vectors.render(tests, item);
                out.add(new Demo(role, prompt, style == PromptStyle.COMPACT ? vectors : "```\n" + vectors + "```"));
                state = new VerilogState(
                        item,
                        state.design(),
                        "",
                        tests,
                        mismatches(item, tests, testSteps, readings.get(design)),
                        state.hiddenPass(),
                        state.answerPass());
            }
            if (task.roles().size() == 1) {
                break; // one role: one design
            }
        }
        return out;
    }

    /**
     * A truth table's rows as a tester copies them: every row its specification lists (where {@code listed}, the
     * table read active high, is 1), ascending, then the other rows, ascending; at most {@code max}. (A row's step of
     * the exhaustive hidden bench is its number, the first input the most significant bit.)
     */
    private static List<Integer> tableRows(List<String> listed, int max) {
        List<Integer> rows = new ArrayList<>();
        for (String y : List.of("1", "0")) {
            for (int r = 0; r < listed.size() && rows.size() < max; r++) {
                if (y.equals(listed.get(r))) {
                    rows.add(r);
                }
            }
        }
        return rows;
    }

    /**
     * {@code right} (0: the reference, else a 1-based wrong design) with probability {@code 1 - noise}, else one of
     * the other readings.
     */
    private static int reading(VerilogItem item, int right, double noise, SplittableRandom rng) {
        if (item.mutants().isEmpty() || rng.nextDouble() >= noise) {
            return right;
        }
        int other = rng.nextInt(item.mutants().size()); // one of the readings 0..mutants, skipping right
        return other >= right ? other + 1 : other;
    }

    /**
     * The design a designer who trusts its document writes when shown the tester's failures ({@code current}: the
     * design that failed). A specification given in full describes the reference: a vector that disagrees with it is
     * the tester's mistake, so the revision is the reference again (the tester's vectors do not talk it out of a right
     * design). A brief allows two designs, the table active high and active low, which differ at every row: the
     * revision is the one more of the tester's vectors pass (a tester that wrote one row wrong does not turn the
     * design over), the letter's on a tie. An edge detector's designer was never shown which word is which edge (its
     * first design is one of the three kinds, drawn): it takes the kind more of the vectors pass, its own on a tie.
     */
    static int revision(
            VerilogItem item,
            List<Vectors.Vector> tests,
            List<Integer> steps,
            List<List<String>> readings,
            int current) {
        if (Circuits.edgeDetector(item)) {
            int best = current < EDGE_KINDS ? current : 0;
            int most = passing(item, tests, steps, readings.get(best));
            for (int kind = 0; kind < EDGE_KINDS; kind++) {
                int n = passing(item, tests, steps, readings.get(kind));
                if (n > most) {
                    best = kind;
                    most = n;
                }
            }
            return best;
        }
        if (item.brief().isEmpty()) {
            return 0;
        }
        int letter = item.briefReading();
        int other = item.briefAlternative();
        return passing(item, tests, steps, readings.get(other)) > passing(item, tests, steps, readings.get(letter))
                ? other
                : letter;
    }

    /** How many of {@code tests} a design with these outputs on the hidden bench passes. */
    private static int passing(VerilogItem item, List<Vectors.Vector> tests, List<Integer> steps, List<String> design) {
        int n = 0;
        for (int k = 0; k < tests.size(); k++) {
            n += Judge.passes(item, tests.get(k), design.get(steps.get(k))) ? 1 : 0;
        }
        return n;
    }

    private static double share(List<String> design, List<String> reference) {
        int right = 0;
        for (int i = 0; i < reference.size(); i++) {
            right += reference.get(i).equals(design.get(i)) ? 1 : 0;
        }
        return (double) right / reference.size();
    }

    /**
     * A designer's habits in writing a clocked module ({@code sft --habits}): the falling clock edge where the
     * specification says rising, the reset taken as active low where it says "when reset is 1". Each is the same
     * mistake on every clocked problem, which the hidden bench (and most of the tester's vectors) exposes, so a
     * warm-up that shows them in most of its designs leaves reinforcement learning a choice that is right on every
     * problem, as the planning tools' flawed programs do (docs/RESULTS.md, "Verilog").
     */
    record Habits(boolean fallingEdge, boolean activeLowReset) {
        static final Habits NONE = new Habits(false, false);

        private String apply(String design) {
            String out = fallingEdge ? design.replace(Circuits.RISING_EDGE, "always @(negedge clk)") : design;
            return activeLowReset ? out.replace(Circuits.RESET_HIGH, "if (!reset)") : out;
        }

        /** Every reading of the item (the reference, then its wrong designs) as written with these habits. */
        List<String> designs(VerilogItem item) {
            List<String> out = new ArrayList<>();
            out.add(apply(item.reference()));
            item.mutants().forEach(m -> out.add(apply(m)));
            return out;
        }
    }

    /** The design's failures on {@code tests}, read from its outputs at their steps of the hidden bench. */
    private static List<Judge.Mismatch> mismatches(
            VerilogItem item, List<Vectors.Vector> tests, List<Integer> steps, List<String> design) {
        List<Judge.Mismatch> out = new ArrayList<>();
        for (int k = 0; k < tests.size(); k++) {
            String printed = design.get(steps.get(k));
            if (!Judge.passes(item, tests.get(k), printed)) {
                out.add(Judge.mismatch(item, tests.get(k), printed));
            }
        }
        return out;
    }
}
