package org.pettingllms.core.workflow;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The workflow language (docs/WORKFLOWS.md), one node a line, its children indented two spaces under it:
 *
 * <pre>
 * sequence
 *   agent solver [python]: Write a program that prints the answer.
 *   reflect
 *     agent critic: Say what is wrong with the answer above, or say it is right.
 *     agent solver: Write the answer again, corrected.
 * </pre>
 *
 * Nodes: {@code agent ROLE [TOOLS]: INSTRUCTION}, {@code sequence}, {@code ensemble K majority} (one member) or
 * {@code ensemble K judge} (a member, then the judge agent), {@code debate R} (two or more agents), {@code reflect}
 * (a critic agent, then a reviser agent; it reads the output before it, so it follows a step of a sequence), {@code
 * route} (the router agent, then {@code branch NAME} lines, each over one node). Lines starting with {@code #} are
 * comments. Parsing is strict and bounded ({@link WorkflowLimits}): the first thing wrong is one {@link
 * WorkflowError} naming its line, and nothing is run before the whole design is checked.
 */
public final class WorkflowParser {
    private static final String NAME = "[a-z][a-z0-9_-]{0,23}";
    private static final Pattern AGENT = Pattern.compile("agent +(" + NAME + ")(?: *\\[([^\\]]*)\\])? *: *(.*)");
    private static final Set<String> WORDS =
            Set.of("agent", "sequence", "ensemble", "debate", "reflect", "route", "branch");
    private static final Pattern NAME_ONLY = Pattern.compile(NAME);
    private static final Pattern ENSEMBLE = Pattern.compile("ensemble +([0-9]{1,3}) +(majority|judge)");
    private static final Pattern DEBATE = Pattern.compile("debate +([0-9]{1,3})");
    private static final Pattern BRANCH = Pattern.compile("branch +(" + NAME + ")");
    private static final Pattern FENCE = Pattern.compile("```[A-Za-z0-9_-]*\\n(.*?)```", Pattern.DOTALL);

    private final WorkflowLimits limits;

    public WorkflowParser(WorkflowLimits limits) {
        this.limits = limits;
    }

    /**
     * The design in a designer's answer: its last fenced block, else what follows its last {@code </think>}, else the
     * whole answer.
     */
    public static String designIn(String answer) {
        Matcher m = FENCE.matcher(answer);
        String last = null;
        while (m.find()) {
            last = m.group(1);
        }
        if (last != null) {
            return last;
        }
        int think = answer.lastIndexOf("</think>");
        return think >= 0 ? answer.substring(think + "</think>".length()) : answer;
    }

    /** One written line: its number, its indentation level and its text. */
    private record Line(int number, int level, String text) {}

    /** A line with the lines indented under it. */
    private record Tree(Line line, List<Tree> children) {}

    public Workflow parse(String design) throws WorkflowError {
        if (design.length() > limits.maxChars()) {
            throw new WorkflowError(
                    0, "the design has " + design.length() + " characters; at most " + limits.maxChars());
        }
        List<Line> lines = lines(design);
        if (lines.isEmpty()) {
            throw new WorkflowError(0, "the design is empty: write one node a line (docs/WORKFLOWS.md)");
        }
        if (lines.size() > limits.maxLines()) {
            throw new WorkflowError(0, "the design has " + lines.size() + " lines; at most " + limits.maxLines());
        }
        if (lines.size() > limits.maxNodes()) { // every line but a branch's is a node: a first, cheap bound
            long nodes =
                    lines.stream().filter(l -> !l.text().startsWith("branch")).count();
            if (nodes > limits.maxNodes()) {
                throw new WorkflowError(0, "the design has " + nodes + " nodes; at most " + limits.maxNodes());
            }
        }
        Tree root = tree(lines);
        Workflow.Node node = node(root, 1, false);
        if (node.calls() > limits.maxCalls()) {
            throw new WorkflowError(
                    0, "one execution would make up to " + node.calls() + " model calls; at most " + limits.maxCalls());
        }
        return new Workflow(node, node.calls());
    }

    private List<Line> lines(String design) throws WorkflowError {
        List<Line> out = new ArrayList<>();
        String[] raw = design.split("\n", -1);
        for (int i = 0; i < raw.length; i++) {
            String s = raw[i];
            if (s.endsWith("\r")) {
                s = s.substring(0, s.length() - 1);
            }
            for (int c = 0; c < s.length(); c++) {
                char ch = s.charAt(c);
                if (ch == '\t') {
                    throw new WorkflowError(i + 1, "a tab; indent with two spaces a level");
                }
                if (Character.isISOControl(ch) || ch == '\u2028' || ch == '\u2029') {
                    throw new WorkflowError(i + 1, "a control character (U+%04X)".formatted((int) ch));
                }
            }
            String text = s.strip();
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            int indent = 0;
            while (s.charAt(indent) == ' ') {
                indent++;
            }
            if (indent % 2 != 0) {
                throw new WorkflowError(i + 1, "indented " + indent + " spaces; indent two spaces a level");
            }
            String word = text.split(" ", 2)[0];
            if (!WORDS.contains(word)) { // the first wrong line, before any structure is read
                throw new WorkflowError(
                        i + 1,
                        "'" + clip(word) + "' is no node; nodes are agent, sequence, ensemble, debate, reflect, route");
            }
            out.add(new Line(i + 1, indent / 2, text));
        }
        return out;
    }

    private Tree tree(List<Line> lines) throws WorkflowError {
        if (lines.get(0).level() != 0) {
            throw new WorkflowError(lines.get(0).number(), "the first node must not be indented");
        }
        List<Tree> stack = new ArrayList<>();
        Tree root = new Tree(lines.get(0), new ArrayList<>());
        stack.add(root);
        for (Line l : lines.subList(1, lines.size())) {
            if (l.level() == 0) {
                throw new WorkflowError(
                        l.number(), "a second top node; a design is one node (put several steps under a sequence)");
            }
            if (l.level() > stack.size()) {
                throw new WorkflowError(l.number(), "indented more than one level under the line above");
            }
            if (l.level() >= limits.maxDepth()) {
                throw new WorkflowError(
                        l.number(), "nested " + (l.level() + 1) + " deep; at most " + limits.maxDepth());
            }
            while (stack.size() > l.level()) {
                stack.remove(stack.size() - 1);
            }
            Tree t = new Tree(l, new ArrayList<>());
            stack.get(stack.size() - 1).children().add(t);
            stack.add(t);
        }
        return root;
    }

    /** @param afterOutput whether an output comes before this node (it is a later step of a sequence) */
    private Workflow.Node node(Tree t, int depth, boolean afterOutput) throws WorkflowError {
        Line l = t.line();
        String text = l.text();
        String word = text.split(" ", 2)[0];
        int n = l.number();
        switch (word) {
            case "agent" -> {
                noChildren(t);
                return agent(l);
            }
            case "sequence" -> {
                exactly(text, "sequence", n);
                if (t.children().isEmpty()) {
                    throw new WorkflowError(n, "a sequence needs its steps indented under it");
                }
                List<Workflow.Node> steps = new ArrayList<>();
                for (int i = 0; i < t.children().size(); i++) {
                    steps.add(node(t.children().get(i), depth + 1, afterOutput || i > 0));
                }
                return new Workflow.Sequence(n, steps);
            }
            case "ensemble" -> {
                Matcher m = matches(ENSEMBLE, text, n, "ensemble K majority, or ensemble K judge");
                int k = number(m.group(1), 2, limits.maxK(), "an ensemble's k", n);
                boolean judged = m.group(2).equals("judge");
                int want = judged ? 2 : 1;
                if (t.children().size() != want) {
                    throw new WorkflowError(
                            n,
                            judged
                                    ? "ensemble K judge needs two nodes under it: the member, then the judge agent"
                                    : "ensemble K majority needs one node under it: the member run K times");
                }
                Workflow.Node member = node(t.children().get(0), depth + 1, afterOutput);
                Workflow.Agent judge = judged ? agentChild(t.children().get(1), "an ensemble's judge") : null;
                return new Workflow.Ensemble(n, k, member, judge);
            }
            case "debate" -> {
                Matcher m = matches(DEBATE, text, n, "debate R (R rounds)");
                int rounds = number(m.group(1), 1, limits.maxRounds(), "a debate's rounds", n);
                if (t.children().size() < 2 || t.children().size() > limits.maxDebaters()) {
                    throw new WorkflowError(
                            n,
                            "a debate needs 2 to " + limits.maxDebaters() + " agents under it, got "
                                    + t.children().size());
                }
                List<Workflow.Agent> debaters = new ArrayList<>();
                for (Tree c : t.children()) {
                    debaters.add(agentChild(c, "a debater"));
                }
                return new Workflow.Debate(n, rounds, debaters);
            }
            case "reflect" -> {
                exactly(text, "reflect", n);
                if (!afterOutput) {
                    throw new WorkflowError(n, "reflect reads the output before it: put it after a step of a sequence");
                }
                if (t.children().size() != 2) {
                    throw new WorkflowError(n, "reflect needs two agents under it: the critic, then the reviser");
                }
                return new Workflow.Reflect(
                        n,
                        agentChild(t.children().get(0), "the critic"),
                        agentChild(t.children().get(1), "the reviser"));
            }
            case "route" -> {
                exactly(text, "route", n);
                if (t.children().size() < 3) {
                    throw new WorkflowError(
                            n, "route needs the router agent, then two or more 'branch NAME' lines under it");
                }
                Workflow.Agent router = agentChild(t.children().get(0), "the router");
                List<Workflow.Branch> branches = new ArrayList<>();
                Set<String> names = new HashSet<>();
                for (Tree c : t.children().subList(1, t.children().size())) {
                    Matcher m = matches(BRANCH, c.line().text(), c.line().number(), "branch NAME");
                    if (!names.add(m.group(1))) {
                        throw new WorkflowError(c.line().number(), "a second branch named '" + m.group(1) + "'");
                    }
                    if (c.children().size() != 1) {
                        throw new WorkflowError(c.line().number(), "a branch needs one node under it");
                    }
                    branches.add(new Workflow.Branch(
                            c.line().number(), m.group(1), node(c.children().get(0), depth + 2, afterOutput)));
                }
                return new Workflow.Route(n, router, branches);
            }
            case "branch" -> throw new WorkflowError(n, "a branch belongs under a route");
            default ->
                throw new WorkflowError(
                        n,
                        "'" + clip(word) + "' is no node; nodes are agent, sequence, ensemble, debate, reflect, route");
        }
    }

    private Workflow.Agent agentChild(Tree t, String what) throws WorkflowError {
        if (!t.line().text().startsWith("agent ")) {
            throw new WorkflowError(t.line().number(), what + " must be an agent line");
        }
        noChildren(t);
        return agent(t.line());
    }

    private Workflow.Agent agent(Line l) throws WorkflowError {
        Matcher m = matches(AGENT, l.text(), l.number(), "agent ROLE [TOOL, ...]: INSTRUCTION");
        String role = m.group(1);
        if (!limits.roles().contains(role)) {
            throw new WorkflowError(
                    l.number(),
                    "no executor role '" + role + "'; roles are " + String.join(", ", sorted(limits.roles())));
        }
        List<String> tools = new ArrayList<>();
        if (m.group(2) != null && !m.group(2).isBlank()) {
            for (String tool : m.group(2).split(",")) {
                String name = tool.strip();
                if (!NAME_ONLY.matcher(name).matches() || !limits.tools().contains(name)) {
                    throw new WorkflowError(
                            l.number(),
                            "no tool '" + clip(name) + "'; "
                                    + (limits.tools().isEmpty()
                                            ? "this task offers none"
                                            : "tools are " + String.join(", ", sorted(limits.tools()))));
                }
                if (tools.contains(name)) {
                    throw new WorkflowError(l.number(), "the tool '" + name + "' twice");
                }
                tools.add(name);
            }
        }
        String instruction = m.group(3).strip();
        if (instruction.isEmpty()) {
            throw new WorkflowError(l.number(), "an agent needs an instruction after the colon");
        }
        if (instruction.length() > limits.maxInstructionChars()) {
            throw new WorkflowError(
                    l.number(),
                    "an instruction of " + instruction.length() + " characters; at most "
                            + limits.maxInstructionChars());
        }
        return new Workflow.Agent(l.number(), role, tools, instruction);
    }

    private static void noChildren(Tree t) throws WorkflowError {
        if (!t.children().isEmpty()) {
            throw new WorkflowError(t.children().get(0).line().number(), "nothing may be indented under an agent");
        }
    }

    private static void exactly(String text, String word, int line) throws WorkflowError {
        if (!text.equals(word)) {
            throw new WorkflowError(line, "'" + word + "' takes nothing after it on its line");
        }
    }

    private static Matcher matches(Pattern p, String text, int line, String form) throws WorkflowError {
        Matcher m = p.matcher(text);
        if (!m.matches()) {
            throw new WorkflowError(line, "expected '" + form + "', got '" + clip(text) + "'");
        }
        return m;
    }

    private static int number(String digits, int min, int max, String what, int line) throws WorkflowError {
        int v = Integer.parseInt(digits); // at most three digits: the pattern bounds it
        if (v < min || v > max) {
            throw new WorkflowError(line, what + " must be " + min + " to " + max + ", got " + v);
        }
        return v;
    }

    private static List<String> sorted(Set<String> names) {
        return names.stream().sorted().toList();
    }

    private static String clip(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
