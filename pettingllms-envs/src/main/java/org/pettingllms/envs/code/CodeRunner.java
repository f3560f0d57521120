package org.pettingllms.envs.code;

import java.util.ArrayList;
import java.util.List;
import org.pettingllms.envs.data.CodeItem;
import org.pettingllms.envs.data.CodeItem.TestCase;
import org.pettingllms.envs.sandbox.Execution;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/**
 * Runs programs on tests in the sandbox. Stdin/stdout tests compare whitespace-normalised output (split on
 * whitespace, joined with one space). Function problems (HumanEval) run the dataset's {@code check} harness for
 * the ground truth; a tester's function test is a call expression and the expected value as a Python expression.
 */
public final class CodeRunner {
    static final String PASS = "__PETTINGLLMS_PASS__";

    private final Sandbox sandbox;
    private final SandboxLimits limits;

    public CodeRunner(Sandbox sandbox, SandboxLimits limits) {
        this.sandbox = sandbox;
        this.limits = limits;
    }

    /** What a test did to a program. @param actual the program's output, or why it failed */
    public record Outcome(TestCase test, boolean passed, String actual) {
    }

    /** Fraction of the problem's ground-truth tests the program passes (at most {@code maxTests} of them). */
    public double groundTruth(String program, CodeItem item, int maxTests) {
        if (item.functional() != null) {
            CodeItem.Functional f = item.functional();
            Execution e = sandbox.run(program + "\n\n" + f.testCode() + "\n\ncheck(" + f.entryPoint() + ")\n", "", limits);
            return e.ok() ? 1.0 : 0.0;
        }
        List<TestCase> tests = item.tests().subList(0, Math.min(maxTests, item.tests().size()));
        return passRatio(run(program, tests, item));
    }

    /** The program on each test. */
    public List<Outcome> run(String program, List<TestCase> tests, CodeItem item) {
        List<Outcome> out = new ArrayList<>(tests.size());
        for (TestCase t : tests) {
            out.add(item.functional() != null ? callTest(program, t) : stdioTest(program, t));
        }
        return out;
    }

    public static double passRatio(List<Outcome> outcomes) {
        return outcomes.isEmpty() ? 0 : outcomes.stream().filter(Outcome::passed).count() / (double) outcomes.size();
    }

    private Outcome stdioTest(String program, TestCase t) {
        Execution e = sandbox.run(program, withNewline(t.input()), limits);
        if (!e.ok()) {
            return new Outcome(t, false, e.summary());
        }
        return new Outcome(t, normalize(e.stdout()).equals(normalize(t.output())), e.stdout());
    }

    private Outcome callTest(String program, TestCase t) {
        String harness = program + "\n\n__value = (" + t.input().strip() + ")\ntry:\n    __ok = __value == ("
                + t.output().strip() + ")\nexcept Exception:\n    __ok = False\nprint(repr(__value))\nif __ok:\n"
                + "    print('" + PASS + "')\n";
        Execution e = sandbox.run(harness, "", limits);
        if (!e.ok()) {
            return new Outcome(t, false, e.summary());
        }
        String printed = e.stdout().replace(PASS, "").strip();
        return new Outcome(t, e.stdout().contains(PASS), printed);
    }

    /** Whitespace-normalised text: split on whitespace, joined with one space. */
    public static String normalize(String s) {
        return String.join(" ", s.strip().split("\\s+"));
    }

    private static String withNewline(String s) {
        return s.endsWith("\n") ? s : s + "\n";
    }
}
