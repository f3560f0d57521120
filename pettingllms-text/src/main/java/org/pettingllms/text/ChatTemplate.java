package org.pettingllms.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import jinjava.javax.el.CompositeELResolver;
import org.pettingllms.core.data.ChatMessage;
import org.pettingllms.core.util.Brackets;

/**
 * A Hugging Face chat template ({@code chat_template} in {@code tokenizer_config.json}, or
 * {@code chat_template.jinja}), rendered with the Jinjava engine the way transformers renders it: blocks trimmed
 * and left-stripped, {@code raise_exception}, {@code strftime_now}, {@code tojson} as {@code json.dumps}
 * ({@link PythonJson}), {@code length} in code points, the special tokens, and the caller's extra variables (for example Qwen3's {@code enable_thinking}). Templates are written for Python's
 * Jinja2, so Python string methods are provided ({@link PythonStrings}) and two Jinja2 forms Jinjava's parser
 * rejects are rewritten before parsing (and, as Jinja2 does, one trailing newline of the source is dropped): the reversing slice {@code x[::-1]} becomes {@code (x|reverse)}, and
 * {@code namespace(...)} arguments are parenthesised ({@code last_query_index=messages|length - 1}).
 */
public final class ChatTemplate {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TOOLS_VARIABLE = Pattern.compile("\\btools\\b");
    private static final Pattern REVERSE_SLICE = Pattern.compile("([A-Za-z_][\\w.]*(?:\\([^()]*\\))?)\\[::-1\\]");

    private static final LegacyOverrides JINJA2 = LegacyOverrides.newBuilder()
            .withUseTrimmingForNotesAndExpressions(true)
            .withUseNaturalOperatorPrecedence(true)
            .withKeepNullableLoopValues(true)
            .build();

    private final String template;
    private final boolean readsTools;
    private final Map<String, Object> specialTokens;
    private final Jinjava jinjava;

    public ChatTemplate(String source, Map<String, Object> specialTokens) {
        this.template = rewrite(source);
        this.readsTools = TOOLS_VARIABLE.matcher(source).find();
        this.specialTokens = Map.copyOf(specialTokens);
        CompositeELResolver resolver = new CompositeELResolver();
        resolver.add(new PythonStrings());
        resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_ONLY);
        // Jinja2's own behaviour where Jinjava keeps older defaults: {{- -}} trimming, operator precedence
        // (messages|length - 1), null loop values; and values are data: Jinjava's nested interpretation would
        // render a message's own {{ }} and {% %} as template code (Jinja2 never does)
        this.jinjava = new Jinjava(JinjavaConfig.newBuilder()
                .withTrimBlocks(true)
                .withLstripBlocks(true)
                .withLegacyOverrides(JINJA2)
                .withElResolver(resolver)
                .withFailOnUnknownTokens(false)
                .withNestedInterpretationEnabled(false)
                .build());
        jinjava.getGlobalContext().registerFilter(new PythonFilters.ToJson());
        jinjava.getGlobalContext()
                .registerFilter(
                        new PythonFilters.Length(jinjava.getGlobalContext().getFilter("length")));
        try {
            jinjava.getGlobalContext()
                    .registerFunction(new ELFunctionDefinition(
                            "", "raise_exception", ChatTemplate.class.getMethod("raiseException", String.class)));
            jinjava.getGlobalContext()
                    .registerFunction(new ELFunctionDefinition(
                            "", "strftime_now", ChatTemplate.class.getMethod("strftimeNow", String.class)));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The chat template of a model directory, if it has one. */
    public static Optional<ChatTemplate> load(Path modelDir) throws IOException {
        Path config = modelDir.resolve("tokenizer_config.json");
        Map<String, Object> tokens = new HashMap<>();
        String source = null;
        if (Files.exists(config)) {
            JsonNode c = JSON.readTree(config.toFile());
            for (String name : List.of("bos_token", "eos_token", "pad_token", "unk_token")) {
                JsonNode t = c.get(name);
                if (t != null && !t.isNull()) {
                    tokens.put(name, t.isObject() ? t.path("content").asText() : t.asText());
                }
            }
            JsonNode t = c.get("chat_template");
            if (t != null && t.isTextual()) {
                source = t.asText();
            } else if (t != null && t.isArray()) { // named templates: take "default"
                for (JsonNode named : t) {
                    if ("default".equals(named.path("name").asText())) {
                        source = named.path("template").asText();
                    }
                }
            }
        }
        Path jinja = modelDir.resolve("chat_template.jinja");
        if (source == null && Files.exists(jinja)) {
            source = Files.readString(jinja);
        }
        return source == null ? Optional.empty() : Optional.of(new ChatTemplate(source, tokens));
    }

    /** Renders {@code messages} (with the assistant's opening when {@code addGenerationPrompt}). */
    public String render(List<ChatMessage> messages, boolean addGenerationPrompt, Map<String, Object> extra) {
        List<Map<String, Object>> msgs = new ArrayList<>(messages.size());
        for (ChatMessage m : messages) {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("role", m.speaker().name().toLowerCase(Locale.ROOT));
            if (m.images().isEmpty()) {
                map.put("content", m.content());
            } else {
                // content parts as chat APIs send them: the images, then the text; a vision-language model's
                // template writes each image's placeholder (Qwen2.5-VL: <|vision_start|><|image_pad|><|vision_end|>)
                List<Map<String, Object>> parts = new ArrayList<>();
                m.images().forEach(i -> parts.add(Map.of("type", "image")));
                parts.add(Map.of("type", "text", "text", m.content()));
                map.put("content", parts);
            }
            msgs.add(map);
        }
        return renderMessages(msgs, addGenerationPrompt, extra);
    }

    /**
     * Renders messages given as the template reads them (an OpenAI request's messages: {@code role},
     * {@code content}, an assistant's {@code tool_calls}, a tool answer's {@code tool_call_id}); {@code extra} holds
     * further variables such as {@code tools}.
     */
    public String renderMessages(
            List<Map<String, Object>> msgs, boolean addGenerationPrompt, Map<String, Object> extra) {
        Map<String, Object> ctx = new HashMap<>(specialTokens);
        ctx.putAll(extra);
        ctx.put("messages", msgs);
        ctx.put("add_generation_prompt", addGenerationPrompt);
        RenderResult r = jinjava.renderForResult(template, ctx);
        List<TemplateError> fatal = r.getErrors().stream()
                .filter(e -> e.getSeverity() == TemplateError.ErrorType.FATAL)
                .toList();
        if (!fatal.isEmpty()) {
            TemplateError e = fatal.get(0);
            Throwable cause = e.getException();
            while (cause != null && cause.getCause() != null) {
                cause = cause.getCause();
            }
            String why = cause instanceof IllegalArgumentException && cause.getMessage() != null
                    ? cause.getMessage()
                    : e.getMessage();
            throw new IllegalArgumentException("chat template failed at line " + e.getLineno() + ": " + why
                    + (fatal.size() > 1 ? " (and " + (fatal.size() - 1) + " more errors)" : ""));
        }
        return r.getOutput();
    }

    /** Whether the template reads a {@code tools} variable (then it can describe tools to the model). */
    public boolean readsTools() {
        return readsTools;
    }

    /** Called by templates to reject a conversation. */
    public static String raiseException(String message) {
        throw new IllegalArgumentException("the chat template rejected the conversation: " + message);
    }

    /** Python's {@code strftime} for the few codes templates use. */
    public static String strftimeNow(String format) {
        LocalDateTime now = LocalDateTime.now();
        return format.replace("%Y", now.format(DateTimeFormatter.ofPattern("yyyy")))
                .replace("%m", now.format(DateTimeFormatter.ofPattern("MM")))
                .replace("%d", now.format(DateTimeFormatter.ofPattern("dd")))
                .replace("%b", now.format(DateTimeFormatter.ofPattern("MMM", Locale.ENGLISH)))
                .replace("%B", now.format(DateTimeFormatter.ofPattern("MMMM", Locale.ENGLISH)))
                .replace("%H", now.format(DateTimeFormatter.ofPattern("HH")))
                .replace("%M", now.format(DateTimeFormatter.ofPattern("mm")));
    }

    /** The Jinja2-to-Jinjava source rewrites described on the class. */
    static String rewrite(String source) {
        // Jinja2 drops a template's single trailing newline (keep_trailing_newline=False); Jinjava keeps it
        String trimmed = source.endsWith("\r\n")
                ? source.substring(0, source.length() - 2)
                : source.endsWith("\n") ? source.substring(0, source.length() - 1) : source;
        String s = REVERSE_SLICE.matcher(trimmed).replaceAll("($1|reverse)");
        StringBuilder out = new StringBuilder();
        int from = 0;
        for (int at; (at = s.indexOf("namespace(", from)) >= 0; ) {
            int open = at + "namespace(".length() - 1;
            int close = Brackets.CODE.closing(s, open);
            if (close < 0) {
                break;
            }
            out.append(s, from, open + 1);
            List<String> args = topLevelCommaSplit(s.substring(open + 1, close));
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                int eq = a.indexOf('=');
                out.append(i > 0 ? ", " : "");
                out.append(
                        eq > 0 && a.substring(0, eq).strip().matches("\\w+") && a.charAt(eq + 1) != '='
                                ? a.substring(0, eq).strip() + "=("
                                        + a.substring(eq + 1).strip() + ")"
                                : a.strip());
            }
            out.append(')');
            from = close + 1;
        }
        return out.append(s.substring(from)).toString();
    }

    /** The arguments of a call, outside brackets and string literals; a blank last one (a trailing comma) dropped. */
    private static List<String> topLevelCommaSplit(String s) {
        List<String> parts = new ArrayList<>(Brackets.CODE.split(s, ","));
        if (parts.get(parts.size() - 1).isBlank()) {
            parts.remove(parts.size() - 1);
        }
        return parts;
    }
}
