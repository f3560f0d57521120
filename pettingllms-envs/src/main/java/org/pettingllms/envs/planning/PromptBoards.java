package org.pettingllms.envs.planning;

import java.util.List;
import java.util.Optional;
import org.pettingllms.core.data.PromptStyle;

/** Reads the board and the tool's proposal back out of the planning prompts (see {@link PlanningPrompts}). */
final class PromptBoards {
    static final String CHAT_BOARD = "Current board (turn ";

    private PromptBoards() {}

    static Optional<String> board(String prompt, PromptStyle style) {
        List<String> lines = prompt.lines().toList();
        if (style == PromptStyle.COMPACT) {
            // header, board rows, optional "tool: ..." line, ">" cue
            int end = lines.size() - 1;
            while (end > 1
                    && (lines.get(end).startsWith(PlanningPrompts.COMPACT_TOOL)
                            || lines.get(end).equals(">"))) {
                end--;
            }
            return end >= 1 ? Optional.of(String.join("\n", lines.subList(1, end + 1))) : Optional.empty();
        }
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(CHAT_BOARD)) {
                int j = i + 1;
                while (j < lines.size() && !lines.get(j).isEmpty()) {
                    j++;
                }
                return Optional.of(String.join("\n", lines.subList(i + 1, j)));
            }
        }
        return Optional.empty();
    }

    static boolean isPlanRole(String prompt, PromptStyle style) {
        return style == PromptStyle.COMPACT
                ? prompt.lines().findFirst().orElse("").endsWith(" " + PlanningTask.PLAN)
                : !prompt.contains("You are the tool agent");
    }

    /** What the tool's program printed, from a compact or chat planner prompt (program mode). */
    static Optional<String> toolOutput(String prompt) {
        for (String line : prompt.lines().toList()) {
            if (line.startsWith(PlanningPrompts.COMPACT_TOOL)) {
                return Optional.of(line.substring(PlanningPrompts.COMPACT_TOOL.length()));
            }
            if (line.startsWith(PlanningPrompts.CHAT_PROGRAM_OUTPUT)) {
                return Optional.of(line.substring(PlanningPrompts.CHAT_PROGRAM_OUTPUT.length()));
            }
        }
        return Optional.empty();
    }

    /** The tool's proposal when its simulated outcome reached the goal or solved the puzzle. */
    static Optional<String> successfulProposal(String prompt) {
        for (String line : prompt.lines().toList()) {
            if (line.startsWith(PlanningPrompts.COMPACT_TOOL)
                    && (line.endsWith("goal yes") || line.endsWith("solved"))) {
                String body = line.substring(PlanningPrompts.COMPACT_TOOL.length());
                return Optional.of(body.substring(0, body.indexOf(" -> ")));
            }
        }
        return Optional.empty();
    }
}
