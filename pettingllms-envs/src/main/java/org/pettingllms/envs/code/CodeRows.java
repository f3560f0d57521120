package org.pettingllms.envs.code;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.pettingllms.envs.data.DatasetException;
import org.pettingllms.envs.data.DatasetFiles;
import org.pettingllms.envs.data.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Code datasets in their common layouts, as stdin/stdout problems (or HumanEval-style functions with a harness):
 * <ul>
 *   <li>{@code question} + {@code test_input} / {@code test_output} lists (+ {@code solution});</li>
 *   <li>APPS: {@code question}, {@code input_output} JSON ({@code inputs}, {@code outputs}), {@code solutions};</li>
 *   <li>CodeContests: {@code description}, {@code public_tests} / {@code private_tests} / {@code generated_tests}
 *       ({@code input}, {@code output} lists), {@code solutions} ({@code language}, {@code solution});</li>
 *   <li>LiveCodeBench: {@code question_content}, {@code public_test_cases} / {@code private_test_cases} (JSON,
 *       or base64 + zlib JSON) with {@code testtype stdin};</li>
 *   <li>HumanEval: {@code prompt}, {@code canonical_solution}, {@code test}, {@code entry_point}.</li>
 * </ul>
 * Rows whose tests call a function by name (APPS {@code fn_name}, LiveCodeBench {@code functional}) are skipped
 * with a warning: they need a per-problem harness these layouts do not carry.
 */
public final class CodeRows {
    private static final Logger LOG = LoggerFactory.getLogger(CodeRows.class);
    private static final int PYTHON3 = 3;

    private CodeRows() {}

    public static List<CodeItem> load(Path file) {
        List<CodeItem> out = new ArrayList<>();
        int skipped = 0;
        for (Row row : DatasetFiles.read(file)) {
            CodeItem item = item(row);
            if (item == null) {
                skipped++;
            } else {
                out.add(item);
            }
        }
        if (skipped > 0) {
            LOG.warn("{}: skipped {} function-call rows (no stdin/stdout tests)", file.getFileName(), skipped);
        }
        if (out.isEmpty()) {
            throw new DatasetException("dataset file " + file + " has no usable rows");
        }
        return out;
    }

    /** The problem of a row, or null for a function-call row that this loader skips. */
    static CodeItem item(Row row) {
        String id = row.optionalText("task_id")
                .or(() -> row.optionalText("problem_id"))
                .or(() -> row.optionalText("question_id"))
                .or(() -> row.optionalText("id"))
                .orElse(Long.toString(row.line()));
        Map<String, Object> f = row.fields();
        if (f.containsKey("entry_point") && f.containsKey("test")) {
            String prompt = row.text("prompt");
            return new CodeItem(
                    id,
                    prompt,
                    List.of(),
                    prompt + row.text("canonical_solution"),
                    new CodeItem.Functional(prompt, row.text("entry_point"), row.text("test")));
        }
        if (f.containsKey("test_input") || f.containsKey("test_output")) {
            List<CodeItem.TestCase> tests =
                    zip(row, "test_input", row.list("test_input"), "test_output", row.list("test_output"));
            return new CodeItem(
                    id,
                    row.text("question", "problem", "description"),
                    tests,
                    row.optionalText("solution").orElse(null),
                    null);
        }
        if (f.containsKey("input_output")) {
            Map<?, ?> io = row.object("input_output");
            if (io.containsKey("fn_name")) {
                return null;
            }
            List<CodeItem.TestCase> tests = zip(
                    row,
                    "input_output.inputs",
                    list(row, io, "inputs"),
                    "input_output.outputs",
                    list(row, io, "outputs"));
            String solution = null;
            if (row.fields().get("solutions") != null) {
                List<?> sols = row.list("solutions");
                solution = sols.isEmpty() ? null : String.valueOf(sols.get(0));
            }
            return new CodeItem(id, row.text("question"), tests, solution, null);
        }
        if (f.containsKey("public_tests")) {
            List<CodeItem.TestCase> tests = new ArrayList<>();
            for (String field : List.of("public_tests", "private_tests", "generated_tests")) {
                if (f.get(field) != null) {
                    Map<?, ?> t = row.object(field);
                    tests.addAll(zip(
                            row, field + ".input", list(row, t, "input"), field + ".output", list(row, t, "output")));
                }
            }
            return new CodeItem(id, row.text("description", "question"), tests, contestsPython(row), null);
        }
        if (f.containsKey("public_test_cases")) {
            List<CodeItem.TestCase> tests = new ArrayList<>();
            for (String field : List.of("public_test_cases", "private_test_cases")) {
                if (f.get(field) == null) {
                    continue;
                }
                for (Object o : liveCodeBenchCases(row, field)) {
                    if (!(o instanceof Map<?, ?> c)) {
                        throw row.error(field, "has an entry that is not an object");
                    }
                    if ("functional".equals(c.get("testtype"))) {
                        return null;
                    }
                    tests.add(new CodeItem.TestCase(String.valueOf(c.get("input")), String.valueOf(c.get("output"))));
                }
            }
            return new CodeItem(id, row.text("question_content", "question"), tests, null, null);
        }
        throw new DatasetException(row.where() + ": not a known code layout (expected test_input/test_output,"
                + " input_output, public_tests, public_test_cases, or HumanEval's prompt/test/entry_point); fields: "
                + f.keySet());
    }

    private static List<?> list(Row row, Map<?, ?> parent, String key) {
        if (parent.get(key) instanceof List<?> l) {
            return l;
        }
        throw new DatasetException(
                row.where() + ": field '" + key + "' is " + Row.describe(parent.get(key)) + " (expected a list)");
    }

    private static List<CodeItem.TestCase> zip(Row row, String inName, List<?> in, String outName, List<?> out) {
        if (in.size() != out.size()) {
            throw new DatasetException(row.where() + ": fields '" + inName + "' and '" + outName
                    + "' differ in length (" + in.size() + " inputs, " + out.size() + " outputs)");
        }
        List<CodeItem.TestCase> tests = new ArrayList<>(in.size());
        for (int i = 0; i < in.size(); i++) {
            tests.add(new CodeItem.TestCase(lines(in.get(i)), lines(out.get(i))));
        }
        return tests;
    }

    /** APPS sometimes stores a test as a list of lines. */
    private static String lines(Object o) {
        if (o instanceof List<?> l) {
            List<String> parts = new ArrayList<>();
            l.forEach(x -> parts.add(String.valueOf(x)));
            return String.join("\n", parts);
        }
        return String.valueOf(o);
    }

    private static String contestsPython(Row row) {
        if (row.fields().get("solutions") == null) {
            return null;
        }
        Map<?, ?> s = row.object("solutions");
        if (s.get("language") instanceof List<?> langs && s.get("solution") instanceof List<?> sols) {
            for (int i = 0; i < Math.min(langs.size(), sols.size()); i++) {
                if (langs.get(i) instanceof Number n && n.intValue() == PYTHON3) {
                    return String.valueOf(sols.get(i));
                }
            }
        }
        return null;
    }

    /** LiveCodeBench stores private cases as JSON text, or as base64 of zlib-compressed JSON in newer releases. */
    private static List<?> liveCodeBenchCases(Row row, String field) {
        Object v = row.fields().get(field);
        if (v instanceof String s && !s.strip().startsWith("[")) {
            try {
                byte[] z = Base64.getDecoder().decode(s.strip());
                Inflater inf = new Inflater();
                inf.setInput(z);
                var buf = new ByteArrayOutputStream();
                byte[] chunk = new byte[1 << 16];
                while (!inf.finished()) {
                    int n = inf.inflate(chunk);
                    if (n == 0 && inf.needsInput()) {
                        break;
                    }
                    buf.write(chunk, 0, n);
                }
                inf.end();
                String text = buf.toString(StandardCharsets.UTF_8);
                if (!text.strip().startsWith("[")) {
                    throw row.error(
                            field,
                            "decompresses to something other than a JSON list (a pickled release?)"
                                    + " convert it to JSON first");
                }
                return new Row(row.file(), row.line(), Map.of(field, text)).list(field);
            } catch (IllegalArgumentException | DataFormatException e) {
                throw row.error(field, "is neither a JSON list nor base64 zlib JSON: " + e.getMessage());
            }
        }
        return row.list(field);
    }
}
