package org.pettingllms.tinker.server;

import static org.pettingllms.tinker.server.Replies.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.util.List;
import java.util.Set;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;
import org.pettingllms.tinker.server.Requests.ClientRequest;

/**
 * The routes that train a client's adapter: {@code forward_backward} (the {@code ppo} loss only), {@code forward}
 * ({@code cross_entropy} or {@code ppo}, nothing changed) and {@code optim_step}; each request's values checked here,
 * before it is queued, and converted by {@link TrainingConversion} when it runs.
 */
final class TrainingRoutes {
    private static final Set<String> ADAM_FIELDS =
            Set.of("learning_rate", "beta1", "beta2", "eps", "weight_decay", "grad_clip_norm");
    private static final Set<String> INPUT_FIELDS = Set.of("data", "loss_fn", "loss_fn_config");
    private static final Set<String> PPO_FIELDS = Set.of("clip_low_threshold", "clip_high_threshold");

    private final ServedModel served;
    private final Requests requests;

    TrainingRoutes(ServedModel served, Requests requests) {
        this.served = served;
        this.requests = requests;
    }

    void forwardBackward(Context ctx, ClientRequest q) throws Exception {
        train(ctx, q, "forward_backward_input", true);
    }

    void forward(Context ctx, ClientRequest q) throws Exception {
        train(ctx, q, "forward_input", false);
    }

    private void train(Context ctx, ClientRequest q, String inputKey, boolean backward) throws Exception {
        JsonNode input = Fields.object(q.body(), inputKey);
        Fields.onlyKnown(input, INPUT_FIELDS, inputKey, inputKey + ".");
        String loss = Fields.text(input, "loss_fn", inputKey + ".loss_fn", null);
        if (backward && !loss.equals("ppo")) {
            throw BadRequest.field(inputKey + ".loss_fn", "this server trains with 'ppo' only, got '" + loss + "'");
        }
        if (!backward && !loss.equals("cross_entropy") && !loss.equals("ppo")) {
            throw BadRequest.field(inputKey + ".loss_fn", "forward passes take 'cross_entropy' or 'ppo'");
        }
        List<TinkerDatum> data = TinkerDatum.read(
                Fields.array(input, "data", inputKey + ".data"),
                inputKey + ".data",
                backward,
                served.vocab(),
                served.context());
        String config = inputKey + ".loss_fn_config";
        JsonNode cfg = Fields.object(input, "loss_fn_config", config);
        Fields.onlyKnown(cfg, PPO_FIELDS, loss, config + ".");
        double low = Fields.number(cfg, "clip_low_threshold", config + ".clip_low_threshold", 0.8, 0, 1);
        double high = Fields.number(cfg, "clip_high_threshold", config + ".clip_high_threshold", 1.2, 1, 1e6);
        if (!(low > 0)) {
            throw BadRequest.field(config, "need 0 < clip_low_threshold <= 1 <= clip_high_threshold");
        }
        requests.submit(ctx, q, () -> {
            Learner learner = served.engine().learner();
            return backward
                    ? TrainingConversion.forwardBackward(learner, q.model().policy(), data, low, high)
                    : TrainingConversion.forward(learner, q.model().policy(), data);
        });
    }

    void optimStep(Context ctx, ClientRequest q) throws Exception {
        JsonNode a = Fields.object(q.body(), "adam_params");
        Fields.onlyKnown(a, ADAM_FIELDS, "optim_step", "adam_params.");
        double clip = Fields.number(a, "grad_clip_norm", "adam_params.grad_clip_norm", 0, 0, Double.MAX_VALUE);
        OptimParams params;
        try {
            params = new OptimParams(
                    Fields.number(a, "learning_rate", "adam_params.learning_rate", 1e-4, 0, 1e3),
                    Fields.number(a, "beta1", "adam_params.beta1", 0.9, 0, 1),
                    Fields.number(a, "beta2", "adam_params.beta2", 0.95, 0, 1),
                    Fields.number(a, "eps", "adam_params.eps", 1e-12, 0, 1),
                    Fields.number(a, "weight_decay", "adam_params.weight_decay", 0, 0, 1e3),
                    clip > 0 ? clip : Double.MAX_VALUE);
        } catch (IllegalArgumentException e) {
            throw BadRequest.field("adam_params", e.getMessage());
        }
        requests.submit(ctx, q, () -> {
            Learner.OptimStats o = served.engine().learner().optimStep(q.model().policy(), params);
            ObjectNode r = json().put("type", "optim_step");
            r.putObject("metrics")
                    .put("grad_norm", o.gradNorm())
                    .put("learning_rate", o.learningRate())
                    .put("skipped", o.skipped() ? 1.0 : 0.0);
            return r;
        });
    }
}
