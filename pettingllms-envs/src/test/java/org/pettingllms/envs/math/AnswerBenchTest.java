package org.pettingllms.envs.math;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code bench answers}: a row per kind of answer, each kind's generated pairs judged right (else it throws). */
class AnswerBenchTest {
    @Test
    void everyKindHasARowAndItsPairsAreJudgedRight() {
        Map<String, Object> rows = AnswerBench.run(0.05);
        assertThat(rows)
                .containsKeys(
                        "plain_number",
                        "plain_fraction",
                        "thousands",
                        "closing_sentence",
                        "chain",
                        "rounded_decimal",
                        "linear_relation",
                        "set_as_tuple",
                        "percent_in_text");
        rows.values()
                .forEach(r -> assertThat(((Map<?, ?>) r).containsKey("checks_per_second"))
                        .isTrue());
    }
}
