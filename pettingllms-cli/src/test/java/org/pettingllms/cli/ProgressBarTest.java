package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressBarTest {
    @Test
    void aLineShowsCountPercentRateAndEta() {
        ProgressBar bar = new ProgressBar("evaluate", new PrintStream(new ByteArrayOutputStream()), false);
        long t0 = System.nanoTime();
        bar.restart();
        String line = bar.line(50, 200, System.nanoTime() + 10_000_000_000L);
        assertThat(line)
                .startsWith("evaluate [######------------------] 50/200  25%")
                .contains("/s | ETA ");
        assertThat(bar.line(200, 200, t0 + 1)).doesNotContain("ETA");
        assertThat(ProgressBar.duration(42)).isEqualTo("42s");
        assertThat(ProgressBar.duration(125)).isEqualTo("2m05s");
        assertThat(ProgressBar.duration(7300)).isEqualTo("2h01m");
    }

    @Test
    void aBarOfBytesShowsSizesAndARateInBytes() {
        ProgressBar bar =
                new ProgressBar("acme/m (2 files)", new PrintStream(new ByteArrayOutputStream()), false, true);
        bar.restart();
        String line = bar.line(1_500_000, 6_000_000, System.nanoTime() + 1_000_000_000L);
        assertThat(line)
                .startsWith("acme/m (2 files) [######------------------] 1.5 MB/6.0 MB  25% | ")
                .contains(" MB/s | ETA ");
    }

    @Test
    void withoutATerminalItPrintsAPlainLineEachQuarter() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        ProgressBar bar = new ProgressBar("rollout", new PrintStream(buf, true, StandardCharsets.UTF_8), false);
        for (int i = 1; i <= 100; i++) {
            bar.episodeDone(i, 100);
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(out.lines()).hasSize(3).allMatch(l -> l.startsWith("rollout ["));
        assertThat(out).doesNotContain("\r");
    }

    @Test
    void onATerminalItRedrawsInPlaceAndClearsAtTheEnd() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        ProgressBar bar = new ProgressBar("sft", new PrintStream(buf, true, StandardCharsets.UTF_8), true);
        bar.update(1, 2);
        bar.update(2, 2);
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(out).startsWith("\rsft [").contains("2/2 100%").endsWith("\r");
    }
}
