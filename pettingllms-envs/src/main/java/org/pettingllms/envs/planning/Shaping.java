package org.pettingllms.envs.planning;

/**
 * How a move game turns a potential {@code phi} (higher is closer to solved) into a per-move shaping reward
 * ({@code task.options.shaping}).
 *
 * <p>{@link #TELESCOPING} pays {@code phi(next) - phi(cur)}: over any answer the shaping sums to {@code phi(end) -
 * phi(start)}, so it depends only on where the answer ends, never on the way there, and a detour or a loop earns
 * nothing (Ng, Harada and Russell 1999, with the discount the return uses, which is 1 here). {@link #REFERENCE}
 * pays {@code 0.99 * phi(next) - phi(cur)} as the reference implementation does; with the undiscounted return it
 * pays {@code -0.01 * phi(next) > 0} on every move away from the goal region, so a loop at distance d earns about
 * {@code 0.02 * d}, and on large boards a wandering successful answer out-earns the shortest one. Kept for
 * comparisons with the reference only.
 */
public enum Shaping {
    TELESCOPING(1.0),
    REFERENCE(0.99);

    private final double gamma;

    Shaping(double gamma) {
        this.gamma = gamma;
    }

    /** The shaping reward of one move from potential {@code phiCur} to {@code phiNext}. */
    public double reward(double phiCur, double phiNext) {
        return gamma * phiNext - phiCur;
    }
}
