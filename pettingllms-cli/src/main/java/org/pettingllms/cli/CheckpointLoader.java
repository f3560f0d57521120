package org.pettingllms.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.train.Checkpoints;
import org.pettingllms.torch.engine.EmbeddedEngine;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.model.LoraAdapter;

/** A run's checkpoint into the embedded engine: each trained policy's adapter (L2) or full weights (L0, L1, L3). */
final class CheckpointLoader {
    private CheckpointLoader() {}

    /** Loads every trained policy of {@code checkpoint} (a run's checkpoints folder or one step's); a line to print. */
    static String load(EmbeddedEngine engine, RunSetup setup, Path checkpoint) throws IOException {
        Map<PolicyRef, Path> folders = Checkpoints.find(checkpoint, setup.policies());
        for (Map.Entry<PolicyRef, Path> f : folders.entrySet()) {
            PolicyRef ref = f.getKey();
            if (ref.adapter() != null) {
                engine.registry()
                        .putAdapter(
                                ref,
                                LoraAdapter.load(
                                        ref.adapter(), engine.registry().model(ref.model()), f.getValue()));
            } else {
                engine.registry()
                        .setWeights(ref.model(), SafeTensors.read(f.getValue().resolve("model.safetensors")));
            }
        }
        return "loaded " + folders.values().iterator().next().getParent() + ": " + folders.size() + " policies";
    }
}
