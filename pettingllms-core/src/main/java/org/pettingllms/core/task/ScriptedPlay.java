package org.pettingllms.core.task;

import java.util.List;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Problem;

/**
 * A task that can play itself without a model: for rollout demos ({@code rollout}), for checking the harness
 * ({@code evaluate --policy oracle|wrong}: a task that scores its own oracle below 100% is broken), for learning
 * checks ({@code train --scripted ROLE}) and as the source of supervised demonstrations when the task offers none
 * of its own ({@link Demonstrations#fromScripted}).
 */
public interface ScriptedPlay {
    /**
     * A policy for every role: right with probability {@code skill} (1: an oracle, 0: always wrong). Dataset tasks
     * look the reference answers of {@code problems} up (an empty list: it knows none).
     */
    TextPolicy scripted(double skill, List<Problem> problems);
}
