package org.pettingllms.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The environment variables huggingface_hub reads, with its defaults and order. */
class HubSettingsTest {
    @TempDir
    Path home;

    HubSettings of(String... pairs) {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        for (int i = 0; i < pairs.length; i += 2) {
            env.put(pairs[i], pairs[i + 1]);
        }
        return HubSettings.fromEnv(env);
    }

    @Test
    void theCacheRootFollowsHuggingfaceHubsOrder() {
        assertThat(of().cacheDir()).isEqualTo(home.resolve(".cache/huggingface/hub"));
        assertThat(of("XDG_CACHE_HOME", "/x").cacheDir()).isEqualTo(Path.of("/x/huggingface/hub"));
        assertThat(of("XDG_CACHE_HOME", "/x", "HF_HOME", "/h").cacheDir()).isEqualTo(Path.of("/h/hub"));
        assertThat(of("HF_HOME", "/h", "HUGGINGFACE_HUB_CACHE", "/old").cacheDir())
                .isEqualTo(Path.of("/old"));
        assertThat(of("HF_HOME", "/h", "HUGGINGFACE_HUB_CACHE", "/old", "HF_HUB_CACHE", "/c")
                        .cacheDir())
                .isEqualTo(Path.of("/c"));
        assertThat(of("HF_HOME", "~/hf").cacheDir()).isEqualTo(home.resolve("hf/hub"));
    }

    @Test
    void theEndpointDefaultsToTheHubAndLosesATrailingSlash() {
        assertThat(of().endpoint()).hasToString("https://huggingface.co");
        assertThat(of("HF_ENDPOINT", "https://mirror.example/").endpoint()).hasToString("https://mirror.example");
        assertThatThrownBy(() -> of("HF_ENDPOINT", "mirror"))
                .isInstanceOf(HubException.class)
                .hasMessage("HF_ENDPOINT 'mirror' is not an http(s) URL; expected for example https://huggingface.co");
    }

    @Test
    void theTokenComesFromHfTokenElseTheTokenFile() throws Exception {
        assertThat(of().token()).isNull();
        Path hfHome = Files.createDirectories(home.resolve(".cache/huggingface"));
        Files.writeString(hfHome.resolve("token"), "  hf_file\r\n");
        assertThat(of().token()).isEqualTo("hf_file");
        assertThat(of("HF_TOKEN", "hf_env").token()).isEqualTo("hf_env");
        assertThat(of("HUGGING_FACE_HUB_TOKEN", "hf_old").token()).isEqualTo("hf_old");
        Path other = home.resolve("elsewhere");
        Files.writeString(other, "hf_path");
        assertThat(of("HF_TOKEN_PATH", other.toString()).token()).isEqualTo("hf_path");
        assertThat(of("HF_TOKEN", "hf_env").toString()).doesNotContain("hf_env");
    }

    @Test
    void offlineModeReadsTheValuesHuggingfaceHubReadsAsTrue() {
        for (String yes : new String[] {"1", "true", "TRUE", "yes", "on", "On"}) {
            assertThat(of("HF_HUB_OFFLINE", yes).offline()).as(yes).isTrue();
        }
        for (String no : new String[] {"0", "false", "no", "off", ""}) {
            assertThat(of("HF_HUB_OFFLINE", no).offline()).as(no).isFalse();
        }
        assertThat(of("TRANSFORMERS_OFFLINE", "1").offline()).isTrue();
        assertThat(of("TRANSFORMERS_OFFLINE", "1", "HF_HUB_OFFLINE", "0").offline())
                .isFalse();
    }

    @Test
    void timeoutsAreWholeSeconds() {
        assertThat(of().metadataTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(of("HF_HUB_DOWNLOAD_TIMEOUT", "60").downloadTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThatThrownBy(() -> of("HF_HUB_ETAG_TIMEOUT", "ten"))
                .hasMessage("HF_HUB_ETAG_TIMEOUT='ten': expected a" + " whole number of seconds > 0");
    }
}
