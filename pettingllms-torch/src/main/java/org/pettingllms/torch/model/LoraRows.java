package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;
import java.util.List;

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

    /** The adapter's contribution to linear {@code lin} for input {@code x} [B, T, in], or null for none. */
    NDArray delta(Linear lin, NDArray x) {
        if (single != null) {
            NDArray[] ab = single.weightsOf(lin.name());
            if (ab == null) {
                return null;
            }
            NDArray ax = x.matMul(Scope.of(x, ab[0].transpose()));
            return ax.matMul(Scope.of(x, ab[1].transpose())).mul(single.scale());
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
        var scope = x.getManager();
        NDList aT = new NDList();
        NDList bT = new NDList();
        for (LoraAdapter a : rows) {
            NDArray[] ab = a == null ? null : a.weightsOf(lin.name());
            if (ab == null) {
                aT.add(scope.zeros(new Shape(in, maxRank)));
                bT.add(scope.zeros(new Shape(maxRank, out)));
                continue;
            }
            NDArray at = Scope.of(x, ab[0].transpose());
            NDArray bt = Scope.of(x, ab[1].transpose()).mul(a.scale());
            if (a.rank() < maxRank) {
                at = at.concat(scope.zeros(new Shape(in, maxRank - a.rank())), 1);
                bt = bt.concat(scope.zeros(new Shape(maxRank - a.rank(), out)), 0);
            }
            aT.add(at);
            bT.add(bt);
        }
        return x.batchMatMul(NDArrays.stack(aT)).batchMatMul(NDArrays.stack(bT));
    }
}
