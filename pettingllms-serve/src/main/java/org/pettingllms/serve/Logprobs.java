package org.pettingllms.serve;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.pettingllms.core.data.Completion;
import org.pettingllms.text.TextCodec;
import org.pettingllms.torch.train.SequenceBatch;

/**
 * The sampled tokens' logprobs and their top alternatives ({@link Generation#tops}) in the two forms clients read:
 * the chat endpoint's list of token objects, and {@code /v1/completions}' parallel arrays, as vLLM writes each. A
 * token is shown as its own decoded piece in both.
 */
final class Logprobs {
    private final TextCodec codec;

    Logprobs(TextCodec codec) {
        this.codec = codec;
    }

    /**
     * OpenAI's chat logprobs for tokens {@code from..to}: each token, its logprob and bytes, and with {@code top} the
     * {@code top_logprobs} most likely tokens there (token, logprob, bytes), best first.
     */
    void chat(ArrayNode content, Completion c, int from, int to, SequenceBatch.Top top) {
        for (int t = from; t < to; t++) {
            String piece = piece(c.tokens().get(t));
            ObjectNode o = content.addObject()
                    .put("token", piece)
                    .put("logprob", c.logprobs().get(t));
            bytes(o, piece);
            ArrayNode alternatives = o.putArray("top_logprobs");
            if (top != null) {
                for (int k = 0; k < top.ids()[t].length; k++) {
                    String alt = piece(top.ids()[t][k]);
                    bytes(alternatives.addObject().put("token", alt).put("logprob", top.logprobs()[t][k]), alt);
                }
            }
        }
    }

    /**
     * vLLM's completion logprobs: tokens, their logprobs (NaN: none, as for a prompt's first), top, offsets. Each
     * position's {@code top_logprobs} entry maps the chosen token and, with {@code top} (the completion's top tokens,
     * its row {@code topFrom} for {@code ids[0]}), the {@code logprobs} most likely tokens to their log-probabilities,
     * as vLLM does (so up to N + 1 entries).
     */
    void completion(ObjectNode lp, int[] ids, float[] values, int offset, SequenceBatch.Top top, int topFrom) {
        ArrayNode tokens = lp.putArray("tokens");
        ArrayNode logprobs = lp.putArray("token_logprobs");
        ArrayNode tops = lp.putArray("top_logprobs");
        ArrayNode offsets = lp.putArray("text_offset");
        for (int t = 0; t < ids.length; t++) {
            String piece = piece(ids[t]);
            tokens.add(piece);
            if (Float.isNaN(values[t])) {
                logprobs.addNull();
                tops.addNull();
            } else {
                logprobs.add(values[t]);
                ObjectNode entries = tops.addObject();
                if (top != null) {
                    int row = topFrom + t;
                    for (int k = 0; k < top.ids()[row].length; k++) {
                        entries.put(piece(top.ids()[row][k]), top.logprobs()[row][k]);
                    }
                }
                entries.put(piece, values[t]);
            }
            offsets.add(offset);
            offset += piece.length();
        }
    }

    /** A token decoded alone, as both forms show it (not the text it adds after the others, {@link Generation#pieces}). */
    private String piece(int id) {
        return codec.decode(new int[] {id});
    }

    private static void bytes(ObjectNode o, String piece) {
        ArrayNode bytes = o.putArray("bytes");
        for (byte b : piece.getBytes(StandardCharsets.UTF_8)) {
            bytes.add(b & 0xff);
        }
    }
}
