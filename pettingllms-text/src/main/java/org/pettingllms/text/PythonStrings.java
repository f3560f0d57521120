package org.pettingllms.text;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Python's string methods for Jinja templates. Chat templates are written for Python's Jinja2, where strings
 * are Python strings ({@code content.startswith('<tool_response>')}, {@code .split('</think>')[-1].lstrip('\n')});
 * Jinjava would call Java's methods (a regex {@code split}, no {@code lstrip}). This resolver answers those
 * calls with Python semantics and leaves everything else to Jinjava.
 */
final class PythonStrings extends ELResolver {
    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] types, Object[] params) {
        if (!(base instanceof String s) || method == null) {
            return null;
        }
        Object[] p = params == null ? new Object[0] : params;
        Object result = call(s, method.toString(), p);
        if (result != NOT_HANDLED) {
            context.setPropertyResolved(true);
            return result;
        }
        return null;
    }

    private static final Object NOT_HANDLED = new Object();

    static Object call(String s, String method, Object[] p) {
        return switch (method) {
            case "startswith" -> anyOf(p[0], s::startsWith);
            case "endswith" -> anyOf(p[0], s::endsWith);
            case "strip" -> rstrip(lstrip(s, chars(p)), chars(p));
            case "lstrip" -> lstrip(s, chars(p));
            case "rstrip" -> rstrip(s, chars(p));
            case "split" ->
                split(
                        s,
                        p.length > 0 && p[0] != null ? p[0].toString() : null,
                        p.length > 1 ? ((Number) p[1]).intValue() : -1);
            case "upper" -> s.toUpperCase(Locale.ROOT);
            case "lower" -> s.toLowerCase(Locale.ROOT);
            case "replace" -> s.replace(p[0].toString(), p[1].toString());
            case "find" -> (long) s.indexOf(p[0].toString());
            case "count" ->
                (long)
                        (s.isEmpty() && p[0].toString().isEmpty()
                                ? 1
                                : s.split(Pattern.quote(p[0].toString()), -1).length - 1);
            case "title" -> title(s);
            case "capitalize" ->
                s.isEmpty()
                        ? s
                        : s.substring(0, 1).toUpperCase(Locale.ROOT)
                                + s.substring(1).toLowerCase(Locale.ROOT);
            default -> NOT_HANDLED;
        };
    }

    private static boolean anyOf(Object prefixes, Predicate<String> test) {
        if (prefixes instanceof Iterable<?> many) {
            for (Object o : many) {
                if (test.test(o.toString())) {
                    return true;
                }
            }
            return false;
        }
        return test.test(prefixes.toString());
    }

    /** Python's default strip set is whitespace. */
    private static String chars(Object[] p) {
        return p.length == 0 || p[0] == null ? null : p[0].toString();
    }

    private static boolean strips(char c, String chars) {
        return chars == null ? Character.isWhitespace(c) : chars.indexOf(c) >= 0;
    }

    static String lstrip(String s, String chars) {
        int i = 0;
        while (i < s.length() && strips(s.charAt(i), chars)) {
            i++;
        }
        return s.substring(i);
    }

    static String rstrip(String s, String chars) {
        int j = s.length();
        while (j > 0 && strips(s.charAt(j - 1), chars)) {
            j--;
        }
        return s.substring(0, j);
    }

    /** {@code str.split(sep, maxsplit)}: a literal separator; with none, runs of whitespace, empty parts dropped. */
    static List<String> split(String s, String sep, int max) {
        List<String> out = new ArrayList<>();
        if (sep == null) {
            String rest = lstrip(s, null);
            while (!rest.isEmpty() && (max < 0 || out.size() < max)) {
                int end = 0;
                while (end < rest.length() && !Character.isWhitespace(rest.charAt(end))) {
                    end++;
                }
                out.add(rest.substring(0, end));
                rest = lstrip(rest.substring(end), null);
            }
            if (!rest.isEmpty()) {
                out.add(rest);
            }
            return out;
        }
        if (sep.isEmpty()) {
            throw new IllegalArgumentException("empty separator");
        }
        int from = 0;
        for (int at; (at = s.indexOf(sep, from)) >= 0 && (max < 0 || out.size() < max); from = at + sep.length()) {
            out.add(s.substring(from, at));
        }
        out.add(s.substring(from));
        return out;
    }

    private static String title(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        boolean start = true;
        for (char c : s.toCharArray()) {
            sb.append(start ? Character.toUpperCase(c) : Character.toLowerCase(c));
            start = !Character.isLetter(c);
        }
        return sb.toString();
    }

    // a pure method resolver: no properties of its own
    @Override
    public Object getValue(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public Class<?> getType(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public void setValue(ELContext context, Object base, Object property, Object value) {}

    @Override
    public boolean isReadOnly(ELContext context, Object base, Object property) {
        return true;
    }

    @Override
    public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
        return null;
    }

    @Override
    public Class<?> getCommonPropertyType(ELContext context, Object base) {
        return null;
    }
}
