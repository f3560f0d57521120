package org.pettingllms.envs.planning;

import java.util.List;
import org.pettingllms.core.data.ChatMessage;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.envs.data.CompactPrompts;

/**
 * The two prompt styles of the planning games. {@code compact}: a header line, the board, the tool's proposal
 * (plan role), and a {@code >} cue; the answer is one line. {@code chat}: instructions close to PettingLLMs'.
 */
final class PlanningPrompts {
    static final String CHAT_SYSTEM = "You are a helpful assistant who solves puzzles step by step.";
    static final String CHAT_SYSTEM_TEAM = CHAT_SYSTEM + " You work in a team of two agents: a tool agent that "
            + "proposes a plan, which is simulated, and a planning agent that decides the final plan.";
    static final String CHAT_SYSTEM_PROGRAM_TEAM = CHAT_SYSTEM + " You work in a team of two agents: a tool agent that "
            + "writes a program whose output is shown, and a planning agent that decides the final plan.";

    static final String CHAT_PROGRAM_OUTPUT = "Output of the tool agent's program: ";
    /** Starts the compact planner prompt's line with the tool's proposal or printed answer. */
    static final String COMPACT_TOOL = "tool: ";

    /** How a chat prompt names the picture's colours (the games' {@link Game#colours()}, docs/ENVIRONMENTS.md). */
    static final String PICTURE_LEGEND = "white is free floor, near-black a wall, blue you, green the goal (Plan-Path) "
            + "or a box on a goal (Sokoban), yellow a goal, brown a box, purple you on a goal";

    private PlanningPrompts() {}

    static <B, A> Prompt compact(Game<B, A> game, PlanningState<B> state, String role) {
        return compact(game, state, role, null);
    }

    /**
     * @param picture the board as a picture, shown instead of its rows (the message carries it); null for text
     */
    static <B, A> Prompt compact(Game<B, A> game, PlanningState<B> state, String role, Image picture) {
        StringBuilder sb = CompactPrompts.header(game.id(), role);
        if (picture == null) {
            sb.append(game.render(state.board())).append('\n');
        }
        if (role.equals(PlanningTask.PLAN) && state.hasProposal()) {
            sb.append(COMPACT_TOOL).append(state.proposal());
            if (!state.proposalOutcome().isEmpty()) { // the environment's verdict: answer mode only
                sb.append(" -> ").append(state.proposalOutcome());
            }
            sb.append('\n');
        }
        sb.append('>');
        return picture == null
                ? Prompt.compact(sb.toString())
                : new Prompt(List.of(ChatMessage.user(sb.toString(), List.of(picture))), PromptStyle.COMPACT);
    }

    static <B, A> Prompt chat(
            Game<B, A> game, PlanningState<B> state, String role, int turn, boolean team, boolean program) {
        return chat(game, state, role, turn, team, program, null);
    }

    /** @param picture the board as a picture, shown in place of its rows; null for text */
    static <B, A> Prompt chat(
            Game<B, A> game,
            PlanningState<B> state,
            String role,
            int turn,
            boolean team,
            boolean program,
            Image picture) {
        StringBuilder u = new StringBuilder();
        if (role.equals(PlanningTask.TOOL) && program) {
            u.append("You are the tool agent. Write a Python program that reads the board "
                    + (picture == null
                            ? "below from standard input (its rows as shown)"
                            : "from standard input (one line of the rules' symbols per row; the picture shows the same "
                                    + "board)")
                    + " and prints the answer on one line; answer with the program in a ```python "
                    + "block. Its output is shown to the planning agent.\n\n");
        } else if (role.equals(PlanningTask.TOOL)) {
            u.append(
                    "You are the tool agent. Propose a plan for the puzzle below. Your plan is simulated on the "
                            + "current board without changing it, and the simulated result is shown to the planning agent.\n\n");
        } else if (team && program) {
            u.append("You are the planning agent. Decide the plan that is executed on the board. A tool agent "
                    + "wrote a program for this board, and you see what it printed; use it or improve on it.\n\n");
        } else if (team) {
            u.append("You are the planning agent. Decide the plan that is executed on the board. A tool agent "
                    + "proposed a plan, and you see its simulated result; use it or improve on it.\n\n");
        } else {
            u.append("Solve the puzzle below. Your plan is executed on the board.\n\n");
        }
        u.append("Rules: ").append(game.rules()).append("\n\n");
        if (picture == null) {
            u.append("Current board (turn ")
                    .append(turn + 1)
                    .append("):\n")
                    .append(game.render(state.board()))
                    .append("\n\n");
        } else {
            u.append("The current board (turn ")
                    .append(turn + 1)
                    .append(") is in the picture, one square per cell: ")
                    .append(PICTURE_LEGEND)
                    .append(".\n\n");
        }
        if (!state.lastPlan().isEmpty()) {
            u.append("Last executed plan: ").append(state.lastPlan()).append("\n\n");
        }
        if (role.equals(PlanningTask.PLAN) && state.hasProposal()) {
            if (program) {
                u.append(CHAT_PROGRAM_OUTPUT).append(state.proposal()).append("\n\n");
            } else {
                u.append("Tool agent's proposal: ")
                        .append(state.proposal())
                        .append('\n')
                        .append("Simulated result: ")
                        .append(state.proposalOutcome())
                        .append("\n\n");
            }
        }
        u.append(game.answerFormat());
        String system = !team ? CHAT_SYSTEM : program ? CHAT_SYSTEM_PROGRAM_TEAM : CHAT_SYSTEM_TEAM;
        return picture == null
                ? Prompt.chat(system, u.toString())
                : new Prompt(
                        List.of(ChatMessage.system(system), ChatMessage.user(u.toString(), List.of(picture))),
                        PromptStyle.CHAT);
    }
}
