package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.pettingllms.core.util.AtomicFiles;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.io.Tensor;

/**
 * A LoRA adapter: for each target linear, {@code y = W x + (alpha / r) * B (A x)} with A [r, in] and B [out, r].
 * Stored in the PEFT layout: {@code adapter_config.json} and {@code adapter_model.safetensors} with keys
 * {@code base_model.model.<module>.lora_A.weight} and {@code .lora_B.weight}.
 */
public final class LoraAdapter implements AutoCloseable {
    static final String PREFIX = "base_model.model.";

    private final String name;
    private final int rank;
    private final double alpha;
    private final List<String> targetModules;
    private final NDManager manager;
    /** module path -> {A, B} */
    private final Map<String, Pair> weights;

    private LoraAdapter(
            String name,
            int rank,
            double alpha,
            List<String> targetModules,
            NDManager manager,
            Map<String, Pair> weights) {
        this.name = name;
        this.rank = rank;
        this.alpha = alpha;
        this.targetModules = List.copyOf(targetModules);
        this.manager = manager;
        this.weights = weights;
    }

    public String name() {
        return name;
    }

    public int rank() {
        return rank;
    }

    public double scale() {
        return alpha / rank;
    }

    public List<String> targetModules() {
        return targetModules;
    }

    /** A module's two LoRA factors: the update is {@code scale * b @ a}. */
    public record Pair(NDArray a, NDArray b) {}

    /** The factors of a module path, or null when the module is not adapted. */
    public Pair weightsOf(String module) {
        return weights.get(module);
    }

    /** All trainable tensors, keyed by PEFT name. */
    public Map<String, NDArray> parameters() {
        Map<String, NDArray> out = new LinkedHashMap<>();
        weights.forEach((m, ab) -> {
            out.put(PREFIX + m + ".lora_A.weight", ab.a());
            out.put(PREFIX + m + ".lora_B.weight", ab.b());
        });
        return out;
    }

    /**
     * A fresh adapter as PEFT initialises it: A ~ Kaiming-uniform(a = sqrt 5), i.e. U(-1/sqrt(in), 1/sqrt(in)),
     * and B = 0, so the adapted model starts equal to the base model.
     */
    public static LoraAdapter create(
            String name, DecoderModel model, int rank, double alpha, List<String> targetModules, long seed) {
        NDManager m = model.manager().newSubManager();
        SplittableRandom rng = new SplittableRandom(seed);
        Map<String, Pair> w = new LinkedHashMap<>();
        for (Linear lin : model.linears()) {
            if (!targets(lin.name(), targetModules)) {
                continue;
            }
            long out = lin.out();
            long in = lin.in();
            float[] a = new float[(int) (rank * in)];
            double bound = 1 / Math.sqrt(in);
            for (int i = 0; i < a.length; i++) {
                a[i] = (float) ((rng.nextDouble() * 2 - 1) * bound);
            }
            w.put(lin.name(), new Pair(m.create(a, new Shape(rank, in)), m.zeros(new Shape(out, rank))));
        }
        if (w.isEmpty()) {
            m.close();
            throw new IllegalArgumentException("LoRA target modules " + targetModules + " match no linear layer");
        }
        return new LoraAdapter(name, rank, alpha, targetModules, m, w);
    }

    public static LoraAdapter load(String name, DecoderModel model, Path dir) throws IOException {
        Path cfgFile = dir.resolve("adapter_config.json");
        if (!Files.exists(cfgFile)) {
            throw new IOException(dir + ": no adapter_config.json (expected a PEFT LoRA adapter directory)");
        }
        JsonNode cfg = new ObjectMapper().readTree(cfgFile.toFile());
        if (!cfg.path("peft_type").asText("LORA").equals("LORA")) {
            throw new IOException(
                    cfgFile + ": peft_type " + cfg.path("peft_type").asText() + " is not LORA");
        }
        if (cfg.path("use_rslora").asBoolean(false)
                || cfg.path("fan_in_fan_out").asBoolean(false)) {
            throw new IOException(cfgFile + ": use_rslora and fan_in_fan_out are not supported");
        }
        int r = cfg.path("r").asInt(0);
        double alpha = cfg.path("lora_alpha").asDouble(r);
        List<String> targets = new ArrayList<>();
        cfg.path("target_modules").forEach(t -> targets.add(t.asText()));
        Map<String, Tensor> tensors = SafeTensors.read(dir.resolve("adapter_model.safetensors"));
        NDManager m = model.manager().newSubManager();
        Map<String, Pair> w = new LinkedHashMap<>();
        for (Linear lin : model.linears()) {
            Tensor a = tensors.remove(PREFIX + lin.name() + ".lora_A.weight");
            Tensor b = tensors.remove(PREFIX + lin.name() + ".lora_B.weight");
            if (a == null && b == null) {
                continue;
            }
            if (a == null
                    || b == null
                    || a.shape()[0] != r
                    || b.shape()[1] != r
                    || a.shape()[1] != lin.in()
                    || b.shape()[0] != lin.out()) {
                m.close();
                throw new IOException(dir + ": LoRA tensors of " + lin.name() + " are missing or have wrong shapes"
                        + " for rank " + r);
            }
            w.put(
                    lin.name(),
                    new Pair(m.create(a.data(), new Shape(a.shape())), m.create(b.data(), new Shape(b.shape()))));
        }
        if (!tensors.isEmpty()) {
            m.close();
            throw new IOException(dir + ": adapter tensors that match no module of the model: " + tensors.keySet());
        }
        return new LoraAdapter(name, r, alpha, targets, m, w);
    }

    /** Writes the PEFT layout into {@code dir} (created if needed); each file is replaced atomically. */
    public void save(Path dir, String baseModel) throws IOException {
        Files.createDirectories(dir);
        Map<String, Tensor> out = new LinkedHashMap<>();
        parameters().forEach((k, v) -> out.put(k, new Tensor(v.getShape().getShape(), DecoderModel.hostFloats(v))));
        SafeTensors.write(dir.resolve("adapter_model.safetensors"), out);
        ObjectNode cfg = new ObjectMapper().createObjectNode();
        cfg.put("peft_type", "LORA")
                .put("task_type", "CAUSAL_LM")
                .put("r", rank)
                .put("lora_alpha", alpha)
                .put("lora_dropout", 0.0)
                .put("bias", "none")
                .put("use_rslora", false)
                .put("fan_in_fan_out", false)
                .put("base_model_name_or_path", baseModel);
        var t = cfg.putArray("target_modules");
        targetModules.forEach(t::add);
        AtomicFiles.writeString(dir.resolve("adapter_config.json"), cfg.toPrettyString());
    }

    static boolean targets(String module, List<String> targetModules) {
        String last = module.substring(module.lastIndexOf('.') + 1);
        return targetModules.contains(last) || targetModules.contains(module);
    }

    @Override
    public void close() {
        manager.close();
    }
}
