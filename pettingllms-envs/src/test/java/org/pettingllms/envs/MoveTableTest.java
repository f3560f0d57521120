package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.pettingllms.envs.planning.MoveTable;

class MoveTableTest {
    @Test
    void thePythonTupleIsTheTextTheShippedModelsWereShown() {
        assertThat(MoveTable.python(false, false)).isEqualTo("(('U',-1,0),('D',1,0),('L',0,-1),('R',0,1))");
        assertThat(MoveTable.python(true, false)).isEqualTo("(('U',1,0),('D',-1,0),('L',0,-1),('R',0,1))");
        assertThat(MoveTable.python(false, true)).isEqualTo("(('U',-1,0),('D',1,0),('L',0,1),('R',0,-1))");
        assertThat(MoveTable.python(true, true)).isEqualTo("(('U',1,0),('D',-1,0),('L',0,1),('R',0,-1))");
    }

    @Test
    void theStepsAreWhatTheTupleSays() {
        assertThat(MoveTable.steps(false, false)).isDeepEqualTo(new int[][] {{-1, 0}, {1, 0}, {0, -1}, {0, 1}});
        assertThat(MoveTable.steps(true, false)).isDeepEqualTo(new int[][] {{1, 0}, {-1, 0}, {0, -1}, {0, 1}});
        assertThat(MoveTable.steps(false, true)).isDeepEqualTo(new int[][] {{-1, 0}, {1, 0}, {0, 1}, {0, -1}});
    }
}
