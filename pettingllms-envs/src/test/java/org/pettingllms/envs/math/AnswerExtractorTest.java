package org.pettingllms.envs.math;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AnswerExtractorTest {
    @Test
    void theLastBoxedAnswerWinsAndKeepsNestedBraces() {
        assertThat(AnswerExtractor.extract("first \\boxed{1}, then \\boxed{\\frac{1}{2}} done"))
                .contains("\\frac{1}{2}");
        assertThat(AnswerExtractor.extract("so \\boxed{\\left\\{1, \\sqrt{2}\\right\\}}."))
                .contains("\\left\\{1, \\sqrt{2}\\right\\}");
        assertThat(AnswerExtractor.extract("\\fbox{7}")).contains("7");
    }

    @Test
    void anAnswerLineIsUsedWhenNothingIsBoxed() {
        assertThat(AnswerExtractor.extract("We compute 3 + 4.\nAnswer: 7.")).contains("7");
        assertThat(AnswerExtractor.extract("The final answer is: $x = 2$")).contains("x = 2");
    }

    @Test
    void gsm8kHashesAreUsedBeforeTheLastNumber() {
        assertThat(AnswerExtractor.extract("She makes 9 * 2 = 18 dollars.\n#### 18\nThat took 3 steps"))
                .contains("18");
    }

    @Test
    void theLastNumberIsTheFallbackWithoutThousandsSeparators() {
        assertThat(AnswerExtractor.extract("3 apples and then 1,250 pears")).contains("1250");
        assertThat(AnswerExtractor.extract("it is -2.5 now")).contains("-2.5");
        assertThat(AnswerExtractor.extract("no digits here")).isEmpty();
        assertThat(AnswerExtractor.extract("")).isEmpty();
    }

    @Test
    void anUnclosedBoxFallsBackToTheEarlierOne() {
        assertThat(AnswerExtractor.extract("\\boxed{5} and then \\boxed{6")).contains("5");
    }
}
