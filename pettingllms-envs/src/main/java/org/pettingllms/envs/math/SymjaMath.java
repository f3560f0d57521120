package org.pettingllms.envs.math;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.matheclipse.core.eval.ExprEvaluator;
import org.matheclipse.core.expression.F;
import org.matheclipse.core.form.tex.TeXParser;
import org.matheclipse.core.interfaces.IExpr;
import org.matheclipse.core.interfaces.ISymbol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LaTeX equivalence through the Symja computer-algebra system. Symja's engine is bound to one thread and not
 * thread-safe, so all work runs on one daemon thread; each question has a deadline, after which the answer is
 * "unknown" (a runaway simplification never blocks a rollout) and the engine is replaced.
 */
final class SymjaMath {
    private static final Logger LOG = LoggerFactory.getLogger(SymjaMath.class);
    private static final SymjaMath INSTANCE = new SymjaMath();
    private static final double REL_TOL = AnswerChecker.REL_TOL;

    private ExecutorService thread = newThread();
    private ExprEvaluator evaluator;
    private TeXParser tex;

    static SymjaMath get() {
        return INSTANCE;
    }

    /** Whether two LaTeX expressions are equal; empty when Symja cannot parse one of them or time runs out. */
    Optional<Boolean> equal(String a, String b, Duration deadline) {
        return ask(() -> compare(a, b), deadline, a, b);
    }

    /**
     * Whether two expressions differ only by a non-zero constant factor ({@code 2x+4y-3} and {@code -4x-8y+6}):
     * equations {@code A = 0} and {@code B = 0} with that property have the same solutions.
     */
    Optional<Boolean> equalUpToFactor(String a, String b, Duration deadline) {
        return ask(() -> proportional(a, b), deadline, a, b);
    }

    /** The value of a constant expression ({@code 9\pi}, {@code \sqrt{2}/2}); empty with a variable or unread. */
    Optional<Double> value(String a, Duration deadline) {
        return ask(
                () -> {
                    IExpr x = parse(a);
                    return x == null || !variables(x).isEmpty() ? Optional.<Double>empty() : numeric(x);
                },
                deadline,
                a,
                "");
    }

    /** An expression that is {@code slope * v + intercept} in its one variable v (slope not zero). */
    record Linear(double slope, double intercept) {}

    /**
     * {@code a} as a line in its one variable ({@code 2x - 4}: slope 2, intercept -4), read from its values at three
     * points; empty when it has no variable or more than one, or is not linear.
     */
    Optional<Linear> linear(String a, Duration deadline) {
        return ask(
                () -> {
                    IExpr x = parse(a);
                    if (x == null) {
                        return Optional.<Linear>empty();
                    }
                    List<ISymbol> vars = variables(x);
                    if (vars.size() != 1) {
                        return Optional.<Linear>empty();
                    }
                    double[] v = new double[3];
                    for (int i = 0; i < 3; i++) {
                        Optional<Double> at = numeric(F.subst(x, vars.get(0), F.ZZ(i)));
                        if (at.isEmpty() || !Double.isFinite(at.get())) {
                            return Optional.<Linear>empty();
                        }
                        v[i] = at.get();
                    }
                    double slope = v[1] - v[0];
                    return slope != 0 && close(v[2] - v[1], slope)
                            ? Optional.of(new Linear(slope, v[0]))
                            : Optional.<Linear>empty();
                },
                deadline,
                a,
                "");
    }

    private synchronized <T> Optional<T> ask(Callable<Optional<T>> question, Duration deadline, String a, String b) {
        Future<Optional<T>> f = thread.submit(question);
        try {
            return f.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            LOG.debug("Symja gave no answer within {} for '{}' vs '{}'", deadline, a, b);
            thread.shutdownNow();
            thread = newThread();
            evaluator = null;
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (Exception e) {
            LOG.debug("Symja failed on {} vs {}", a, b, e);
            return Optional.empty();
        }
    }

    private Optional<Boolean> compare(String a, String b) {
        IExpr x = parse(a);
        IExpr y = parse(b);
        if (x == null || y == null) {
            return Optional.empty();
        }
        IExpr diff = evaluator.eval(F.Subtract(x, y));
        if (diff.isZero()) {
            return Optional.of(true);
        }
        List<ISymbol> vars = variables(diff);
        if (vars.isEmpty()) {
            Optional<Double> vx = numeric(x);
            Optional<Double> vy = numeric(y);
            if (vx.isPresent() && vy.isPresent()) {
                return Optional.of(close(vx.get(), vy.get()));
            }
            Optional<Double> d = numeric(diff); // for example (x + 1) - (x - 1) = 2
            return d.map(v -> Math.abs(v) < 1e-12);
        }
        if (evaluator.eval(F.Simplify(diff)).isZero()) {
            return Optional.of(true);
        }
        // numeric fallback: equal expressions agree at random points
        SplittableRandom rng = new SplittableRandom(vars.size());
        for (int trial = 0; trial < 3; trial++) {
            Optional<double[]> v = atRandomPoint(x, y, vars, rng);
            if (v.isEmpty() || !close(v.get()[0], v.get()[1])) {
                return Optional.of(false);
            }
        }
        return Optional.of(true);
    }

    /** The values of {@code x} and {@code y} at one random point of {@code vars} in [0.5, 3); empty if undefined. */
    private Optional<double[]> atRandomPoint(IExpr x, IExpr y, List<ISymbol> vars, SplittableRandom rng) {
        IExpr px = x;
        IExpr py = y;
        for (ISymbol v : vars) {
            IExpr point = F.num(0.5 + 2.5 * rng.nextDouble());
            px = F.subst(px, v, point);
            py = F.subst(py, v, point);
        }
        Optional<Double> vx = numeric(px);
        Optional<Double> vy = numeric(py);
        return vx.isEmpty() || vy.isEmpty() ? Optional.empty() : Optional.of(new double[] {vx.get(), vy.get()});
    }

    private Optional<Boolean> proportional(String a, String b) {
        IExpr x = parse(a);
        IExpr y = parse(b);
        if (x == null || y == null) {
            return Optional.empty();
        }
        if (x.isZero() || y.isZero()) {
            return Optional.of(x.isZero() && y.isZero());
        }
        IExpr q = evaluator.eval(F.Simplify(F.Divide(x, y)));
        if (variables(q).isEmpty()) {
            Optional<Double> k = numeric(q);
            if (k.isPresent() && k.get() != 0 && Double.isFinite(k.get())) {
                return Optional.of(true);
            }
        }
        // numeric fallback: the ratio is the same at random points
        List<ISymbol> vars = variables(evaluator.eval(F.Times(x, y)));
        SplittableRandom rng = new SplittableRandom(vars.size() + 7);
        Double ratio = null;
        for (int trial = 0; trial < 4; trial++) {
            Optional<double[]> v = atRandomPoint(x, y, vars, rng);
            if (v.isEmpty() || v.get()[1] == 0) {
                return Optional.empty();
            }
            double r = v.get()[0] / v.get()[1];
            if (r == 0 || !Double.isFinite(r) || (ratio != null && !close(r, ratio))) {
                return Optional.of(false);
            }
            ratio = r;
        }
        return Optional.of(true);
    }

    private IExpr parse(String latex) {
        if (evaluator == null) {
            evaluator = new ExprEvaluator();
            PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
            evaluator.getEvalEngine().setOutPrintStream(quiet);
            evaluator.getEvalEngine().setErrorPrintStream(quiet);
            evaluator.getEvalEngine().setQuietMode(true);
            tex = new TeXParser();
        }
        try {
            IExpr x = tex.parse(forSymja(latex));
            return x == null || x.toString().contains("$Aborted") ? null : evaluator.eval(x);
        } catch (RuntimeException | StackOverflowError e) {
            return null;
        }
    }

    /** Rewrites what Symja's TeX reader misreads: {@code n(n+1)} is a product, not a function call; binomials. */
    static String forSymja(String latex) {
        String s = latex.replaceAll("(?<![\\\\a-zA-Z])([a-zA-Z])\\s*\\(", "$1 \\\\cdot (");
        // \sin 2x is sin(2x) in LaTeX, not sin(2) x
        s = s.replaceAll(
                "\\\\(sin|cos|tan|sec|csc|cot|ln)\\s*(\\^\\s*(?:\\d|\\{\\d+\\}))?\\s*(\\d+[a-zA-Z])(?![a-zA-Z])",
                "\\\\$1$2{$3}");
        return s.replaceAll(
                "\\\\binom\\s*\\{([^{}]*)\\}\\s*\\{([^{}]*)\\}", "\\\\frac{($1)!}{($2)! \\\\cdot (($1)-($2))!}");
    }

    private Optional<Double> numeric(IExpr x) {
        try {
            double v = evaluator.evalf(x);
            return Double.isNaN(v) ? Optional.empty() : Optional.of(v);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The free symbols of {@code x}, also inside function terms ({@code Variables} lists {@code Sec(y)}, not y). */
    private List<ISymbol> variables(IExpr x) {
        List<ISymbol> out = new ArrayList<>();
        IExpr vs = evaluator.eval(F.Variables(x));
        if (vs.isList()) {
            for (int i = 1; i < vs.size(); i++) {
                IExpr v = vs.getAt(i);
                if (v instanceof ISymbol s) {
                    if (!out.contains(s)) {
                        out.add(s);
                    }
                } else if (v.isAST()) {
                    for (int j = 1; j < v.size(); j++) {
                        for (ISymbol s : variables(v.getAt(j))) {
                            if (!out.contains(s)) {
                                out.add(s);
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    static boolean close(double a, double b) {
        if (Double.isInfinite(a) || Double.isInfinite(b)) {
            return a == b;
        }
        return Math.abs(a - b) <= REL_TOL * Math.max(Math.abs(a), Math.abs(b)) + 1e-12;
    }

    private static ExecutorService newThread() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "symja");
            t.setDaemon(true);
            return t;
        });
    }
}
