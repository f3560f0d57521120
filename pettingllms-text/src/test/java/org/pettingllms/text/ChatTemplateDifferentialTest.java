package org.pettingllms.text;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.pettingllms.core.data.ChatMessage;
import org.pettingllms.testkit.SharedFiles;

/**
 * Chat templates render byte for byte as Python's Jinja2 renders them in transformers, and message text is data:
 * braces, block and comment markers, backslashes, LaTeX, unicode, whitespace, programs, long histories, thinking
 * on and off, with and without the generation prompt, for the Qwen3 template and three templates in the styles
 * of Llama 3 (bos token, trim filter, list slicing), Qwen2 (trim_blocks and lstrip_blocks doing the layout) and a
 * tojson / namespace one. The expected strings in {@code chat-templates/cases.json} were made by
 * {@code chat-templates/render_with_jinja2.py} (Jinja2 3.1.6, the environment transformers builds; see the
 * script); this test never runs Python.
 */
class ChatTemplateDifferentialTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TestFactory
    Stream<DynamicTest> rendersExactlyAsJinja2() throws IOException {
        JsonNode root = resource("cases.json");
        Map<String, ChatTemplate> templates = new HashMap<>();
        templates.put(
                "qwen3",
                ChatTemplate.load(SharedFiles.fixture("qwen3-tokenizer")).orElseThrow());
        for (String name : List.of("llama3-style", "qwen2-style", "tojson-style")) {
            Map<String, Object> tokens =
                    JSON.convertValue(root.path("specialTokens").path(name), Map.class);
            templates.put(name, new ChatTemplate(text(name + ".jinja"), tokens));
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : root.path("cases")) {
            String name =
                    c.path("template").asText() + " / " + c.path("conversation").asText()
                            + (c.path("addGenerationPrompt").asBoolean() ? " / generation prompt" : "")
                            + (c.path("extra").isEmpty() ? "" : " / " + c.path("extra"));
            tests.add(DynamicTest.dynamicTest(name, () -> {
                List<ChatMessage> messages = new ArrayList<>();
                for (JsonNode m : c.path("messages")) {
                    messages.add(new ChatMessage(
                            ChatMessage.Speaker.valueOf(m.path("role").asText().toUpperCase()),
                            m.path("content").asText()));
                }
                Map<String, Object> extra = JSON.convertValue(c.path("extra"), LinkedHashMap.class);
                String rendered = templates
                        .get(c.path("template").asText())
                        .render(messages, c.path("addGenerationPrompt").asBoolean(), extra);
                assertThat(rendered).isEqualTo(c.path("expected").asText());
            }));
        }
        assertThat(tests).hasSizeGreaterThan(100);
        return tests.stream();
    }

    static JsonNode resource(String name) throws IOException {
        return JSON.readTree(text(name));
    }

    static String text(String name) throws IOException {
        try (InputStream in = ChatTemplateDifferentialTest.class.getResourceAsStream("/chat-templates/" + name)) {
            if (in == null) {
                throw new IOException("missing test resource chat-templates/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
