package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.train.StepReport;

/** The table's learning curves: windows pooled over steps and seeds, programs counted, absent runs left out. */
class LearningCurveTest {
    private static List<StepReport> run(double[] success, double[] correct, double programs) {
        List<StepReport> out = new ArrayList<>();
        for (int i = 0; i < success.length; i++) {
            Map<String, Double> v = new LinkedHashMap<>(Map.of("success/rate", success[i]));
            if (correct != null) {
                v.put(LearningCurve.CORRECT, correct[i]);
                v.put(LearningCurve.PROGRAMS, programs);
            }
            out.add(new StepReport(i, v));
        }
        return out;
    }

    @Test
    void windowsPoolTheirStepsOverTheSeeds() {
        var l2 = List.of(
                run(new double[] {0.0, 0.25, 0.5, 1.0, 1.0}, new double[] {0, 2, 8, 30, 32}, 32),
                run(new double[] {0.25, 0.25, 0.75, 0.75, 0.5}, new double[] {1, 1, 4, 16, 16}, 64));
        var l1 = List.of(run(new double[] {0.5, 0.5, 0.5, 0.5, 0.5}, null, 0), List.<StepReport>of());
        var w = LearningCurve.of(l1, l2, 2);
        assertThat(w).extracting(LearningCurve.Window::from).containsExactly(0, 2, 4);
        assertThat(w).extracting(LearningCurve.Window::to).containsExactly(1, 3, 4);
        // steps 0-1 of both seeds: (0 + 0.25 + 0.25 + 0.25) / 4
        assertThat(w.get(0).l2()).isCloseTo(0.1875, within(1e-12));
        // programs are pooled by count, not by step: (0 + 2 + 1 + 1) / (32 + 32 + 64 + 64)
        assertThat(w.get(0).correctPrograms()).isCloseTo(4.0 / 192, within(1e-12));
        assertThat(w.get(1).correctPrograms()).isCloseTo(58.0 / 192, within(1e-12));
        assertThat(w.get(2).l2()).isCloseTo(0.75, within(1e-12));
        assertThat(w.get(2).l1()).as("the absent seed-2 run is left out").isCloseTo(0.5, within(1e-12));
    }

    @Test
    void theMarkdownHasAProgramsColumnOnlyWhereCounted() {
        var planning =
                LearningCurve.of(List.of(), List.of(run(new double[] {0.125, 0.875}, new double[] {1, 40}, 64)), 1);
        var code = LearningCurve.of(List.of(), List.of(run(new double[] {0.5, 1.0}, null, 0)), 1);
        Map<String, List<LearningCurve.Window>> curves = new LinkedHashMap<>();
        curves.put("plan-path", planning);
        curves.put("code", code);
        curves.put("math", List.of());
        String md = LearningCurve.markdown(curves, 1, 8);
        assertThat(md)
                .contains("### Learning curve: plan-path")
                .contains("| 1-1 | - | 87.5 | 62.5 |")
                .contains("### Learning curve: code")
                .contains("| 0-0 | - | 50.0 |\n")
                .doesNotContain("Learning curve: math");
        assertThat(LearningCurve.markdown(Map.of("math", List.of()), 1, 8)).isEmpty();
    }
}
