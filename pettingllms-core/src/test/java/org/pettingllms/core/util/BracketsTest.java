package org.pettingllms.core.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The one bracket scanner: depth, closing brackets, top-level separators, and strings that hide both. */
class BracketsTest {

    @Test
    void closingFindsTheBracketAtTheSameDepth() {
        assertThat(Brackets.ALL.closing("f(a[1], {b}) + c", 1)).isEqualTo(11);
        assertThat(Brackets.ALL.closing("(1)+(2)", 0)).isEqualTo(2);
        assertThat(Brackets.ALL.closing("(1)+(2)", 4)).isEqualTo(6);
        assertThat(Brackets.ALL.closing("((1)", 0)).isEqualTo(-1);
        assertThatThrownBy(() -> Brackets.ALL.closing("a(b)", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no opening bracket at 0");
    }

    @Test
    void bracesAloneLeaveABracketInsideAGroupAsText() {
        String s = "\\text{1)} x"; // a list label's "1)"
        assertThat(Brackets.BRACES.closing(s, 5)).isEqualTo(8);
        assertThat(Brackets.ALL.closing(s, 5))
                .as("with every bracket the ) closes the group")
                .isEqualTo(7);
    }

    @Test
    void closingOpenBeforeStartsOneBracketDeep() {
        assertThat(Brackets.ALL.closingOpenBefore("a, [b]), c", 0)).isEqualTo(6);
        assertThat(Brackets.ALL.closingOpenBefore("a, b", 0)).isEqualTo(-1);
    }

    @Test
    void splitCutsAtTopLevelSeparatorsOnly() {
        assertThat(Brackets.ALL.split("(1,2), [3,4],{5,6}", ",")).containsExactly("(1,2)", " [3,4]", "{5,6}");
        assertThat(Brackets.ALL.split("x = \\frac{a=b}{2} = 3", "=")).containsExactly("x ", " \\frac{a=b}{2} ", " 3");
        assertThat(Brackets.ALL.split("1 \\pm \\sqrt{2}", "\\pm")).containsExactly("1 ", " \\sqrt{2}");
        assertThat(Brackets.ALL.split("a==b", "=")).containsExactly("a", "", "b");
        assertThat(Brackets.ALL.split("", ",")).containsExactly("");
        assertThat(Brackets.ALL.split("f(a,b)", ",")).containsExactly("f(a,b)");
        assertThat(Brackets.ALL.split("a), b", ","))
                .as("after an unmatched close nothing is top level")
                .hasSize(1);
    }

    @Test
    void withoutStringsAQuoteIsAPrime() {
        assertThat(Brackets.ALL.split("f'(x), g'(x)", ",")).containsExactly("f'(x)", " g'(x)");
        assertThat(Brackets.CODE.split("f'(x), g'(x)", ","))
                .as("in code the primes open a string")
                .hasSize(1);
    }

    @Test
    void stringsHideBracketsAndSeparators() {
        assertThat(Brackets.CODE.split("f(\"a,)\", 'b'), c", ",")).containsExactly("f(\"a,)\", 'b')", " c");
        assertThat(Brackets.CODE.indexOfTopLevel("'(', x", ",", 0)).isEqualTo(3);
        assertThat(Brackets.CODE.closing("f(')', \"(\")", 1)).isEqualTo(10);
    }

    @Test
    void aBackslashEscapesOneCharacterInsideAString() {
        String escapedQuote = "\"it\\\"s, (\", x"; // "it\"s, (", x
        assertThat(Brackets.CODE.indexOfTopLevel(escapedQuote, ",", 0)).isEqualTo(10);
        String escapedBackslash = "\"a\\\\\", (b)"; // "a\\", (b): the string ends at its second quote
        assertThat(Brackets.CODE.indexOfTopLevel(escapedBackslash, ",", 0)).isEqualTo(5);
        assertThat(Brackets.ALL.indexOfTopLevel("a\\,b, c", ",", 0))
                .as("outside strings a backslash is text")
                .isEqualTo(2);
    }

    @Test
    void depthsCountOpenBracketsBeforeEachCharacter() {
        assertThat(Brackets.ALL.depths("a(b[c]d)e")).containsExactly(0, 0, 1, 1, 2, 2, 1, 1, 0);
        assertThat(Brackets.CODE.depths("x'(,'(y)")).containsExactly(0, -1, -1, -1, -1, 0, 1, 1);
    }

    @Test
    void emptyOrUnevenBracketSetsAreRefused() {
        assertThatThrownBy(() -> new Brackets("(", "", false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Brackets.ALL.split("a", "")).isInstanceOf(IllegalArgumentException.class);
    }
}
