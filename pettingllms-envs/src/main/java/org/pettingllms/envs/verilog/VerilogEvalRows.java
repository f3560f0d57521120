package org.pettingllms.envs.verilog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.pettingllms.envs.data.DatasetException;
import org.pettingllms.envs.data.DatasetFiles;
import org.pettingllms.envs.data.Row;

/**
 * VerilogEval v2's spec-to-RTL problems, from its folder layout ({@code ProbNNN_name_prompt.txt}, {@code _ref.sv}
 * with the reference module {@code RefModule}, {@code _test.sv} with the harness module {@code tb} that instantiates
 * {@code RefModule} and {@code TopModule} and prints {@code Mismatches: N in M samples}), or from a JSON/JSONL file
 * whose rows hold the same three texts in {@code prompt}, {@code ref} and {@code test} (with {@code task_id}). The
 * ports are read from the reference module's header; a module with a 1-bit input {@code clk} is sequential.
 */
public final class VerilogEvalRows {
    private static final Pattern REF_HEADER =
            Pattern.compile("\\bmodule\\s+RefModule\\s*(?:#\\s*\\(.*?\\)\\s*)?\\((.*?)\\)\\s*;", Pattern.DOTALL);
    private static final Pattern RANGE = Pattern.compile("\\[\\s*(\\d+)\\s*:\\s*(\\d+)\\s*\\]");
    private static final Pattern TYPE = Pattern.compile("^output\\s+(reg|logic)\\b");
    private static final Pattern DIRECTION = Pattern.compile("^(input|output|inout)\\b");

    private VerilogEvalRows() {}

    public static List<VerilogItem> load(Path path) {
        List<VerilogItem> out = new ArrayList<>();
        if (Files.isDirectory(path)) {
            List<Path> prompts;
            try (Stream<Path> files = Files.list(path)) {
                prompts = files.filter(f -> f.getFileName().toString().endsWith("_prompt.txt"))
                        .sorted()
                        .toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (Path prompt : prompts) {
                String name = prompt.getFileName().toString().replace("_prompt.txt", "");
                Path ref = prompt.resolveSibling(name + "_ref.sv");
                Path test = prompt.resolveSibling(name + "_test.sv");
                if (!Files.isRegularFile(ref) || !Files.isRegularFile(test)) {
                    throw new DatasetException(prompt + ": no " + ref.getFileName() + " and " + test.getFileName()
                            + " beside it (VerilogEval's spec-to-rtl layout)");
                }
                out.add(item(name, read(prompt), read(ref), read(test), ref.toString()));
            }
        } else {
            for (Row row : DatasetFiles.read(path)) {
                String id = row.firstPresent("task_id", "id").orElse("row" + row.line());
                try {
                    out.add(item(id, row.text("prompt"), row.text("ref"), row.text("test"), row.where()));
                } catch (DatasetException e) {
                    throw row.error("ref", e.getMessage());
                }
            }
        }
        if (out.isEmpty()) {
            throw new DatasetException(path + " has no problems (expected *_prompt.txt, *_ref.sv and *_test.sv files,"
                    + " or rows with prompt, ref and test)");
        }
        return out;
    }

    static VerilogItem item(String id, String prompt, String ref, String test, String where) {
        List<Port> ports = ports(ref, where);
        boolean sequential = ports.contains(Port.in("clk", 1));
        String reference = ref.replaceFirst("\\bmodule\\s+RefModule\\b", "module " + VerilogItem.TOP);
        return new VerilogItem(id, prompt.strip(), ports, sequential, reference, List.of(), test, "", 0);
    }

    /** The ports of the reference module's ANSI header ({@code input [7:0] a, b, output reg y}). */
    static List<Port> ports(String ref, String where) {
        Matcher m = REF_HEADER.matcher(DesignLint.withoutComments(ref));
        if (!m.find()) {
            throw new DatasetException(where + ": no 'module RefModule (...);' header");
        }
        List<Port> ports = new ArrayList<>();
        Boolean input = null;
        int width = 1;
        String type = "";
        for (String part : m.group(1).split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            p = p.replaceFirst("=.*$", "").strip(); // an initial value: output reg q = 0
            Matcher d = DIRECTION.matcher(p);
            if (d.find()) {
                if (d.group(1).equals("inout")) {
                    throw new DatasetException(where + ": inout port '" + p + "' (the bench drives inputs only)");
                }
                input = d.group(1).equals("input");
                Matcher t = TYPE.matcher(p);
                type = t.find() ? t.group(1) : "";
                width = 1;
                if (p.contains("[")) {
                    Matcher r = RANGE.matcher(p);
                    if (!r.find()) {
                        throw new DatasetException(where + ": port '" + p + "' has a width that is not two numbers"
                                + " (parameterised widths are not read)");
                    }
                    width = Math.abs(Integer.parseInt(r.group(1)) - Integer.parseInt(r.group(2))) + 1;
                }
            } else if (input == null) {
                throw new DatasetException(where + ": port '" + p + "' has no direction (a non-ANSI header)");
            }
            String[] words = p.replaceAll("\\[.*?\\]", " ").strip().split("\\s+");
            String name = words[words.length - 1];
            try {
                ports.add(new Port(name, width, input, type));
            } catch (IllegalArgumentException e) {
                throw new DatasetException(where + ": " + e.getMessage());
            }
        }
        return ports;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new DatasetException("cannot read " + p + ": " + e.getMessage(), e);
        }
    }
}
