package org.pettingllms.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.Demonstrations.Demo;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.text.TextCodec;
import org.pettingllms.text.TextCodecs;
import org.pettingllms.torch.family.ModelFamilies;
import org.pettingllms.torch.model.ModelConfig;

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
        var task = setup.task();
        String model = cfg.policy().model();
        out.printf(
                "dry run: %s | level %s | roles %s | model %s%n",
                task.id(), cfg.policy().level(), task.roles(), model);
        int context = Integer.MAX_VALUE;
        TextCodec codec;
        if (model.startsWith("fresh:")) {
            codec = TextCodecs.fresh(ModelFamilies.freshSeesImages(model.substring("fresh:".length())));
        } else {
            Path dir = Path.of(model);
            if (!Files.isDirectory(dir)) {
                throw new ConfigException("config key 'policy.model': '" + model + "' is not a model directory");
            }
            ModelConfig mc = ModelFamilies.decoderConfig(dir);
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
            List<Demo> demos = Demonstrations.available(task)
                    ? Demonstrations.of(
                            task, first, cfg.task().style(), new Demonstrations.Settings(0, 1), new SplittableRandom(1))
                    : List.of();
            if (demos.isEmpty()) {
                for (String role : task.roles()) {
                    printPrompt(
                            out,
                            role,
                            codec,
                            RunSetup.openingPrompt(task, first, role, cfg.task().style()),
                            cfg,
                            context);
                }
            }
            for (Demo d : demos) {
                printPrompt(out, d.role(), codec, d.prompt(), cfg, context);
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
        var source = setup.task().problems(setup.config().run().seed());
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

    private static void printPrompt(
            PrintWriter out, String role, TextCodec codec, Prompt prompt, RunConfig cfg, int context) {
        int[] ids = codec.encodePrompt(prompt);
        int budget = ids.length + cfg.rollout().sampling().maxTokens();
        out.printf(
                "--- %s: first prompt, %d tokens (+ up to %d sampled = %d%s) ---%n",
                role,
                ids.length,
                cfg.rollout().sampling().maxTokens(),
                budget,
                context == Integer.MAX_VALUE
                        ? ""
                        : budget <= context ? " of the context's " + context : ", OVER the context's " + context);
        out.println(codec.decode(ids));
    }
}
