package org.pettingllms.envs.designed;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.util.Seeds;
import org.pettingllms.core.workflow.DesignDemonstrations;
import org.pettingllms.core.workflow.DesignTask;
import org.pettingllms.core.workflow.DesignTaskProvider;
import org.pettingllms.core.workflow.RandomDesigns;
import org.pettingllms.core.workflow.WorkflowRunner;
import org.pettingllms.core.workflow.WorkflowTool;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.data.TaskOptions;
import org.pettingllms.envs.math.AnswerChecker;
import org.pettingllms.envs.math.WordProblemDemonstrations;
import org.pettingllms.envs.math.WordProblems;
import org.pettingllms.envs.math.WordProblems.WordProblem;
import org.pettingllms.envs.sandbox.CodeBlocks;

/**
 * {@code design-mix} ({@code design-mix-v1}, docs/WORKFLOWS.md, "A task where design matters"): generated problems
 * of two kinds whose best workflow differs, with the sandboxed Python runner as the tool {@code python} and one
 * executor role, {@code solver}.
 *
 * <ul>
 *   <li>{@code arithmetic}: the math task's three-step word problems ({@link WordProblems}, numbers of three and four
 *       digits): worked out in one reply the arithmetic slips; a program computes it exactly once it reads the
 *       wordings right.
 *   <li>{@code letters}: the n-th letter of a made-up word ({@link LetterProblems}): a program that indexes the word
 *       counts from one, as the question does, and is off by a place; a reply that answers directly is right more
 *       often than any one wrong letter, so a vote of several beats one.
 * </ul>
 *
 * The kind of a problem is drawn from its seed (half each); each kind keeps its splits apart by content. The warm-up
 * ({@link DesignDemonstrations}) shows the designer random valid designs and the executor imperfect replies: a
 * program misreads each hard wording with probability {@link #MISREAD} and indexes a word from one with probability
 * {@link #FROM_ONE}; a direct answer slips an equation (arithmetic) or counts the letters out and stops a place
 * early or late (letters) with the warm-up's noise.
 */
public final class DesignMixTasks implements DesignTaskProvider {
    public static final String NAME = "design-mix";
    /** How often a demonstrated program misreads a hard wording (the math task's own demonstrations: 0.65). */
    public static final double MISREAD = 0.2;
    /** How often a demonstrated program indexes a word from one (one place too far). */
    public static final double FROM_ONE = 0.7;

    static final String PROGRAM = "agent solver [python]: Write a program that prints the answer.";
    static final String DIRECT = "agent solver: Answer directly.";
    static final String CRITIC = "agent solver: Say if the answer is right.";
    static final String REVISER = "agent solver: Give the final answer.";
    static final String JUDGE = "agent solver: Give the answer most answers agree on.";
    static final String ROUTER = "agent solver: Pick a branch.";
    static final RandomDesigns DESIGNS =
            new RandomDesigns(List.of(PROGRAM, DIRECT), CRITIC, REVISER, JUDGE, ROUTER, List.of("program", "direct"));
    private static final Pattern BOXED = Pattern.compile("\\\\boxed\\{([^{}]*)\\}");

    /**
     * @param kinds              the problem kinds, drawn evenly: {@code arithmetic}, {@code letters}
     * @param toolTimeoutSeconds CPU seconds a program may use
     * @param sandboxSlots       programs run at once; 0: one per CPU
     */
    public record Options(List<String> kinds, int toolTimeoutSeconds, int sandboxSlots) {
        public static final Options DEFAULT = new Options(List.of("arithmetic", "letters"), 5, 0);
    }

    /** A problem of the mix: its kind, question and answer; {@code seed} makes it. */
    public record MixItem(String kind, String question, String answer, long seed) {}

    @Override
    public Set<String> names() {
        return Set.of(NAME);
    }

    @Override
    public DesignTask create(RunConfig.TaskSpec spec) {
        Options o = TaskOptions.bind(spec, Options.DEFAULT);
        if (o.kinds().isEmpty() || !List.of("arithmetic", "letters").containsAll(o.kinds())) {
            throw new ConfigException(
                    "config key 'task.options.kinds': expected some of [arithmetic, letters], got " + o.kinds());
        }
        List<String> roles = TaskOptions.roles(spec, List.of("solver"));
        if (!roles.equals(List.of("solver"))) {
            throw new ConfigException(
                    "config key 'task.roles': design-mix has one executor role, solver; got " + roles);
        }
        List<String> kinds = List.copyOf(o.kinds());
        Items<MixItem> items = new Items.Generated<>(NAME, seed -> item(kinds, seed));
        return new Task(items, DesignMathTasks.pythonTool(o.sandboxSlots(), o.toolTimeoutSeconds()));
    }

    static MixItem item(List<String> kinds, long seed) {
        String kind = kinds.get((int) Math.floorMod(Seeds.derive(seed, "kind"), (long) kinds.size()));
        if (kind.equals("arithmetic")) {
            WordProblem wp = WordProblems.of(seed);
            return new MixItem(kind, wp.item().question(), wp.item().answer(), seed);
        }
        LetterProblems.Letter l = LetterProblems.of(seed);
        return new MixItem(kind, l.question(), l.answer(), seed);
    }

    /**
     * The answer in an output: the last {@code \boxed{...}}, else the first line a program printed (after
     * {@code Output:}); {@code ""} for none.
     */
    static String answerOf(String text) {
        Matcher m = BOXED.matcher(text);
        String found = null;
        while (m.find()) {
            found = m.group(1).strip();
        }
        if (found != null) {
            return found;
        }
        int at = text.lastIndexOf("Output:\n");
        if (at < 0) {
            return "";
        }
        for (String line : text.substring(at + "Output:\n".length()).split("\n")) {
            if (!line.isBlank()) {
                return line.strip();
            }
        }
        return "";
    }

    static double score(MixItem item, String answer) {
        if (item.kind().equals("letters")) {
            String a = answer.strip().replace("\"", "").replace("'", "");
            return a.toLowerCase(Locale.ROOT).equals(item.answer()) ? 1 : 0;
        }
        return !answer.isBlank() && AnswerChecker.equivalent(answer, item.answer()) ? 1 : 0;
    }

    record Task(Items<MixItem> items, WorkflowTool python) implements PythonItemsTask<MixItem>, DesignDemonstrations {
        @Override
        public String id() {
            return NAME + "-v1";
        }

        @Override
        public List<String> executorRoles() {
            return List.of("solver");
        }

        @Override
        public Posed posed(MixItem item) {
            return new Posed(item.question(), item.kind(), tools(), DesignMixTasks::answerOf, a -> score(item, a));
        }

        @Override
        public RandomDesigns designs() {
            return DESIGNS;
        }

        @Override
        public DesignDemonstrations.Reply reply(
                Problem problem, WorkflowRunner.Call call, Demonstrations.Settings settings, SplittableRandom rng) {
            return reply(items.item(problem), call, settings, rng);
        }

        /** The scripted executor: what each of the warm-up's agent lines does, imperfectly. */
        static DesignDemonstrations.Reply reply(
                MixItem item, WorkflowRunner.Call call, Demonstrations.Settings settings, SplittableRandom rng) {
            String instruction = "agent " + call.role()
                    + (call.tools().isEmpty() ? "" : " [" + String.join(", ", call.tools()) + "]") + ": "
                    + call.instruction();
            if (instruction.startsWith(ROUTER)) { // the warm-up's router picks at random: routing is learned
                return new DesignDemonstrations.Reply(rng.nextBoolean() ? "program" : "direct", "");
            }
            if (instruction.equals(CRITIC)) { // a critic that cannot check: it says one or the other
                return new DesignDemonstrations.Reply(rng.nextBoolean() ? "right" : "wrong", "");
            }
            if (instruction.equals(REVISER) || instruction.equals(JUDGE)) {
                List<String> shown = new ArrayList<>();
                for (WorkflowRunner.Message m : call.context()) {
                    String a = answerOf(m.text());
                    if (!a.isEmpty()) {
                        shown.add(a);
                    }
                }
                if (!shown.isEmpty() && rng.nextDouble() < settings.adopt()) {
                    return new DesignDemonstrations.Reply(
                            WordProblemDemonstrations.boxed(
                                    instruction.equals(JUDGE) ? mostCommon(shown) : shown.get(shown.size() - 1)),
                            "");
                }
                return direct(item, settings.noise(), rng);
            }
            if (!call.tools().isEmpty()) {
                return program(item, rng);
            }
            return direct(item, settings.noise(), rng);
        }

        private static DesignDemonstrations.Reply direct(MixItem item, double noise, SplittableRandom rng) {
            if (item.kind().equals("arithmetic")) {
                return new DesignDemonstrations.Reply(
                        WordProblemDemonstrations.workedOut(WordProblems.of(item.seed()), noise, rng), "");
            }
            // the letters counted out up to the position asked ("1k 2a 3m 4i"), then the last one counted; with
            // probability noise the count stops a place early or late (a miscount), and that letter is the answer
            LetterProblems.Letter l = LetterProblems.of(item.seed());
            int at = l.position() - 1;
            if (rng.nextDouble() < noise) {
                at += rng.nextBoolean() ? 1 : -1; // positions run from 2 to the last but one: both stay in the word
            }
            StringBuilder counted = new StringBuilder();
            for (int i = 0; i <= at; i++) {
                counted.append(i == 0 ? "" : " ").append(i + 1).append(l.word().charAt(i));
            }
            return new DesignDemonstrations.Reply(
                    counted + "\n"
                            + WordProblemDemonstrations.boxed(
                                    String.valueOf(l.word().charAt(at))),
                    "");
        }

        private static DesignDemonstrations.Reply program(MixItem item, SplittableRandom rng) {
            if (item.kind().equals("arithmetic")) {
                WordProblem wp = WordProblems.of(item.seed());
                boolean[] misread = new boolean[wp.steps().size()];
                for (int i = 0; i < misread.length; i++) {
                    misread[i] = wp.steps().get(i).kind().hard && rng.nextDouble() < MISREAD;
                }
                boolean writtenOrder = wp.moved() && rng.nextDouble() < MISREAD;
                return new DesignDemonstrations.Reply(
                        CodeBlocks.fence(WordProblems.program(wp, misread, writtenOrder)),
                        WordProblems.output(wp, misread, writtenOrder) + "\n");
            }
            LetterProblems.Letter l = LetterProblems.of(item.seed());
            int index = rng.nextDouble() < FROM_ONE ? l.position() : l.position() - 1;
            return new DesignDemonstrations.Reply(
                    CodeBlocks.fence("w=\"" + l.word() + "\"\nprint(w[" + index + "])"),
                    l.word().charAt(index) + "\n");
        }

        private static String mostCommon(List<String> answers) {
            Map<String, Integer> tally = new LinkedHashMap<>();
            answers.forEach(a -> tally.merge(a, 1, Integer::sum));
            String best = answers.get(0);
            for (var e : tally.entrySet()) {
                if (e.getValue() > tally.get(best)) {
                    best = e.getKey();
                }
            }
            return best;
        }
    }
}
