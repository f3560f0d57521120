package org.pettingllms.envs.science;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.pettingllms.core.backend.TextPolicy;

/**
 * The scripted team, from what its prompts show and the public family of laws ({@link Law#family}, the noise level).
 * The experimenter varies one factor at a time by a factor of ten: every variable at 1, then each variable in turn at
 * 10 with the others at 1 ({@link #design}), then whichever experiment splits the laws still possible into the most
 * distinct predictions. The first design is chosen because its measurements show the law as digits (y at 1 is k, or
 * k + j; a variable at 10 multiplies it by 10 where the law is linear in it, 100 where squared, 1/10 where it divides,
 * 1 where it is absent; {@code k a + j} at a = 10 reads 10k + j): a model can learn to read it, where the answer of a
 * search over the 675 laws is not something it can imitate. The theorist proposes the law once every possible law
 * predicts the same everywhere (or on its last turn), else asks for more (alone: runs the next experiment). With
 * probability {@code 1 - skill} an answer is useless instead: every variable set to 1 again, or {@code y = 1}.
 */
final class ScienceScripted {
    private ScienceScripted() {}

    static final int[] VALUES = {1, 2, 3, 5, 7, 9, 10};

    static TextPolicy policy(double skill) {
        if (skill < 0 || skill > 1) {
            throw new IllegalArgumentException("skill must be in [0, 1], got " + skill);
        }
        return (ref, prompt, rng) -> {
            View v = View.parse(prompt.text());
            boolean wrong = rng.nextDouble() >= skill;
            if (v.experimenter()) {
                return wrong ? ones(v.variables()) : setting(next(v));
            }
            if (wrong) {
                return "y = 1";
            }
            List<Law> possible = possible(v);
            if (possible.isEmpty()) {
                return "y = 1";
            }
            if (agree(possible, v.variables()) || v.turnsLeft() <= 1) {
                return possible.get(0).text();
            }
            return v.alone() ? setting(next(v)) : "more";
        };
    }

    /**
     * The hasty theorist, the warm-up's habit: the team's answers, except that once two experiments are measured and a
     * turn is left, a theorist who would ask for more (alone: run another experiment) proposes the first law of the
     * family the measurements allow instead. A guess (ScienceTask's rewards): right only where the law happens to
     * be the simplest one left, so that one choice, to ask for more until the measurements determine the law, is
     * right on every lab.
     */
    static TextPolicy hasty(TextPolicy team) {
        return (ref, prompt, rng) -> {
            String answer = team.answer(ref, prompt, rng);
            View v = View.parse(prompt.text());
            if (v.experimenter() || v.data().size() < 2 || v.turnsLeft() <= 1 || answer.startsWith("y =")) {
                return answer;
            }
            List<Law> possible = possible(v);
            return possible.isEmpty() ? answer : possible.get(0).text();
        };
    }

    /** What a prompt shows. */
    record View(
            List<String> variables,
            List<LabState.Measurement> data,
            boolean experimenter,
            boolean alone,
            int turnsLeft) {
        static View parse(String text) {
            List<String> vars = List.of();
            List<LabState.Measurement> data = new ArrayList<>();
            int turnsLeft = 1;
            for (String raw : text.split("\n")) {
                String line = raw.strip();
                String lower = line.toLowerCase(java.util.Locale.ROOT);
                if (lower.startsWith("vars: ") || lower.startsWith("variables: ")) {
                    String list = line.substring(line.indexOf(": ") + 2, line.indexOf(" ("));
                    vars = List.of(list.split(" "));
                } else if (lower.startsWith("data: ") && !lower.equals("data: none")) {
                    for (String d : line.substring(6).split(" \\| ")) {
                        data.add(measurement(d));
                    }
                } else if (line.matches("([a-z]+=\\d+ )+y=\\S+")) {
                    data.add(measurement(line));
                } else if (lower.startsWith("turns left: ")) {
                    turnsLeft =
                            Integer.parseInt(line.substring(12).replace(".", "").split(" ")[0]);
                }
            }
            boolean experimenter = text.startsWith("science-v1 experimenter") || text.contains("You run experiments");
            boolean alone = text.contains("reply: experiment or law") || text.contains("You discover a hidden law");
            return new View(vars, data, experimenter, alone, turnsLeft);
        }

        private static LabState.Measurement measurement(String d) {
            Map<String, Double> x = new LinkedHashMap<>();
            double y = 0;
            for (String kv : d.strip().split(" ")) {
                String[] p = kv.split("=");
                if (p[0].equals("y")) {
                    y = Double.parseDouble(p[1]);
                } else {
                    x.put(p[0], Double.parseDouble(p[1]));
                }
            }
            return new LabState.Measurement(x, y);
        }
    }

    /** The laws of the family that every measurement shown allows. */
    static List<Law> possible(View v) {
        return Lab.possible(v.variables(), v.data(), ScienceTask.NOISE);
    }

    /** Whether the laws predict the same (within 1%) on every setting of the values grid. */
    static boolean agree(List<Law> laws, List<String> variables) {
        for (Map<String, Double> x : grid(variables)) {
            double first = laws.get(0).at(x);
            for (Law l : laws) {
                if (Math.abs(l.at(x) - first) > 0.01 * Math.abs(first) + 1e-9) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The readable design: every variable at 1, then each in turn at {@link Lab#HIGH} with the others at 1. */
    static List<Map<String, Double>> design(List<String> variables) {
        List<Map<String, Double>> out = new ArrayList<>();
        for (int i = -1; i < variables.size(); i++) {
            Map<String, Double> x = new LinkedHashMap<>();
            for (int n = 0; n < variables.size(); n++) {
                x.put(variables.get(n), n == i ? (double) Lab.HIGH : Lab.LOW);
            }
            out.add(x);
        }
        return out;
    }

    /** The first experiment of the {@link #design} not yet run, then the most informative one ({@link #best}). */
    static Map<String, Double> next(View v) {
        Set<Map<String, Double>> done = done(v);
        for (Map<String, Double> x : design(v.variables())) {
            if (!done.contains(x)) {
                return x;
            }
        }
        return best(v);
    }

    /** The settings already measured. */
    private static Set<Map<String, Double>> done(View v) {
        Set<Map<String, Double>> done = new HashSet<>();
        v.data().forEach(m -> done.add(m.x()));
        return done;
    }

    /** The experiment (from the values grid, not yet run) whose outcomes split the possible laws most finely. */
    static Map<String, Double> best(View v) {
        List<Law> possible = possible(v);
        Set<Map<String, Double>> done = done(v);
        Map<String, Double> best = null;
        int most = -1;
        for (Map<String, Double> x : grid(v.variables())) {
            if (done.contains(x)) {
                continue;
            }
            Set<Long> buckets = new HashSet<>();
            for (Law l : possible) {
                buckets.add(Math.round(Math.log(Math.max(1e-9, l.at(x))) / Math.log(1.1)));
            }
            if (buckets.size() > most) {
                most = buckets.size();
                best = x;
            }
        }
        return best == null ? grid(v.variables()).get(0) : best;
    }

    static List<Map<String, Double>> grid(List<String> variables) {
        List<Map<String, Double>> out = new ArrayList<>();
        int n = variables.size();
        int total = (int) Math.pow(VALUES.length, n);
        for (int i = 0; i < total; i++) {
            Map<String, Double> x = new LinkedHashMap<>();
            int r = i;
            for (String var : variables) {
                x.put(var, (double) VALUES[r % VALUES.length]);
                r /= VALUES.length;
            }
            out.add(x);
        }
        return out;
    }

    static String setting(Map<String, Double> x) {
        StringBuilder sb = new StringBuilder();
        x.forEach((k, val) ->
                sb.append(sb.isEmpty() ? "" : " ").append(k).append('=').append(val.intValue()));
        return sb.toString();
    }

    private static String ones(List<String> variables) {
        StringBuilder sb = new StringBuilder();
        variables.forEach(var -> sb.append(sb.isEmpty() ? "" : " ").append(var).append("=1"));
        return sb.toString();
    }
}
