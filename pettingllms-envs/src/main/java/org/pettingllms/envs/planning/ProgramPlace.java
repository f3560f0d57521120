package org.pettingllms.envs.planning;

import java.util.Optional;

/**
 * One place a discovery warm-up's programs can be wrong at ({@link FlawCombinations#places}), as two pieces of text
 * with enough of the surrounding program to tell them apart in every combination of the other places: a sampled
 * program holding {@code right} is right there, one holding {@code wrong} is wrong there, one holding neither (or
 * both) wrote something else. Training counts these per place, so a run shows which places RL has fixed and which
 * it is moving the wrong way, also in programs that are wrong elsewhere in ways no demonstration showed.
 *
 * @param name  the place, e.g. {@code stops-one-short}
 * @param right the correct program's text at this place, with its context
 * @param wrong the flawed programs' text at this place, with the same context
 */
public record ProgramPlace(String name, String right, String wrong) {
    /** Whether {@code program} is wrong at this place; empty when it holds neither text, or both. */
    public Optional<Boolean> wrongIn(String program) {
        boolean r = program.contains(right);
        boolean w = program.contains(wrong);
        return r == w ? Optional.empty() : Optional.of(w);
    }
}
