package org.pettingllms.torch.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.torch.Torch;

/**
 * The AT-GRPO policy loss on tensors (the scalar reference is {@code org.pettingllms.core.algo.PolicyLoss}):
 * <pre>
 *   rho   = exp(logp - logp_old)
 *   L_tok = max(-A * rho, -A * clip(rho, 1 - eps_low, 1 + eps_high))   + klCoef * k3   - entropyCoef * H
 * </pre>
 * aggregated as the token mean over the batch, or the mean over sequences of each sequence's token mean.
 */
public final class PpoLoss {
    private PpoLoss() {}

    /**
     * The loss and its diagnostics (scalars are host values, the loss keeps its graph); {@code logprobShift} is the
     * token mean of {@code |logp - logp_old|}.
     */
    public record Result(NDArray loss, double clipFraction, double kl, double entropy, double logprobShift) {}

    /**
     * @param logp       [B, L] current logprobs (with gradients)
     * @param oldLogp    [B, L] sampling logprobs
     * @param advantages [B, 1] per-row advantage, or [B, L] per token (token-weighted rows)
     * @param mask       [B, L] 1 on completion tokens
     * @param refLogp    [B, L] reference logprobs, or null when klCoef is 0
     * @param entropy    [B, L] per-position entropy (with gradients), or null when entropyCoef is 0
     */
    public static Result compute(
            NDArray logp,
            NDArray oldLogp,
            NDArray advantages,
            NDArray mask,
            NDArray refLogp,
            NDArray entropy,
            LossConfig cfg) {
        NDArray diff = logp.sub(oldLogp);
        NDArray rho = diff.exp();
        NDArray unclipped = advantages.neg().mul(rho);
        // clamp as max/min with PyTorch-owned bounds: DJL's clip(Number, Number) makes Java-buffer bounds that the
        // backward pass would read after they are freed (Torch.scalar)
        NDManager m = rho.getManager();
        NDArray clipped = advantages
                .neg()
                .mul(rho.maximum(Torch.scalar(m, 1 - cfg.clipLow())).minimum(Torch.scalar(m, 1 + cfg.clipHigh())));
        NDArray tok = unclipped.maximum(clipped);
        double kl = 0;
        if (refLogp != null && cfg.klCoef() > 0) {
            NDArray d = refLogp.sub(logp);
            NDArray k3 = d.exp().sub(d).sub(Torch.scalar(d.getManager(), 1));
            tok = tok.add(k3.mul(Torch.scalar(k3.getManager(), cfg.klCoef())));
            kl = aggregate(k3, mask, cfg).getFloat();
        }
        double ent = 0;
        if (entropy != null && cfg.entropyCoef() > 0) {
            tok = tok.sub(entropy.mul(Torch.scalar(entropy.getManager(), cfg.entropyCoef())));
            ent = aggregate(entropy, mask, cfg).getFloat();
        }
        NDArray loss = aggregate(tok, mask, cfg);
        double tokens = Math.max(1, mask.sum().getFloat());
        double clipFrac = clipped.gt(unclipped)
                        .toType(DataType.FLOAT32, false)
                        .mul(mask)
                        .sum()
                        .getFloat()
                / tokens;
        double shift = diff.stopGradient().abs().mul(mask).sum().getFloat() / tokens;
        return new Result(loss, clipFrac, kl, ent, shift);
    }

    static NDArray aggregate(NDArray perToken, NDArray mask, LossConfig cfg) {
        NDArray masked = perToken.mul(mask);
        NDArray one = Torch.scalar(mask.getManager(), 1);
        return switch (cfg.aggregation()) {
            case TOKEN_MEAN -> masked.sum().div(mask.sum().maximum(one));
            case SEQUENCE_MEAN_TOKEN_MEAN -> {
                NDArray perSeq =
                        masked.sum(new int[] {1}).div(mask.sum(new int[] {1}).maximum(one));
                NDArray hasTokens = mask.sum(new int[] {1}).gt(0).toType(DataType.FLOAT32, false);
                yield perSeq.mul(hasTokens).sum().div(hasTokens.sum().maximum(one));
            }
        };
    }
}
