package org.pettingllms.core.data;

import java.util.Map;
import java.util.Objects;

/**
 * One task instance: a dataset row or a generated seed.
 *
 * @param id     unique within a run, for example {@code plan-path-v1/train/17}; groups never mix ids
 * @param seed   the seed a generated task builds its instance from (datasets may ignore it)
 * @param fields dataset fields (question, answer, tests ...); empty for generated games
 */
public record Problem(String id, long seed, Map<String, Object> fields) {
    public Problem {
        Objects.requireNonNull(id, "id");
        fields = Map.copyOf(fields);
    }

    public static Problem generated(String id, long seed) {
        return new Problem(id, seed, Map.of());
    }
}
