package org.pettingllms.core.workflow;

import java.util.List;

/**
 * A multi-agent workflow as data (docs/WORKFLOWS.md): a tree of nodes that a designer writes in the workflow language
 * ({@link WorkflowParser}) and {@link WorkflowRunner} executes with the executor policies. Nothing in a workflow is
 * code: every node is one of the records below, checked against {@link WorkflowLimits} before it runs.
 *
 * @param root  the top node
 * @param calls the most model calls one execution makes ({@link Node#calls})
 */
public record Workflow(Node root, int calls) {
    /** A node of the tree; {@code line} is where it was written (1-based), for messages. */
    public sealed interface Node permits Agent, Sequence, Ensemble, Debate, Reflect, Route {
        int line();

        /** The most model calls the node makes. */
        int calls();

        /** The node's kind as the language writes it (its shape's part in {@link Workflow#shape}). */
        String kind();
    }

    /** One model call by {@code role}, told {@code instruction}; its reply may be run by one of {@code tools}. */
    public record Agent(int line, String role, List<String> tools, String instruction) implements Node {
        public Agent {
            tools = List.copyOf(tools);
        }

        @Override
        public int calls() {
            return 1;
        }

        @Override
        public String kind() {
            return "agent";
        }
    }

    /** The steps in order, each shown the output before it. */
    public record Sequence(int line, List<Node> steps) implements Node {
        public Sequence {
            steps = List.copyOf(steps);
        }

        @Override
        public int calls() {
            return steps.stream().mapToInt(Node::calls).sum();
        }

        @Override
        public String kind() {
            return "sequence";
        }
    }

    /**
     * {@code member} run {@code k} times on the same input; the answer most of them give ({@code judge} null), or
     * what {@code judge} says after reading all k.
     */
    public record Ensemble(int line, int k, Node member, Agent judge) implements Node {
        @Override
        public int calls() {
            return k * member.calls() + (judge == null ? 0 : 1);
        }

        @Override
        public String kind() {
            return judge == null ? "ensemble-majority" : "ensemble-judge";
        }
    }

    /** {@code rounds} rounds in which each debater answers, from round 2 on shown the others' last answers. */
    public record Debate(int line, int rounds, List<Agent> debaters) implements Node {
        public Debate {
            debaters = List.copyOf(debaters);
        }

        @Override
        public int calls() {
            return rounds * debaters.size();
        }

        @Override
        public String kind() {
            return "debate";
        }
    }

    /** A critic reads the output before it, then a reviser rewrites that output with the critique. */
    public record Reflect(int line, Agent critic, Agent reviser) implements Node {
        @Override
        public int calls() {
            return 2;
        }

        @Override
        public String kind() {
            return "reflect";
        }
    }

    /** A router agent reads the input and the branches' names and picks one; that branch runs. */
    public record Route(int line, Agent router, List<Branch> branches) implements Node {
        public Route {
            branches = List.copyOf(branches);
        }

        @Override
        public int calls() {
            return 1 + branches.stream().mapToInt(b -> b.node().calls()).max().orElse(0);
        }

        @Override
        public String kind() {
            return "route";
        }
    }

    /** A named branch of a {@link Route}. */
    public record Branch(int line, String name, Node node) {}

    /**
     * The workflow's shape: its node kinds, nested in brackets, an agent's tools after a {@code +}, without roles or
     * words ({@code sequence[agent+python,reflect]}); what reports count per problem kind.
     */
    public String shape() {
        return shape(root);
    }

    private static String shape(Node n) {
        return switch (n) {
            case Agent a -> a.tools().isEmpty() ? "agent" : "agent+" + String.join("+", a.tools());
            case Sequence s -> "sequence" + list(s.steps());
            case Ensemble e -> e.kind() + "(" + e.k() + ")[" + shape(e.member()) + "]";
            case Debate d -> "debate(" + d.rounds() + "x" + d.debaters().size() + ")";
            case Reflect r -> "reflect";
            case Route r ->
                "route" + list(r.branches().stream().map(Branch::node).toList());
        };
    }

    private static String list(List<Node> nodes) {
        return "[" + String.join(",", nodes.stream().map(Workflow::shape).toList()) + "]";
    }
}
