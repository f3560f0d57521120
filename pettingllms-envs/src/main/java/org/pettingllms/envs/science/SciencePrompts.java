package org.pettingllms.envs.science;

import java.util.List;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.envs.data.CompactPrompts;

/**
 * What the experimenter and the theorist read: the lab's variables and their range, every measurement so far, and for
 * the theorist the turns left. Compact:
 * <pre>
 *   science-v1 theorist
 *   vars: m v t (1 to 10)
 *   data: m=2 v=2 t=2 y=16.1 | m=4 v=2 t=2 y=64.3
 *   turns left: 3
 *   >
 * </pre>
 */
final class SciencePrompts {
    static final String EXPERIMENTER_SYSTEM = "You run experiments in a lab to discover a hidden law y = f(variables)."
            + " Each turn, choose one experiment: a whole number for every variable, written as m=3 v=5.";
    static final String THEORIST_SYSTEM = "You find the hidden law y = f(variables) from an experimenter's"
            + " measurements (about 1% noise). Propose it as y = <expression> using numbers, the variables, + - * / ^"
            + " and parentheses (for example y = 3*m*v^2), or write more to ask for another experiment.";
    static final String ALONE_SYSTEM = "You discover a hidden law y = f(variables) in a lab. Each turn either run an"
            + " experiment (a whole number for every variable, written as m=3 v=5) or propose the law as"
            + " y = <expression> (numbers, variables, + - * / ^, parentheses), which ends the work.";

    private SciencePrompts() {}

    static Prompt of(String taskId, LabState s, String role, boolean alone, int turnsLeft, PromptStyle style) {
        String vars = String.join(" ", s.lab().variables()) + " (" + Lab.LOW + " to " + Lab.HIGH + ")";
        List<String> data = s.data().stream().map(LabState.Measurement::text).toList();
        if (style == PromptStyle.COMPACT) {
            StringBuilder sb = CompactPrompts.header(taskId, role)
                    .append("vars: ")
                    .append(vars)
                    .append('\n')
                    .append("data: ")
                    .append(data.isEmpty() ? "none" : String.join(" | ", data))
                    .append('\n');
            if (!role.equals(ScienceTask.EXPERIMENTER)) {
                sb.append("turns left: ").append(turnsLeft).append('\n');
                sb.append(alone ? "reply: experiment or law\n" : "reply: law or more\n");
            }
            return CompactPrompts.cue(sb);
        }
        StringBuilder u = new StringBuilder("Variables: ").append(vars).append("\n\nMeasurements:\n");
        if (data.isEmpty()) {
            u.append("none yet\n");
        }
        data.forEach(d -> u.append(d).append('\n'));
        if (role.equals(ScienceTask.EXPERIMENTER)) {
            return Prompt.chat(
                    EXPERIMENTER_SYSTEM,
                    u.append("\nWrite the next experiment.").toString());
        }
        u.append("\nTurns left: ").append(turnsLeft).append('.');
        return Prompt.chat(
                alone ? ALONE_SYSTEM : THEORIST_SYSTEM,
                u.append(alone ? " Write an experiment or the law." : " Write the law, or more.")
                        .toString());
    }
}
