package org.pettingllms.text;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;
import java.util.Map;

/** Jinja2 filters whose Jinjava versions render differently from Python's. */
final class PythonFilters {
    private PythonFilters() {}

    /** transformers' {@code tojson}: {@link PythonJson}; {@code indent} as a keyword or the first argument. */
    static final class ToJson implements Filter {
        @Override
        public String getName() {
            return "tojson";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            return PythonJson.dumps(var, args.length > 0 && args[0] != null ? Integer.valueOf(args[0]) : null);
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            Object indent = kwargs.containsKey("indent") ? kwargs.get("indent") : args.length > 0 ? args[0] : null;
            return PythonJson.dumps(var, indent == null ? null : ((Number) indent).intValue());
        }
    }

    /**
     * {@code length} counts a string's characters as Python does (code points: an emoji is 1, not 2 UTF-16
     * units); anything else as Jinjava does.
     */
    static final class Length implements Filter {
        private final Filter builtin;

        Length(Filter builtin) {
            this.builtin = builtin;
        }

        @Override
        public String getName() {
            return "length";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            return var instanceof CharSequence s
                    ? (Object) (long) s.toString().codePointCount(0, s.length())
                    : builtin.filter(var, interpreter, args);
        }
    }
}
