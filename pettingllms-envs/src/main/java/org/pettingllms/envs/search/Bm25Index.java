package org.pettingllms.envs.search;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * BM25 over passages with Apache Lucene, as the BM25 retriever of Search-R1 (Pyserini, over Anserini) scores them:
 * k1 = 0.9, b = 0.4 (Anserini's defaults), English analysis (Lucene's standard tokenizer, lower case, English stop
 * words, Porter stemming), a query as a bag of its words, each a SHOULD clause boosted by how often the query says
 * it (Anserini's bag-of-words query). The title is indexed with the text, as Search-R1's {@code contents} is.
 *
 * <p>Any query text is safe: it is analysed, never parsed, so Lucene syntax ({@code title:x AND (y}, {@code *}) is
 * words or nothing; a query is cut to its first {@link #MAX_QUERY_CHARS} characters and {@link #MAX_QUERY_TERMS}
 * distinct words; a query with no words (empty, punctuation, stop words only, control characters) finds nothing.
 *
 * <p>On disk ({@link #open}) the index of a corpus file is built once into a cache folder and reused while the
 * corpus is the same (same size and time, or else the same SHA-256); a changed corpus is indexed again, into a new
 * folder moved in place when complete, so no reader ever sees half an index. In memory ({@link #of}) for the small
 * closed corpora of generated worlds and HotpotQA's distractor paragraphs.
 */
public final class Bm25Index implements Retriever {
    public static final float K1 = 0.9f;
    public static final float B = 0.4f;
    public static final int MAX_QUERY_CHARS = 1000;
    public static final int MAX_QUERY_TERMS = 32;
    public static final int MAX_TOPK = 100;
    /** Names the analysis and fields: an index cached under another format is built again. */
    static final String FORMAT = "bm25-english-v1";

    private static final String ID = "id";
    private static final String TITLE = "title";
    private static final String TEXT = "text";
    private static final String CONTENTS = "contents";
    private static final Object BUILD_LOCK = new Object();
    /**
     * Lucene advises (a JUL warning on every start) passing {@code --add-modules jdk.incubator.vector} for vector
     * search; BM25 uses no vectors, so the advice is noise on a user's console. Held here so the setting lasts.
     */
    private static final java.util.logging.Logger VECTOR_ADVICE =
            java.util.logging.Logger.getLogger("org.apache.lucene.internal.vectorization.VectorizationProvider");

    static {
        VECTOR_ADVICE.setLevel(java.util.logging.Level.SEVERE);
    }

    private final Analyzer analyzer;
    private final DirectoryReader reader;
    private final IndexSearcher searcher;

    private Bm25Index(Directory dir) throws IOException {
        this.analyzer = new EnglishAnalyzer();
        this.reader = DirectoryReader.open(dir);
        this.searcher = new IndexSearcher(reader);
        searcher.setSimilarity(new BM25Similarity(K1, B));
    }

    /** An index of {@code passages} in memory. */
    public static Bm25Index of(List<Passage> passages) {
        try {
            Directory dir = new ByteBuffersDirectory();
            try (IndexWriter w = writer(dir)) {
                for (Passage p : passages) {
                    w.addDocument(document(p));
                }
                w.commit();
            }
            return new Bm25Index(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The index of corpus file {@code corpus} (JSON Lines, {@link Corpus}), from the cache under {@code cacheRoot}
     * when it is there for this corpus, else built there first.
     */
    public static Bm25Index open(Path corpus, Path cacheRoot) {
        if (!Files.isRegularFile(corpus)) {
            throw new IllegalArgumentException("corpus file " + corpus + " not found");
        }
        try {
            Files.createDirectories(cacheRoot);
            Path abs = corpus.toAbsolutePath().normalize();
            String name = abs.getFileName() + "-" + hex(sha256(abs.toString())).substring(0, 12);
            Path dir = cacheRoot.resolve(name);
            synchronized (BUILD_LOCK) { // FileChannel.lock is per process; this keeps two threads apart
                try (FileChannel ch = FileChannel.open(
                                cacheRoot.resolve(name + ".lock"),
                                StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE);
                        FileLock ignored = ch.lock()) {
                    Properties stamp = stamp(dir);
                    if (!current(stamp, corpus, dir)) {
                        build(corpus, dir);
                    }
                }
            }
            return new Bm25Index(FSDirectory.open(dir.resolve("index")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot index corpus " + corpus + ": " + e.getMessage(), e);
        }
    }

    /** Passages in the index. */
    public int size() {
        return reader.numDocs();
    }

    @Override
    public List<Hit> search(String query, int topk) {
        if (topk < 1 || topk > MAX_TOPK) {
            throw new IllegalArgumentException("topk must be 1 to " + MAX_TOPK + ", got " + topk);
        }
        Query q = query(query);
        if (q == null) {
            return List.of();
        }
        try {
            TopDocs top = searcher.search(q, topk);
            StoredFields stored = searcher.storedFields();
            List<Hit> out = new ArrayList<>();
            for (ScoreDoc sd : top.scoreDocs) {
                Document d = stored.document(sd.doc);
                out.add(new Hit(new Passage(d.get(ID), d.get(TITLE), d.get(TEXT)), sd.score));
            }
            return out;
        } catch (IOException e) {
            throw new RetrievalException("BM25 search failed: " + e.getMessage(), e);
        }
    }

    /** The bag-of-words query of {@code text}: its analysed words, each boosted by its count; null when none. */
    Query query(String text) {
        if (text == null) {
            return null;
        }
        String cut = text.length() > MAX_QUERY_CHARS ? text.substring(0, MAX_QUERY_CHARS) : text;
        Map<String, Integer> counts = new LinkedHashMap<>();
        try (TokenStream ts = analyzer.tokenStream(CONTENTS, cut)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                String t = term.toString();
                if (counts.containsKey(t) || counts.size() < MAX_QUERY_TERMS) {
                    counts.merge(t, 1, Integer::sum);
                }
            }
            ts.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // analysing a String does no I/O
        }
        if (counts.isEmpty()) {
            return null;
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            Query t = new TermQuery(new Term(CONTENTS, e.getKey()));
            b.add(e.getValue() == 1 ? t : new BoostQuery(t, e.getValue()), BooleanClause.Occur.SHOULD);
        }
        return b.build();
    }

    @Override
    public void close() {
        try {
            reader.close();
            analyzer.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static IndexWriter writer(Directory dir) throws IOException {
        IndexWriterConfig cfg = new IndexWriterConfig(new EnglishAnalyzer());
        cfg.setSimilarity(new BM25Similarity(K1, B));
        cfg.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
        return new IndexWriter(dir, cfg);
    }

    private static Document document(Passage p) {
        Document d = new Document();
        d.add(new StringField(ID, p.id(), Field.Store.YES));
        d.add(new StoredField(TITLE, p.title()));
        d.add(new StoredField(TEXT, p.text()));
        d.add(new TextField(CONTENTS, p.indexed(), Field.Store.NO));
        return d;
    }

    private static Properties stamp(Path dir) throws IOException {
        Properties p = new Properties();
        Path f = dir.resolve("stamp.properties");
        if (Files.isRegularFile(f)) {
            try (InputStream in = Files.newInputStream(f)) {
                p.load(in);
            }
        }
        return p;
    }

    /**
     * Whether the cached index is this corpus's: same format, and the same size and time, or (a copy, a touched file)
     * the same content hash, in which case the stamp is brought up to date.
     */
    private static boolean current(Properties stamp, Path corpus, Path dir) throws IOException {
        if (!FORMAT.equals(stamp.getProperty("format")) || !Files.isDirectory(dir.resolve("index"))) {
            return false;
        }
        String size = Long.toString(Files.size(corpus));
        String time = Long.toString(Files.getLastModifiedTime(corpus).toMillis());
        if (size.equals(stamp.getProperty("size")) && time.equals(stamp.getProperty("modified"))) {
            return true;
        }
        if (!size.equals(stamp.getProperty("size")) || !fileHash(corpus).equals(stamp.getProperty("sha256"))) {
            return false;
        }
        stamp.setProperty("modified", time);
        writeStamp(dir, stamp);
        return true;
    }

    private static void build(Path corpus, Path dir) throws IOException {
        Path tmp = dir.resolveSibling(
                dir.getFileName() + ".building-" + ProcessHandle.current().pid());
        deleteTree(tmp);
        Files.createDirectories(tmp);
        Properties stamp = new Properties();
        stamp.setProperty("format", FORMAT);
        stamp.setProperty("size", Long.toString(Files.size(corpus)));
        stamp.setProperty(
                "modified", Long.toString(Files.getLastModifiedTime(corpus).toMillis()));
        stamp.setProperty("sha256", fileHash(corpus));
        stamp.setProperty("corpus", corpus.toAbsolutePath().normalize().toString());
        try (Directory d = FSDirectory.open(tmp.resolve("index"));
                IndexWriter w = writer(d)) {
            long n = Corpus.read(corpus, p -> {
                try {
                    w.addDocument(document(p));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            stamp.setProperty("passages", Long.toString(n));
            w.forceMerge(1);
            w.commit();
        }
        writeStamp(tmp, stamp);
        Path old = dir.resolveSibling(
                dir.getFileName() + ".old-" + ProcessHandle.current().pid());
        if (Files.exists(dir)) {
            Files.move(dir, old, StandardCopyOption.ATOMIC_MOVE);
        }
        Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
        deleteTree(old);
    }

    private static void writeStamp(Path dir, Properties stamp) throws IOException {
        Path tmp = dir.resolve("stamp.properties.tmp");
        try (var out = Files.newOutputStream(tmp)) {
            stamp.store(out, "the corpus this index was built from");
        }
        Files.move(
                tmp,
                dir.resolve("stamp.properties"),
                StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    private static String fileHash(Path file) throws IOException {
        MessageDigest md = digest();
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
        }
        return hex(md.digest());
    }

    private static byte[] sha256(String s) {
        return digest().digest(s.getBytes(StandardCharsets.UTF_8));
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
