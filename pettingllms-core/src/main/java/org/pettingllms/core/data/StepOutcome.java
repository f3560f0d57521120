package org.pettingllms.core.data;

/**
 * What a micro-step did, as a value: a model's bad output is never an exception.
 */
public enum StepOutcome {
    /** a well-formed action, applied */
    OK,
    /** well-formed but (partly) illegal: penalised, illegal parts skipped */
    INVALID_ACTION,
    /** the answer could not be parsed: penalised, state unchanged */
    UNPARSEABLE,
    /** the task was solved (terminal) */
    SOLVED,
    /** the task's own move or step budget ran out (terminal) */
    STEP_LIMIT
}
