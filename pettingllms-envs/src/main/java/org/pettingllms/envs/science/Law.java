package org.pettingllms.envs.science;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A hidden law {@code y = f(...)} of one of seven forms over one or two of the lab's variables (the others do not
 * matter), with small whole coefficients k and j (1 to 9).
 *
 * @param a the first variable the law uses
 * @param b the second ({@code ""} for forms of one variable)
 */
public record Law(Form form, String a, String b, int k, int j) {
    public enum Form {
        /** y = k a */
        LINEAR(1, false),
        /** y = k a + j */
        AFFINE(1, true),
        /** y = k a^2 */
        SQUARE(1, false),
        /** y = k a b */
        PRODUCT(2, false),
        /** y = k a / b */
        RATIO(2, false),
        /** y = k a^2 b */
        SQUARE_PRODUCT(2, false),
        /** y = k a + j b */
        SUM(2, true);

        final int variables;
        final boolean twoCoefficients;

        Form(int variables, boolean twoCoefficients) {
            this.variables = variables;
            this.twoCoefficients = twoCoefficients;
        }
    }

    public double at(Map<String, Double> x) {
        double va = x.get(a);
        double vb = b.isEmpty() ? 0 : x.get(b);
        return switch (form) {
            case LINEAR -> k * va;
            case AFFINE -> k * va + j;
            case SQUARE -> k * va * va;
            case PRODUCT -> k * va * vb;
            case RATIO -> k * va / vb;
            case SQUARE_PRODUCT -> k * va * va * vb;
            case SUM -> k * va + j * vb;
        };
    }

    /** The law as the theorist would write it: {@code y = 3*m*v}. */
    public String text() {
        return "y = "
                + switch (form) {
                    case LINEAR -> k + "*" + a;
                    case AFFINE -> k + "*" + a + " + " + j;
                    case SQUARE -> k + "*" + a + "^2";
                    case PRODUCT -> k + "*" + a + "*" + b;
                    case RATIO -> k + "*" + a + "/" + b;
                    case SQUARE_PRODUCT -> k + "*" + a + "^2*" + b;
                    case SUM -> k + "*" + a + " + " + j + "*" + b;
                };
    }

    /**
     * Every law of the family over {@code variables}: each form, each choice of its variables (ordered where the form
     * is not symmetric), each coefficient. The hypotheses an experiment can rule out.
     */
    static List<Law> family(List<String> variables) {
        List<Law> out = new ArrayList<>();
        for (Form f : Form.values()) {
            for (String a : variables) {
                for (String b : f.variables == 1 ? List.of("") : variables) {
                    if (a.equals(b) || ((f == Form.PRODUCT || f == Form.SUM) && a.compareTo(b) > 0)) {
                        continue; // a*b = b*a, k a + j b = j b + k a: one of the two
                    }
                    for (int k = 1; k <= 9; k++) {
                        for (int j = f.twoCoefficients ? 1 : 0; j <= (f.twoCoefficients ? 9 : 0); j++) {
                            out.add(new Law(f, a, b, k, j));
                        }
                    }
                }
            }
        }
        return out;
    }
}
