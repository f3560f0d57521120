package org.pettingllms.serve;

import static org.pettingllms.http.Http.JSON;
import static org.pettingllms.http.Http.body;
import static org.pettingllms.http.Http.json;
import static org.pettingllms.http.Http.reply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.Access;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;
import org.pettingllms.http.Http;
import org.pettingllms.http.Slots;
import org.pettingllms.torch.engine.EmbeddedEngine;
import org.pettingllms.torch.engine.PolicyRegistry;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.io.Tensor;
import org.pettingllms.torch.model.LoraAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded engine behind the endpoints inference servers offer, so the project's remote sampler (and any
 * OpenAI client) can use it: {@code /health}, {@code /v1/models} and {@code /v1/models/{id}}, vLLM's
 * {@code /v1/completions} ({@link Completions}) and {@code /v1/chat/completions} ({@link ChatCompletions}), both
 * streamed on request, SGLang's {@code /generate}, and both servers' LoRA adapter load and unload endpoints. A
 * request names a loaded adapter as its model (vLLM) or {@code lora_path} (SGLang).
 *
 * <p>Errors are OpenAI's JSON ({@code {"error": {"message", "type", "param", "code"}}}, unknown routes included): a
 * bad request gets a 400 naming the field, a field the engine cannot honour is refused rather than ignored, and
 * more than {@code maxConcurrent} requests in flight get a 429 at once, never a hang.
 */
public final class InferenceServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InferenceServer.class);

    /**
     * @param servedName    the model id clients use for the base model
     * @param maxConcurrent requests in flight before the server answers 429
     */
    public record Options(String host, int port, String servedName, int maxConcurrent, Access access) {
        public Options {
            if (maxConcurrent < 1 || port < 0 || port > 65535) {
                throw new IllegalArgumentException("need maxConcurrent >= 1 and a port in [0, 65535]");
            }
        }

        /** {@link Access#open()}: no key, path loading allowed. */
        public Options(String host, int port, String servedName, int maxConcurrent) {
            this(host, port, servedName, maxConcurrent, Access.open());
        }
    }

    private final EmbeddedEngine engine;
    private final String model;
    private final Options options;
    private final Slots slots;
    private final Map<String, PolicyRef> adapters = new ConcurrentHashMap<>();
    private final Generation generation;
    private final Completions completions;
    private final ChatCompletions chat;
    private final Responses responses;
    private final Javalin app;

    /**
     * @param model the engine's model name (its {@code policy.model}) served as {@code options.servedName}
     */
    public InferenceServer(EmbeddedEngine engine, String model, Options options) {
        this.engine = engine;
        this.model = model;
        this.options = options;
        this.slots = new Slots(options.maxConcurrent());
        this.generation = new Generation(engine, model);
        this.completions = new Completions(generation);
        this.chat = new ChatCompletions(generation, options.servedName());
        this.responses = new Responses(chat, generation);
        this.app = Javalin.create(config -> {
            config.jetty.host = options.host();
            config.jetty.port = options.port();
            config.startup.showJavalinBanner = false;
            options.access().install(config, Set.of("/health"));
            config.routes.get("/health", ctx -> ctx.json(Map.of("status", "ok")));
            config.routes.get("/v1/models", ctx -> json(ctx, 200, models()));
            config.routes.get("/v1/models/{id}", this::oneModel);
            config.routes.post(
                    "/v1/completions", slots.limited(ctx -> reply(ctx, completions.answer(body(ctx), this::policy))));
            config.routes.post(
                    "/v1/chat/completions", slots.limited(ctx -> reply(ctx, chat.answer(body(ctx), this::policy))));
            config.routes.post(
                    "/v1/responses", slots.limited(ctx -> reply(ctx, responses.answer(body(ctx), this::policy))));
            config.routes.post(
                    "/generate",
                    slots.limited(ctx -> json(ctx, 200, generation.generate(body(ctx), this::sglangPolicy))));
            config.routes.post("/v1/load_lora_adapter", ctx -> load(ctx, false));
            config.routes.post("/v1/unload_lora_adapter", ctx -> unload(ctx, false));
            config.routes.post("/load_lora_adapter", ctx -> load(ctx, true));
            config.routes.post("/update_weights_from_disk", this::updateWeights);
            config.routes.post("/unload_lora_adapter", ctx -> unload(ctx, true));
            Http.openAiErrors(config, LOG);
        });
    }

    /** Starts listening; {@link #uri()} then names the bound port. */
    public InferenceServer start() {
        app.start();
        return this;
    }

    public int port() {
        return app.port();
    }

    public URI uri() {
        String host = options.host().equals("0.0.0.0") ? "127.0.0.1" : options.host();
        return URI.create("http://" + host + ":" + port());
    }

    /** Loads a PEFT adapter under {@code name} (what the HTTP endpoints do). */
    public void loadAdapter(String name, Path dir) throws IOException {
        PolicyRef ref = new PolicyRef(model, name);
        PolicyRegistry registry = engine.registry();
        LoraAdapter adapter = LoraAdapter.load(name, registry.model(model), dir);
        registry.putAdapter(ref, adapter);
        adapters.put(name, ref);
    }

    /**
     * SGLang's {@code /update_weights_from_disk}: the base model's weights replaced in place from a model directory
     * ({@code model.safetensors}), under the write lock (no batch sees half of them); {@code weight_version} is
     * then reported in every {@code /generate} answer.
     */
    private void updateWeights(Context ctx) throws Exception {
        options.access().checkPathLoading("model_path");
        JsonNode body = body(ctx);
        Path dir = Path.of(Fields.text(body, "model_path", null));
        String version = Fields.text(body, "weight_version", "default");
        Map<String, Tensor> w;
        try {
            w = SafeTensors.read(dir.resolve("model.safetensors"));
        } catch (IOException e) {
            throw new BadRequest(400, "model_path", "field 'model_path': " + e.getMessage());
        }
        try {
            engine.registry().setWeights(model, w);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(400, "model_path", "field 'model_path': " + e.getMessage());
        }
        generation.weightVersion(version);
        json(
                ctx,
                200,
                JSON.createObjectNode()
                        .put("success", true)
                        .put("message", "weights updated from " + dir)
                        .put("num_paused_requests", 0));
    }

    /** Requests holding a slot now. */
    int inFlight() {
        return slots.inFlight();
    }

    /** vLLM: the request's model is the base model's id or a loaded adapter's name. */
    private PolicyRef policy(String name) {
        if (name == null || name.equals(options.servedName())) {
            return PolicyRef.of(model);
        }
        PolicyRef ref = adapters.get(name);
        if (ref == null) {
            throw new BadRequest(
                    404, "model", "field 'model': the model '" + name + "' does not exist; served: " + served());
        }
        return ref;
    }

    /** SGLang: {@code lora_path} names a loaded adapter; absent means the base model. */
    private PolicyRef sglangPolicy(String loraPath) {
        if (loraPath == null) {
            return PolicyRef.of(model);
        }
        PolicyRef ref = adapters.get(loraPath);
        if (ref == null) {
            throw new BadRequest(
                    404,
                    "lora_path",
                    "field 'lora_path': no adapter named '" + loraPath + "' is loaded; loaded: " + adapters.keySet());
        }
        return ref;
    }

    private List<String> served() {
        List<String> out = new ArrayList<>(List.of(options.servedName()));
        out.addAll(adapters.keySet().stream().sorted().toList());
        return out;
    }

    private ObjectNode models() {
        ObjectNode root = JSON.createObjectNode().put("object", "list");
        ArrayNode data = root.putArray("data");
        served().forEach(id -> data.add(model(id)));
        return root;
    }

    /** One model card; an adapter names the base model as its parent. */
    private ObjectNode model(String id) {
        boolean base = id.equals(options.servedName());
        ObjectNode m = JSON.createObjectNode()
                .put("id", id)
                .put("object", "model")
                .put("created", 0)
                .put("owned_by", "pettingllms")
                .put("root", base ? model : id);
        if (!base) {
            m.put("parent", options.servedName());
        }
        return m;
    }

    private void oneModel(Context ctx) throws Exception {
        String id = ctx.pathParam("id");
        if (!served().contains(id)) {
            throw new BadRequest(404, "model", "the model '" + id + "' does not exist; served: " + served());
        }
        json(ctx, 200, model(id));
    }

    private void load(Context ctx, boolean sglang) throws Exception {
        options.access().checkPathLoading("lora_path");
        JsonNode body = body(ctx);
        String name = Fields.text(body, "lora_name", null);
        if (name.isBlank()) {
            throw BadRequest.field("lora_name", "a non-empty adapter name");
        }
        String path = Fields.text(body, "lora_path", null);
        if (adapters.containsKey(name) && !sglang) {
            throw new BadRequest(
                    400, "lora_name", "field 'lora_name': the adapter '" + name + "' has already been loaded");
        }
        try {
            loadAdapter(name, Path.of(path));
        } catch (IOException e) {
            throw new BadRequest(400, "lora_path", "field 'lora_path': " + e.getMessage());
        }
        if (sglang) {
            json(ctx, 200, JSON.createObjectNode().put("success", true).put("message", "loaded " + name));
        } else {
            ctx.status(200).result("Success: LoRA adapter '" + name + "' added successfully.");
        }
    }

    private void unload(Context ctx, boolean sglang) throws Exception {
        String name = Fields.text(body(ctx), "lora_name", null);
        PolicyRef ref = adapters.remove(name);
        if (ref == null) {
            throw new BadRequest(404, "lora_name", "field 'lora_name': no adapter named '" + name + "' is loaded");
        }
        engine.registry().removeAdapter(ref);
        if (sglang) {
            json(ctx, 200, JSON.createObjectNode().put("success", true).put("message", "unloaded " + name));
        } else {
            ctx.status(200).result("Success: LoRA adapter '" + name + "' removed successfully.");
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}
