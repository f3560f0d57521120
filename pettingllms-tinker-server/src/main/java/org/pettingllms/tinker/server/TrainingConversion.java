package org.pettingllms.tinker.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;

/**
 * Tinker's datums as the learner's examples, and its answers back: a training datum becomes one example of its
 * completion (from its first non-zero position), its advantages scaled so that the learner's token mean is
 * the service's token sum; a forward pass's datum becomes one example of all its positions. The answers hold a logprob
 * for every position of every datum (0 on a training datum's masked prompt positions) and the loss's sum.
 */
final class TrainingConversion {
    private TrainingConversion() {}

    /**
     * A request's training examples, one per datum with a completion, and each datum's row among them (-1 for one
     * without: all zeros, no completion, no gradient).
     */
    record Rows(List<TrainExample> examples, List<Integer> rowOf) {
        Rows {
            examples = List.copyOf(examples);
            rowOf = List.copyOf(rowOf);
        }
    }

    /** {@code forward_backward} with the {@code ppo} loss clipped to {@code [low, high]}: its answer. */
    static ObjectNode forwardBackward(
            Learner learner, PolicyRef policy, List<TinkerDatum> data, double low, double high) {
        Rows rows = trainingRows(data);
        // the completions' logprobs before the update (rows sharing a prompt share its pass); the prompt positions,
        // masked by zeros, answer 0
        List<FloatSeq> rowLogprobs = rows.examples().isEmpty() ? List.of() : learner.logprobs(policy, rows.examples());
        List<FloatSeq> now = everyPosition(data, rows.rowOf(), rowLogprobs);
        double sum = 0;
        if (!rows.examples().isEmpty()) {
            sum = learner.forwardBackward(
                            policy,
                            rows.examples(),
                            new LossConfig(1 - low, high - 1, LossConfig.Aggregation.TOKEN_MEAN, 0, 0))
                    .loss();
        }
        return answer(now, sum);
    }

    /** {@code forward}: every position's logprob, and the cross-entropy's sum under the datums' weights. */
    static ObjectNode forward(Learner learner, PolicyRef policy, List<TinkerDatum> data) {
        List<FloatSeq> now = learner.logprobs(policy, forwardRows(data));
        double sum = 0;
        for (int i = 0; i < data.size(); i++) {
            for (int k = 0; k < data.get(i).targets().length; k++) {
                sum -= now.get(i).get(k) * data.get(i).weights()[k];
            }
        }
        return answer(now, sum);
    }

    /**
     * Training datums as examples: the prompt up to the completion's first position, the completion, its sampler
     * logprobs, and the datum's advantage times the request's completion tokens (the service sums token losses;
     * the learner's token mean times the token count is that sum).
     */
    static Rows trainingRows(List<TinkerDatum> data) {
        List<TrainExample> rows = new ArrayList<>();
        List<Integer> rowOf = new ArrayList<>();
        long tokens = 0;
        for (TinkerDatum s : data) {
            tokens += s.start() < 0 ? 0 : s.targets().length - s.start();
        }
        for (TinkerDatum s : data) {
            if (s.start() < 0) {
                rowOf.add(-1); // all zeros: no completion, no gradient
                continue;
            }
            int[] prompt = new int[s.start() + 1];
            System.arraycopy(s.tokens(), 0, prompt, 0, s.start() + 1);
            int c = s.targets().length - s.start();
            int[] completion = new int[c];
            float[] old = new float[c];
            System.arraycopy(s.targets(), s.start(), completion, 0, c);
            for (int k = 0; k < c; k++) {
                old[k] = (float) s.logprobs()[s.start() + k];
            }
            rowOf.add(rows.size());
            rows.add(example(prompt, completion, old, s.advantages(), s.start(), tokens));
        }
        return new Rows(rows, rowOf);
    }

    /**
     * One example; its advantage is the datum's (times the token count) when every completion position has the same
     * one, else the largest in size, each token weighted by its own share of it (the learner's token advantage
     * {@code advantage x weight} is then the datum's, up to rounding).
     */
    private static TrainExample example(int[] prompt, int[] completion, float[] old, double[] adv, int start, long n) {
        double first = adv[start];
        double largest = 0;
        boolean uniform = true;
        for (int k = start; k < adv.length; k++) {
            uniform &= adv[k] == first;
            largest = Math.abs(adv[k]) > Math.abs(largest) ? adv[k] : largest;
        }
        if (uniform) {
            return new TrainExample(IntSeq.of(prompt), IntSeq.of(completion), FloatSeq.of(old), first * n);
        }
        float[] weights = new float[completion.length];
        for (int k = 0; k < weights.length; k++) {
            weights[k] = (float) (adv[start + k] / largest);
        }
        return new TrainExample(
                IntSeq.of(prompt),
                IntSeq.of(completion),
                FloatSeq.of(old),
                largest * n,
                List.of(),
                FloatSeq.of(weights));
    }

    /** The completions' logprobs placed at their datums' positions, 0 on the masked prompt positions. */
    static List<FloatSeq> everyPosition(List<TinkerDatum> data, List<Integer> rowOf, List<FloatSeq> rowLogprobs) {
        List<FloatSeq> now = new ArrayList<>(data.size());
        for (int i = 0; i < data.size(); i++) {
            TinkerDatum s = data.get(i);
            float[] lp = new float[s.targets().length];
            if (rowOf.get(i) >= 0) {
                float[] c = rowLogprobs.get(rowOf.get(i)).toArray();
                System.arraycopy(c, 0, lp, s.start(), c.length);
            }
            now.add(FloatSeq.of(lp));
        }
        return now;
    }

    /** Forward datums as examples of every position: the first token as the prompt, all targets as completion. */
    static List<TrainExample> forwardRows(List<TinkerDatum> data) {
        List<TrainExample> all = new ArrayList<>(data.size());
        for (TinkerDatum s : data) {
            all.add(new TrainExample(
                    IntSeq.of(s.tokens()[0]), IntSeq.of(s.targets()), FloatSeq.of(new float[s.targets().length]), 0));
        }
        return all;
    }

    /** Tinker's answer: each datum's logprobs as a float32 tensor record, and the loss's sum. */
    static ObjectNode answer(List<FloatSeq> now, double sum) {
        ObjectNode r = Replies.json().put("loss_fn_output_type", "ArrayRecord");
        ArrayNode outs = r.putArray("loss_fn_outputs");
        for (FloatSeq lp : now) {
            ObjectNode t = outs.addObject().putObject("logprobs");
            ArrayNode d = t.putArray("data");
            for (int k = 0; k < lp.size(); k++) {
                d.add(lp.get(k));
            }
            t.put("dtype", "float32").putArray("shape").add(lp.size());
        }
        r.putObject("metrics").put("loss:sum", sum);
        return r;
    }
}
