package org.pettingllms.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.Demonstrations.Demo;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.workflow.DesignedSystem;
import org.pettingllms.text.TextCodec;
import org.pettingllms.text.TextCodecs;
import org.pettingllms.torch.family.ModelFamilies;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.model.ModelFamily;

/**
 * {@code train --dry-run}: everything a run reads before its first step except the weights (the config, the
 * model's config, tokenizer and chat template, the task and its data), and the first prompt of each role as the
 * model would read it (after the chat template), with its length against the model's context. A recipe for a
 * large model can be checked this way on a laptop before it is sent to the machine that trains it.
 */
final class DryRun {
    private DryRun() {}

    static void print(RunSetup setup, PrintWriter out) throws IOException {
        RunConfig cfg = setup.config();
        String model = cfg.policy().model();
        out.printf(
                "dry run: %s | level %s | roles %s | model %s%n",
                setup.source().id(), cfg.policy().level(), setup.source().roles(), model);
        int context = Integer.MAX_VALUE;
        ModelConfig decoder = null;
        Path modelDir = null;
        TextCodec codec;
        if (model.startsWith("fresh:")) {
            codec = TextCodecs.fresh(ModelFamilies.freshSeesImages(model.substring("fresh:".length())));
        } else {
            Path dir = Path.of(model);
            if (!Files.isDirectory(dir)) {
                throw new ConfigException("config key 'policy.model': '" + model + "' is not a model directory");
            }
            ModelConfig mc = ModelFamilies.decoderConfig(dir);
            decoder = mc;
            modelDir = dir;
            context = mc.maxPositionEmbeddings();
            codec = TextCodecs.of(dir, mc.eosTokenId());
            out.printf(
                    "model config: %s, %d layers, hidden %d, vocabulary %d, context %d (weights not loaded)%n",
                    mc.modelType(), mc.numLayers(), mc.hiddenSize(), mc.vocabSize(), context);
        }
        try {
            Problem first = firstProblem(setup);
            out.printf("first problem: %s%n", first.id());
            // the task's demonstrations at full skill: each role's first-turn prompt, in turn order, with the answers
            // the earlier roles would give (a dataset task's oracle; a generator's own demonstrations)
            // a designed system: the designer's prompt, then the calls of a design drawn as its warm-up draws them
            Demonstrations.Settings full = new Demonstrations.Settings(0, 1);
            List<Demo> demos = setup.source() instanceof DesignedSystem system
                    ? system.hasDemonstrations()
                            ? system.demonstrations(first, cfg.task().style(), full, new SplittableRandom(1))
                            : List.of(system.designerDemo(first, cfg.task().style()))
                    : Demonstrations.available(setup.task())
                            ? Demonstrations.of(setup.task(), first, cfg.task().style(), full, new SplittableRandom(1))
                            : List.of();
            List<String> roles = new ArrayList<>();
            List<Prompt> prompts = new ArrayList<>();
            if (demos.isEmpty()) {
                var task = setup.task();
                for (String role : task.roles()) {
                    roles.add(role);
                    prompts.add(
                            RunSetup.openingPrompt(task, first, role, cfg.task().style()));
                }
            }
            for (Demo d : demos) {
                roles.add(d.role());
                prompts.add(d.prompt());
            }
            List<Image> images =
                    prompts.stream().flatMap(pr -> pr.images().stream()).toList();
            ModelFamily.Description about = modelDir == null
                    ? ModelFamilies.describeFresh(model.substring("fresh:".length()), images)
                    : ModelFamilies.describe(modelDir, images);
            if (about.imageTokens() == null) {
                throw new ConfigException("config key 'policy.model': '" + model + "' takes no images (model_type "
                        + (decoder == null ? "a text preset" : decoder.modelType())
                        + "); the task shows them (task.options.view)");
            }
            about.lines().forEach(out::println);
            int at = 0;
            int longest = 0;
            for (int i = 0; i < prompts.size(); i++) {
                int extra = 0;
                for (int j = 0; j < prompts.get(i).images().size(); j++) {
                    extra += about.imageTokens().get(at++) - 1; // a placeholder becomes the image's tokens
                }
                longest = Math.max(longest, printPrompt(out, roles.get(i), codec, prompts.get(i), extra, cfg, context));
            }
            if (decoder != null) {
                out.println(MemoryEstimate.of(cfg, decoder, about.parameters(), longest));
            }
        } finally {
            if (codec instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // a tokenizer that fails to close leaves nothing the dry run could act on
                }
            }
        }
        out.println("dry run done: nothing was trained or written");
        out.flush();
    }

    private static Problem firstProblem(RunSetup setup) {
        var source = setup.source().problems(setup.config().run().seed());
        try {
            return source.problems(Split.TRAIN, 0, 1).get(0);
        } catch (ConfigException noTrainingData) {
            List<Problem> test = source.problems(Split.TEST, 0, 1);
            if (test.isEmpty()) {
                throw new ConfigException("config key 'task.options': the task has no problems");
            }
            return test.get(0);
        }
    }

    /** Prints a prompt as the model reads it; returns its length in tokens with the images' tokens. */
    private static int printPrompt(
            PrintWriter out, String role, TextCodec codec, Prompt prompt, int imageTokens, RunConfig cfg, int context) {
        int[] ids = codec.encodePrompt(prompt);
        int length = ids.length + imageTokens;
        int budget = length + cfg.rollout().sampling().maxTokens();
        out.printf(
                "--- %s: first prompt, %d tokens%s (+ up to %d sampled = %d%s) ---%n",
                role,
                length,
                prompt.images().isEmpty() ? "" : " with " + prompt.images().size() + " image(s)",
                cfg.rollout().sampling().maxTokens(),
                budget,
                context == Integer.MAX_VALUE
                        ? ""
                        : budget <= context ? " of the context's " + context : ", OVER the context's " + context);
        out.println(codec.decode(ids));
        return length;
    }
}
