package org.pettingllms.envs.math;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The equivalence table: candidate ⟂ reference ⟂ expected verdict, one case per line. */
class AnswerCheckerTest {
    static final String TABLE = """
            42 ⟂ 42 ⟂ true
            42 ⟂ 43 ⟂ false
            042 ⟂ 42 ⟂ true
            -7 ⟂ -7 ⟂ true
            -7 ⟂ 7 ⟂ false
            +5 ⟂ 5 ⟂ true
            1,000 ⟂ 1000 ⟂ true
            1,234,567 ⟂ 1234567 ⟂ true
            1{,}000 ⟂ 1000 ⟂ true
            12,5 ⟂ 125 ⟂ false
            1000000000000000001 ⟂ 1000000000000000000 ⟂ false
            27 ⟂ 27.0 ⟂ true
            27.00 ⟂ 27 ⟂ true
            0.5 ⟂ 1/2 ⟂ true
            .5 ⟂ 0.5 ⟂ true
            1/2 ⟂ 2 ⟂ false
            2/1 ⟂ 1/2 ⟂ false
            \\frac{1}{2} ⟂ 0.5 ⟂ true
            \\dfrac{3}{4} ⟂ 0.75 ⟂ true
            \\tfrac{3}{4} ⟂ \\frac{3}{4} ⟂ true
            \\frac12 ⟂ \\frac{1}{2} ⟂ true
            -\\frac{1}{3} ⟂ \\frac{-1}{3} ⟂ true
            \\frac{2}{4} ⟂ \\frac{1}{2} ⟂ true
            \\frac{1}{3} ⟂ 0.33 ⟂ false
            \\frac{1}{3} ⟂ 0.333333333 ⟂ true
            \\frac{1}{2} ⟂ \\frac{2}{1} ⟂ false
            0.1 ⟂ 0.10 ⟂ true
            0.1 ⟂ 0.11 ⟂ false
            1.6 ⟂ 1.60 ⟂ true
            3.14 ⟂ \\pi ⟂ false
            3.14159265 ⟂ \\pi ⟂ true
            \\pi ⟂ \\pi ⟂ true
            2\\pi ⟂ 2 \\pi ⟂ true
            \\frac{\\pi}{2} ⟂ \\pi/2 ⟂ true
            \\frac{\\pi}{2} ⟂ \\frac{\\pi}{3} ⟂ false
            \\frac{3\\pi}{4} ⟂ \\frac{3}{4}\\pi ⟂ true
            \\sqrt{8} ⟂ 2\\sqrt{2} ⟂ true
            \\sqrt{2} ⟂ 2 ⟂ false
            \\sqrt{2} ⟂ 1.41421356 ⟂ true
            \\sqrt{12} ⟂ 3\\sqrt{2} ⟂ false
            \\frac{\\sqrt{3}}{2} ⟂ \\frac{1}{2}\\sqrt{3} ⟂ true
            \\frac{1}{\\sqrt{2}} ⟂ \\frac{\\sqrt{2}}{2} ⟂ true
            \\sqrt[3]{27} ⟂ 3 ⟂ true
            \\sqrt2 ⟂ \\sqrt{2} ⟂ true
            2^{10} ⟂ 1024 ⟂ true
            2^{1009} ⟂ 2^{1009} ⟂ true
            2^{1009} ⟂ 2^{1008} ⟂ false
            4^{3} ⟂ 2^{6} ⟂ true
            10^{-3} ⟂ 0.001 ⟂ true
            e^{2} ⟂ e^2 ⟂ true
            4.5e33 ⟂ 4.5 \\times 10^{33} ⟂ true
            4.5 \\times 10^{33} ⟂ 4.5e33 ⟂ true
            6.02 \\times 10^{23} ⟂ 6.02e23 ⟂ true
            6.02 \\times 10^{23} ⟂ 6.02e22 ⟂ false
            1.5e3 ⟂ 1500 ⟂ true
            50\\% ⟂ 50 ⟂ true
            50\\% ⟂ 0.5 ⟂ true
            50% ⟂ 50 ⟂ true
            0.5 ⟂ 50\\% ⟂ true
            25\\% ⟂ 50 ⟂ false
            30^\\circ ⟂ 30 ⟂ true
            30^{\\circ} ⟂ 30 ⟂ true
            30° ⟂ 30 ⟂ true
            45^\\circ ⟂ 30 ⟂ false
            41.8^{\\circ} ⟂ 41.8 ⟂ true
            5 \\text{ cm} ⟂ 5 ⟂ true
            5 \\mathrm{~cm} ⟂ 5 ⟂ true
            5\\text{ cm}^2 ⟂ 5 ⟂ true
            10 dollars ⟂ 10 ⟂ true
            \\$18 ⟂ 18 ⟂ true
            \\$18.00 ⟂ 18 ⟂ true
            18 dollars ⟂ 19 ⟂ false
            \\text{5} ⟂ 5 ⟂ true
            \\textbf{(113)} ⟂ 113 ⟂ true
            $42$ ⟂ 42 ⟂ true
            \\(42\\) ⟂ 42 ⟂ true
            \\[ 42 \\] ⟂ 42 ⟂ true
            42. ⟂ 42 ⟂ true
            x = 3 ⟂ 3 ⟂ true
            x=3 ⟂ 3 ⟂ true
            3 ⟂ x = 3 ⟂ true
            x = 4 ⟂ 3 ⟂ false
            y = 2x + 1 ⟂ 2x+1 ⟂ true
            y = 2x + 1 ⟂ y = 1 + 2x ⟂ true
            y = 2x + 1 ⟂ y = 2x - 1 ⟂ false
            x_1 = 5 ⟂ 5 ⟂ true
            k \\in \\{1, 2\\} ⟂ \\{1,2\\} ⟂ true
            x^2+2x+1 ⟂ (x+1)^2 ⟂ true
            x^2+2x+1 ⟂ (x+1)^3 ⟂ false
            x^2 ⟂ x^3 ⟂ false
            \\frac{1}{2n+2} ⟂ \\frac{1}{2(n+1)} ⟂ true
            \\frac{1}{2n+2} ⟂ \\frac{1}{2n+1} ⟂ false
            \\frac{n(n+1)}{2} ⟂ \\frac{n^2+n}{2} ⟂ true
            2^{n}-1 ⟂ 2^n - 1 ⟂ true
            2^{n}-1 ⟂ 2^{n-1} ⟂ false
            a+b ⟂ b+a ⟂ true
            a-b ⟂ b-a ⟂ false
            \\sin(\\pi/6) ⟂ \\frac{1}{2} ⟂ true
            \\cos(0) ⟂ 1 ⟂ true
            \\log_{2} 8 ⟂ 3 ⟂ true
            \\infty ⟂ \\infty ⟂ true
            -\\infty ⟂ \\infty ⟂ false
            \\left( 1, 2 \\right) ⟂ (1,2) ⟂ true
            (1,2) ⟂ (1, 2) ⟂ true
            (1,2) ⟂ (2,1) ⟂ false
            (1,2) ⟂ [1,2] ⟂ false
            [1,2] ⟂ [1,2] ⟂ true
            (1,2] ⟂ (1,2] ⟂ true
            (1,2] ⟂ (1,2) ⟂ false
            [0, \\infty) ⟂ [0,\\infty) ⟂ true
            (-\\infty, 3) ⟂ (-\\infty,3) ⟂ true
            (-\\infty, 3) ⟂ (-\\infty,3] ⟂ false
            (\\frac{1}{2}, 3) ⟂ (0.5, 3) ⟂ true
            (1, \\sqrt{4}) ⟂ (1, 2) ⟂ true
            (1,2,3) ⟂ (1,2) ⟂ false
            (-\\infty,0) \\cup (1,\\infty) ⟂ (1,\\infty) \\cup (-\\infty,0) ⟂ true
            (-\\infty,0) \\cup (1,\\infty) ⟂ (-\\infty,0] \\cup (1,\\infty) ⟂ false
            \\{1,2,3\\} ⟂ \\{3,2,1\\} ⟂ true
            \\{1,2,3\\} ⟂ \\{1,2\\} ⟂ false
            \\{1,2,3\\} ⟂ \\{1,2,4\\} ⟂ false
            \\{\\frac{1}{2}, 2\\} ⟂ \\{2, 0.5\\} ⟂ true
            1, 2 ⟂ 2, 1 ⟂ true
            1, 2 ⟂ \\{1, 2\\} ⟂ true
            1, 2 ⟂ 1, 3 ⟂ false
            3, 5, 7 ⟂ 7, 5, 3 ⟂ true
            -1, 1 ⟂ 1, -1 ⟂ true
            x = 1, y = 2 ⟂ 1, 2 ⟂ true
            \\sqrt{2}, -\\sqrt{2} ⟂ -\\sqrt{2}, \\sqrt{2} ⟂ true
            (1,2) ⟂ 1, 2 ⟂ true
            (2,1) ⟂ 1, 2 ⟂ false
            [1,2] ⟂ 1, 2 ⟂ false
            (1,2) ⟂ 3 ⟂ false
            5 ⟂ \\{5\\} ⟂ true
            Yes ⟂ yes ⟂ true
            \\text{Yes} ⟂ yes ⟂ true
            no ⟂ yes ⟂ false
            \\text{(C)} ⟂ C ⟂ true
            (B) ⟂ C ⟂ false
            Monday ⟂ monday ⟂ true
            \\text{odd} ⟂ \\text{even} ⟂ false
            5 ⟂ five ⟂ false
            16 ⟂ \\text{sixteen} ⟂ false
            \\frac{9}{2} ⟂ 4.5 ⟂ true
            \\frac{9}{2} ⟂ 4\\frac{1}{2} ⟂ false
            1.2 \\times 10^{-3} ⟂ 0.0012 ⟂ true
            -0.0 ⟂ 0 ⟂ true
            0 ⟂ 0.000001 ⟂ false
            100 ⟂ 99.99999999 ⟂ true
            100 ⟂ 99.9 ⟂ false
            \\frac{10}{3} ⟂ 3.3333333 ⟂ true
            \\frac{22}{7} ⟂ \\pi ⟂ false
            \\binom{5}{2} ⟂ 10 ⟂ true
            3! ⟂ 6 ⟂ true
            \\frac{\\sqrt{5}-1}{2} ⟂ \\frac{-1+\\sqrt{5}}{2} ⟂ true
            \\frac{\\sqrt{5}-1}{2} ⟂ \\frac{\\sqrt{5}+1}{2} ⟂ false
            2\\sqrt{3}+1 ⟂ 1+\\sqrt{12} ⟂ true
            \\sqrt{3}/3 ⟂ \\frac{1}{\\sqrt{3}} ⟂ true
            i^2 ⟂ -1 ⟂ true
            \\left\\{ 2 \\right\\} ⟂ 2 ⟂ true
            ⟂ 42 ⟂ false
            42 ⟂  ⟂ false
            abc ⟂ 42 ⟂ false
            """;

    static Stream<Arguments> table() {
        return TABLE.lines().map(line -> {
            String[] f = line.split("⟂", -1);
            return Arguments.of(f[0].strip(), f[1].strip(), Boolean.parseBoolean(f[2].strip()));
        });
    }

    @ParameterizedTest(name = "[{index}] {0} vs {1} -> {2}")
    @MethodSource("table")
    void equivalence(String candidate, String reference, boolean expected) {
        assertThat(AnswerChecker.equivalent(candidate, reference))
                .as("%s vs %s", candidate, reference)
                .isEqualTo(expected);
    }

    @Test
    void theTableIsLargeEnough() {
        assertThat(table().count()).isGreaterThanOrEqualTo(150);
    }
}
