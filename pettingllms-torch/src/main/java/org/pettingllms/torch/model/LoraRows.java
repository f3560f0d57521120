package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;
import java.util.List;
import org.pettingllms.torch.Torch;

/**
 * Which LoRA adapter each row of a batch uses (null: the base model). Rows of one batch may use different adapters
 * on the shared base: their A and B matrices are stacked per row (zero-padded to the largest rank, with the
 * scale folded into B) and applied with batched matmuls.
 */
public final class LoraRows {
    private final LoraAdapter[] rows;
    private final LoraAdapter single;

    private LoraRows(LoraAdapter[] rows) {
        this.rows = rows;
        LoraAdapter first = rows.length == 0 ? null : rows[0];
        boolean uniform = Arrays.stream(rows).allMatch(a -> a == first);
        this.single = uniform ? first : null;
    }

    public static LoraRows of(List<LoraAdapter> perRow) {
        return new LoraRows(perRow.toArray(new LoraAdapter[0]));
    }

    public static LoraRows all(LoraAdapter adapter, int batch) {
        LoraAdapter[] a = new LoraAdapter[batch];
        Arrays.fill(a, adapter);
        return new LoraRows(a);
    }

    public boolean none() {
        return Arrays.stream(rows).allMatch(a -> a == null);
    }

    /**
     * The adapter's contribution to linear {@code lin} for feature-major input {@code x} [in, N] over {@code b} rows
     * of N / b tokens each, [out, N]; null for none. PEFT's delta is {@code scale * B (A x)}.
     *
     * <p>Adapters are held in float32 whatever the base model's type: on a bfloat16 model the input is widened, the
     * delta computed in float32 and rounded once to the model's type, as PEFT does for a bf16 base
     * ({@code autocast_adapter_dtype}): the optimizer then updates float32 adapter weights.
     */
    NDArray delta(Linear lin, NDArray x, long b) {
        DataType type = x.getDataType();
        if (type == DataType.FLOAT32) {
            return deltaFloat32(lin, x, b);
        }
        NDArray d = deltaFloat32(lin, x.toType(DataType.FLOAT32, false), b);
        return d == null ? null : d.toType(type, false);
    }

    private NDArray deltaFloat32(Linear lin, NDArray x, long b) {
        if (single != null) {
            LoraAdapter.Pair ab = single.weightsOf(lin.name());
            if (ab == null) {
                return null;
            }
            NDArray ax = Scope.of(x, ab.a().matMul(x));
            return Scope.of(x, ab.b().matMul(ax)).mul(Torch.scalar(x.getManager(), single.scale()));
        }
        int maxRank = 0;
        boolean any = false;
        for (LoraAdapter a : rows) {
            if (a != null && a.weightsOf(lin.name()) != null) {
                maxRank = Math.max(maxRank, a.rank());
                any = true;
            }
        }
        if (!any) {
            return null;
        }
        long in = lin.in();
        long out = lin.out();
        long t = x.getShape().get(1) / b;
        var scope = x.getManager();
        NDList as = new NDList();
        NDList bs = new NDList();
        for (LoraAdapter a : rows) {
            LoraAdapter.Pair ab = a == null ? null : a.weightsOf(lin.name());
            if (ab == null) {
                as.add(scope.zeros(new Shape(maxRank, in)));
                bs.add(scope.zeros(new Shape(out, maxRank)));
                continue;
            }
            NDArray am = ab.a();
            NDArray bm = Scope.of(x, ab.b().mul(Torch.scalar(scope, a.scale())));
            if (a.rank() < maxRank) {
                am = Scope.of(x, am.concat(scope.zeros(new Shape(maxRank - a.rank(), in)), 0));
                bm = bm.concat(scope.zeros(new Shape(out, maxRank - a.rank())), 1);
            }
            as.add(am);
            bs.add(bm);
        }
        // per row: B_r (A_r x_r) with x_r [in, T]; stacked A [B, rank, in], B [B, out, rank]
        NDArray xr = x.reshape(in, b, t).transpose(1, 0, 2);
        NDArray stackedA = Scope.of(x, NDArrays.stack(as));
        NDArray stackedB = Scope.of(x, NDArrays.stack(bs));
        return stackedB.batchMatMul(stackedA.batchMatMul(xr)).transpose(1, 0, 2).reshape(out, b * t);
    }
}
