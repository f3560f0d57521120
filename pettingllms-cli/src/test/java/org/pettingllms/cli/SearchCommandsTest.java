package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The search task from the command line: the oracle scores every generated question and the wrong policy none,
 * transcripts show each search and what it found, and {@code serve --retriever}'s bad input is one line.
 */
class SearchCommandsTest {
    @TempDir
    Path dir;

    @Test
    void theOracleTeamAndTheOracleAloneScoreAllAndTheWrongOnesNothing() {
        for (String config : new String[] {"search/L2.yaml", "search/L0.yaml"}) {
            String c = CliTest.CONFIGS.resolve(config).toString();
            CliTest.Result oracle = CliTest.run("evaluate", c, "--policy", "oracle", "--set", "validation.problems=20");
            assertThat(oracle.code()).as(oracle.err()).isZero();
            assertThat(oracle.out()).as(config).contains("success 100.0%");
            CliTest.Result wrong = CliTest.run("evaluate", c, "--policy", "wrong", "--set", "validation.problems=20");
            assertThat(wrong.out()).as(config).contains("success 0.0%");
        }
    }

    @Test
    void aTranscriptShowsTheSearchesAndWhatCameBack() {
        CliTest.Result r = CliTest.run(
                "rollout",
                CliTest.CONFIGS.resolve("search/L2.yaml").toString(),
                "--problems",
                "1",
                "--show",
                "1",
                "--set",
                "rollout.k=1");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("searcher").contains("2 results (").contains("supporting found ");
    }

    @Test
    void serveWantsAModelOrACorpusAndSaysSoInOneLine() throws Exception {
        CliTest.Result neither = CliTest.run("serve");
        assertThat(neither.code()).isEqualTo(2);
        assertThat(neither.err().strip())
                .isEqualTo("error: serve needs --model (a model to serve) or --retriever (a"
                        + " corpus to search), one of them");
        CliTest.Result missing =
                CliTest.run("serve", "--retriever", dir.resolve("none.jsonl").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("--retriever ").contains("none.jsonl: no such corpus file");
        Path corpus = Files.writeString(dir.resolve("c.jsonl"), "{\"id\": 1, \"contents\": \"\\\"A\\\"\\nB\"}\n");
        CliTest.Result both = CliTest.run("serve", "--retriever", corpus.toString(), "--model", "x");
        assertThat(both.code()).isEqualTo(2);
    }
}
