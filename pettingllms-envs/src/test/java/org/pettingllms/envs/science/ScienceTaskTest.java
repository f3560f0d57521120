package org.pettingllms.envs.science;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.task.Task;
import org.pettingllms.testkit.GreedyEvaluation;
import org.pettingllms.testkit.TaskContract;

/**
 * {@code science-v1}: expressions parse and evaluate as written and nothing else; measurements are noisy and
 * repeatable; proposals are scored on the held-out experiments; an experiment is paid the share of possible laws it
 * rules out; the scripted team finds the law from its prompts; laws split by seed and by form.
 */
class ScienceTaskTest {
    /** The team turns the shipped configs give: the scripted team needs six to find 95% of the laws. */
    static final int TURNS = 6;

    static ScienceTask task(List<String> roles) {
        return new ScienceTask(roles, TURNS);
    }

    static Map<String, Double> x(double m, double v) {
        Map<String, Double> x = new LinkedHashMap<>();
        x.put("m", m);
        x.put("v", v);
        return x;
    }

    @Test
    void expressionsFollowArithmeticAndRefuseWhatIsNotOne() {
        assertThat(Expression.evaluate("3*m*v^2", x(2, 3))).isEqualTo(54.0);
        assertThat(Expression.evaluate("2 + 3*m - v/3", x(2, 3))).isEqualTo(7.0);
        assertThat(Expression.evaluate("-(m+1)^2", x(2, 3))).isEqualTo(-9.0);
        assertThat(Expression.evaluate("2^-1*m", x(2, 3))).isEqualTo(1.0);
        assertThat(Expression.evaluate("2^3^2", x(2, 3))).as("right to left").isEqualTo(512.0);
        assertThat(Expression.evaluate("1.5*m", x(2, 3))).isEqualTo(3.0);
        assertThat(Expression.evaluate("m/(v-3)", x(2, 3))).isInfinite();
        for (String bad : List.of(
                "",
                "3*",
                "q*2",
                "(m",
                "m)",
                "m v",
                "System.exit(0)",
                "1e9",
                "m;v",
                "(".repeat(30) + "m" + ")".repeat(30),
                "m".repeat(300))) {
            assertThatThrownBy(() -> Expression.check(bad, Set.of("m", "v")))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theFamilyHasEveryLawOnceAndHoldsTheHiddenOne() {
        List<Law> f = Law.family(List.of("m", "v", "t"));
        assertThat(f).doesNotHaveDuplicates();
        // linear 27, affine 243, square 27, product 27, ratio 54, square-product 54, sum 243
        assertThat(f).hasSize(675);
        for (Problem p : new SeededProblems("science-v1", 1).problems(Split.TRAIN, 0, 100)) {
            Lab lab = Lab.generate(p.seed(), Split.TRAIN, ScienceTask.NOISE);
            assertThat(Law.family(lab.variables())).as(p.id()).contains(lab.law());
            assertThat(lab.accuracy(lab.law().text().substring(4))).isEqualTo(1.0);
        }
    }

    @Test
    void measurementsAreNoisyRepeatableAndDifferWhenRepeated() {
        Lab lab = Lab.generate(
                new SeededProblems("science-v1", 1)
                        .problems(Split.TRAIN, 3, 1)
                        .get(0)
                        .seed(),
                Split.TRAIN,
                ScienceTask.NOISE);
        Map<String, Double> x = new LinkedHashMap<>();
        lab.variables().forEach(v -> x.put(v, 4.0));
        double truth = lab.law().at(x);
        assertThat(lab.measure(x, 0)).isEqualTo(lab.measure(x, 0));
        assertThat(lab.measure(x, 0)).isNotEqualTo(lab.measure(x, 1));
        assertThat(lab.measure(x, 0)).isCloseTo(truth, within(0.1 * truth));
    }

    @Test
    void rewardsPayInformativeExperimentsAndAccurateLaws() {
        ScienceTask t = task(ScienceTask.TEAM);
        Problem p = t.problems(1).problems(Split.TRAIN, 0, 1).get(0);
        LabState s = t.initialState(p);
        String ones =
                String.join(" ", s.lab().variables().stream().map(v -> v + "=2").toList());
        Transition<LabState> first = t.step(s, ScienceTask.EXPERIMENTER, Completion.ofText(ones));
        assertThat(first.reward().local()).isBetween(0.3, 0.5);
        assertThat(first.next().data()).hasSize(1);
        assertThat(first.next().consistent()).contains(s.lab().law());
        Transition<LabState> again = t.step(first.next(), ScienceTask.EXPERIMENTER, Completion.ofText(ones));
        assertThat(again.reward().local())
                .as("the same experiment again rules out little")
                .isLessThan(first.reward().local() / 4);
        Transition<LabState> bad = t.step(s, ScienceTask.EXPERIMENTER, Completion.ofText("m=100"));
        assertThat(bad.reward().local()).isEqualTo(-0.5);
        assertThat(bad.outcome()).isEqualTo(StepOutcome.UNPARSEABLE);
        Transition<LabState> more = t.step(s, ScienceTask.THEORIST, Completion.ofText("more"));
        assertThat(more.done()).isFalse();
        assertThat(more.reward()).isEqualTo(org.pettingllms.core.data.RewardParts.ZERO);
        Transition<LabState> right =
                t.step(s, ScienceTask.THEORIST, Completion.ofText(s.lab().law().text()));
        assertThat(right.done()).isTrue();
        assertThat(right.success()).isTrue();
        assertThat(right.reward().team()).isEqualTo(1.0);
        assertThat(right.reward().local())
                .as("right before any measurement allows only it: a guess, paid no more than asking for more")
                .isEqualTo(-1.0);
        LabState measured = s;
        for (Map<String, Double> x : ScienceScripted.design(s.lab().variables())) {
            measured = measured.measured(x);
        }
        Transition<LabState> found = t.step(
                measured, ScienceTask.THEORIST, Completion.ofText(s.lab().law().text()));
        assertThat(found.success()).isTrue();
        assertThat(found.reward().local())
                .as("once the measurements determine the law")
                .isZero();
        assertThat(found.summary()).doesNotContain("guess");
        LabState last = s;
        for (int i = 0; i < TURNS - 1; i++) {
            last = t.step(last, ScienceTask.THEORIST, Completion.ofText("more")).next();
        }
        assertThat(last.replies()).isEqualTo(TURNS - 1);
        Transition<LabState> lastGuess = t.step(
                last,
                ScienceTask.THEORIST,
                Completion.ofText("y = 2*" + s.lab().variables().get(0)));
        assertThat(lastGuess.reward().local())
                .as("on the last turn a proposal is no guess")
                .isZero();
        Transition<LabState> wrong = t.step(
                s,
                ScienceTask.THEORIST,
                Completion.ofText("y = 0*" + s.lab().variables().get(0) + " + 1"));
        assertThat(wrong.done()).isTrue();
        assertThat(wrong.success()).isFalse();
        assertThat(wrong.reward().team()).isLessThan(1.0);
        Transition<LabState> garbage = t.step(s, ScienceTask.THEORIST, Completion.ofText("the law is simple"));
        assertThat(garbage.reward().local()).isEqualTo(-1.0);
        assertThat(garbage.done()).isFalse();
    }

    @Test
    void theReadableDesignLeavesOnlyTheHiddenLawAndShowsItsCoefficientsAsDigits() {
        for (Problem p : new SeededProblems("science-v1", 3).problems(Split.TRAIN, 0, 200)) {
            Lab lab = Lab.generate(p.seed(), Split.TRAIN, ScienceTask.NOISE);
            LabState s = LabState.start(lab);
            for (Map<String, Double> x : ScienceScripted.design(lab.variables())) {
                s = s.measured(x);
            }
            List<Law> left = s.consistent();
            assertThat(left).as(p.id()).contains(lab.law());
            assertThat(ScienceScripted.agree(left, lab.variables()))
                    .as(p.id() + " " + left)
                    .isTrue();
            Law law = lab.law();
            double ones = s.data().get(0).y();
            double atTen = s.data().get(1 + lab.variables().indexOf(law.a())).y();
            // y at every variable 1 is k (k + j for the forms with j); the law's first variable at 10 shows k
            // times 10 (100 where squared), plus j
            assertThat(ones).isCloseTo(law.k() + law.j(), within(0.05 * (law.k() + law.j())));
            double times = law.form() == Law.Form.SQUARE || law.form() == Law.Form.SQUARE_PRODUCT ? 100 : 10;
            assertThat(atTen).isCloseTo(times * law.k() + law.j(), within(0.05 * (times * law.k() + law.j())));
        }
    }

    @Test
    void theHastyHabitProposesAfterTwoMeasurementsAndOtherwiseTheTheoristWaitsForTheDesign() {
        ScienceTask t = task(ScienceTask.TEAM);
        List<Problem> ps = t.problems(1).problems(Split.TRAIN, 0, 40);
        int hastyGuesses = 0;
        for (double habits : new double[] {0, 1}) {
            java.util.SplittableRandom rng = new java.util.SplittableRandom(7);
            for (Problem p : ps) {
                int measured = 0;
                var settings = new org.pettingllms.core.task.Demonstrations.Settings(0, 0, false, TURNS, habits);
                for (var d : t.demonstrations(p, PromptStyle.COMPACT, settings, rng)) {
                    if (d.role().equals(ScienceTask.EXPERIMENTER)) {
                        measured++;
                    } else if (d.answer().startsWith("y =")) {
                        if (habits == 0) {
                            // two measurements never determine a law of the family (k a + j and k a + j b read alike
                            // at a = 10; so do k a^2 and k a^2 b): the scripted theorist waits for more
                            assertThat(measured).as(p.id()).isGreaterThan(2);
                        } else {
                            assertThat(measured).as(p.id()).isEqualTo(2);
                            hastyGuesses++;
                        }
                    } else {
                        assertThat(d.answer()).isEqualTo("more");
                    }
                }
            }
        }
        assertThat(hastyGuesses).as("every lab's theorist is hasty at habits 1").isEqualTo(ps.size());
    }

    @Test
    void theScriptedTeamFindsTheLawFromItsPromptsAndAUselessOneDoesNot() {
        for (List<String> roles : List.of(ScienceTask.TEAM, List.of(ScienceTask.THEORIST))) {
            ScienceTask t = task(roles);
            List<Problem> ps = t.problems(1).problems(Split.TEST, 0, 60);
            for (PromptStyle style : List.of(PromptStyle.COMPACT, PromptStyle.CHAT)) {
                assertThat(GreedyEvaluation.successRate(t, t.scripted(1, List.of()), ps, style, 64))
                        .as(roles + " " + style)
                        .isGreaterThanOrEqualTo(0.95);
            }
            assertThat(GreedyEvaluation.successRate(t, t.scripted(0, List.of()), ps, PromptStyle.COMPACT, 64))
                    .as(roles + " useless")
                    .isLessThan(0.05);
        }
    }

    @Test
    void testLabsHaveTheHeldOutFormsAndNoOtherSplitHasOne() {
        for (Split split : Split.values()) {
            for (Problem p : new SeededProblems("science-v1", 2).problems(split, 0, 100)) {
                Lab lab = Lab.generate(p.seed(), split, ScienceTask.NOISE);
                assertThat(Lab.heldOutCombination(
                                lab.law().form(),
                                lab.variables().size(),
                                lab.variables().indexOf(lab.law().a())))
                        .as(p.id())
                        .isEqualTo(split == Split.TEST);
            }
        }
    }

    @Nested
    class TeamContract extends TaskContract<LabState> {
        @Override
        protected Task<LabState> task() {
            return ScienceTaskTest.task(ScienceTask.TEAM);
        }

        @Override
        protected List<Problem> problems() {
            return ScienceTaskTest.task(ScienceTask.TEAM).problems(1).problems(Split.TRAIN, 0, 12);
        }

        @Override
        protected TextPolicy policy() {
            ScienceTask t = ScienceTaskTest.task(ScienceTask.TEAM);
            return halfRight(t.scripted(1, List.of()), t.scripted(0, List.of()));
        }
    }

    @Nested
    class TheoristAloneContract extends TaskContract<LabState> {
        @Override
        protected Task<LabState> task() {
            return ScienceTaskTest.task(List.of(ScienceTask.THEORIST));
        }

        @Override
        protected List<Problem> problems() {
            return ScienceTaskTest.task(List.of(ScienceTask.THEORIST))
                    .problems(1)
                    .problems(Split.VALIDATION, 0, 12);
        }

        @Override
        protected TextPolicy policy() {
            ScienceTask t = ScienceTaskTest.task(List.of(ScienceTask.THEORIST));
            return halfRight(t.scripted(1, List.of()), t.scripted(0, List.of()));
        }
    }
}
