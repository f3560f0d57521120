package org.pettingllms.text;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;

/**
 * Python's {@code json.dumps(x, ensure_ascii=False, indent=indent)}, the {@code tojson} filter transformers gives
 * chat templates (tool schemas, arguments): {@code ", "} and {@code ": "} between items, or newlines and
 * {@code indent} spaces when an indent is given; non-ASCII kept; floats written as Python's {@code repr}.
 */
final class PythonJson {
    private PythonJson() {}

    static String dumps(Object value, Integer indent) {
        StringBuilder out = new StringBuilder();
        write(value, indent, 0, out);
        return out.toString();
    }

    private static void write(Object v, Integer indent, int depth, StringBuilder out) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof Boolean b) {
            out.append(b ? "true" : "false");
        } else if (v instanceof Double || v instanceof Float) {
            out.append(floatRepr(((Number) v).doubleValue()));
        } else if (v instanceof Number n) {
            out.append(n instanceof BigDecimal d ? floatRepr(d.doubleValue()) : n.toString());
        } else if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                out.append("{}");
                return;
            }
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                separate(first, indent, depth + 1, out);
                first = false;
                quote(String.valueOf(e.getKey()), out);
                out.append(": ");
                write(e.getValue(), indent, depth + 1, out);
            }
            close(indent, depth, out);
            out.append('}');
        } else if (v instanceof Collection<?> || v instanceof Object[]) {
            Collection<?> items = v instanceof Object[] a ? Arrays.asList(a) : (Collection<?>) v;
            if (items.isEmpty()) {
                out.append("[]");
                return;
            }
            out.append('[');
            boolean first = true;
            for (Object item : items) {
                separate(first, indent, depth + 1, out);
                first = false;
                write(item, indent, depth + 1, out);
            }
            close(indent, depth, out);
            out.append(']');
        } else {
            quote(v.toString(), out);
        }
    }

    private static void separate(boolean first, Integer indent, int depth, StringBuilder out) {
        if (indent == null) {
            out.append(first ? "" : ", ");
        } else {
            out.append(first ? "\n" : ",\n").append(" ".repeat(indent * depth));
        }
    }

    private static void close(Integer indent, int depth, StringBuilder out) {
        if (indent != null) {
            out.append('\n').append(" ".repeat(indent * depth));
        }
    }

    /** Python escapes {@code " \ \n \r \t \b \f} and other control characters as a backslash-u escape, as Jackson does. */
    private static void quote(String s, StringBuilder out) {
        out.append('"');
        JsonStringEncoder.getInstance().quoteAsString(s, out);
        out.append('"');
    }

    /** Python's float repr: the shortest digits, fixed notation for exponents -4..15, else {@code 1e-05} style. */
    static String floatRepr(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0.0" : "0.0";
        }
        BigDecimal b = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        int exponent = b.precision() - b.scale() - 1; // d = digits[0].digits[1..] x 10^exponent
        if (exponent >= -4 && exponent < 16) {
            String plain = b.toPlainString();
            return plain.contains(".") ? plain : plain + ".0";
        }
        String digits = b.unscaledValue().abs().toString();
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        return (d < 0 ? "-" : "") + mantissa + "e" + (exponent < 0 ? "-" : "+")
                + String.format("%02d", Math.abs(exponent));
    }
}
