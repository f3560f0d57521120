package org.pettingllms.core.backend;

/** Specialisation levels (AT-GRPO.md, "Policies and specialisation levels"). */
public enum Level {
    /** single agent: one role, one model */
    L0,
    /** one shared model for all roles; roles differ by prompt */
    L1,
    /** one base model with one LoRA adapter per role */
    L2,
    /** one model per role */
    L3
}
