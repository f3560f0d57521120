package org.pettingllms.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.torch.bench.ModelBench;

/**
 * {@code bench model --anchor python3}: the same shapes measured in PyTorch eager by {@code scripts/gpu/anchor.py}
 * (transformers' Qwen3 where it is installed, else the script's own plain-PyTorch Qwen3), run before our numbers in
 * the same invocation so that both see the same machine. Its JSON uses our keys.
 */
final class AnchorBench {
    private AnchorBench() {}

    static Map<String, Object> run(
            String python,
            String preset,
            String shapes,
            ModelBench.Options options,
            int seconds,
            Map<String, String> env)
            throws IOException, InterruptedException {
        Path script = RunSetup.home(env).resolve("scripts/gpu/anchor.py");
        if (!Files.isRegularFile(script)) {
            throw new ConfigException("--anchor: " + script + " does not exist (it ships with the project's sources)");
        }
        Set<String> parts = new LinkedHashSet<>();
        for (String p : List.of("prefill", "decode", "train")) {
            if (options.parts().contains(p)) {
                parts.addAll(p.equals("train") ? List.of("lora", "full") : List.of(p));
            }
        }
        List<String> cmd = new ArrayList<>(List.of(
                python,
                script.toString(),
                "--preset",
                preset,
                "--device",
                options.device().isGpu() ? "cuda" : "cpu",
                "--dtype",
                options.dtypeName(),
                "--seconds",
                Integer.toString(seconds),
                "--shapes",
                shapes,
                "--parts",
                String.join(",", parts)));
        Process proc = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.INHERIT) // its progress lines
                .start();
        byte[] out = proc.getInputStream().readAllBytes();
        if (!proc.waitFor(10, TimeUnit.MINUTES) || proc.exitValue() != 0) {
            proc.destroyForcibly();
            throw new ConfigException("--anchor: '" + String.join(" ", cmd) + "' failed (exit "
                    + (proc.isAlive() ? "none" : proc.exitValue()) + "; its errors are above)");
        }
        String text = new String(out, StandardCharsets.UTF_8).trim();
        try {
            return new ObjectMapper().readValue(text, new TypeReference<Map<String, Object>>() {});
        } catch (IOException e) {
            throw new ConfigException(
                    "--anchor: the script printed no JSON object: " + text.substring(0, Math.min(200, text.length())));
        }
    }
}
