package org.pettingllms.langchain4j;

import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/**
 * One model call of a program run: the role that made it, the policy that answered, what it was asked, and the
 * answer with the token ids that were sampled (what training uses; the text is never tokenised again).
 */
public record ProgramCall(String role, PolicyRef policy, Prompt prompt, Completion completion) {}
