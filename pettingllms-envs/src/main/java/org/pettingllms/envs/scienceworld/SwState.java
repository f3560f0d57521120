package org.pettingllms.envs.scienceworld;

import java.util.List;

/**
 * An episode in ScienceWorld as a value: the task and variation, every action taken (the simulator is replayed to
 * them), what the last one showed, the score and whether the task ended, the planner's sub-goal, and the actions the
 * simulator admits now.
 */
public record SwState(
        String task,
        int variation,
        String description,
        List<String> actions,
        String observation,
        double score,
        boolean completed,
        String subgoal,
        List<String> valid) {
    public SwState {
        actions = List.copyOf(actions);
        valid = List.copyOf(valid);
    }

    SwState withSubgoal(String s) {
        return new SwState(task, variation, description, actions, observation, score, completed, s, valid);
    }
}
