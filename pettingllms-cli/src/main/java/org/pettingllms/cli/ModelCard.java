package org.pettingllms.cli;

/** The model card written beside a model made by {@code sft}: how to make it again, and how good it is. */
final class ModelCard {
    private ModelCard() {}

    static String text(
            String modelType,
            String task,
            String from,
            long seed,
            long params,
            int steps,
            int batch,
            double lr,
            double noise,
            double seconds,
            String mainRole, // null: a designed system, which has no single agent
            double singleAgent,
            double team,
            int evalProblems,
            String args) {
        return """
                # %s base model

                A small %s trained by this project's own supervised warm-up on demonstrations of
                `%s` (the task's own, or its scripted team's answers), deliberately imperfect, so that reinforcement
                learning has room to improve it.

                | | |
                |---|---|
                | made with | `./pettingllms sft %s` |
                | started from | `%s`, seed %d |
                | parameters | %,d |
                | data | first-turn prompts of training problems (seed %d), demonstrated answers, %.0f%% of them deliberately imperfect |
                | training | %d steps x %d problems, AdamW, peak learning rate %s, warmup then cosine |
                | training time | %.0f s on this machine |
                | greedy success before RL | %s (%d validation problems) |

                Files: `config.json`, `model.safetensors` and the tokenizer in the Hugging Face layout. A model started
                from a `fresh:` preset uses the project's character codec (`CharCodec`): ids 0-2 are padding, begin and
                end (`<pad>`, `<s>`, `</s>`); newline is 3; printable ASCII follows from 4; `tokenizer.json` writes it
                as a WordLevel tokenizer over single characters, so other tools load it too.%s
                """.formatted(
                        task,
                        architecture(modelType),
                        task,
                        args,
                        from,
                        seed,
                        params,
                        seed,
                        100 * noise,
                        steps,
                        batch,
                        lr,
                        seconds,
                        mainRole == null
                                ? "the designed system (its designer and executors) %.1f%%".formatted(100 * team)
                                : "%s alone %.1f%%, the team %.1f%%".formatted(mainRole, 100 * singleAgent, 100 * team),
                        evalProblems,
                        modelType.equals("qwen2_5_vl")
                                ? " A vision-language model adds Qwen2-VL's three image tokens"
                                        + " (`CharVisionCodec`: ids 99-101) and `preprocessor_config.json`."
                                : "");
    }

    /** What the model is, from its {@code model_type}. */
    static String architecture(String modelType) {
        return switch (modelType) {
            case "qwen2_5_vl" -> "Qwen2.5-VL (a vision-language model: a decoder and a vision tower)";
            case "qwen2" -> "Qwen2-style decoder";
            case "llama" -> "Llama-style decoder";
            default -> "Qwen3-style decoder";
        };
    }
}
