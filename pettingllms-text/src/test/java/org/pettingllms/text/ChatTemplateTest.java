package org.pettingllms.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.ChatMessage;
import org.pettingllms.testkit.SharedFiles;

/**
 * The Qwen3 chat template renders exactly as transformers renders it. The expected strings were produced by
 * Python's Jinja2 3.1 with transformers' settings (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks,
 * loopcontrols, tojson) from the fixture's tokenizer_config.json.
 */
class ChatTemplateTest {
    static ChatTemplate qwen3() throws Exception {
        return ChatTemplate.load(SharedFiles.fixture("qwen3-tokenizer")).orElseThrow();
    }

    @Test
    void systemAndUserWithTheGenerationPrompt() throws Exception {
        assertThat(qwen3().render(
                                List.of(
                                        ChatMessage.system(
                                                "You are a helpful assistant that solves math problems step by step."),
                                        ChatMessage.user("Problem:\nWhat is 1+1?\n\nPlease think step by step.")),
                                true,
                                Map.of()))
                .isEqualTo(
                        "<|im_start|>system\nYou are a helpful assistant that solves math problems step by step.<|im_end|>\n<|im_start|>user\nProblem:\nWhat is 1+1?\n\nPlease think step by step.<|im_end|>\n<|im_start|>assistant\n");
    }

    /** Qwen2-VL's and Qwen2.5-VL's chat template, as their tokenizer_config.json carries it. */
    static final String QWEN2_VL =
            "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
                    + "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}<|im_start|>system\n"
                    + "You are a helpful assistant.<|im_end|>\n{% endif %}<|im_start|>{{ message['role'] }}\n"
                    + "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n{% else %}"
                    + "{% for content in message['content'] %}{% if content['type'] == 'image' or 'image' in content or "
                    + "'image_url' in content %}{% set image_count.value = image_count.value + 1 %}{% if add_vision_id %}"
                    + "Picture {{ image_count.value }}: {% endif %}<|vision_start|><|image_pad|><|vision_end|>"
                    + "{% elif content['type'] == 'video' or 'video' in content %}{% set video_count.value = "
                    + "video_count.value + 1 %}{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}"
                    + "<|vision_start|><|video_pad|><|vision_end|>{% elif 'text' in content %}{{ content['text'] }}{% endif %}"
                    + "{% endfor %}<|im_end|>\n{% endif %}{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n"
                    + "{% endif %}";

    @Test
    void imagesRenderAsContentPartsBeforeTheText() {
        ChatTemplate t = new ChatTemplate(QWEN2_VL, Map.of());
        org.pettingllms.core.data.Image board = org.pettingllms.core.data.Image.png(new byte[] {1, 2});
        org.pettingllms.core.data.Image other = org.pettingllms.core.data.Image.png(new byte[] {3});
        assertThat(t.render(List.of(ChatMessage.user("Where is the goal?", List.of(board, other))), true, Map.of()))
                .isEqualTo("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
                        + "<|vision_start|><|image_pad|><|vision_end|><|vision_start|><|image_pad|><|vision_end|>"
                        + "Where is the goal?<|im_end|>\n<|im_start|>assistant\n");
        // text messages stay strings
        assertThat(t.render(List.of(ChatMessage.user("Hi")), false, Map.of()))
                .endsWith("<|im_start|>user\nHi<|im_end|>\n");
    }

    @Test
    void thinkingCanBeSwitchedOff() throws Exception {
        assertThat(qwen3().render(List.of(ChatMessage.user("Hi")), true, Map.of("enable_thinking", false)))
                .isEqualTo("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
    }

    @Test
    void earlierReasoningIsDroppedInMultiTurnConversations() throws Exception {
        assertThat(qwen3().render(
                                List.of(
                                        ChatMessage.system("SYS"),
                                        ChatMessage.user("Hi there"),
                                        ChatMessage.assistant("<think>\nhmm\n</think>\n\nHello!"),
                                        ChatMessage.user("Again")),
                                true,
                                Map.of()))
                .isEqualTo(
                        "<|im_start|>system\nSYS<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nAgain<|im_end|>\n<|im_start|>assistant\n");
    }

    @Test
    void aFinalAssistantTurnWithoutTheGenerationPrompt() throws Exception {
        assertThat(qwen3().render(List.of(ChatMessage.user("Q"), ChatMessage.assistant("A")), false, Map.of()))
                .isEqualTo(
                        "<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nA<|im_end|>\n");
    }

    @Test
    void everyShippedMathProblemReachesThePromptUnchanged() throws Exception {
        // Minerva's LaTeX has {{ }} in some problems; message text is data, never template code
        ObjectMapper json = new ObjectMapper();
        ChatTemplate t = qwen3();
        int braces = 0;
        for (String line : Files.readAllLines(SharedFiles.shared().resolve("datasets/math/minerva_math.test.jsonl"))) {
            String problem = json.readTree(line).path("problem").asText();
            String solution = json.readTree(line).path("solution").asText();
            braces += (problem + solution).contains("{{") ? 1 : 0;
            assertThat(t.render(
                            List.of(ChatMessage.user(problem), ChatMessage.assistant(solution)),
                            false,
                            Map.of("enable_thinking", false)))
                    .isEqualTo("<|im_start|>user\n" + problem + "<|im_end|>\n<|im_start|>assistant\n<think>\n\n"
                            + "</think>\n\n" + solution + "<|im_end|>\n");
        }
        assertThat(braces).isEqualTo(12);
    }

    @Test
    void pythonStringMethodsAndTemplateErrors() {
        ChatTemplate t = new ChatTemplate(
                "{{ messages[0].content.strip().split(',')[-1].upper() }}"
                        + "{% if messages[0].content.startswith(' a') %}!{% endif %}"
                        + "{% if messages|length > 1 %}{{ raise_exception('one message only') }}{% endif %}",
                Map.of());
        assertThat(t.render(List.of(ChatMessage.user(" a.b,c.d ")), false, Map.of()))
                .isEqualTo("C.D!");
        assertThatThrownBy(() -> t.render(List.of(ChatMessage.user("x"), ChatMessage.user("y")), false, Map.of()))
                .hasMessageContaining("one message only");
    }
}
