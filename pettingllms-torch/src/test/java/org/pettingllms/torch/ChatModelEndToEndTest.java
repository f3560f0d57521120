package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.task.Tasks;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.text.HfTokenizerCodec;
import org.pettingllms.torch.engine.EmbeddedEngine;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.model.RopeScaling;

/**
 * A chat-style task on the embedded engine: a (random, tiny) Qwen3-vocabulary model with the Qwen3 tokenizer and
 * chat template plays math-v1 from the shipped config. The prompts the model reads are the chat template's.
 */
class ChatModelEndToEndTest {
    @Tag("heavy")
    @Test
    void mathChatPromptsRunThroughTheChatTemplateOnTheEmbeddedEngine(@TempDir Path dir) throws Exception {
        ModelConfig cfg = ModelConfig.builder("qwen3")
                .vocabSize(151936)
                .widths(16, 32)
                .layers(1, 2, 1, 8)
                .rope(1_000_000, RopeScaling.NONE)
                .tieWordEmbeddings(true)
                .maxPositionEmbeddings(4096)
                .tokens(151643, 151645)
                .build();
        try (DecoderModel m = DecoderModel.random(cfg, 3, Device.cpu())) {
            m.save(dir);
        }
        Path tok = SharedFiles.fixture("qwen3-tokenizer");
        Files.copy(tok.resolve("tokenizer.json"), dir.resolve("tokenizer.json"));
        Files.copy(tok.resolve("tokenizer_config.json"), dir.resolve("tokenizer_config.json"));
        Path aime = SharedFiles.shared().resolve("datasets/math/aime24.test.jsonl");
        RunConfig run = ConfigLoader.load(
                Path.of("..", "configs", "math", "L0.yaml"),
                List.of(
                        "policy.model=" + dir,
                        "task.options.test=" + aime,
                        "task.options.train=",
                        "task.options.generator=",
                        "task.style=chat",
                        "rollout.sampling.maxTokens=6",
                        "rollout.k=2"));
        Task<?> task = Tasks.create(run.task());
        PolicyMap policies = PolicyMap.forLevel(
                run.policy().level(), task.roles(), run.policy().model(), new HashSet<>());
        try (EmbeddedEngine engine = EmbeddedEngine.open(run, policies);
                HfTokenizerCodec codec = HfTokenizerCodec.load(dir, 151645)) {
            RolloutResult r = new RolloutEngine(engine.sampler())
                    .run(
                            task,
                            task.problems(1).problems(Split.TEST, 0, 2),
                            policies,
                            run.rollout().toRolloutConfig(run.task().style(), 1));
            assertThat(r.samples()).hasSize(2 * 2);
            for (Sample s : r.samples()) {
                String prompt = codec.decode(s.completion().promptTokens().toArray());
                assertThat(prompt)
                        .startsWith("<|im_start|>system\nYou are a helpful assistant that solves math"
                                + " problems step by step.<|im_end|>\n<|im_start|>user\nProblem:\n")
                        .endsWith("<|im_end|>\n<|im_start|>assistant\n");
                assertThat(s.completion().tokens().size()).isBetween(1, 6);
                for (int i = 0; i < s.completion().tokens().size(); i++) {
                    assertThat(s.completion().logprobs().get(i)).isFinite().isLessThanOrEqualTo(0f);
                }
            }
        }
    }
}
