package org.pettingllms.core.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ImageTest {
    static final byte[] BYTES = {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3};

    @Test
    void imagesAreEqualByTheirBytesSoPromptsWithTheSamePictureAreEqual() {
        byte[] copy = BYTES.clone();
        Image a = Image.png(BYTES);
        Image b = Image.png(copy);
        copy[4] = 9; // the image keeps its own copy
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(Image.png(copy));
        Prompt p = new Prompt(List.of(ChatMessage.user("board?", List.of(a))), PromptStyle.CHAT);
        Prompt q = new Prompt(List.of(ChatMessage.user("board?", List.of(b))), PromptStyle.CHAT);
        assertThat(p).isEqualTo(q);
        assertThat(p).isNotEqualTo(new Prompt(List.of(ChatMessage.user("board?")), PromptStyle.CHAT));
        assertThat(p.images()).containsExactly(a);
    }

    @Test
    void dataUrlsRoundTripAndRemoteUrlsAreRefusedNamingTheField() {
        Image a = Image.png(BYTES);
        assertThat(Image.fromDataUrl(a.toDataUrl(), "x")).isEqualTo(a);
        assertThat(Image.fromDataUrl("data:image/jpeg;base64,AQID", "x").mediaType())
                .isEqualTo("image/jpeg");
        assertThatThrownBy(() -> Image.fromDataUrl("https://example.org/a.png", "messages[0].content[1].image_url"))
                .hasMessageStartingWith("messages[0].content[1].image_url: ")
                .hasMessageContaining("remote URL");
        assertThatThrownBy(() -> Image.fromDataUrl("data:image/gif;base64,AQID", "f"))
                .hasMessageContaining("image/gif");
        assertThatThrownBy(() -> Image.fromDataUrl("data:image/png;base64,@@@", "f"))
                .hasMessageStartingWith("f: ");
        assertThatThrownBy(() -> Image.fromDataUrl("data:image/png,AQID", "f")).hasMessageContaining("base64");
    }
}
