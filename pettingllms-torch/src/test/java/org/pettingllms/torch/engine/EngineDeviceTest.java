package org.pettingllms.torch.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.Torch;

/**
 * Where the engine's tensors live: only the configured device, never one written into the code; a device or a type
 * that this machine's PyTorch cannot give is refused in one line that names the config key.
 */
class EngineDeviceTest {
    /**
     * Calls that name a device, or let DJL pick its default one (a GPU when there is one): in the engine's main code
     * only {@link Torch#device} may name a device; everything else takes its device from a model or a manager.
     */
    static final Pattern HARD_CODED =
            Pattern.compile("Device\\.(cpu|gpu|of|fromName)\\(|newBaseManager\\(\\)|defaultDevice\\(|getDevices\\(");

    /** Lines of {@code source} that choose a device themselves, as "line: text". */
    static List<String> hardCodedDevices(String source) {
        List<String> found = new ArrayList<>();
        String[] lines = source.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String code = lines[i].strip();
            if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) {
                continue; // comments may name devices
            }
            if (HARD_CODED.matcher(lines[i]).find()) {
                found.add((i + 1) + ": " + code);
            }
        }
        return found;
    }

    @Test
    void theScanFindsAPlantedCpuDevice() {
        String planted = """
                /** Device.cpu() in a comment is fine. */
                NDManager m = model.manager().newSubManager();
                NDArray x = Torch.engine().newBaseManager(Device.cpu()).zeros(new Shape(2));
                NDManager d = Torch.engine().newBaseManager();
                """;
        assertThat(hardCodedDevices(planted))
                .containsExactly(
                        "3: NDArray x = Torch.engine().newBaseManager(Device.cpu()).zeros(new Shape(2));",
                        "4: NDManager d = Torch.engine().newBaseManager();");
    }

    @Test
    void noEngineCodeChoosesADeviceItself() throws IOException {
        Path main = SharedFiles.projectRoot().resolve("pettingllms-torch/src/main/java");
        Set<String> allowed = Set.of("Torch.java"); // maps a configured name to a device
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                if (allowed.contains(f.getFileName().toString())) {
                    continue;
                }
                hardCodedDevices(Files.readString(f)).forEach(l -> found.add(main.relativize(f) + ":" + l));
            }
        }
        assertThat(found)
                .as("tensors made on a device the configuration did not choose")
                .isEmpty();
    }

    static RunConfig config(String... overrides) {
        return ConfigLoader.load(SharedFiles.projectRoot().resolve("configs/plan-path/L2.yaml"), List.of(overrides));
    }

    static PolicyMap policies(RunConfig cfg) {
        return PolicyMap.forLevel(
                Level.L2, List.of("tool", "plan"), cfg.policy().model(), Set.of());
    }

    @Test
    void aGpuThisPyTorchCannotSeeIsOneLineNamingTheKey() {
        assumeTrue(Torch.engine().getGpuCount() == 0, "this machine's PyTorch sees a GPU");
        RunConfig cfg = config("engine.device=gpu");
        assertThatThrownBy(() -> EmbeddedEngine.open(cfg, policies(cfg)))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("config key 'engine.device': device 'gpu' asks for CUDA GPU 0")
                .hasMessageContaining("sees none")
                .hasMessageNotContaining("\n");
    }

    @Test
    void bf16WithoutAJniThatHoldsItIsOneLineNamingTheKey() {
        assumeTrue(!Torch.bf16Supported(), "the JNI library in use was built with bfloat16");
        RunConfig cfg = config("engine.dtype=bf16");
        assertThatThrownBy(() -> EmbeddedEngine.open(cfg, policies(cfg)))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("config key 'engine.dtype': bf16 needs DJL's PyTorch JNI built with bfloat16")
                .hasMessageContaining("scripts/gpu/run")
                .hasMessageNotContaining("\n");
    }

    @Test
    void anUnknownDtypeIsRefusedByTheConfig() {
        assertThatThrownBy(() -> config("engine.dtype=fp8"))
                .hasMessageContaining("dtype must be fp32 or bf16, got 'fp8'");
    }
}
