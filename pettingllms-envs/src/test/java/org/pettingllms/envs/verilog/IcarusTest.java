package org.pettingllms.envs.verilog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.envs.data.Items;

/**
 * Hostile designs against the simulator: each is contained (no file outside its run, limits stop it), scores 0, and
 * the next correct design is judged as before. Needs Icarus Verilog installed ({@code apt-get install iverilog}).
 */
class IcarusTest {
    static Icarus icarus;
    static VerilogTask task;
    static VerilogState adder;

    @BeforeAll
    static void open() {
        icarus = Icarus.open(2, Icarus.LIMITS.withWallTime(Duration.ofSeconds(3)));
        task = new VerilogTask(
                List.of(VerilogTask.DESIGNER), 1, new Items.Generated<>(Circuits.NAME, Circuits::item), icarus, 16);
        adder = new VerilogState(
                new VerilogItem(
                        "adder",
                        "y is a + b as a 5-bit number.",
                        List.of(Port.in("a", 4), Port.in("b", 4), Port.out("y", 5)),
                        false,
                        "module TopModule(input [3:0] a, input [3:0] b, output [4:0] y);\n  assign y = a + b;\nendmodule\n",
                        List.of(),
                        "",
                        "",
                        0),
                null,
                "",
                List.of(),
                List.of(),
                0,
                0);
    }

    static Transition<VerilogState> design(String body) {
        return task.step(adder, VerilogTask.DESIGNER, Completion.ofText(body));
    }

    @Test
    void aCorrectDesignPassesAndAWrongOneDoesNot() {
        assertThat(design("assign y = a + b;").success()).isTrue();
        assertThat(design("assign y = a + b;").reward().team()).isEqualTo(1.0);
        Transition<VerilogState> wrong = design("assign y = {1'b0, a + b};");
        assertThat(wrong.success()).isFalse();
        assertThat(wrong.next().hiddenPass()).isBetween(0.4, 0.9); // the sums without a carry are right
        assertThat(wrong.reward()).isEqualTo(RewardParts.ZERO); // but only an equivalent design is paid
    }

    @Tag("heavy")
    @Test
    void hostileDesignsAreContainedAndScoreNothing() throws Exception {
        Path outside = Files.createTempDirectory("verilog-outside").resolve("written.txt");
        List<String> hostile = List.of(
                // never ends (a zero-delay loop: time stands still), or ends the bench before it prints
                "assign y = a + b;\ninitial forever #0 ;",
                "assign y = a + b;\ninitial $finish;",
                // writes outside its folder, reads files the answers could be in
                "assign y = a + b;\ninteger f;\ninitial begin f = $fopen(\"" + outside
                        + "\", \"w\"); $fdisplay(f, \"x\");" + " $fclose(f); end\ninitial $finish;",
                "assign y = a + b;\nreg [7:0] m [0:3];\ninitial $readmemh(\"/etc/shadow\", m);\ninitial $finish;",
                // shells out (Icarus has no $system)
                "assign y = a + b;\ninitial $system(\"touch " + outside + "\");",
                // floods: prints without end, a dump file without end, memory without end
                "assign y = a + b;\ninitial forever $display(\"flood flood flood flood flood flood flood flood\");",
                "assign y = a + b;\ninteger f;\ninitial begin f = $fopen(\"big.txt\", \"w\"); $dumpfile(\"d.vcd\");"
                        + " $dumpvars(0); forever $fdisplay(f, \"fill fill fill fill fill fill fill fill\"); end",
                "assign y = a + b;\nreg [31:0] big [0:400000000];\ninitial big[400000000] = 1;",
                // does not compile: includes a system file, or is not Verilog
                "`include \"/etc/passwd\"\nassign y = a + b;",
                "this is not verilog");
        for (String body : hostile) {
            long start = System.nanoTime();
            Transition<VerilogState> t = design(body);
            assertThat(t.success()).as(body).isFalse();
            assertThat(t.reward().team()).as(body).isEqualTo(0.0);
            assertThat((System.nanoTime() - start) / 1e9).as(body).isLessThan(30);
        }
        assertThat(outside).doesNotExist();
        assertThat(design("assign y = a + b;").success()).isTrue();
    }

    @Test
    void printedLinesCannotForgeTheBenchsOutput() {
        // a design that prints lines in the bench's layout (without its nonce) and a constant output
        String forger = "assign y = 0;\ninteger i;\ninitial for (i = 0; i < 256; i = i + 1)"
                + " $display(\"@4000000000000001 0 %0d %b\", i, i[3:0] + i[7:4]);";
        assertThat(design(forger).reward().team()).isLessThan(0.1);
    }

    @Test
    void aHarnessMismatchLineCountsOnlyWithTheNonceAndOnlyOnce() {
        assertThat(Judge.harnessVerdict("Mismatches: 0 in 100 samples\n", "@abc"))
                .isNull();
        assertThat(Judge.harnessVerdict("@abc Mismatches: 5 in 100 samples\n", "@abc"))
                .containsExactly(5, 100);
        assertThat(Judge.harnessVerdict("@abc Mismatches: 0 in 9 samples\n@abc Mismatches: 5 in 100 samples\n", "@abc"))
                .isNull();
    }

    @Test
    void theLintRefusesWhatADesignCouldCheatWithAndKeepsWhatDesignsUse() {
        for (String refused : List.of(
                "integer f; initial f = $fopen(\"sim.vvp\", \"r\");",
                "initial #22 $finish;",
                "initial $finish_and_return(120);",
                "reg [7:0] m [0:3]; initial $readmemh(\"stim0.hex\", m);",
                "initial begin $dumpfile(\"x.vcd\"); $dumpvars; end",
                "assign y = $root.tb.good1.y;",
                "assign y = good1.y;",
                "assign y = tb . good1 . y;",
                "RefModule r(.a(a), .b(b), .y(y));",
                "initial force y = 0;",
                "defparam u.W = 3;",
                "`include \"ref.sv\"")) {
            assertThat(DesignLint.check(refused)).as(refused).isPresent();
        }
        for (String kept : List.of(
                "module TopModule(input [3:0] a, output [3:0] y);\n  Sub u(.a(a), .y(y)); // $fopen in a comment\nendmodule",
                "assign y = $signed(a) > $signed(b) ? 4'b1010 : {2{a[1:0]}};",
                "always @(*) begin y_r = a; if (a > 1.5) $display(\"a.b is %d\", a); end",
                "/* hierarchical tb.x in a comment */ assign y = a;",
                "localparam W = $clog2(8); assign y = a[W-1:0];")) {
            assertThat(DesignLint.check(kept)).as(kept).isEmpty();
        }
    }

    @Test
    void theSandboxItselfKeepsWritesInsideTheRun() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(icarus.isolation().namespaced(), "needs namespace isolation");
        Path outside = Files.createTempDirectory("verilog-outside").resolve("written.txt");
        Icarus.Simulation sim = icarus.simulate(
                java.util.Map.of(
                        "t.v",
                        "module t; integer f; initial begin f = $fopen(\"" + outside
                                + "\", \"w\"); $fdisplay(f, \"x\");"
                                + " $fclose(f); $display(\"fd %0d\", f); $finish; end endmodule\n"),
                "t");
        assertThat(outside).doesNotExist();
        assertThat(sim.stdout()).contains("fd 0");
    }

    @Test
    void withoutIcarusTheTaskSaysWhatToInstall(@org.junit.jupiter.api.io.TempDir Path empty) {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> Icarus.open(1, Icarus.LIMITS, List.of(empty.toString())))
                .isInstanceOf(org.pettingllms.core.config.ConfigException.class)
                .hasMessageContaining("apt-get install iverilog")
                .hasMessageContaining("iverilog not found");
    }

    @Tag("heavy")
    @Test
    void theSimulatorReportsWhatStoppedIt() {
        Icarus.Simulation ok = icarus.simulate(
                java.util.Map.of("t.v", "module t; initial begin $display(\"hi\"); $finish; end endmodule\n"), "t");
        assertThat(ok.status()).isEqualTo(Icarus.Status.OK);
        assertThat(ok.stdout()).contains("hi");
        Icarus.Simulation bad = icarus.simulate(java.util.Map.of("t.v", "module t; initial oops; endmodule\n"), "t");
        assertThat(bad.status()).isEqualTo(Icarus.Status.COMPILE_ERROR);
        assertThat(bad.summary()).contains("error");
        Icarus.Simulation loop =
                icarus.simulate(java.util.Map.of("t.v", "module t; initial forever #0 ; endmodule\n"), "t");
        assertThat(loop.status()).isEqualTo(Icarus.Status.LIMIT);
        // a sandbox run's problems stay in its own folder: the next problem is judged afresh
        Problem p = task.problems(1).problems(Split.TEST, 0, 1).get(0);
        assertThat(task.initialState(p).item().reference()).contains("module TopModule");
    }
}
