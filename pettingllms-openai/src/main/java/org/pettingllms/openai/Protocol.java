package org.pettingllms.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.FinishReason;

/**
 * The two generation protocols, as request bodies built and response bodies read: the prompt goes as token ids
 * and the sampled token ids and their logprobs come back, so nothing is re-tokenised.
 * <ul>
 *   <li>{@link #VLLM}: {@code POST /v1/completions} with {@code prompt} as ids, {@code logprobs: 0} (the sampled
 *   token's logprob), {@code return_token_ids: true} (vLLM 0.10.2 or later), {@code n}, {@code seed}; the model
 *   field names the base model or a loaded LoRA adapter.</li>
 *   <li>{@link #SGLANG}: {@code POST /generate} with {@code input_ids}, {@code sampling_params},
 *   {@code return_logprob: true} ({@code meta_info.output_token_logprobs}), {@code lora_path} naming an adapter.</li>
 * </ul>
 */
public enum Protocol {
    VLLM("/v1/completions", "/v1/load_lora_adapter", "/v1/unload_lora_adapter", null),
    SGLANG("/generate", "/load_lora_adapter", "/unload_lora_adapter", "/update_weights_from_disk");

    static final ObjectMapper JSON = new ObjectMapper();

    final String generatePath;
    final String loadPath;
    final String unloadPath;
    /** Full weights reloaded from a directory; null where the server has no such endpoint. */
    final String reloadPath;

    Protocol(String generatePath, String loadPath, String unloadPath, String reloadPath) {
        this.generatePath = generatePath;
        this.loadPath = loadPath;
        this.unloadPath = unloadPath;
        this.reloadPath = reloadPath;
    }

    /** One sampled completion as the server returned it. */
    /** @param weightVersion SGLang's {@code meta_info.weight_version}, or null */
    public record Choice(
            int[] tokens, float[] logprobs, String text, FinishReason finish, String model, String weightVersion) {}

    /**
     * The request body.
     *
     * @param model the base model's id, or the adapter's name (null for SGLang's base model)
     */
    public ObjectNode request(String model, int[] promptIds, int n, SamplingParams p) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode ids = JSON.createArrayNode();
        for (int id : promptIds) {
            ids.add(id);
        }
        ArrayNode stop = JSON.createArrayNode();
        p.stop().forEach(stop::add);
        if (this == VLLM) {
            body.put("model", model).set("prompt", ids);
            body.put("n", n)
                    .put("max_tokens", p.maxTokens())
                    .put("temperature", p.temperature())
                    .put("top_p", p.topP())
                    .put("top_k", p.topK() > 0 ? p.topK() : -1)
                    .put("seed", p.seed())
                    .put("logprobs", 0)
                    .put("return_token_ids", true)
                    .set("stop", stop);
        } else {
            body.set("input_ids", ids);
            ObjectNode sp = body.putObject("sampling_params");
            sp.put("n", n)
                    .put("max_new_tokens", p.maxTokens())
                    .put("temperature", p.temperature())
                    .put("top_p", p.topP())
                    .put("top_k", p.topK() > 0 ? p.topK() : -1)
                    .put("sampling_seed", p.seed())
                    .set("stop", stop);
            body.put("return_logprob", true);
            if (model != null) {
                body.put("lora_path", model);
            }
        }
        return body;
    }

    /** Reads {@code n} choices from a response body; a body without token ids or logprobs is an error. */
    public List<Choice> parse(JsonNode body, int n, String requestedModel) {
        List<Choice> out = new ArrayList<>(n);
        if (this == VLLM) {
            JsonNode choices = body.path("choices");
            if (!choices.isArray() || choices.size() != n) {
                throw new ProtocolException("expected " + n + " choices, got "
                        + (choices.isArray() ? choices.size() : "none") + ": " + abbreviate(body));
            }
            String model = body.path("model").asText(requestedModel);
            for (int i = 0; i < n; i++) {
                JsonNode c = find(choices, i);
                JsonNode ids = c.path("token_ids");
                if (!ids.isArray()) {
                    throw new ProtocolException("choice " + i + " has no token_ids: the server must return token ids"
                            + " (vLLM 0.10.2 or later, request field return_token_ids)");
                }
                JsonNode lps = c.path("logprobs").path("token_logprobs");
                if (!lps.isArray() || lps.size() != ids.size()) {
                    throw new ProtocolException("choice " + i + " has " + (lps.isArray() ? lps.size() : "no")
                            + " token_logprobs for " + ids.size() + " tokens (request field logprobs: 0)");
                }
                String reason = c.path("finish_reason").asText("");
                JsonNode stopReason = c.path("stop_reason");
                FinishReason finish = reason.equals("length")
                        ? FinishReason.LENGTH
                        : stopReason.isTextual() ? FinishReason.STOP_STRING : FinishReason.EOS;
                out.add(new Choice(ints(ids), floats(lps, i), c.path("text").asText(""), finish, model, null));
            }
        } else {
            List<JsonNode> items = new ArrayList<>();
            if (body.isArray()) {
                body.forEach(items::add);
            } else {
                items.add(body);
            }
            if (items.size() != n) {
                throw new ProtocolException("expected " + n + " results, got " + items.size());
            }
            for (int i = 0; i < n; i++) {
                JsonNode r = items.get(i);
                JsonNode meta = r.path("meta_info");
                JsonNode lps = meta.path("output_token_logprobs");
                if (!lps.isArray()) {
                    throw new ProtocolException("result " + i + " has no meta_info.output_token_logprobs (request"
                            + " field return_logprob: true)");
                }
                int[] tokens = new int[lps.size()];
                float[] logprobs = new float[lps.size()];
                for (int t = 0; t < tokens.length; t++) {
                    JsonNode e = lps.get(t);
                    if (!e.isArray()
                            || e.size() < 2
                            || !e.get(0).isNumber()
                            || !e.get(1).isIntegralNumber()) {
                        throw new ProtocolException("result " + i + ": output_token_logprobs[" + t + "] is " + e
                                + ", expected [logprob, token_id, ...]");
                    }
                    logprobs[t] = (float) e.get(0).asDouble();
                    tokens[t] = e.get(1).asInt();
                }
                JsonNode fr = meta.path("finish_reason");
                FinishReason finish = fr.path("type").asText("").equals("length")
                        ? FinishReason.LENGTH
                        : fr.path("matched").isTextual() ? FinishReason.STOP_STRING : FinishReason.EOS;
                out.add(new Choice(
                        tokens,
                        logprobs,
                        r.path("text").asText(""),
                        finish,
                        requestedModel,
                        meta.hasNonNull("weight_version")
                                ? meta.path("weight_version").asText()
                                : null));
            }
        }
        return out;
    }

    private static JsonNode find(JsonNode choices, int index) {
        for (JsonNode c : choices) {
            if (c.path("index").asInt(-1) == index) {
                return c;
            }
        }
        throw new ProtocolException("no choice with index " + index);
    }

    private static int[] ints(JsonNode a) {
        int[] out = new int[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).asInt();
        }
        return out;
    }

    private static float[] floats(JsonNode a, int choice) {
        float[] out = new float[a.size()];
        for (int i = 0; i < out.length; i++) {
            if (!a.get(i).isNumber()) {
                throw new ProtocolException("choice " + choice + ": token_logprobs[" + i + "] is " + a.get(i));
            }
            out[i] = (float) a.get(i).asDouble();
        }
        return out;
    }

    static String abbreviate(JsonNode body) {
        String s = body.toString();
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    /** A response that does not follow the protocol: not retried (another replica would answer the same). */
    public static final class ProtocolException extends RuntimeException {
        public ProtocolException(String message) {
            super(message);
        }
    }
}
