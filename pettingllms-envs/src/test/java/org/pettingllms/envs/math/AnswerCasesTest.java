package org.pettingllms.envs.math;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The answer table (src/test/resources/math/answer-cases.txt): whole model texts as chat models write them, through
 * extraction and equivalence, one case per line; every class of the table has right and wrong pairs.
 */
class AnswerCasesTest {
    record Case(int line, String kind, String text, String reference, boolean expected) {
        @Override
        public String toString() {
            return "line " + line + " [" + kind + "] " + text.replace("\n", "⏎") + " vs " + reference;
        }
    }

    static List<Case> cases() throws IOException {
        try (InputStream in = AnswerCasesTest.class.getResourceAsStream("/math/answer-cases.txt")) {
            List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .toList();
            return IntStream.range(0, lines.size())
                    .filter(i -> !lines.get(i).isBlank() && !lines.get(i).startsWith("#"))
                    .mapToObj(i -> {
                        String[] f = lines.get(i).split(" ⟂ ", -1);
                        assertThat(f)
                                .as("line %d: class ⟂ text ⟂ reference ⟂ verdict", i + 1)
                                .hasSize(4);
                        assertThat(f[3].strip()).as("line %d verdict", i + 1).isIn("true", "false");
                        return new Case(
                                i + 1,
                                f[0].strip(),
                                f[1].replace("⏎", "\n"),
                                f[2].strip(),
                                Boolean.parseBoolean(f[3].strip()));
                    })
                    .toList();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void verdict(Case c) {
        AnswerChecker.Verdict v = AnswerChecker.check(c.text(), c.reference());
        assertThat(v.correct())
                .as(
                        "%s: extracted '%s' (%s), normal forms '%s' / '%s', reason: %s",
                        c, v.extracted(), v.method(), v.candidate(), v.reference(), v.reason())
                .isEqualTo(c.expected());
    }

    @Test
    void theTableHasTwoHundredCasesAndRightAndWrongPairsInEveryClass() throws IOException {
        List<Case> all = cases();
        assertThat(all).hasSizeGreaterThanOrEqualTo(200);
        Map<String, Set<Boolean>> verdicts = all.stream()
                .collect(Collectors.groupingBy(Case::kind, Collectors.mapping(Case::expected, Collectors.toSet())));
        assertThat(verdicts).hasSizeGreaterThanOrEqualTo(15);
        verdicts.forEach((kind, v) -> assertThat(v).as(kind).containsExactlyInAnyOrder(true, false));
    }

    static Stream<Case> stream() throws IOException {
        return cases().stream();
    }
}
