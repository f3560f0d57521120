package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;

/**
 * DJL attaches an op's result to the manager of its first operand. Ops that start from a weight (a transpose
 * view, a stack of adapters) would leave their results in the model's long-lived manager; {@link #of} moves them
 * to the scope of the activation they are used with, so that closing the per-step manager frees everything.
 */
public final class Scope {
    private Scope() {}

    public static NDArray of(NDArray activation, NDArray fromWeight) {
        fromWeight.attach(activation.getManager());
        return fromWeight;
    }
}
