package org.pettingllms.examples;

import static org.bsc.langgraph4j.StateGraph.END;
import static org.bsc.langgraph4j.StateGraph.START;
import static org.bsc.langgraph4j.action.AsyncEdgeAction.edge_async;
import static org.bsc.langgraph4j.action.AsyncNodeAction.node_async;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bsc.langgraph4j.CompiledGraph;
import org.bsc.langgraph4j.GraphStateException;
import org.bsc.langgraph4j.StateGraph;
import org.bsc.langgraph4j.state.AgentState;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Task;
import org.pettingllms.langchain4j.AgentProgram;
import org.pettingllms.langchain4j.RoleModels;
import org.pettingllms.langchain4j.TaskTeam;

/**
 * A task's team as a LangGraph4j {@link StateGraph}: a node per role, in the task's order, each asking its role's
 * model the task's prompt and applying the answer to the task's state; after the last role the graph goes back to the first for the next turn, and ends when the task is done or
 * out of turns. The task's state lives beside the graph, as an environment a tool would hold: LangGraph4j copies its
 * own state by Java serialization between nodes, which a task's state need not support; the graph's state carries
 * the turn and the outcome. The reward is 1 when the team solved the problem, else 0: the program {@link TaskTeam} is, written
 * as a graph, so the two make the same calls in the same order and train on the same samples.
 *
 * <p>Train it with {@code ./pettingllms train CONFIG --program org.pettingllms.examples.GraphTeam} and this module on
 * the class path ({@code docs/USAGE.md}, "Training an agent program"); the command gives it the config's task.
 *
 * @param <S> the task's state
 */
public final class GraphTeam<S> implements AgentProgram {
    private static final String TURN = "turn";
    private static final String DONE = "done";
    private static final String SOLVED = "solved";
    private static final String NEXT = "next";

    private final Task<S> task;
    private final PromptStyle style;

    public GraphTeam(Task<S> task, PromptStyle style) {
        this.task = task;
        this.style = style;
    }

    @Override
    public double run(Problem problem, RoleModels models) throws Exception {
        List<S> env = new ArrayList<>(List.of(task.initialState(problem)));
        CompiledGraph<AgentState> graph = graph(env, models);
        AgentState end = graph.invoke(Map.of(TURN, 0, DONE, false, SOLVED, false))
                .orElseThrow(() -> new IllegalStateException("the graph ended without a state"));
        return end.<Boolean>value(SOLVED).orElse(false) ? 1.0 : 0.0;
    }

    /** START -> role 1 -> ... -> role n -> (role 1 of the next turn | END); every edge after a role may end. */
    private CompiledGraph<AgentState> graph(List<S> env, RoleModels models) throws GraphStateException {
        List<String> roles = task.roles();
        StateGraph<AgentState> graph = new StateGraph<>(AgentState::new);
        for (int i = 0; i < roles.size(); i++) {
            String role = roles.get(i);
            boolean last = i == roles.size() - 1;
            graph.addNode(role, node_async(s -> act(s, env, role, last, models)));
            String next = last ? roles.get(0) : roles.get(i + 1);
            graph.addConditionalEdges(role, edge_async(s -> over(s) ? END : NEXT), Map.of(NEXT, next, END, END));
        }
        graph.addEdge(START, roles.get(0));
        CompiledGraph<AgentState> compiled = graph.compile();
        // a node per role a turn, and the graph's START and END steps, which its bound also counts (the default, 25,
        // is below a long task's): an episode that uses every turn must still end
        compiled.setMaxIterations(task.maxTurns() * roles.size() + 3);
        return compiled;
    }

    /** One role's move: the task's prompt to the role's model, its answer applied to the task's state. */
    private Map<String, Object> act(AgentState s, List<S> env, String role, boolean last, RoleModels models) {
        S state = env.get(0);
        int turn = s.<Integer>value(TURN).orElseThrow();
        String answer = models.chat(role)
                .chat(TaskTeam.messages(task.prompt(state, role, turn, style)))
                .aiMessage()
                .text();
        Transition<S> t = task.step(state, role, Completion.ofText(answer));
        env.set(0, t.next());
        return Map.of(TURN, last ? turn + 1 : turn, DONE, t.done(), SOLVED, t.done() && t.success());
    }

    private boolean over(AgentState s) {
        return s.<Boolean>value(DONE).orElse(false) || s.<Integer>value(TURN).orElseThrow() >= task.maxTurns();
    }
}
