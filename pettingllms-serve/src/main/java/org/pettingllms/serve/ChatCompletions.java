package org.pettingllms.serve;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.EventStream;
import org.pettingllms.http.Fields;
import org.pettingllms.http.Http;
import org.pettingllms.http.Reply;
import org.pettingllms.text.ChatTemplate;
import org.pettingllms.text.ToolCalls;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.InputEncoder;
import org.pettingllms.torch.train.SequenceBatch;

/**
 * {@code /v1/chat/completions}: the messages (text, text parts, and for a vision-language model {@code image_url}
 * parts with {@code data:} URLs; system, developer, user, assistant with tool
 * calls, tool answers) through the model's chat template, with {@code tools} and {@code chat_template_kwargs} as
 * template variables; tool calls read back from the answer ({@link ToolCalls}); the sampled tokens' logprobs and
 * ids; the same as a stream of chunks. Fields the engine cannot honour are refused by name, never ignored.
 */
final class ChatCompletions {
    private static final Set<String> FIELDS = Set.of(
            "model",
            "messages",
            "n",
            "max_tokens",
            "max_completion_tokens",
            "temperature",
            "top_p",
            "top_k",
            "seed",
            "stop",
            "logprobs",
            "top_logprobs",
            "return_token_ids",
            "stream",
            "stream_options",
            "user",
            "metadata",
            "store",
            "presence_penalty",
            "frequency_penalty",
            "repetition_penalty",
            "logit_bias",
            "tools",
            "tool_choice",
            "parallel_tool_calls",
            "response_format",
            "chat_template_kwargs");
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
    private final Generation g;

    /** The base model's id as clients know it: what messages name (never its local path). */
    private final String servedName;

    ChatCompletions(Generation g, String servedName) {
        this.g = g;
        this.servedName = servedName;
    }

    Reply answer(JsonNode body, Function<String, PolicyRef> policies) {
        Fields.onlyKnown(body, FIELDS, "/v1/chat/completions");
        Answers a = generate(body, policies);
        return a.streaming().on()
                ? Reply.stream(
                        stream(a.shape(), a.out(), a.answers(), a.streaming().usage()))
                : Reply.json(whole(a.shape(), a.out(), a.answers()));
    }

    /** A chat request's candidates, each read for tool calls, what its answer is to hold, and how to send it. */
    record Answers(Shape shape, List<Completion> out, List<ToolCalls> answers, Fields.Streaming streaming) {}

    /** Samples a chat request (its fields checked; the route's own check of unknown fields comes first). */
    Answers generate(JsonNode body, Function<String, PolicyRef> policies) {
        Fields.neutralPenalties(body);
        Fields.onlyNoOp(
                body,
                "response_format",
                v -> v.path("type").asText().equals("text"),
                "only {\"type\": \"text\"}: this server does not constrain answers to JSON");
        Fields.onlyNoOp(body, "store", v -> v.isBoolean() && !v.asBoolean(), "this server stores no completions");
        String name = body.hasNonNull("model") ? Fields.text(body, "model", "") : null;
        PolicyRef policy = policies.apply(name);
        ChatTemplate template = g.codec
                .chatTemplate()
                .orElseThrow(() -> BadRequest.field(
                        "messages",
                        "the model has no chat template (chat_template in its tokenizer_config.json, or a"
                                + " chat_template.jinja file); send a text or token-id prompt to /v1/completions"));
        List<Image> images = new ArrayList<>();
        List<Map<String, Object>> messages = messages(body.get("messages"), images);
        // a text model is told before its template sees content parts it may not read
        InputEncoder encoder =
                images.isEmpty() ? null : encoderFor(policy, name == null ? servedName : name, body.get("messages"));
        Map<String, Object> variables = new HashMap<>();
        JsonNode kwargs = body.get("chat_template_kwargs");
        if (kwargs != null && !kwargs.isNull()) {
            if (!kwargs.isObject()) {
                throw BadRequest.field("chat_template_kwargs", "expected an object");
            }
            variables.putAll(Http.JSON.convertValue(kwargs, MAP));
            for (String own : List.of("messages", "tools", "add_generation_prompt")) {
                if (variables.containsKey(own)) {
                    throw BadRequest.field("chat_template_kwargs", "'" + own + "' is set by the request itself");
                }
            }
        }
        boolean tools = tools(body, template, variables);
        String text;
        try {
            text = template.renderMessages(messages, true, variables);
        } catch (IllegalArgumentException e) {
            throw BadRequest.field("messages", e.getMessage());
        }
        int[] ids = g.codec.encode(text);
        if (!images.isEmpty()) {
            try {
                ids = encoder.expand(ids, images, "messages");
            } catch (IllegalArgumentException e) { // an image that does not decode, or an aspect ratio over 200
                throw BadRequest.field(firstImageField(body.get("messages")), e.getMessage());
            }
        }
        int n = Fields.integer(body, "n", 1, 1, Fields.MAX_N);
        int maxTokens = body.hasNonNull("max_completion_tokens")
                ? Fields.integer(body, "max_completion_tokens", 256, 0, Fields.MAX_TOKENS)
                : Fields.integer(body, "max_tokens", 256, 0, Fields.MAX_TOKENS);
        SamplingParams params = g.params(body, maxTokens, "seed");
        boolean logprobs = Fields.bool(body, "logprobs", false);
        int top = Fields.integer(body, "top_logprobs", 0, 0, Generation.MAX_TOP_LOGPROBS);
        if (top > 0 && !logprobs) {
            throw BadRequest.field("top_logprobs", "needs logprobs: true");
        }
        boolean tokenIds = Fields.bool(body, "return_token_ids", false);
        boolean oneCall = !Fields.bool(body, "parallel_tool_calls", true);
        Fields.Streaming streaming = Fields.Streaming.of(body);
        List<Completion> out;
        try {
            out = g.sample(policy, ids, images, n, params, maxTokens);
        } catch (IllegalArgumentException e) { // a prompt the engine refuses (longer than the model's context)
            throw BadRequest.field("messages", e.getMessage());
        }
        List<ToolCalls> answers = new ArrayList<>(out.size());
        for (Completion c : out) {
            ToolCalls t = tools ? ToolCalls.parse(c.text()) : ToolCalls.none(c.text());
            answers.add(oneCall ? t.firstCallOnly() : t);
        }
        List<SequenceBatch.Top> tops = top > 0
                ? g.tops(
                        policy,
                        ids,
                        images,
                        out.stream().map(c -> c.tokens().toArray()).toList(),
                        top)
                : null;
        Shape shape = new Shape("chatcmpl-" + UUID.randomUUID(), name, ids, logprobs, tops, tokenIds);
        return new Answers(shape, out, answers, streaming);
    }

    /** What a request asked the answer to hold. */
    record Shape(
            String id, String name, int[] prompt, boolean logprobs, List<SequenceBatch.Top> tops, boolean tokenIds) {
        /** Completion {@code i}'s top tokens, or null when none were asked for. */
        SequenceBatch.Top top(int i) {
            return tops == null ? null : tops.get(i);
        }
    }

    /** The model's image input; a text model refuses the first image part by name. */
    private InputEncoder encoderFor(PolicyRef policy, String served, JsonNode msgs) {
        DecoderModel model = g.engine.registry().model(policy.model());
        InputEncoder encoder = model.inputEncoder();
        if (encoder == null) {
            throw BadRequest.field(
                    firstImageField(msgs),
                    "model '" + served + "' (model_type " + model.config().modelType() + ") takes no images");
        }
        return encoder;
    }

    /** Where the first image part is, for a model that takes none. */
    private static String firstImageField(JsonNode msgs) {
        for (int i = 0; i < msgs.size(); i++) {
            JsonNode c = msgs.get(i).path("content");
            for (int j = 0; c.isArray() && j < c.size(); j++) {
                if (c.get(j).path("type").asText().equals("image_url")) {
                    return "messages[" + i + "].content[" + j + "]";
                }
            }
        }
        return "messages";
    }

    /** OpenAI's messages as the template reads them; their images, in order, go to {@code images}. */
    private static List<Map<String, Object>> messages(JsonNode msgs, List<Image> images) {
        if (msgs == null || !msgs.isArray() || msgs.isEmpty()) {
            throw BadRequest.field("messages", "required: a non-empty list of {role, content}");
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < msgs.size(); i++) {
            String at = "messages[" + i + "]";
            JsonNode m = msgs.get(i);
            if (!m.isObject()) {
                throw BadRequest.field(at, "expected an object {role, content}");
            }
            String role = m.path("role").asText("");
            Map<String, Object> map = new LinkedHashMap<>();
            switch (role) {
                case "system", "developer", "user", "assistant", "tool" ->
                    map.put("role", role.equals("developer") ? "system" : role);
                default ->
                    throw BadRequest.field(
                            at + ".role", "expected system, developer, user, assistant or tool, got '" + role + "'");
            }
            boolean calls = role.equals("assistant")
                    && m.path("tool_calls").isArray()
                    && !m.path("tool_calls").isEmpty();
            map.put("content", content(m.get("content"), at + ".content", calls, images));
            if (m.hasNonNull("name")) {
                map.put("name", m.get("name").asText());
            }
            if (calls) {
                map.put("tool_calls", toolCalls(m.get("tool_calls"), at + ".tool_calls"));
            }
            if (role.equals("tool")) {
                if (!m.path("tool_call_id").isTextual()) {
                    throw BadRequest.field(at + ".tool_call_id", "required for a tool message");
                }
                map.put("tool_call_id", m.get("tool_call_id").asText());
            }
            out.add(map);
        }
        return out;
    }

    /**
     * A string, or a list of text parts (joined by newlines, as vLLM joins them); none for a call-only answer. With
     * {@code image_url} parts (a {@code data:} URL each; remote URLs are refused), the parts as a chat template
     * reads them ({@code {"type": "image"}} where each image was, the text parts between), the images to
     * {@code images}.
     */
    private static Object content(JsonNode c, String field, boolean mayBeNone, List<Image> images) {
        if ((c == null || c.isNull()) && mayBeNone) {
            return "";
        }
        if (c != null && c.isTextual()) {
            return c.asText();
        }
        if (c == null || !c.isArray()) {
            throw BadRequest.field(field, "expected a string or a list of text parts");
        }
        List<String> texts = new ArrayList<>();
        List<Map<String, Object>> parts = new ArrayList<>();
        boolean anyImage = false;
        for (int j = 0; j < c.size(); j++) {
            JsonNode part = c.get(j);
            String at = field + "[" + j + "]";
            if (part.path("type").asText().equals("image_url")) {
                JsonNode url = part.path("image_url").isTextual()
                        ? part.get("image_url")
                        : part.path("image_url").path("url");
                if (!url.isTextual()) {
                    throw BadRequest.field(at + ".image_url", "expected {\"url\": \"data:image/png;base64,...\"}");
                }
                try {
                    Image image = Image.fromDataUrl(url.asText(), at + ".image_url");
                    image.checkedDimensions(at + ".image_url"); // before it waits for a slot or is decoded
                    images.add(image);
                } catch (IllegalArgumentException e) {
                    throw new BadRequest(400, at + ".image_url", e.getMessage());
                }
                parts.add(Map.of("type", "image"));
                anyImage = true;
                continue;
            }
            if (!part.path("type").asText().equals("text") || !part.path("text").isTextual()) {
                throw BadRequest.field(
                        at,
                        "only text parts {\"type\": \"text\", \"text\": ...} and image_url parts are supported,"
                                + " got " + part.path("type"));
            }
            texts.add(part.get("text").asText());
            parts.add(Map.of("type", "text", "text", part.get("text").asText()));
        }
        return anyImage ? parts : String.join("\n", texts);
    }

    /** An assistant's earlier calls; JSON-object arguments become objects, as templates read them (vLLM too). */
    private static List<Map<String, Object>> toolCalls(JsonNode calls, String field) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int j = 0; j < calls.size(); j++) {
            JsonNode call = calls.get(j);
            JsonNode f = call.path("function");
            if (!f.path("name").isTextual()) {
                throw BadRequest.field(field + "[" + j + "].function.name", "required");
            }
            Map<String, Object> fn = new LinkedHashMap<>();
            fn.put("name", f.get("name").asText());
            Object args = f.path("arguments").asText("{}");
            try {
                JsonNode parsed = Http.JSON.readTree((String) args);
                if (parsed != null && parsed.isObject()) {
                    args = Http.JSON.convertValue(parsed, MAP);
                }
            } catch (JacksonException e) {
                // not JSON: the template gets the string as sent
            }
            fn.put("arguments", args);
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("id", call.path("id").asText(""));
            map.put("type", "function");
            map.put("function", fn);
            out.add(map);
        }
        return out;
    }

    /** Puts {@code tools} into the template's variables; true when answers are to be read for tool calls. */
    private static boolean tools(JsonNode body, ChatTemplate template, Map<String, Object> variables) {
        JsonNode tools = body.get("tools");
        JsonNode choice = body.get("tool_choice");
        String mode = choice == null || choice.isNull() ? "auto" : choice.asText("");
        if (!mode.equals("auto") && !mode.equals("none")) {
            throw BadRequest.field("tool_choice", "only \"auto\" and \"none\" are supported, got " + choice);
        }
        if (tools != null && !tools.isNull() && !tools.isArray()) {
            throw BadRequest.field("tools", "expected a list of {type: function, function: {name, ...}}");
        }
        if (tools == null || tools.isNull() || tools.isEmpty() || mode.equals("none")) {
            return false;
        }
        for (int j = 0; j < tools.size(); j++) {
            if (!tools.get(j).path("function").path("name").isTextual()) {
                throw BadRequest.field("tools[" + j + "].function.name", "required");
            }
        }
        if (!template.readsTools()) {
            throw BadRequest.field("tools", "this model's chat template does not describe tools to the model");
        }
        List<Object> list = new ArrayList<>();
        tools.forEach(t -> list.add(Http.JSON.convertValue(t, MAP)));
        variables.put("tools", list);
        return true;
    }

    private ObjectNode whole(Shape s, List<Completion> out, List<ToolCalls> answers) {
        ObjectNode root = g.header(s.id, "chat.completion", s.name);
        ArrayNode choices = root.putArray("choices");
        long completionTokens = 0;
        for (int i = 0; i < out.size(); i++) {
            Completion c = out.get(i);
            ToolCalls a = answers.get(i);
            completionTokens += c.tokens().size();
            ObjectNode choice = choices.addObject().put("index", i);
            ObjectNode message = choice.putObject("message").put("role", "assistant");
            if (a.content() == null) {
                message.putNull("content");
            } else {
                message.put("content", a.content());
            }
            if (!a.calls().isEmpty()) {
                calls(message.putArray("tool_calls"), a.calls());
            }
            if (s.logprobs) {
                logprobs(
                        choice.putObject("logprobs").putArray("content"),
                        c,
                        0,
                        c.tokens().size(),
                        s.top(i));
            } else {
                choice.putNull("logprobs");
            }
            choice.put("finish_reason", a.calls().isEmpty() ? Generation.finishReason(c) : "tool_calls");
            if (s.tokenIds) {
                ids(choice.putArray("token_ids"), c.tokens().toArray());
            }
        }
        if (s.tokenIds) {
            ids(root.putArray("prompt_token_ids"), s.prompt);
        }
        Http.usage(root.putObject("usage"), s.prompt.length, completionTokens);
        return root;
    }

    private EventStream stream(Shape s, List<Completion> out, List<ToolCalls> answers, boolean usage) {
        EventStream events = new EventStream();
        long completionTokens = 0;
        for (int i = 0; i < out.size(); i++) {
            Completion c = out.get(i);
            ToolCalls a = answers.get(i);
            completionTokens += c.tokens().size();
            events.add(chunk(s, i, d -> d.put("role", "assistant").put("content", "")));
            if (a.calls().isEmpty()) {
                List<String> pieces = g.pieces(c);
                for (int t = 0; t < pieces.size(); t++) {
                    String piece = pieces.get(t);
                    ObjectNode chunk = chunk(s, i, d -> d.put("content", piece));
                    if (s.logprobs) {
                        ObjectNode choice = (ObjectNode) chunk.path("choices").get(0);
                        logprobs(choice.putObject("logprobs").putArray("content"), c, t, t + 1, s.top(i));
                    }
                    events.add(chunk);
                }
            } else { // the calls are known once the text is whole: content, then every call in one delta
                if (a.content() != null) {
                    events.add(chunk(s, i, d -> d.put("content", a.content())));
                }
                events.add(chunk(s, i, d -> calls(d.putArray("tool_calls"), a.calls())));
            }
            ObjectNode last = chunk(s, i, d -> {});
            ObjectNode choice = (ObjectNode) last.path("choices").get(0);
            choice.put("finish_reason", a.calls().isEmpty() ? Generation.finishReason(c) : "tool_calls");
            if (s.tokenIds) {
                ids(choice.putArray("token_ids"), c.tokens().toArray());
            }
            events.add(last);
        }
        if (usage) {
            ObjectNode chunk = g.header(s.id, "chat.completion.chunk", s.name);
            chunk.putArray("choices");
            Http.usage(chunk.putObject("usage"), s.prompt.length, completionTokens);
            events.add(chunk);
        }
        return events;
    }

    /** A chunk of choice {@code index} whose delta {@code fill} writes. */
    private ObjectNode chunk(Shape s, int index, java.util.function.Consumer<ObjectNode> fill) {
        ObjectNode chunk = g.header(s.id, "chat.completion.chunk", s.name);
        ObjectNode choice = chunk.putArray("choices").addObject().put("index", index);
        fill.accept(choice.putObject("delta"));
        choice.putNull("logprobs");
        choice.putNull("finish_reason");
        return chunk;
    }

    /** A choice's calls, each with a fresh id (written once per choice, in either form of the answer). */
    private static void calls(ArrayNode out, List<ToolCalls.Call> calls) {
        for (int j = 0; j < calls.size(); j++) {
            ToolCalls.Call call = calls.get(j);
            String id = "chatcmpl-tool-" + UUID.randomUUID().toString().replace("-", "");
            ObjectNode o = out.addObject().put("index", j).put("id", id).put("type", "function");
            o.putObject("function").put("name", call.name()).put("arguments", call.arguments());
        }
    }

    /** OpenAI's chat logprobs for tokens [from, to): token, logprob, UTF-8 bytes, no alternatives. */
    /**
     * OpenAI's chat logprobs for tokens {@code from..to}: each token, its logprob and bytes, and with {@code top} the
     * {@code top_logprobs} most likely tokens there (token, logprob, bytes), best first.
     */
    private void logprobs(ArrayNode content, Completion c, int from, int to, SequenceBatch.Top top) {
        for (int t = from; t < to; t++) {
            String piece = g.codec.decode(new int[] {c.tokens().get(t)});
            ObjectNode o = content.addObject()
                    .put("token", piece)
                    .put("logprob", c.logprobs().get(t));
            bytes(o, piece);
            ArrayNode alternatives = o.putArray("top_logprobs");
            if (top != null) {
                for (int k = 0; k < top.ids()[t].length; k++) {
                    String alt = g.codec.decode(new int[] {top.ids()[t][k]});
                    bytes(alternatives.addObject().put("token", alt).put("logprob", top.logprobs()[t][k]), alt);
                }
            }
        }
    }

    private static void bytes(ObjectNode o, String piece) {
        ArrayNode bytes = o.putArray("bytes");
        for (byte b : piece.getBytes(StandardCharsets.UTF_8)) {
            bytes.add(b & 0xff);
        }
    }

    private static void ids(ArrayNode out, int[] ids) {
        for (int id : ids) {
            out.add(id);
        }
    }
}
