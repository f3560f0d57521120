package org.pettingllms.core.workflow;

import java.util.List;
import java.util.Set;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;

/**
 * What the designer and each executor call read. The designer: the executor roles, the tools, the problem (chat: and
 * the language in brief). An executor: its node's instruction, the tools it may use, the problem and the outputs it
 * is shown ({@link WorkflowRunner.Call#text}). The compact style (small models) keeps a header line and a {@code >} cue.
 */
final class DesignPrompts {
    static final String DESIGNER_SYSTEM = "You design multi-agent workflows that solve problems. You write the workflow"
            + " in the workflow language, one node a line, children indented two spaces.";
    private static final String LANGUAGE = """
            Nodes:
              agent ROLE [TOOL, ...]: INSTRUCTION   one model call (tools optional)
              sequence                              the steps under it in order, each shown the output before it
              ensemble K majority                   the node under it run K times, the most given answer
              ensemble K judge                      the member run K times, then a judge agent reads all K
              debate R                              two or more agents, R rounds, each shown the others' answers
              reflect                               a critic agent, then a reviser agent, on the output before it
              route                                 a router agent, then 'branch NAME' lines, each over one node
            """;

    private DesignPrompts() {}

    static Prompt designer(String problem, List<String> roles, Set<String> tools, PromptStyle style) {
        String toolList = tools.isEmpty()
                ? "none"
                : String.join(", ", tools.stream().sorted().toList());
        if (style == PromptStyle.COMPACT) {
            return Prompt.compact("design\nroles: " + String.join(" ", roles) + "\ntools: "
                    + (tools.isEmpty()
                            ? "none"
                            : String.join(" ", tools.stream().sorted().toList())) + "\n"
                    + problem.strip() + "\n>");
        }
        return Prompt.chat(
                DESIGNER_SYSTEM,
                LANGUAGE + "\nExecutor roles: " + String.join(", ", roles) + "\nTools: " + toolList
                        + "\n\nDesign a workflow for this problem. Think first if you like, then write the workflow"
                        + " in one ``` block.\n\nProblem:\n" + problem.strip());
    }

    static Prompt executor(WorkflowRunner.Call call, PromptStyle style) {
        if (style == PromptStyle.COMPACT) {
            String tools = call.tools().isEmpty() ? "" : "tools: " + String.join(" ", call.tools()) + "\n";
            return Prompt.compact(call.role() + "\n" + call.instruction() + "\n" + tools + call.text() + ">");
        }
        String system = call.instruction();
        if (!call.tools().isEmpty()) {
            system += "\nYou may write code in a fenced block tagged with a tool's name ("
                    + String.join(
                            ", ", call.tools().stream().map(t -> "```" + t).toList())
                    + "); the last block runs and what it prints follows your reply.";
        }
        return Prompt.chat(system, call.text());
    }
}
