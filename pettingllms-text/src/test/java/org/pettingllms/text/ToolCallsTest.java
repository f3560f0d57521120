package org.pettingllms.text;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Hermes-format tool calls read back from an answer, as vLLM's parser reads them. */
class ToolCallsTest {

    @Test
    void callsAfterTheContentAreReadWithTheirArgumentsAsJson() {
        ToolCalls t = ToolCalls.parse("Let me look.\n<tool_call>\n{\"name\": \"move\", \"arguments\": {\"dir\": \"U\","
                + " \"n\": 2}}\n</tool_call>\n<tool_call>\n{\"name\": \"look\", \"arguments\": {}}\n</tool_call>");
        assertThat(t.content()).isEqualTo("Let me look.");
        assertThat(t.calls()).extracting(ToolCalls.Call::name).containsExactly("move", "look");
        assertThat(t.calls().get(0).arguments()).isEqualTo("{\"dir\":\"U\",\"n\":2}");
        assertThat(t.calls().get(1).arguments()).isEqualTo("{}");
    }

    @Test
    void aCallOnlyAnswerHasNoContentAndACallCutByTheBudgetStillCounts() {
        ToolCalls t = ToolCalls.parse("<tool_call>{\"name\": \"look\", \"arguments\": \"{\\\"x\\\": 1}\"}");
        assertThat(t.content()).isNull();
        assertThat(t.calls()).singleElement().satisfies(c -> {
            assertThat(c.name()).isEqualTo("look");
            assertThat(c.arguments()).as("string arguments are passed as sent").isEqualTo("{\"x\": 1}");
        });
    }

    @Test
    void textWithoutCallsOrWithABrokenCallIsAllContent() {
        assertThat(ToolCalls.parse("just text").calls()).isEmpty();
        String broken = "I will <tool_call>{\"name\": look}</tool_call>";
        ToolCalls t = ToolCalls.parse(broken);
        assertThat(t.calls()).isEmpty();
        assertThat(t.content()).isEqualTo(broken);
        assertThat(ToolCalls.parse("<tool_call>{\"arguments\": {}}</tool_call>").calls())
                .as("a call needs a name")
                .isEmpty();
    }
}
