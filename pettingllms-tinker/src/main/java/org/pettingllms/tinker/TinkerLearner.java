package org.pettingllms.tinker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.util.AtomicFiles;

/**
 * A {@link Learner} over the Tinker training API: one LoRA training client per policy (L2: one per role's adapter;
 * L1: one shared; L3: one per model), each mini-batch a {@code forward_backward} with Tinker's {@code ppo} loss
 * (sampler logprobs and advantages as its inputs, scaled so that the service's token sum is AT-GRPO's mean, see
 * {@link Datums}), {@code optim_step} with the AdamW parameters and learning rate the training loop chose,
 * {@code save_weights_for_sampler} to publish, and {@code save_weights} / {@code load_weights} (weights and optimizer
 * state, kept by the service) behind the run's checkpoints, whose folder records the service's path.
 *
 * <p>The loss statistics are computed here from the logprobs the service's forward pass returns, as the embedded
 * learner computes them. The service's {@code ppo} loss has no KL or entropy term: a run that asks for one is
 * refused. Weight versions count the optimizer steps the service applied (one it reports as skipped, in a metric
 * {@code skipped}, moves nothing).
 */
public final class TinkerLearner implements Learner, AutoCloseable {
    /** What the service holds of a policy. */
    private static final class Client {
        final String modelId;
        long version;
        long optimizerSteps;
        long published = -1;
        String samplerPath;

        Client(String modelId) {
            this.modelId = modelId;
        }
    }

    /** What a run's checkpoint folder records: where the service keeps the state. */
    static final String STATE_FILE = "tinker_state.json";

    /** Sampler weights are needed until the next publish; a service may drop them after a day. */
    private static final int SAMPLER_TTL_SECONDS = 86_400;

    /** Datums a request carries at most (the SDK's chunk size is 1024). */
    private static final int CHUNK = 512;
    /** A request's datums in JSON at most, about (the SDK's chunks stay under 5 MB). */
    private static final int CHUNK_CHARS = 4_000_000;

    /**
     * @param baseModel the service's name for the base model
     * @param loraRank  the rank of every training client's LoRA
     * @param seed      seeds each LoRA's initialisation (derived per policy by the service)
     */
    public record Settings(String baseModel, int loraRank, long seed) {}

    private final TinkerClient client;
    private final Settings settings;
    private final Map<PolicyRef, Client> clients = new ConcurrentHashMap<>();

    public TinkerLearner(TinkerClient client, Settings settings) {
        this.client = client;
        this.settings = settings;
    }

    public Settings settings() {
        return settings;
    }

    /** The learner's client: its sampler shares it (one session). */
    public TinkerClient client() {
        return client;
    }

    /** The policy's training client, created on first use (one creation at a time: it is a remote call). */
    private Client client(PolicyRef policy) {
        Client c = clients.get(policy);
        if (c != null) {
            return c;
        }
        synchronized (this) {
            c = clients.get(policy);
            if (c == null) {
                c = create(policy);
                clients.put(policy, c);
            }
            return c;
        }
    }

    /** A new LoRA training client for {@code policy}, named in its metadata so a service can tell them apart. */
    private Client create(PolicyRef policy) {
        ObjectNode body = TinkerClient.JSON
                .createObjectNode()
                .put("session_id", client.session())
                .put("model_seq_id", client.nextModelSeq())
                .put("base_model", settings.baseModel());
        body.putObject("lora_config")
                .put("rank", settings.loraRank())
                .put("seed", settings.seed())
                .put("train_unembed", false)
                .put("train_mlp", true)
                .put("train_attn", true);
        body.putObject("user_metadata")
                .put("pettingllms_policy", policy.toString())
                .put("pettingllms_adapter", adapterName(policy));
        body.put("type", "create_model");
        JsonNode r = client.run("create_model", body);
        String id = r.path("model_id").asText(null);
        if (id == null) {
            throw new TinkerException("create_model: the answer has no model_id", 200);
        }
        return new Client(id);
    }

    /** The adapter's name: the role's adapter (L2), else the model's name (L1, L3). */
    static String adapterName(PolicyRef policy) {
        return policy.adapter() != null ? policy.adapter() : policy.model().replaceAll("[^A-Za-z0-9_-]", "_");
    }

    @Override
    public LossStats forwardBackward(PolicyRef policy, List<TrainExample> batch, LossConfig loss) {
        if (loss.klCoef() > 0 || loss.entropyCoef() > 0) {
            throw new IllegalArgumentException("learner.kind tinker: the service's ppo loss has no KL or entropy"
                    + " term; set train.klCoef and train.entropyCoef to 0");
        }
        List<FloatSeq> now = send(
                client(policy),
                "forward_backward",
                "forward_backward_input",
                Datums.ppo(batch, loss),
                batch,
                in -> in.put("loss_fn", "ppo").set("loss_fn_config", Datums.ppoConfig(loss)));
        return Datums.stats(batch, now, loss);
    }

    @Override
    public List<FloatSeq> logprobs(PolicyRef policy, List<TrainExample> batch) {
        return send(
                client(policy),
                "forward",
                "forward_input",
                Datums.forward(batch),
                batch,
                in -> in.put("loss_fn", "cross_entropy"));
    }

    /**
     * Sends {@code data} (one datum per example) in chunks of at most {@link #CHUNK} datums and about
     * {@link #CHUNK_CHARS} of JSON, each its own request; the gradients of the chunks accumulate at the service.
     * Returns the completions' logprobs the service's forward passes saw, in order.
     */
    private List<FloatSeq> send(
            Client c,
            String op,
            String inputKey,
            ArrayNode data,
            List<TrainExample> batch,
            java.util.function.Consumer<ObjectNode> lossFields) {
        List<FloatSeq> out = new ArrayList<>(batch.size());
        for (int from = 0; from < batch.size(); ) {
            int to = from;
            long chars = 0;
            while (to < batch.size() && to - from < CHUNK) {
                long size = data.get(to).toString().length();
                if (to > from && chars + size > CHUNK_CHARS) {
                    break;
                }
                chars += size;
                to++;
            }
            ObjectNode body = TinkerClient.JSON.createObjectNode();
            ObjectNode in = body.putObject(inputKey);
            ArrayNode chunk = in.putArray("data");
            for (int i = from; i < to; i++) {
                chunk.add(data.get(i));
            }
            lossFields.accept(in);
            body.put("model_id", c.modelId).put("seq_id", client.nextSeq(c.modelId));
            out.addAll(Datums.completionLogprobs(batch.subList(from, to), client.run(op, body), op));
            from = to;
        }
        return out;
    }

    @Override
    public OptimStats optimStep(PolicyRef policy, OptimParams params) {
        Client c = client(policy);
        ObjectNode body = TinkerClient.JSON.createObjectNode();
        body.putObject("adam_params")
                .put("learning_rate", params.learningRate())
                .put("beta1", params.beta1())
                .put("beta2", params.beta2())
                .put("eps", params.eps())
                .put("weight_decay", params.weightDecay())
                .put("grad_clip_norm", Double.isFinite(params.maxGradNorm()) ? params.maxGradNorm() : 0.0);
        body.put("model_id", c.modelId).put("seq_id", client.nextSeq(c.modelId)).put("type", "optim_step");
        JsonNode metrics = client.run("optim_step", body).path("metrics");
        boolean skipped = metrics.path("skipped").asDouble(0) != 0;
        double norm = metrics.has("grad_norm")
                ? metrics.get("grad_norm").asDouble()
                : metrics.path("skyrl.ai/grad_norm").asDouble(Double.NaN);
        synchronized (c) {
            if (!skipped) {
                c.version++;
                c.optimizerSteps++;
            }
        }
        return new OptimStats(norm, params.learningRate(), skipped);
    }

    /** Saves the policy's weights for sampling when they changed since the last publish; the sampler uses them. */
    @Override
    public long publish(PolicyRef policy) {
        Client c = client(policy);
        synchronized (c) {
            if (c.published != c.version || c.samplerPath == null) {
                ObjectNode body = TinkerClient.JSON
                        .createObjectNode()
                        .put("model_id", c.modelId)
                        .put("path", "v" + c.version + "-" + shortId())
                        .put("ttl_seconds", SAMPLER_TTL_SECONDS)
                        .put("seq_id", client.nextSeq(c.modelId))
                        .put("type", "save_weights_for_sampler");
                String path = client.run("save_weights_for_sampler", body)
                        .path("path")
                        .asText(null);
                if (path == null) {
                    throw new TinkerException("save_weights_for_sampler: the answer has no path", 200);
                }
                c.samplerPath = path;
                c.published = c.version;
            }
            return c.version;
        }
    }

    /** Where the service keeps the policy's published weights, and their version; empty before a publish. */
    Optional<Published> published(PolicyRef policy) {
        Client c = clients.get(policy);
        if (c == null) {
            return Optional.empty();
        }
        synchronized (c) {
            return c.samplerPath == null ? Optional.empty() : Optional.of(new Published(c.samplerPath, c.published));
        }
    }

    /** A published sampler checkpoint: its {@code tinker://} path and weight version. */
    record Published(String path, long version) {}

    /**
     * Saves the state (weights and optimizer) at the service and records its path in {@code dir}, replaced
     * atomically as the embedded learner's checkpoints are.
     */
    @Override
    public void save(PolicyRef policy, Path dir) throws IOException {
        Client c = client(policy);
        long version;
        long steps;
        synchronized (c) {
            version = c.version;
            steps = c.optimizerSteps;
        }
        ObjectNode body = TinkerClient.JSON
                .createObjectNode()
                .put("model_id", c.modelId)
                .put("path", "state-" + steps + "-" + shortId())
                .put("seq_id", client.nextSeq(c.modelId))
                .put("type", "save_weights");
        String path = client.run("save_weights", body).path("path").asText(null);
        if (path == null) {
            throw new TinkerException("save_weights: the answer has no path", 200);
        }
        ObjectNode state = TinkerClient.JSON
                .createObjectNode()
                .put("tinker_path", path)
                .put("base_model", settings.baseModel())
                .put("lora_rank", settings.loraRank())
                .put("weight_version", version)
                .put("optimizer_steps", steps)
                .put("policy", policy.toString());
        AtomicFiles.replaceFolder(dir, tmp -> Files.writeString(tmp.resolve(STATE_FILE), state.toPrettyString()));
    }

    /**
     * Restores a saved state: a new training client whose first request loads the service's checkpoint with its
     * optimizer state (the service allows a load only first), then the saved version and step count.
     */
    @Override
    public void load(PolicyRef policy, Path dir) throws IOException {
        Path file = dir.resolve(STATE_FILE);
        if (!Files.exists(file)) {
            throw new IOException(dir + ": no " + STATE_FILE + " (not a checkpoint of a Tinker learner)");
        }
        JsonNode state = TinkerClient.JSON.readTree(file.toFile());
        String path = state.path("tinker_path").asText(null);
        if (path == null || state.path("lora_rank").asInt() != settings.loraRank()) {
            throw new IOException(file + ": expected tinker_path and lora_rank " + settings.loraRank());
        }
        if (!state.path("base_model").asText().equals(settings.baseModel())) {
            throw new IOException(
                    file + ": saved for base model '" + state.path("base_model").asText() + "', this run's is '"
                            + settings.baseModel() + "' (learner.baseModel)");
        }
        Client c = create(policy);
        ObjectNode body = TinkerClient.JSON
                .createObjectNode()
                .put("model_id", c.modelId)
                .put("seq_id", client.nextSeq(c.modelId))
                .put("path", path)
                .put("optimizer", true)
                .put("type", "load_weights");
        client.run("load_weights", body);
        c.version = state.path("weight_version").asLong();
        c.optimizerSteps = state.path("optimizer_steps").asLong();
        clients.put(policy, c);
    }

    private static String shortId() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    /** Frees this learner's training clients on the service (their adapters' names with them), then the client. */
    @Override
    public void close() {
        clients.values().forEach(c -> client.unload(c.modelId));
        clients.clear();
        client.close();
    }
}
