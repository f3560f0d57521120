package org.pettingllms.envs.code;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.pettingllms.envs.code.CodeItem.TestCase;
import org.pettingllms.envs.sandbox.Execution;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/**
 * Runs programs on tests in the sandbox. Stdin/stdout tests compare whitespace-normalised output (split on
 * whitespace, joined with one space). Function problems (HumanEval) run the dataset's {@code check} harness for
 * the ground truth; a tester's function test is a call expression and the expected value as a Python expression.
 * Generated function problems ({@code FunctionTasks}) carry call tests as their ground truth, graded by pass ratio.
 * A program's call tests run in one process (each test caught on its own); only when that process dies before
 * the tests have all answered (a timeout, an exit) does each test get a process of its own.
 */
public final class CodeRunner {
    static final String PASS = "__PETTINGLLMS_PASS__";
    private static final String MARK = "__PETTINGLLMS_TEST_";

    private final Sandbox sandbox;
    private final SandboxLimits limits;

    public CodeRunner(Sandbox sandbox, SandboxLimits limits) {
        this.sandbox = sandbox;
        this.limits = limits;
    }

    /** What a test did to a program. @param actual the program's output, or why it failed */
    public record Outcome(TestCase test, boolean passed, String actual) {}

    /** Fraction of the problem's ground-truth tests the program passes (at most {@code maxTests} of them). */
    public double groundTruth(String program, CodeItem item, int maxTests) {
        if (item.functional() != null && item.tests().isEmpty()) {
            CodeItem.Functional f = item.functional();
            Execution e =
                    sandbox.run(program + "\n\n" + f.testCode() + "\n\ncheck(" + f.entryPoint() + ")\n", "", limits);
            return e.ok() ? 1.0 : 0.0;
        }
        List<TestCase> tests =
                item.tests().subList(0, Math.min(maxTests, item.tests().size()));
        return passRatio(run(program, tests, item));
    }

    /** Whether {@code text} is Python at all (it compiles); the program is read from stdin and never run. */
    public boolean compiles(String text) {
        Execution e = sandbox.run("import sys\ncompile(sys.stdin.read(), 'program', 'exec')\n", text, limits);
        return e.ok();
    }

    /** The program on each test. */
    public List<Outcome> run(String program, List<TestCase> tests, CodeItem item) {
        if (item.functional() != null && !tests.isEmpty()) {
            List<Outcome> batch = callTests(program, tests);
            if (batch != null) {
                return batch;
            }
        }
        List<Outcome> out = new ArrayList<>(tests.size());
        for (TestCase t : tests) {
            out.add(item.functional() != null ? callTest(program, t) : stdioTest(program, t));
        }
        return out;
    }

    /**
     * All call tests in one process: each evaluated and compared inside its own {@code try}, one marked line per
     * test. Null when the process stopped before every test had answered (then each gets a process of its own);
     * when the program failed before any test ran (a syntax error, an exception at module level), every test
     * fails with that error.
     */
    private List<Outcome> callTests(String program, List<TestCase> tests) {
        // a fresh mark per run: a program cannot print a test's result line without knowing it
        String runMark = MARK + UUID.randomUUID().toString().replace("-", "") + "_";
        StringBuilder h = new StringBuilder(program).append("\n\n");
        for (int i = 0; i < tests.size(); i++) {
            TestCase t = tests.get(i);
            String mark = "'" + runMark + i + " ";
            h.append("try:\n    __value = eval(")
                    .append(pythonString(t.input().strip()))
                    .append(")\n")
                    .append("    try:\n        __ok = bool(__value == eval(")
                    .append(pythonString(t.output().strip()))
                    .append("))\n    except Exception:\n        __ok = False\n")
                    .append("    print(")
                    .append(mark)
                    .append("' + ('1 ' if __ok else '0 ') + repr(__value).replace('\\n', ' '))\n")
                    .append("except Exception as __e:\n    print(")
                    .append(mark)
                    .append("0 ' + type(__e).__name__ + ': ' + str(__e).replace('\\n', ' '))\n");
        }
        Execution e = sandbox.run(h.toString(), "", limits);
        Outcome[] out = new Outcome[tests.size()];
        int answered = 0;
        for (String line : e.stdout().split("\n")) {
            if (!line.startsWith(runMark)) {
                continue;
            }
            String[] parts = line.substring(runMark.length()).split(" ", 3);
            int i = Integer.parseInt(parts[0]);
            if (i < out.length && out[i] == null && parts.length == 3) {
                out[i] = new Outcome(tests.get(i), parts[1].equals("1"), parts[2]);
                answered++;
            }
        }
        if (answered == out.length && e.ok()) {
            return List.of(out);
        }
        if (answered == 0 && e.status() == Execution.Status.ERROR) {
            return tests.stream().map(t -> new Outcome(t, false, e.summary())).toList();
        }
        return null;
    }

    private static String pythonString(String s) {
        return "'"
                + s.replace("\\", "\\\\")
                        .replace("'", "\\'")
                        .replace("\n", "\\n")
                        .replace("\r", "\\r") + "'";
    }

    public static double passRatio(List<Outcome> outcomes) {
        return outcomes.isEmpty()
                ? 0
                : outcomes.stream().filter(Outcome::passed).count() / (double) outcomes.size();
    }

    private Outcome stdioTest(String program, TestCase t) {
        Execution e = sandbox.run(program, withNewline(t.input()), limits);
        if (!e.ok()) {
            return new Outcome(t, false, e.summary());
        }
        return new Outcome(t, normalize(e.stdout()).equals(normalize(t.output())), e.stdout());
    }

    private Outcome callTest(String program, TestCase t) {
        String pass = PASS + UUID.randomUUID().toString().replace("-", ""); // unknown to the program: unforgeable
        String harness = program + "\n\n__value = (" + t.input().strip() + ")\ntry:\n    __ok = __value == ("
                + t.output().strip() + ")\nexcept Exception:\n    __ok = False\nprint(repr(__value))\nif __ok:\n"
                + "    print('" + pass + "')\n";
        Execution e = sandbox.run(harness, "", limits);
        if (!e.ok()) {
            return new Outcome(t, false, e.summary());
        }
        String printed = e.stdout().replace(pass, "").strip();
        return new Outcome(t, e.stdout().contains(pass), printed);
    }

    /** Whitespace-normalised text: split on whitespace, joined with one space. */
    public static String normalize(String s) {
        return String.join(" ", s.strip().split("\\s+"));
    }

    private static String withNewline(String s) {
        return s.endsWith("\n") ? s : s + "\n";
    }
}
