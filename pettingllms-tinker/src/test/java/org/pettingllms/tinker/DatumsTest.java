package org.pettingllms.tinker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;

/** Datum layout and advantage scaling by hand: a 2-token prompt with a 3-token answer, and 1 + 1. */
class DatumsTest {
    static final TrainExample A =
            new TrainExample(IntSeq.of(5, 6), IntSeq.of(7, 8, 9), FloatSeq.of(-0.5f, -1.0f, -0.25f), 2.0);
    static final TrainExample B = new TrainExample(IntSeq.of(1), IntSeq.of(2), FloatSeq.of(-0.1f), -1.0);

    static List<Double> data(JsonNode tensor) {
        List<Double> out = new ArrayList<>();
        tensor.path("data").forEach(x -> out.add(x.asDouble()));
        return out;
    }

    @Test
    void aDatumIsTheSequenceShiftedByOneWithThePromptZeroed() {
        ArrayNode d = Datums.ppo(List.of(A, B), LossConfig.DEFAULT);
        JsonNode a = d.get(0);
        assertThat(data(wrap(a.path("model_input").path("chunks").get(0).path("tokens"))))
                .containsExactly(5.0, 6.0, 7.0, 8.0);
        JsonNode in = a.path("loss_fn_inputs");
        assertThat(data(in.path("target_tokens"))).containsExactly(6.0, 7.0, 8.0, 9.0);
        assertThat(data(in.path("logprobs"))).containsExactly(0.0, -0.5, -1.0, -0.25);
        // token mean over N = 4 completion tokens: each advantage scaled by 1/4
        assertThat(data(in.path("advantages"))).containsExactly(0.0, 0.5, 0.5, 0.5);
        JsonNode b = d.get(1).path("loss_fn_inputs");
        assertThat(data(b.path("target_tokens"))).containsExactly(2.0);
        assertThat(data(b.path("advantages"))).containsExactly(-0.25);
        assertThat(in.path("target_tokens").path("dtype").asText()).isEqualTo("int64");
        assertThat(Datums.ppoConfig(LossConfig.DEFAULT)
                        .path("clip_low_threshold")
                        .asDouble())
                .isEqualTo(0.8);
        assertThat(Datums.ppoConfig(LossConfig.DEFAULT)
                        .path("clip_high_threshold")
                        .asDouble())
                .isEqualTo(1.2);
    }

    static ObjectNode wrap(JsonNode array) {
        ObjectNode o = TinkerClient.JSON.createObjectNode();
        o.set("data", array);
        return o;
    }

    @Test
    void theMeanOverSequencesScalesByEachSequencesLength() {
        LossConfig seq = new LossConfig(0.2, 0.2, LossConfig.Aggregation.SEQUENCE_MEAN_TOKEN_MEAN, 0, 0);
        ArrayNode d = Datums.ppo(List.of(A, B), seq);
        // S = 2 sequences: A's tokens weigh 1 / (2 * 3), B's 1 / (2 * 1)
        assertThat(data(d.get(0).path("loss_fn_inputs").path("advantages")).get(1))
                .isCloseTo(1.0 / 3, within(1e-12));
        assertThat(data(d.get(1).path("loss_fn_inputs").path("advantages"))).containsExactly(-0.5);
    }

    @Test
    void statsAreTheEmbeddedLearnersFromTheServicesLogprobs() {
        // ratio 1 everywhere: minus the token mean of the advantages, (2 * 3 - 1) / 4
        Learner.LossStats same =
                Datums.stats(List.of(A, B), List.of(A.oldLogprobs(), B.oldLogprobs()), LossConfig.DEFAULT);
        assertThat(same.loss()).isCloseTo(-1.25, within(1e-9));
        assertThat(same.clipFraction()).isZero();
        assertThat(same.logprobShift()).isCloseTo(0, within(1e-9));
        assertThat(same.tokens()).isEqualTo(4);
        // A's ratio 1.5 clipped to 1.2: tokens -2 * 1.2 each; B's ratio 1: +1; (3 * -2.4 + 1) / 4
        float up = (float) Math.log(1.5);
        FloatSeq moved = FloatSeq.of(-0.5f + up, -1.0f + up, -0.25f + up);
        Learner.LossStats s = Datums.stats(List.of(A, B), List.of(moved, B.oldLogprobs()), LossConfig.DEFAULT);
        assertThat(s.loss()).isCloseTo(-1.55, within(1e-6));
        assertThat(s.clipFraction()).isEqualTo(0.75);
        assertThat(s.logprobShift()).isCloseTo(3 * Math.log(1.5) / 4, within(1e-6));
    }

    @Test
    void completionLogprobsAreReadAtTheCompletionsPositions() {
        ObjectNode out = TinkerClient.JSON.createObjectNode();
        ArrayNode outs = out.putArray("loss_fn_outputs");
        ArrayNode a = outs.addObject().putObject("logprobs").putArray("data");
        for (double x : new double[] {-9, -1, -2, -3}) {
            a.add(x);
        }
        outs.addObject().putObject("logprobs").putArray("data").add(-4.0);
        List<FloatSeq> lp = Datums.completionLogprobs(List.of(A, B), out, "forward");
        assertThat(lp.get(0).toArray()).containsExactly(-1f, -2f, -3f);
        assertThat(lp.get(1).toArray()).containsExactly(-4f);
        assertThatThrownBy(() -> Datums.completionLogprobs(List.of(A), out, "forward"))
                .hasMessageContaining("expected 1 loss_fn_outputs, got 2");
    }

    @Test
    void anExampleWithoutAPromptTokenIsRefused() {
        TrainExample empty = new TrainExample(IntSeq.of(), IntSeq.of(3), FloatSeq.of(-1f), 1);
        assertThatThrownBy(() -> Datums.ppo(List.of(empty), LossConfig.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs a prompt token");
    }
}
