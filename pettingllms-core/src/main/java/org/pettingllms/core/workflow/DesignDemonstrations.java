package org.pettingllms.core.workflow;

import java.util.SplittableRandom;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.Demonstrations;

/**
 * A design task that offers a warm-up ({@code sft} on a designed system, docs/WORKFLOWS.md): the random valid designs
 * the designer is shown, and a scripted executor whose replies, deliberately imperfect, the executors learn from.
 * {@link DesignedSystem#demonstrations} runs each drawn design with the scripted executor and keeps every call.
 */
public interface DesignDemonstrations {
    /**
     * A scripted reply.
     *
     * @param text    what the executor writes
     * @param printed what its program prints when a tool runs it (the warm-up runs no program; {@code ""}: none)
     */
    record Reply(String text, String printed) {}

    /** The agent lines random designs are made of. */
    RandomDesigns designs();

    /** The scripted executor's reply to {@code call} on {@code problem}, imperfect at the rates of {@code settings}. */
    Reply reply(Problem problem, WorkflowRunner.Call call, Demonstrations.Settings settings, SplittableRandom rng);
}
