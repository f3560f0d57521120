package org.pettingllms.core.workflow;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Executes a {@link Workflow} in process: every agent node is one model call through {@link Caller}, in a fixed
 * order (depth first, an ensemble's members and a debate's debaters in turn), so an execution is the same for the
 * same replies. Each node's output goes to the next one as its context (docs/WORKFLOWS.md, "Execution").
 */
public final class WorkflowRunner {
    private static final Pattern FENCE = Pattern.compile("```([A-Za-z0-9_-]*)\\n(.*?)```", Pattern.DOTALL);

    /** What a node shows the one after it: who wrote it and the text. */
    public record Message(String from, String text) {}

    /**
     * One model call of an execution.
     *
     * @param index       its place in the execution (0-based)
     * @param line        the line of the agent node that makes it
     * @param role        the executor role (its policy)
     * @param instruction the node's instruction, with what the node adds (a router's branch names)
     * @param problem     the problem as the task states it
     * @param context     the outputs this call reads, in order
     */
    public record Call(
            int index,
            int line,
            String role,
            String instruction,
            List<String> tools,
            String problem,
            List<Message> context) {
        public Call {
            tools = List.copyOf(tools);
            context = List.copyOf(context);
        }

        /** The call's message as a model reads it: the problem, then each output it is shown. */
        public String text() {
            StringBuilder sb =
                    new StringBuilder("Problem:\n").append(problem.strip()).append('\n');
            for (Message m : context) {
                sb.append('\n')
                        .append(m.from())
                        .append(" wrote:\n")
                        .append(m.text().strip())
                        .append('\n');
            }
            return sb.toString();
        }
    }

    /** The executor policies, one reply a call (a rollout samples them; a test scripts them). */
    @FunctionalInterface
    public interface Caller {
        String reply(Call call);
    }

    /** A call and its reply, with what its tool printed ({@code ""} when no tool ran). */
    public record Step(Call call, String reply, String toolOutput) {}

    /**
     * @param answer the answer the task reads from the final output ({@code answerOf})
     * @param output the final output's text
     * @param steps  every call in order
     * @param notes  what the execution decided that a reader should see (a vote's tally, a route taken)
     */
    public record Execution(String answer, String output, List<Step> steps, List<String> notes) {
        public Execution {
            steps = List.copyOf(steps);
            notes = List.copyOf(notes);
        }
    }

    private final Map<String, WorkflowTool> tools;
    private final Function<String, String> answerOf;

    /**
     * @param tools    the task's tools by name (what {@link WorkflowLimits#tools} allows)
     * @param answerOf the answer in an output as the task reads it ({@code ""} for none): what a vote compares
     */
    public WorkflowRunner(Map<String, WorkflowTool> tools, Function<String, String> answerOf) {
        this.tools = Map.copyOf(tools);
        this.answerOf = answerOf;
    }

    public Execution run(Workflow workflow, String problem, Caller caller) {
        Run r = new Run(problem, caller, workflow.calls());
        Output out = r.node(workflow.root(), List.of());
        return new Execution(out.answer(), out.text(), r.steps, r.notes);
    }

    /** A node's output: its text, and the answer the task reads in it. */
    private record Output(String from, String text, String answer) {
        Message message() {
            return new Message(from, text);
        }
    }

    private final class Run {
        private final String problem;
        private final Caller caller;
        private final int maxCalls;
        private final List<Step> steps = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();

        Run(String problem, Caller caller, int maxCalls) {
            this.problem = problem;
            this.caller = caller;
            this.maxCalls = maxCalls;
        }

        Output node(Workflow.Node n, List<Message> context) {
            return switch (n) {
                case Workflow.Agent a -> agent(a, a.instruction(), context);
                case Workflow.Sequence s -> {
                    Output last = null;
                    List<Message> in = context;
                    for (Workflow.Node step : s.steps()) {
                        last = node(step, in);
                        in = List.of(last.message()); // each step reads the one before it
                    }
                    yield last;
                }
                case Workflow.Ensemble e -> {
                    List<Output> members = new ArrayList<>();
                    for (int i = 0; i < e.k(); i++) {
                        members.add(node(e.member(), context));
                    }
                    if (e.judge() == null) {
                        yield vote(members, "ensemble (line " + e.line() + ")");
                    }
                    List<Message> shown = new ArrayList<>(context);
                    for (int i = 0; i < members.size(); i++) {
                        shown.add(
                                new Message("answer " + (i + 1), members.get(i).text()));
                    }
                    yield agent(e.judge(), e.judge().instruction(), shown);
                }
                case Workflow.Debate d -> {
                    List<Output> last = List.of();
                    for (int round = 0; round < d.rounds(); round++) {
                        List<Output> now = new ArrayList<>();
                        for (int i = 0; i < d.debaters().size(); i++) {
                            List<Message> in = new ArrayList<>(context);
                            for (int j = 0; j < last.size(); j++) {
                                if (j != i) { // from round 2 on, the others' last answers
                                    in.add(last.get(j).message());
                                }
                            }
                            Workflow.Agent a = d.debaters().get(i);
                            now.add(agent(a, a.instruction(), in));
                        }
                        last = now;
                    }
                    yield vote(last, "debate (line " + d.line() + ")");
                }
                case Workflow.Reflect r -> {
                    Output critique = agent(r.critic(), r.critic().instruction(), context);
                    List<Message> in = new ArrayList<>(context);
                    in.add(critique.message());
                    yield agent(r.reviser(), r.reviser().instruction(), in);
                }
                case Workflow.Route r -> {
                    List<String> names =
                            r.branches().stream().map(Workflow.Branch::name).toList();
                    Output choice = agent(
                            r.router(),
                            r.router().instruction() + "\nBranches: " + String.join(", ", names)
                                    + ". Name the one to take.",
                            context);
                    int picked = pick(choice.text(), names);
                    notes.add("route (line " + r.line() + "): "
                            + (picked < 0
                                    ? "the router named no branch; '" + names.get(0) + "' ran"
                                    : "'" + names.get(picked) + "'"));
                    yield node(r.branches().get(Math.max(0, picked)).node(), context);
                }
            };
        }

        Output agent(Workflow.Agent a, String instruction, List<Message> context) {
            if (steps.size() >= maxCalls) { // the parser's bound makes this unreachable; a guard, not a rule
                throw new IllegalStateException("a workflow made more than its " + maxCalls + " calls");
            }
            Call call = new Call(steps.size(), a.line(), a.role(), instruction, a.tools(), problem, context);
            String reply = caller.reply(call);
            String printed = a.tools().isEmpty() ? "" : runTool(a.tools(), reply);
            steps.add(new Step(call, reply, printed));
            return new Output(a.role(), text(reply, printed), answerOf.apply(text(reply, printed)));
        }

        /** The output whose answer most outputs give (the earliest on a tie); outputs without an answer do not vote. */
        private Output vote(List<Output> outputs, String where) {
            Map<String, Integer> tally = new LinkedHashMap<>();
            Map<String, Output> first = new HashMap<>();
            for (Output o : outputs) {
                if (!o.answer().isEmpty()) {
                    tally.merge(o.answer(), 1, Integer::sum);
                    first.putIfAbsent(o.answer(), o);
                }
            }
            if (tally.isEmpty()) {
                notes.add(where + ": no answer to vote on; the first output stands");
                return outputs.get(0);
            }
            String best = null;
            for (var e : tally.entrySet()) {
                if (best == null || e.getValue() > tally.get(best)) {
                    best = e.getKey();
                }
            }
            notes.add(where + ": " + tally.get(best) + " of " + outputs.size() + " answered " + clip(best));
            return first.get(best);
        }
    }

    /**
     * The output a call's node gives for {@code reply}: the reply, and what its tool printed when the call has tools
     * (the tool runs). What tree sampling at node calls scores a candidate by.
     */
    public String outputOf(Call call, String reply) {
        return text(reply, call.tools().isEmpty() ? "" : runTool(call.tools(), reply));
    }

    private static String text(String reply, String printed) {
        return printed.isEmpty() ? reply : reply.strip() + "\n\nOutput:\n" + printed;
    }

    /** The reply's last fenced block run by the tool its tag names, else by the node's first tool. */
    private String runTool(List<String> agentTools, String reply) {
        Matcher m = FENCE.matcher(reply);
        String tag = null;
        String code = null;
        while (m.find()) {
            tag = m.group(1).toLowerCase(Locale.ROOT);
            code = m.group(2);
        }
        if (code == null) {
            return "(no code block to run)";
        }
        String tool = agentTools.contains(tag) ? tag : agentTools.get(0);
        String out = tools.get(tool).run(code);
        return out.isEmpty() ? "(nothing printed)" : out;
    }

    /** The branch whose name the reply writes first, as a whole word in any case; -1 for none. */
    static int pick(String reply, List<String> names) {
        String lower = reply.toLowerCase(Locale.ROOT);
        int best = -1;
        int at = Integer.MAX_VALUE;
        for (int i = 0; i < names.size(); i++) {
            Matcher m = Pattern.compile("(?<![a-z0-9_-])" + Pattern.quote(names.get(i)) + "(?![a-z0-9_-])")
                    .matcher(lower);
            if (m.find() && m.start() < at) {
                at = m.start();
                best = i;
            }
        }
        return best;
    }

    private static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
}
