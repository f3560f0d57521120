package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.pettingllms.envs.planning.FlawCombinations;
import org.pettingllms.envs.planning.ProgramPlace;
import org.pettingllms.envs.planning.ToolProgram;

class FlawCombinationsTest {
    enum Flaw {
        LOOP,
        WALLS
    }

    static ToolProgram<String> program(Set<Flaw> flaws) {
        String source =
                (flaws.contains(Flaw.LOOP) ? "short" : "loop") + "/" + (flaws.contains(Flaw.WALLS) ? "none" : "walls");
        return new ToolProgram<>(FlawCombinations.name("p", flaws), source, flaws.isEmpty(), 0.9, b -> source);
    }

    @Test
    void everyNonEmptySetOfWrongPlacesOnceInEqualSharesAndNeverTheCorrectProgram() {
        List<ToolProgram<String>> all = FlawCombinations.of(Flaw.class, FlawCombinationsTest::program);
        assertThat(all).extracting(ToolProgram::source).containsExactly("short/walls", "loop/none", "short/none");
        assertThat(all).extracting(ToolProgram::name).containsExactly("p-loop", "p-walls", "p-loop+walls");
        assertThat(all).allSatisfy(p -> {
            assertThat(p.correct()).isFalse();
            assertThat(p.weight()).isEqualTo(1.0 / 3);
        });
    }

    @Test
    void aProgramMarkedCorrectDespiteAWrongPlaceIsRefused() {
        assertThatThrownBy(() -> FlawCombinations.of(
                        Flaw.class, f -> new ToolProgram<String>("x" + f, "s" + f, true, 0, b -> "")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("marked correct");
    }

    @Test
    void eachPlaceIsReadRightOrWrongInEveryCombinationAndNeitherInOtherText() {
        List<ProgramPlace> places = FlawCombinations.places(Flaw.class, FlawCombinationsTest::program);
        assertThat(places).extracting(ProgramPlace::name).containsExactly("loop", "walls");
        ProgramPlace loop = places.get(0);
        assertThat(loop.wrongIn("short/none")).contains(true);
        assertThat(loop.wrongIn("loop/none")).contains(false);
        assertThat(loop.wrongIn("lop/none")).isEmpty();
        assertThat(places.get(1).wrongIn("short/walls")).contains(false);
        assertThat(places.get(1).wrongIn("short/none")).contains(true);
    }

    @Test
    void placesThatOnlyTheOtherPlacesTextTellsApartAreRefused() {
        // each place turns a y into an x, so the text around one place depends on the other
        assertThatThrownBy(() -> FlawCombinations.places(Flaw.class, f -> {
                    String src = (f.contains(Flaw.LOOP) ? "x" : "y") + (f.contains(Flaw.WALLS) ? "x" : "y");
                    return new ToolProgram<String>("p", src, f.isEmpty(), 0, b -> "");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("loop");
    }

    @Test
    void oneShortDropsTheLastMoveOfAPathAndLeavesAnEmptyOne() {
        assertThat(FlawCombinations.oneShort("UDL")).isEqualTo("UD");
        assertThat(FlawCombinations.oneShort("")).isEmpty();
    }
}
