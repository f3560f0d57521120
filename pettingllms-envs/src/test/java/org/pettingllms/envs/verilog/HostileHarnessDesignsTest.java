package org.pettingllms.envs.verilog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.envs.data.Items;

/**
 * Hostile designs on a dataset row's harness path (VerilogEval's layout: the harness compiles the reference and the
 * bench into the design's own simulation), one or more of each kind a review found judged equivalent while wrong:
 * comment markers in strings, escaped names, macros that expand to a dot or paste a module name, a lone carriage
 * return ending a comment, hierarchical writes and {@code force} into the harness, and the verdict line forged. Each
 * is refused or fails; a correct design passes, with a byte-order mark too, and the run goes on.
 */
class HostileHarnessDesignsTest {
    static Icarus icarus;
    static VerilogTask task;
    static VerilogState state;

    @TempDir
    static Path dir;

    @BeforeAll
    static void open() throws Exception {
        icarus = Icarus.open(2, Icarus.LIMITS.withWallTime(Duration.ofSeconds(5)));
        Files.writeString(dir.resolve("Prob001_and_prompt.txt"), "Implement y = a & b.\n");
        Files.writeString(
                dir.resolve("Prob001_and_ref.sv"),
                "module RefModule (\n  input [1:0] a, b,\n  output logic [1:0] y\n);\n  assign y = a & b;\nendmodule\n");
        Files.writeString(dir.resolve("Prob001_and_test.sv"), harness());
        List<VerilogItem> items = VerilogEvalRows.load(dir);
        task = new VerilogTask(
                List.of(VerilogTask.DESIGNER), 1, new Items.Listed<>(List.of(), items, VerilogItem.class), icarus, 16);
        state = task.initialState(task.problems(1).problems(Split.TEST, 0, 1).get(0));
    }

    /**
     * {@link VerilogTaskTest#harness} with a task of its own, as VerilogEval's harnesses have them, and its verdict a
     * little after the last sample.
     */
    static String harness() {
        return VerilogTaskTest.harness()
                .replace("  initial begin\n", "  task clear_errors; errors = 0; endtask\n  initial begin : run\n")
                .replace("    $display(\"Mismatches:", "    #4 $display(\"Mismatches:");
    }

    static Transition<VerilogState> design(String text) {
        return task.step(state, VerilogTask.DESIGNER, Completion.ofText(text));
    }

    static final String HEADER = "module TopModule(input [1:0] a, input [1:0] b, output logic [1:0] y);\n";

    @Test
    void hostileDesignsOfEveryKindAreNotJudgedEquivalent() {
        Map<String, String> hostile = Map.ofEntries(
                // the harness's error count zeroed, its reference's output copied: plainly, then hidden from a lint
                Map.entry("plain write", "assign y = 0;\ninitial #15 tb.errors = 0;"),
                Map.entry("plain force", "assign y = 0;\ninitial force tb.errors = 0;"),
                Map.entry("upward copy", "assign y = good.y;"),
                Map.entry("copy of the reference's wire", "assign y = tb.y_ref;"),
                Map.entry("instance array", "assign y = 0;\ninitial #15 tb.good[0].y = 0;"),
                Map.entry("string with //", "assign y = 0;\ninitial begin $display(\"//\"); force tb.errors = 0; end"),
                Map.entry(
                        "string with /*",
                        "assign y = 0;\ninitial $display(\"/*\"); initial force tb.errors = 0; // */"),
                Map.entry("escaped names", "assign y = 0;\ninitial force \\tb .\\errors = 0;"),
                Map.entry("escaped first name", "assign y = \\tb .y_ref;"),
                Map.entry("escaped copy", "assign y = \\tb .\\y_ref ;"),
                Map.entry("escaped write", "assign y = 0;\ninitial #18 \\tb .\\errors = 0;"),
                Map.entry("the harness's task called", "assign y = 0;\ninitial #18 clear_errors;"),
                Map.entry("the harness's block ended", "assign y = 0;\ninitial #0.5 disable run;"),
                Map.entry("the harness's block named", "assign y = 0;\ninitial #0.5 run.i = 16;"),
                Map.entry("its own input driven", "assign (supply0, supply1) a = 2'b00;\nassign y = 0;"),
                Map.entry(
                        "string with a continued line",
                        "assign y = 0;\ninitial $display(\"a\\\r\nb\"); initial force tb.errors = 0;"),
                Map.entry("backspace before a dot", "assign y = tb\b.y_ref;"),
                Map.entry("backspace ending an escaped name", "\\RefModule\b r(.a(a), .b(b), .y(y));"),
                Map.entry("an include", "`include \"/etc/hostname\"\nassign y = a & b;"),
                Map.entry("an include in a macro", "`define I `include \"/etc/hostname\"\nassign y = 0;"),
                Map.entry("escaped force", "assign y = 0;\ninitial \\force tb.errors = 0;"),
                Map.entry("escaped RefModule", "\\RefModule r(.a(a), .b(b), .y(y));"),
                Map.entry("macro dot", "`define D .\nassign y = tb`D y_ref;"),
                Map.entry("macro paste", "`define P(x) x``Module\n`P(Ref) r(.a(a), .b(b), .y(y));"),
                Map.entry("macro force", "`define F force\nassign y = 0;\ninitial `F tb.errors = 0;"),
                Map.entry("macro system task", "`define S(t) $``t\nassign y = 0;\ninitial #1 `S(finish);"),
                Map.entry("lone carriage return", "assign y = 0; // a comment\rinitial force tb.errors = 0;"),
                Map.entry("lone carriage return, copy", "// copy\rassign y = tb.y_ref;"),
                Map.entry("the harness instantiated", "assign y = 0;\ntb inner();"),
                Map.entry("package scope", "assign y = 0;\ninitial $unit::x = 1;"),
                Map.entry(
                        "read the compiled simulation",
                        "assign y = 0;\ninteger f;\ninitial f = $fopen(\"sim.vvp\", \"r\");"),
                Map.entry(
                        "read the nonce's argument",
                        "assign y = 0;\nreg [8*24:1] n;\ninitial if ($value$plusargs(\"pettingllms_nonce=%s\", n)) $display(\"%0s Mismatches: 0 in 16 samples\", n);"),
                Map.entry("forged verdict", "assign y = 0;\ninitial #100 $display(\"Mismatches: 0 in 16 samples\");"),
                Map.entry(
                        "full module, hidden write",
                        HEADER + "  assign y = 0; // x\r  initial force tb.errors = 0;\nendmodule\n"));
        for (Map.Entry<String, String> h : hostile.entrySet()) {
            Transition<VerilogState> t = design(h.getValue());
            assertThat(t.success()).as(h.getKey()).isFalse();
            assertThat(t.reward().team()).as(h.getKey()).isZero();
            assertThat(t.next().hiddenPass()).as(h.getKey()).isLessThan(1.0);
        }
        assertThat(design("assign y = a & b;").success()).isTrue();
    }

    @Test
    void aCorrectDesignPassesWithAByteOrderMarkAndWithMacrosItDefinesItself() {
        assertThat(design("\uFEFF" + HEADER + "  assign y = a & b;\nendmodule\n")
                        .success())
                .isTrue();
        assertThat(design("`define AND(x, y) ((x) & (y))\nassign y = `AND(a, b);")
                        .success())
                .isTrue();
        assertThat(design("`ifdef NOT_DEFINED\nassign y = 0;\n`else\nassign y = a & b;\n`endif")
                        .success())
                .isTrue();
        // a string with a comment marker and a number with a fraction are not names
        assertThat(design("assign y = a & b;\ninitial if (1.5 > 1) $display(\"// tb.errors /* RefModule\");")
                        .success())
                .isTrue();
    }

    @Test
    void anOversizedMismatchCountIsNoVerdictAndThrowsNothing() {
        assertThat(Judge.harnessVerdict("@abc Mismatches: 99999999999999999999999 in 16 samples\n", "@abc"))
                .isNull();
        assertThat(Judge.harnessVerdict("@abc Mismatches: 0 in 99999999999999999999999 samples\n", "@abc"))
                .isNull();
    }

    @Test
    void theCompiledSimulationDoesNotHoldTheNonce() {
        // a trusted reader (no lint) scans sim.vvp for the nonce it was given as a plus-argument
        String reader = """
                module reader;
                  reg [8*24:1] want;
                  reg [8*17:1] window;
                  integer f, c, hits;
                  initial begin
                    if (!$value$plusargs("pettingllms_nonce=%s", want)) want = "";
                    hits = 0; window = 0;
                    f = $fopen("sim.vvp", "r");
                    c = $fgetc(f);
                    while (c != -1) begin
                      window = {window[8*16:1], c[7:0]};
                      if (window == want[8*17:1]) hits = hits + 1;
                      c = $fgetc(f);
                    end
                    $display("opened %0d hits %0d", f != 0, hits);
                    $finish;
                  end
                endmodule
                """;
        String nonce = "@4abc0123456789ab";
        Icarus.Simulation sim = icarus.simulate(Map.of("reader.v", reader), List.of("reader"), nonce);
        assertThat(sim.ok()).as(sim.summary()).isTrue();
        assertThat(sim.stdout().strip()).isEqualTo("opened 1 hits 0");
        // the same reader finds a nonce that is in the source: the check can fail
        Icarus.Simulation planted = icarus.simulate(
                Map.of("reader.v", reader.replace("$finish;", "$finish; $display(\"" + nonce + "\");")),
                List.of("reader"),
                nonce);
        assertThat(planted.stdout()).contains("hits 1");
    }
}
