package org.pettingllms.envs.verilog;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.envs.data.CompactPrompts;
import org.pettingllms.envs.data.ItemLookup;
import org.pettingllms.envs.data.ItemOracle;

/**
 * A policy that knows the reference designs (evaluation without a model), found by the specification and header in
 * the prompt:
 * the designer answers the reference, the tester vectors with the reference's outputs that catch the item's wrong
 * designs (for a combinational module, a step where each wrong design differs, then other steps; for a sequential
 * one, the hidden bench's cycles from its reset up to the vector cap). With {@code wrong}, the designer answers one
 * of the item's wrong designs and the tester vectors with one wrong design's outputs, each drawn per answer (as
 * imperfect warm-up demonstrations, {@code sft --noise}, misread apart). A reward that scores this
 * oracle's team below 100% (or the wrong one above 0%) is broken.
 */
public final class VerilogOracle extends ItemOracle<VerilogItem> {
    private final Judge judge;
    private final int maxVectors;

    VerilogOracle(List<VerilogItem> items, boolean wrong, Judge judge, int maxVectors) {
        super(items, wrong, i -> i.spec().strip());
        this.judge = judge;
        this.maxVectors = maxVectors;
    }

    /** Among the items whose header the prompt holds, the one whose specification (or a designer's brief) it holds. */
    @Override
    protected VerilogItem find(String text) {
        List<VerilogItem> headed =
                items().stream().filter(i -> text.contains(i.header())).toList();
        VerilogItem item = ItemLookup.in(text, headed, i -> i.spec().strip());
        if (item == null) { // a designer's prompt with its brief
            item = ItemLookup.in(text, headed, i -> i.designerSpec().strip());
        }
        return item;
    }

    @Override
    protected String unknown(Prompt prompt) {
        return prompt.style() == PromptStyle.COMPACT
                ? "assign y = 0;"
                : "```verilog\nmodule TopModule(); endmodule\n```";
    }

    @Override
    protected String answer(VerilogItem item, Prompt prompt, SplittableRandom rng) {
        String text = prompt.text();
        boolean compact = prompt.style() == PromptStyle.COMPACT;
        boolean tester = CompactPrompts.isFor(text, "verilog-v1", VerilogTask.TESTER)
                || text.contains(VerilogPrompts.TESTER_SYSTEM);
        // wrong: one of the item's wrong designs, drawn per answer (a designer and a tester misread apart)
        String design = wrong() && !item.mutants().isEmpty()
                ? item.mutants().get(rng.nextInt(item.mutants().size()))
                : item.reference();
        if (tester) {
            String vectors = Vectors.render(vectors(item, design), item);
            return compact ? vectors : "```\n" + vectors + "```";
        }
        return compact ? VerilogPrompts.body(design) : "```verilog\n" + design.strip() + "\n```";
    }

    /** Vectors with {@code design}'s outputs that tell the reference from the item's wrong designs. */
    List<Vectors.Vector> vectors(VerilogItem item, String design) {
        List<BigInteger[]> hidden = Stimulus.hidden(item);
        List<String> readings = new ArrayList<>();
        readings.add(item.reference());
        readings.addAll(item.mutants());
        List<List<String>> out = judge.readings(item); // the reference's and wrong designs' outputs, computed once
        int k = readings.indexOf(design);
        List<String> expected = k >= 0
                ? out.get(k)
                : judge.trusted(item, List.of(design), hidden).get(0);
        return vectors(item, hidden, steps(item, out, maxVectors, null), expected);
    }

    /**
     * The hidden bench's steps a tester's vectors use, at most {@code max}: for a combinational module a step where each
     * wrong design's outputs differ from the reference's ({@code outputs}: the reference's first, then the wrong
     * designs', on the hidden bench), then other steps (spread evenly, or drawn with {@code rng} when given); for a
     * sequential module the first cycles from power-on (a prefix of the hidden sequence, so its outputs are the
     * hidden run's).
     */
    static List<Integer> steps(VerilogItem item, List<List<String>> outputs, int max, SplittableRandom rng) {
        int n = outputs.get(0).size();
        List<Integer> chosen = new ArrayList<>();
        if (item.sequential()) {
            for (int i = 0; i < Math.min(max, n); i++) {
                chosen.add(i);
            }
            return chosen;
        }
        Set<Integer> steps = new LinkedHashSet<>();
        for (int k = 1; k < outputs.size(); k++) {
            for (int i = 0; i < n; i++) {
                if (!java.util.Objects.equals(
                        outputs.get(k).get(i), outputs.get(0).get(i))) {
                    steps.add(i);
                    break;
                }
            }
        }
        for (int i = 0; steps.size() < Math.min(max, n) && i < 64 * n; i++) {
            steps.add(rng != null ? rng.nextInt(n) : (int) ((i * 0x9E3779B9L & 0xFFFFFFFFL) % n));
        }
        chosen.addAll(steps);
        return chosen.subList(0, Math.min(max, chosen.size()));
    }

    /** The vectors at {@code steps} of the hidden bench, expecting {@code outputs} (one design's, by step). */
    static List<Vectors.Vector> vectors(
            VerilogItem item, List<BigInteger[]> hidden, List<Integer> steps, List<String> outputs) {
        List<Port> outs = item.outputs();
        List<Vectors.Vector> vectors = new ArrayList<>();
        for (int i : steps) {
            if (outputs.get(i) == null) {
                continue;
            }
            String[] bits = outputs.get(i).split(" ");
            Map<Integer, BigInteger> expected = new LinkedHashMap<>();
            for (int j = 0; j < Math.min(outs.size(), bits.length); j++) {
                if (bits[j].matches("[01]+")) {
                    expected.put(j, new BigInteger(bits[j], 2));
                }
            }
            if (!expected.isEmpty()) {
                vectors.add(new Vectors.Vector(hidden.get(i), expected));
            }
        }
        return vectors;
    }
}
