package org.pettingllms.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.PolicyRef;

/**
 * A learner whose weights are served by inference servers: publishing an adapter policy writes its PEFT adapter
 * to {@code publishDir/<adapter>-v<version>}, loads it on every replica under that name, checks each replica with
 * a probe and unloads the previous version; the sampler's requests then name the new version. Everything else
 * is the wrapped learner's.
 *
 * <p>The guard: after loading, a greedy probe on each replica (fixed prompt) must return logprobs equal to the
 * learner's recomputation of the same tokens within {@code tolerance}; a replica that ignored the load, or
 * loaded something else, fails the step with a message naming it, the policy and the gap.
 */
public final class ServedWeights implements Learner {
    private final Learner learner;
    private final OpenAiSampler sampler;
    private final Path publishDir;
    private final int[] probe;
    private final double tolerance;
    private final Map<PolicyRef, String> served = new ConcurrentHashMap<>();

    /**
     * @param publishDir a directory the servers can read (a shared file system), where adapters are written
     * @param probe      prompt token ids of the probe request
     * @param tolerance  mean absolute logprob gap allowed between a replica and the learner
     */
    public ServedWeights(Learner learner, OpenAiSampler sampler, Path publishDir, int[] probe, double tolerance) {
        this.learner = learner;
        this.sampler = sampler;
        this.publishDir = publishDir.toAbsolutePath();
        this.probe = probe.clone();
        this.tolerance = tolerance;
    }

    @Override
    public long publish(PolicyRef policy) {
        long version = learner.publish(policy);
        if (policy.adapter() == null) {
            return publishFull(policy, version);
        }
        String name = OpenAiSampler.adapterName(policy, version);
        if (name.equals(served.get(policy))) {
            return version;
        }
        Path dir = publishDir.resolve(name);
        try {
            learner.save(policy, dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the adapter of " + policy + " to " + dir, e);
        }
        String old = served.get(policy);
        for (URI replica : sampler.servers()) {
            // versions count from 0 in every process, so a replica may still hold this name from an earlier one (the
            // run this evaluate reads, a run resumed): servers refuse to load a name twice, so it is unloaded first
            unload(replica, name);
            ObjectNode body =
                    Protocol.JSON.createObjectNode().put("lora_name", name).put("lora_path", dir.toString());
            sampler.postTo(
                    replica,
                    sampler.options().protocol().loadPath,
                    body.toString(),
                    "loading adapter " + name + " on " + replica);
            check(replica, policy, name);
            if (old != null) {
                unload(replica, old);
            }
        }
        sampler.useAdapter(policy, name);
        served.put(policy, name);
        return version;
    }

    /** The servers sample the adapter files written at publish time, not the learner's weights. */
    @Override
    public boolean publishesCopies() {
        return true;
    }

    private void unload(URI replica, String name) {
        try {
            sampler.postTo(
                    replica,
                    sampler.options().protocol().unloadPath,
                    Protocol.JSON.createObjectNode().put("lora_name", name).toString(),
                    "unloading adapter " + name + " on " + replica);
        } catch (IllegalStateException e) {
            // an adapter already gone is what we wanted
        }
    }

    /**
     * Full weights (L1/L3): written as a model directory and reloaded by every replica from disk (SGLang's
     * {@code /update_weights_from_disk} with {@code weight_version: v<N>}, which its answers then report). vLLM has
     * no stable endpoint for this (its weight updates go through collective RPCs set up by the trainer), so it is
     * refused with that reason.
     */
    private long publishFull(PolicyRef policy, long version) {
        String name = "v" + version;
        if (name.equals(served.get(policy)) || (version == 0 && !served.containsKey(policy))) {
            served.put(policy, name); // the servers start with the base weights: version 0
            return version;
        }
        String path = sampler.options().protocol().reloadPath;
        if (path == null) {
            throw new UnsupportedOperationException("full-weight training (L1/L3) with rollouts on vLLM servers: "
                    + "vLLM cannot reload full weights from a directory over HTTP; use rollout.protocol: sglang "
                    + "(SGLang or pettingllms serve), or per-role adapters (L2)");
        }
        Path dir = publishDir.resolve(policy.model().replaceAll("[^A-Za-z0-9._-]", "_") + "-" + name);
        try {
            learner.save(policy, dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the weights of " + policy + " to " + dir, e);
        }
        for (URI replica : sampler.servers()) {
            sampler.postTo(
                    replica,
                    path,
                    Protocol.JSON
                            .createObjectNode()
                            .put("model_path", dir.toString())
                            .put("weight_version", name)
                            .toString(),
                    "reloading weights " + name + " on " + replica);
            check(replica, policy, null);
        }
        served.put(policy, name);
        return version;
    }

    /** The probe: the replica's logprobs of its own greedy tokens must be the learner's. */
    private void check(URI replica, PolicyRef policy, String name) {
        Completion c = sampler.sampleOn(
                        replica, policy, name, probe, 1, new SamplingParams(0.0, 0, 1.0, 8, List.of(), 0))
                .get(0);
        if (c.tokens().size() == 0) {
            return; // nothing generated: nothing to compare
        }
        FloatSeq mine = learner.logprobs(
                        policy, List.of(new TrainExample(c.promptTokens(), c.tokens(), c.logprobs(), 0)))
                .get(0);
        double gap = 0;
        for (int t = 0; t < mine.size(); t++) {
            gap += Math.abs(mine.get(t) - c.logprobs().get(t));
        }
        gap /= mine.size();
        if (!(gap <= tolerance)) {
            throw new IllegalStateException("replica " + replica + " does not serve the weights of " + policy
                    + " after loading " + (name == null ? "new weights" : "adapter " + name)
                    + ": its probe logprobs differ from the learner's by "
                    + String.format("%.3g", gap) + " per token (tolerance " + tolerance + "); stale or wrong weights");
        }
    }

    @Override
    public LossStats forwardBackward(PolicyRef policy, List<TrainExample> batch, LossConfig loss) {
        return learner.forwardBackward(policy, batch, loss);
    }

    @Override
    public LossStats forwardBackwardSupervised(PolicyRef policy, List<TrainExample> batch) {
        return learner.forwardBackwardSupervised(policy, batch);
    }

    @Override
    public List<FloatSeq> logprobs(PolicyRef policy, List<TrainExample> batch) {
        return learner.logprobs(policy, batch);
    }

    @Override
    public OptimStats optimStep(PolicyRef policy, OptimParams params) {
        return learner.optimStep(policy, params);
    }

    @Override
    public void save(PolicyRef policy, Path dir) throws IOException {
        learner.save(policy, dir);
    }

    @Override
    public void load(PolicyRef policy, Path dir) throws IOException {
        learner.load(policy, dir);
    }
}
