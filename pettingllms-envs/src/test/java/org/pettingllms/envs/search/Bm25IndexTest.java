package org.pettingllms.envs.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.envs.data.DatasetException;

/** BM25 as documented (scores by hand), hostile queries find nothing or something but never fail, the disk cache. */
class Bm25IndexTest {
    @TempDir
    Path dir;

    static final List<Passage> FRUIT = List.of(
            new Passage("1", "", "apple banana cherry"),
            new Passage("2", "", "apple apple date"),
            new Passage("3", "", "egg fig grape honeydew kiwi"));

    /**
     * Lucene's BM25: idf = ln(1 + (N - n + 0.5) / (n + 0.5)), score = idf * tf / (tf + k1 (1 - b + b dl / avgdl)),
     * with k1 = 0.9, b = 0.4; here N = 3, n = 2 for "apple", dl = 3, 3 and 5 (avgdl 11/3).
     */
    @Test
    void scoresAreBm25WithAnseriniParameters() {
        try (Bm25Index index = Bm25Index.of(FRUIT)) {
            List<Retriever.Hit> hits = index.search("apple", 3);
            assertThat(hits).extracting(h -> h.passage().id()).containsExactly("2", "1");
            double idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
            double norm = 0.9 * (1 - 0.4 + 0.4 * 3 / (11.0 / 3));
            assertThat(hits.get(0).score()).isCloseTo(idf * 2 / (2 + norm), org.assertj.core.data.Offset.offset(1e-5));
            assertThat(hits.get(1).score()).isCloseTo(idf * 1 / (1 + norm), org.assertj.core.data.Offset.offset(1e-5));
            // a word the query says twice counts twice (Anserini's bag of words)
            double twice = index.search("kiwi kiwi", 1).get(0).score();
            double once = index.search("kiwi", 1).get(0).score();
            assertThat(twice).isCloseTo(2 * once, org.assertj.core.data.Offset.offset(1e-5));
        }
    }

    @Test
    void englishAnalysisStemsAndDropsStopWords() {
        try (Bm25Index index = Bm25Index.of(List.of(
                new Passage("a", "Kavio Labs", "Kavio Labs was founded by Mira Olsen."),
                new Passage("b", "Mira Olsen", "Mira Olsen is an engineer who was born in Ashford.")))) {
            assertThat(index.search("founders of KAVIO", 1).get(0).passage().id())
                    .isEqualTo("a");
            assertThat(index.search("where was Mira Olsen born", 1)
                            .get(0)
                            .passage()
                            .id())
                    .isEqualTo("b");
            assertThat(index.search("the of a was", 2)).isEmpty(); // stop words only: no words
            assertThat(index.search("Kavio", 2).get(0).passage().title()).isEqualTo("Kavio Labs");
        }
    }

    @Test
    void hostileQueriesNeverFail() {
        try (Bm25Index index = Bm25Index.of(FRUIT)) {
            for (String q : List.of(
                    "",
                    " ",
                    "\n\t",
                    "*",
                    "?",
                    "title:apple AND (banana",
                    "\"unclosed",
                    "a~2^3",
                    "\u0000\u0001",
                    "\uD800 apple \uDFFF",
                    "((((((((",
                    "-",
                    "AND OR NOT",
                    "\\",
                    "/regex/")) {
                assertThat(index.search(q, 3)).as(q).hasSizeLessThanOrEqualTo(3);
            }
            assertThat(index.search("title:apple AND (banana", 3)).isNotEmpty(); // words, not syntax
            assertThat(index.search("*", 3)).isEmpty();
            // huge: cut to its first characters and words, still a search
            assertThat(index.search("apple " + "zzz ".repeat(100_000), 3)).isNotEmpty();
            StringBuilder many = new StringBuilder();
            for (int i = 0; i < 5000; i++) {
                many.append("w").append(i).append(' ');
            }
            assertThat(index.search(many.append("apple").toString(), 3)).isEmpty(); // apple is past the 32 words
            assertThat(index.query("w1 ".repeat(10) + many)).isNotNull();
        }
        assertThatThrownBy(() -> Bm25Index.of(FRUIT).search("apple", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCorpusFileIsIndexedOnceAndAgainWhenItChanges() throws Exception {
        Path corpus = dir.resolve("corpus.jsonl");
        Files.writeString(
                corpus,
                "{\"id\": \"1\", \"contents\": \"\\\"Apple\\\"\\nA red fruit.\"}\n"
                        + "{\"id\": \"2\", \"contents\": \"\\\"Kiwi\\\"\\nA green fruit.\"}\n");
        Path cache = dir.resolve("cache");
        try (Bm25Index index = Bm25Index.open(corpus, cache)) {
            assertThat(index.size()).isEqualTo(2);
            Retriever.Hit hit = index.search("red fruit", 1).get(0);
            assertThat(hit.passage()).isEqualTo(new Passage("1", "Apple", "A red fruit."));
        }
        Path indexDir;
        try (var s = Files.list(cache)) {
            indexDir = s.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        Path stamp = indexDir.resolve("stamp.properties");
        FileTime built = Files.getLastModifiedTime(indexDir.resolve("index"));
        // the same content touched: not rebuilt (the hash matches), the stamp follows the new time
        Files.setLastModifiedTime(corpus, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
        try (Bm25Index index = Bm25Index.open(corpus, cache)) {
            assertThat(index.size()).isEqualTo(2);
        }
        assertThat(Files.getLastModifiedTime(indexDir.resolve("index"))).isEqualTo(built);
        assertThat(Files.readString(stamp))
                .contains("modified=" + Files.getLastModifiedTime(corpus).toMillis());
        // changed: indexed again
        Files.writeString(
                corpus,
                "{\"id\": \"3\", \"title\": \"Plum\", \"text\": \"A purple fruit.\"}\n",
                java.nio.file.StandardOpenOption.APPEND);
        try (Bm25Index index = Bm25Index.open(corpus, cache)) {
            assertThat(index.size()).isEqualTo(3);
            assertThat(index.search("purple", 1).get(0).passage().title()).isEqualTo("Plum");
        }
        try (var s = Files.list(cache)) { // no half-built or old folders left behind
            assertThat(s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".lock")))
                    .containsExactly(indexDir.getFileName().toString());
        }
    }

    @Test
    void aBadCorpusLineIsOneErrorNamingItsLine() throws Exception {
        Path corpus = dir.resolve("bad.jsonl");
        Files.writeString(
                corpus, "{\"id\": \"1\", \"contents\": \"\\\"A\\\"\\nx\"}\n{\"id\": \"2\", \"body\": \"x\"}\n");
        assertThatThrownBy(() -> Bm25Index.open(corpus, dir.resolve("c")))
                .isInstanceOf(DatasetException.class)
                .hasMessageContaining("bad.jsonl line 2")
                .hasMessageContaining("'contents'");
        Files.writeString(corpus, "not json\n");
        assertThatThrownBy(() -> Corpus.load(corpus)).hasMessageContaining("bad.jsonl line 1: not a JSON object");
        assertThatThrownBy(() -> Bm25Index.open(dir.resolve("missing.jsonl"), dir))
                .hasMessageContaining("missing.jsonl not found");
    }

    @Test
    void passagesReadAndWriteSearchR1Contents() {
        Passage p = Passage.parse("7", "\"Kavio Labs\"\nKavio Labs is a software company.\nSecond line.");
        assertThat(p.title()).isEqualTo("Kavio Labs");
        assertThat(p.text()).isEqualTo("Kavio Labs is a software company.\nSecond line.");
        assertThat(Passage.parse("7", p.contents())).isEqualTo(p);
        assertThat(Passage.parse("8", "no title line").title()).isEqualTo("no title line");
    }
}
