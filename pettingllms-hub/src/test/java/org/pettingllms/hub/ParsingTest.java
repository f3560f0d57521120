package org.pettingllms.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Repo ids, revisions, patterns and etags as the Hub and huggingface_hub write them. */
class ParsingTest {
    @Test
    void repoIdsAndTheirCacheFolders() {
        assertThat(RepoId.model("Qwen/Qwen3-1.7B").folderName()).isEqualTo("models--Qwen--Qwen3-1.7B");
        assertThat(RepoId.dataset("openai/gsm8k").folderName()).isEqualTo("datasets--openai--gsm8k");
        for (String bad : new String[] {"gpt2", "a/b/c", "a--b/c", "a/b..c", "a/b.git", "a/ b", "", "a/"}) {
            assertThat(RepoId.isValid(bad)).as(bad).isFalse();
        }
        assertThatThrownBy(() -> RepoId.model("a/b/c")).hasMessageContaining("expected org/name");
    }

    @Test
    void refsReadTheTypePrefixAndTheRevision() {
        assertThat(HubRef.parse("Qwen/Qwen3-1.7B", RepoType.MODEL))
                .isEqualTo(new HubRef(RepoId.model("Qwen/Qwen3-1.7B"), "main"));
        assertThat(HubRef.parse("datasets/openai/gsm8k@refs/convert/parquet", RepoType.MODEL))
                .isEqualTo(new HubRef(RepoId.dataset("openai/gsm8k"), "refs/convert/parquet"));
        assertThat(HubRef.parse("openai/gsm8k", RepoType.DATASET).repo().type()).isEqualTo(RepoType.DATASET);
        assertThat(HubRef.looksLikeId("Qwen/Qwen3-1.7B@0123456789abcdef0123456789abcdef01234567"))
                .isTrue();
        assertThat(HubRef.looksLikeId("Qwen3-1.7B")).isFalse();
        assertThat(HubRef.looksLikeId("/models/x")).isFalse();
        assertThat(HubRef.looksLikeId("fresh:tiny")).isFalse();
        assertThat(HubRef.looksLikeId("a/b@../../x")).isFalse();
        assertThat(new HubRef(RepoId.model("a/b"), "0123456789abcdef0123456789abcdef01234567").pinned())
                .isTrue();
        assertThatThrownBy(() -> HubRef.parse("a/b@", RepoType.MODEL)).isInstanceOf(HubException.class);
        assertThatThrownBy(() -> new HubRef(RepoId.model("a/b"), "../x")).hasMessageContaining("is not a revision");
    }

    @Test
    void fnmatchPatternsCrossFoldersAsAllowPatternsDo() {
        FileFilter json = new FileFilter(List.of("*.json"), List.of());
        assertThat(json.matches("config.json")).isTrue();
        assertThat(json.matches("a/b/tokenizer.json")).isTrue();
        assertThat(json.matches("model.safetensors")).isFalse();
        assertThat(new FileFilter(List.of("onnx/"), List.of()).matches("onnx/model.onnx"))
                .isTrue();
        assertThat(new FileFilter(List.of(), List.of("*.bin", "original/*")).matches("original/x.pt"))
                .isFalse();
        assertThat(FileFilter.ALL.matches("anything")).isTrue();
        assertThat(Glob.fnmatch("model-0000[1-3]-of-?????.safetensors").test("model-00002-of-00004.safetensors"))
                .isTrue();
        assertThat(Glob.fnmatch("[!a]*").test("abc")).isFalse();
        assertThat(Glob.fnmatch("a+b(c).json").test("a+b(c).json")).isTrue();
        assertThat(Glob.fnmatch("[").test("[")).isTrue();
        assertThat(Glob.fnmatch("*.JSON").test("x.json")).isFalse();
        assertThat(new FileFilter(List.of("*.json"), List.of("sub/*")))
                .hasToString("--include '*.json' --exclude 'sub/*'");
    }

    @Test
    void pathGlobsStayWithinAFolderUnlessDoubled() {
        assertThat(Glob.path("data/*.jsonl").test("data/train.jsonl")).isTrue();
        assertThat(Glob.path("data/*.jsonl").test("data/sub/train.jsonl")).isFalse();
        assertThat(Glob.path("data/**/*.jsonl").test("data/train.jsonl")).isTrue();
        assertThat(Glob.path("data/**/*.jsonl").test("data/a/b/train.jsonl")).isTrue();
        assertThat(Glob.path("**").test("a/b")).isTrue();
        assertThat(Glob.hasWildcard("data/train.jsonl")).isFalse();
        assertThat(Glob.hasWildcard("data/train-*.jsonl")).isTrue();
    }

    @Test
    void etagsAreNormalisedAndChooseTheirCheck() {
        assertThat(FileMeta.normalizeEtag("W/\"abc\"")).isEqualTo("abc");
        assertThat(FileMeta.normalizeEtag("\"abc\"")).isEqualTo("abc");
        String sha1 = "a".repeat(40);
        String sha256 = "b".repeat(64);
        URI u = URI.create("http://x/y");
        assertThat(new FileMeta("f", sha1, sha1, 1, u, false).check()).isEqualTo(FileMeta.Check.GIT_SHA1);
        assertThat(new FileMeta("f", sha1, sha256, 1, u, true).check()).isEqualTo(FileMeta.Check.SHA256);
        assertThat(new FileMeta("f", sha1, "xyz-1", 1, u, false).check()).isEqualTo(FileMeta.Check.SIZE_ONLY);
        assertThatThrownBy(() -> new FileMeta("f", sha1, "../x", 1, u, false)).isInstanceOf(HubException.class);
        assertThat(ByteSize.format(999)).isEqualTo("999 B");
        assertThat(ByteSize.format(600_000)).isEqualTo("600.0 kB");
        assertThat(ByteSize.format(3_400_000_000L)).isEqualTo("3.4 GB");
    }

    @Test
    void urlPartsAreEncodedAsPythonsQuote() {
        assertThat(HubHttp.encode("refs/pr/1", false)).isEqualTo("refs%2Fpr%2F1");
        assertThat(HubHttp.encode("a b/c+d.json", true)).isEqualTo("a%20b/c%2Bd.json");
        assertThat(HubHttp.encode("é", true)).isEqualTo("%C3%A9");
    }
}
