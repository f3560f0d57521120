package org.pettingllms.envs.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.List;
import org.junit.jupiter.api.Test;

/** SQuAD's normalising, exact match and word F1, on cases worked by hand. */
class AnswerMatchTest {
    @Test
    void normalizesAsSquadDoes() {
        assertThat(AnswerMatch.normalize("The  Eiffel-Tower!")).isEqualTo("eiffeltower");
        assertThat(AnswerMatch.normalize("  an Apple a day ")).isEqualTo("apple day");
        assertThat(AnswerMatch.normalize("Théâtre")).isEqualTo("théâtre"); // only ASCII punctuation goes
        assertThat(AnswerMatch.normalize("")).isEqualTo("");
        assertThat(AnswerMatch.normalize("theory")).isEqualTo("theory"); // whole words only
    }

    @Test
    void exactMatchIsAgainstAnyGoldAnswer() {
        assertThat(AnswerMatch.exact("the Ashford.", List.of("Ashford"))).isTrue();
        assertThat(AnswerMatch.exact("Ashford town", List.of("Ashford"))).isFalse();
        assertThat(AnswerMatch.exact("NYC", List.of("New York", "NYC"))).isTrue();
        assertThat(AnswerMatch.exact("", List.of("x"))).isFalse();
    }

    @Test
    void wordF1IsTheBestOverGoldAnswers() {
        // "kavio labs inc" against "kavio labs": 2 common, P 2/3, R 1 -> 0.8
        assertThat(AnswerMatch.f1("Kavio Labs Inc.", List.of("Kavio Labs"))).isCloseTo(0.8, offset(1e-12));
        assertThat(AnswerMatch.f1("Olsen", List.of("Mira Olsen", "Olsen"))).isEqualTo(1.0);
        assertThat(AnswerMatch.f1("no", List.of("no"))).isEqualTo(1.0);
        assertThat(AnswerMatch.f1("no way", List.of("no"))).isEqualTo(0.0); // a yes/no gold: exact or nothing
        assertThat(AnswerMatch.f1("Ashford town", List.of("Ashford"))).isCloseTo(2 * 0.5 / 1.5, offset(1e-12));
        assertThat(AnswerMatch.f1("yes", List.of("yes indeed"))).isEqualTo(0.0); // HotpotQA's yes/no rule
        assertThat(AnswerMatch.f1("", List.of("x"))).isEqualTo(0.0);
    }
}
