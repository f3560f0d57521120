package org.pettingllms.endpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.EventStream;
import org.pettingllms.http.Fields;
import org.pettingllms.http.Http;
import org.pettingllms.http.Reply;
import org.pettingllms.langchain4j.AgentProgram;
import org.pettingllms.langchain4j.ReplayDivergence;
import org.pettingllms.langchain4j.RoleModels;

/**
 * OpenAI-compatible endpoints through which programs in any language train: each episode gets a base URL of its
 * own ({@code http://host:port/episodes/<id>/v1}), where {@code /chat/completions} (streamed or not) answers with
 * the role named as the model, and {@code /reward} takes the episode's reward. Behind an episode are the chat models
 * of a program run ({@code AgentProgram}): every call is recorded with its sampled ids, and replays are answered
 * from the record, so official OpenAI clients get AT-GRPO's per-call groups with their base URL changed only.
 *
 * <p>The run's sampling settings decide the distribution: a request may set {@code max_tokens} and {@code stop};
 * sampling fields of its own are refused with a 400 naming them, as are fields this endpoint does not know.
 */
public final class RecordingEndpoint implements AutoCloseable {
    private static final Set<String> FIELDS = Set.of(
            "model",
            "messages",
            "n",
            "max_tokens",
            "max_completion_tokens",
            "stop",
            "stream",
            "stream_options",
            "user",
            "temperature",
            "top_p",
            "presence_penalty",
            "frequency_penalty",
            "seed");

    /** One episode: its role's models and the reward it posted, if any. */
    private static final class Episode {
        final RoleModels models;
        volatile Double reward;
        volatile ReplayDivergence divergence;
        volatile RuntimeException failure;

        Episode(RoleModels models) {
            this.models = models;
        }
    }

    private final Map<String, Episode> episodes = new ConcurrentHashMap<>();
    private final Javalin app;

    /** Listens on {@code host} at {@code port} (0: any free port). */
    public RecordingEndpoint(String host, int port) {
        this.app = Javalin.create(config -> {
            config.jetty.host = host;
            config.jetty.port = port;
            config.startup.showJavalinBanner = false;
            config.routes.post("/episodes/{id}/v1/chat/completions", this::chat);
            config.routes.get("/episodes/{id}/v1/models", this::models);
            config.routes.post("/episodes/{id}/reward", this::reward);
            // OpenAI's clients retry 409, 429 and 5xx unless told not to; a refused replay or a failed call would
            // only be refused again
            config.routes.exception(
                    BadRequest.class,
                    (e, ctx) -> Http.error(ctx.header("x-should-retry", "false"), e.status, e.getMessage(), e.param));
            config.routes.exception(
                    Exception.class,
                    (e, ctx) -> Http.error(
                            ctx.header("x-should-retry", "false"),
                            500,
                            e.getClass().getSimpleName() + ": " + e.getMessage(),
                            null));
            config.routes.error(404, "*", ctx -> {
                String type = ctx.res().getContentType();
                if (type == null || !type.startsWith("application/json")) {
                    Http.error(ctx, 404, "no route " + ctx.method() + " " + ctx.path(), null);
                }
            });
        });
    }

    public RecordingEndpoint start() {
        app.start();
        return this;
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + app.port());
    }

    /**
     * The program as an {@code AgentProgram}: each run is an episode with a base URL of its own; the reward is what
     * the program returns, or what it posted to {@code <base>/reward} when it returns NaN.
     */
    public AgentProgram program(EndpointProgram program) {
        return (problem, models) -> {
            String id = UUID.randomUUID().toString();
            Episode episode = new Episode(models);
            episodes.put(id, episode);
            try {
                double r;
                try {
                    r = program.run(problem, uri().resolve("/episodes/" + id + "/v1"));
                } catch (Exception failed) {
                    if (episode.divergence != null) { // the program failed because its replay was refused
                        throw episode.divergence;
                    }
                    if (episode.failure != null) { // or because the trainer failed its request
                        throw episode.failure;
                    }
                    throw failed;
                }
                if (episode.divergence != null) {
                    throw episode.divergence;
                }
                if (episode.failure != null) {
                    throw episode.failure;
                }
                if (Double.isNaN(r)) {
                    if (episode.reward == null) {
                        throw new IllegalStateException(
                                "the program returned no reward and posted none to " + "/episodes/" + id + "/reward");
                    }
                    return episode.reward;
                }
                return r;
            } finally {
                episodes.remove(id);
            }
        };
    }

    private Episode episode(Context ctx) {
        Episode e = episodes.get(ctx.pathParam("id"));
        if (e == null) {
            throw new BadRequest(404, null, "no episode '" + ctx.pathParam("id") + "' is running");
        }
        return e;
    }

    private void models(Context ctx) throws Exception {
        ObjectNode root = Http.JSON.createObjectNode().put("object", "list");
        var data = root.putArray("data");
        episode(ctx).models.roles().stream()
                .sorted()
                .forEach(r ->
                        data.addObject().put("id", r).put("object", "model").put("owned_by", "pettingllms"));
        Http.json(ctx, 200, root);
    }

    private void reward(Context ctx) throws Exception {
        Episode e = episode(ctx);
        JsonNode body = Http.body(ctx);
        e.reward = Fields.number(body, "reward", Double.NaN, -1e9, 1e9);
        if (e.reward.isNaN()) {
            throw BadRequest.field("reward", "required: a number");
        }
        Http.json(ctx, 200, Http.JSON.createObjectNode().put("ok", true));
    }

    private void chat(Context ctx) throws Exception {
        Episode e = episode(ctx);
        JsonNode body = Http.body(ctx);
        Fields.onlyKnown(body, FIELDS, "the recording endpoint's /chat/completions");
        String role = Fields.text(body, "model", null);
        if (!e.models.roles().contains(role)) {
            throw new BadRequest(
                    404, "model", "field 'model': no role '" + role + "'; the roles are " + e.models.roles());
        }
        ChatModel model = e.models.chat(role);
        Fields.integer(body, "n", 1, 1, 1);
        Fields.Streaming streaming = Fields.Streaming.of(body);
        ChatRequest.Builder request = ChatRequest.builder().messages(messages(body.get("messages")));
        int budget = body.hasNonNull("max_completion_tokens")
                ? Fields.integer(body, "max_completion_tokens", 0, 1, Fields.MAX_TOKENS)
                : Fields.integer(body, "max_tokens", 0, 1, Fields.MAX_TOKENS);
        if (budget > 0) {
            request.maxOutputTokens(budget);
        }
        List<String> stop = Fields.strings(body, "stop");
        if (!stop.isEmpty()) {
            request.stopSequences(stop);
        }
        for (String sampling : List.of("temperature", "top_p", "seed")) {
            if (body.hasNonNull(sampling)) {
                throw BadRequest.field(
                        sampling,
                        "the run's sampling settings (rollout.sampling) decide it, as on-policy training"
                                + " and replays need; leave it out");
            }
        }
        Fields.neutralPenalties(body);
        ChatResponse r;
        try {
            r = model.chat(request.build());
        } catch (ReplayDivergence d) {
            e.divergence = d; // the rollout reports it and falls back; the program sees a refused request
            throw new BadRequest(409, "messages", d.getMessage());
        } catch (IllegalArgumentException | UnsupportedOperationException x) {
            throw BadRequest.field("messages", x.getMessage());
        } catch (RuntimeException x) { // the trainer's side failed (a sampler error, too many calls): fail the step
            e.failure = x;
            throw x;
        }
        String id = "chatcmpl-" + UUID.randomUUID();
        String finish = r.finishReason() == FinishReason.LENGTH ? "length" : "stop";
        int promptTokens = r.tokenUsage() == null ? 0 : r.tokenUsage().inputTokenCount();
        int completionTokens = r.tokenUsage() == null ? 0 : r.tokenUsage().outputTokenCount();
        if (streaming.on()) {
            EventStream events = new EventStream();
            events.add(chunk(id, role, d -> d.put("role", "assistant").put("content", ""), null));
            events.add(chunk(id, role, d -> d.put("content", r.aiMessage().text()), null));
            events.add(chunk(id, role, d -> {}, finish));
            if (streaming.usage()) {
                ObjectNode u = header(id, "chat.completion.chunk", role);
                u.putArray("choices");
                Http.usage(u.putObject("usage"), promptTokens, completionTokens);
                events.add(u);
            }
            Http.reply(ctx, Reply.stream(events));
            return;
        }
        ObjectNode root = header(id, "chat.completion", role);
        ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
        choice.putObject("message")
                .put("role", "assistant")
                .put("content", r.aiMessage().text());
        choice.putNull("logprobs");
        choice.put("finish_reason", finish);
        Http.usage(root.putObject("usage"), promptTokens, completionTokens);
        Http.json(ctx, 200, root);
    }

    private static ObjectNode header(String id, String object, String role) {
        return Http.JSON
                .createObjectNode()
                .put("id", id)
                .put("object", object)
                .put("created", System.currentTimeMillis() / 1000)
                .put("model", role);
    }

    private static ObjectNode chunk(
            String id, String role, java.util.function.Consumer<ObjectNode> delta, String finish) {
        ObjectNode c = header(id, "chat.completion.chunk", role);
        ObjectNode choice = c.putArray("choices").addObject().put("index", 0);
        delta.accept(choice.putObject("delta"));
        choice.putNull("logprobs");
        if (finish == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finish);
        }
        return c;
    }

    /** OpenAI messages as LangChain4j's: system or developer, user (text or text parts), assistant text. */
    private static List<ChatMessage> messages(JsonNode msgs) {
        if (msgs == null || !msgs.isArray() || msgs.isEmpty()) {
            throw BadRequest.field("messages", "required: a non-empty list of {role, content}");
        }
        List<ChatMessage> out = new ArrayList<>();
        for (int i = 0; i < msgs.size(); i++) {
            JsonNode m = msgs.get(i);
            String role = m.path("role").asText("");
            JsonNode c = m.get("content");
            String text;
            if (c != null && c.isTextual()) {
                text = c.asText();
            } else if (c != null && c.isArray()) {
                List<String> parts = new ArrayList<>();
                for (int j = 0; j < c.size(); j++) {
                    if (!c.get(j).path("type").asText().equals("text")) {
                        throw BadRequest.field("messages[" + i + "].content[" + j + "]", "only text parts");
                    }
                    parts.add(c.get(j).path("text").asText());
                }
                text = String.join("\n", parts);
            } else {
                throw BadRequest.field("messages[" + i + "].content", "expected a string or a list of text parts");
            }
            out.add(
                    switch (role) {
                        case "system", "developer" -> SystemMessage.from(text);
                        case "user" -> UserMessage.from(text);
                        case "assistant" -> AiMessage.from(text);
                        default ->
                            throw BadRequest.field(
                                    "messages[" + i + "].role",
                                    "expected system, developer, user or assistant, got '" + role + "'");
                    });
        }
        return out;
    }

    @Override
    public void close() {
        app.stop();
    }
}
