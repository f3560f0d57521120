package org.pettingllms.envs.math;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.envs.math.MathRows.MathItem;
import org.pettingllms.testkit.SharedFiles;

/** The shared math benchmarks load in their own layouts, and every reference answer is usable. */
class MathDatasetsTest {
    static Path math(String file) {
        return SharedFiles.shared().resolve("datasets/math").resolve(file);
    }

    @Test
    void everyBenchmarkLoadsWithItsReferenceAnswers() {
        assertThat(MathRows.load(math("aime24.test.jsonl"))).hasSize(30);
        assertThat(MathRows.load(math("amc23.test.jsonl"))).hasSize(40);
        assertThat(MathRows.load(math("gsm8k.test.jsonl"))).hasSize(1319);
        assertThat(MathRows.load(math("minerva_math.test.jsonl"))).hasSize(272);
        assertThat(MathRows.load(math("olympiadbench.test.jsonl"))).hasSize(675);
    }

    @Test
    void gsm8kAnswersAreTheHashedNumbers() {
        List<MathItem> gsm = MathRows.load(math("gsm8k.test.jsonl"));
        assertThat(gsm.get(0).answer()).isEqualTo("18");
        assertThat(gsm.get(0).question()).startsWith("Janet");
        assertThat(gsm).allSatisfy(i -> assertThat(i.answer()).matches("-?[\\d,]+(\\.\\d+)?"));
    }

    @Test
    void worksAndListsAreReducedToTheFinalAnswer() {
        assertThat(MathRows.load(math("minerva_math.test.jsonl")).get(0).answer())
                .isEqualTo("1.6");
        List<MathItem> ob = MathRows.load(math("olympiadbench.test.jsonl"));
        assertThat(ob.get(0).answer()).isEqualTo("2");
        assertThat(ob.get(1).answer()).isEqualTo("\\frac{1}{2 n+2}");
        assertThat(MathRows.load(math("amc23.test.jsonl")).get(0).answer()).isEqualTo("27.0");
    }

    @Tag("heavy")
    @Test
    void theReferenceOfEveryProblemIsEquivalentToItself() {
        for (String f : List.of(
                "aime24.test.jsonl", "amc23.test.jsonl", "minerva_math.test.jsonl", "olympiadbench.test.jsonl")) {
            for (MathItem i : MathRows.load(math(f))) {
                assertThat(AnswerChecker.equivalent(i.answer(), i.answer()))
                        .as("%s %s: %s", f, i.id(), i.answer())
                        .isTrue();
                assertThat(AnswerChecker.equivalent(MathOracle.wrongAnswer(i.answer()), i.answer()))
                        .isFalse();
            }
        }
    }
}
