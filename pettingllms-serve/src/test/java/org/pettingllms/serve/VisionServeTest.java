package org.pettingllms.serve;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.http.Http;
import org.pettingllms.text.CharVisionCodec;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.engine.EmbeddedEngine;
import org.pettingllms.torch.family.ModelFamilies;
import org.pettingllms.torch.model.LanguageModel;

/**
 * A vision-language model behind {@code serve}: chat requests with {@code image_url} parts (data: URLs), whole and
 * streamed, and an OpenAI client (LangChain4j's) sending an image. The model is the fresh {@code vl-tiny} preset,
 * saved with its codec and a chat template that writes Qwen2-VL's image tokens.
 */
class VisionServeTest {
    static final String TEMPLATE = "{% for m in messages %}{% if m.content is string %}{{ m.content }}{% else %}"
            + "{% for p in m.content %}{% if p.type == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
            + "{% else %}{{ p.text }}{% endif %}{% endfor %}{% endif %}\n{% endfor %}>";
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    static Path dir;

    static EmbeddedEngine engine;
    static InferenceServer server;
    static String png;

    @BeforeAll
    static void start() throws Exception {
        try (LanguageModel m = ModelFamilies.fresh("vl-tiny", 7, Torch.device("cpu"), DataType.FLOAT32)) {
            m.decoder().save(dir);
        }
        CharVisionCodec.writeTokenizerFiles(dir);
        Files.writeString(dir.resolve("chat_template.jinja"), TEMPLATE);
        engine = EmbeddedEngine.forServing(dir.toString(), "cpu");
        server = new InferenceServer(engine, dir.toString(), new InferenceServer.Options("127.0.0.1", 0, "vl", 2))
                .start();
        BufferedImage board = new BufferedImage(56, 56, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 56; y++) {
            for (int x = 0; x < 56; x++) {
                board.setRGB(x, y, (x / 28 + y / 28) % 2 == 0 ? 0xFFFFFF : 0x2040C0);
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ImageIO.write(board, "png", bytes);
        png = Base64.getEncoder().encodeToString(bytes.toByteArray());
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    static String request(boolean stream) {
        return "{\"model\":\"vl\",\"seed\":3,\"max_tokens\":6,\"stream\":" + stream
                + ",\"messages\":[{\"role\":\"user\","
                + "\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64," + png + "\"}},"
                + "{\"type\":\"text\",\"text\":\"where is the goal?\"}]}]}";
    }

    static HttpResponse<String> post(String body) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(server.uri().resolve("/v1/chat/completions"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anImageReachesTheModelWholeAndStreamed() throws Exception {
        HttpResponse<String> r = post(request(false));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode body = Http.JSON.readTree(r.body());
        // the template's text ("where is the goal?>": trim_blocks drops the newline after a tag) and the three
        // image tokens, with the pad expanded to the image's (56 / 28)^2 = 4 tokens
        int text = "where is the goal?>".length();
        assertThat(body.path("usage").path("prompt_tokens").asInt()).isEqualTo(text + 3 + 3);
        String whole =
                body.path("choices").path(0).path("message").path("content").asText();
        HttpResponse<String> s = post(request(true));
        assertThat(s.statusCode()).as(s.body()).isEqualTo(200);
        StringBuilder streamed = new StringBuilder();
        for (String block : s.body().split("\n\n")) {
            String data = block.substring("data: ".length());
            if (!data.equals("[DONE]")) {
                streamed.append(Http.JSON
                        .readTree(data)
                        .path("choices")
                        .path(0)
                        .path("delta")
                        .path("content")
                        .asText());
            }
        }
        assertThat(streamed.toString()).isEqualTo(whole);
    }

    @Test
    void anOpenAiClientSendsAnImageAndGetsAnAnswer() {
        OpenAiChatModel chat = OpenAiChatModel.builder()
                .baseUrl(server.uri() + "/v1")
                .apiKey("unused")
                .modelName("vl")
                .temperature(1.0)
                .seed(5)
                .maxTokens(6)
                .build();
        ChatResponse r = chat.chat(
                UserMessage.from(List.of(ImageContent.from(png, "image/png"), TextContent.from("where is the goal?"))));
        assertThat(r.aiMessage()).isNotNull();
        assertThat(r.tokenUsage().inputTokenCount()).isEqualTo("where is the goal?>".length() + 6);
    }

    /** A PNG's signature and header declaring {@code w} x {@code h}, then {@code tail} bytes of image data. */
    static byte[] pngDeclaring(int w, int h, int tail) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(33 + 12 + tail + 12);
        b.put(new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10});
        b.putInt(13)
                .put("IHDR".getBytes())
                .putInt(w)
                .putInt(h)
                .put(new byte[] {8, 2, 0, 0, 0})
                .putInt(0);
        byte[] data = new byte[tail];
        new java.util.Random(1).nextBytes(data);
        b.putInt(tail).put("IDAT".getBytes()).put(data).putInt(0);
        b.putInt(0).put("IEND".getBytes()).putInt(0);
        return b.array();
    }

    static String withImage(String dataUrl) {
        return request(false)
                .replaceFirst("data:image/png;base64,[^\"]*", java.util.regex.Matcher.quoteReplacement(dataUrl));
    }

    @Test
    void hostileImagesAndMutatedRequestsBreakNothingAndAreRefusedBeforeDecoding() throws Exception {
        HttpResponse<String> before = post(request(false));
        assertThat(before.statusCode()).as(before.body()).isEqualTo(200);
        String field = "messages[0].content[0].image_url";
        // a megabyte that declares 20000 x 20000 pixels (decoded whole: 1.2 GB of raster), as PNG and as JPEG
        // a frame header (20000 x 20000, three components), a scan header, the end: a megabyte's worth of header
        byte[] jpeg = java.util.HexFormat.of()
                .parseHex("ffd8" + "ffc0" + "0011" + "08" + "4e20" + "4e20" + "03" + "012200" + "021101" + "031101"
                        + "ffda" + "0008" + "01" + "0100" + "003f00" + "ffd9");
        java.util.Map<String, String> hostile = new java.util.LinkedHashMap<>();
        hostile.put(
                "data:image/png;base64," + Base64.getEncoder().encodeToString(pngDeclaring(20000, 20000, 1 << 20)),
                "20000 x 20000");
        hostile.put("data:image/jpeg;base64," + Base64.getEncoder().encodeToString(jpeg), "20000 x 20000");
        hostile.put("data:image/png;base64," + Base64.getEncoder().encodeToString(pngDeclaring(0, 56, 16)), "0 x 56");
        hostile.put(
                "data:image/png;base64," + Base64.getEncoder().encodeToString("not a picture".getBytes()),
                "not a PNG or JPEG");
        hostile.put("data:image/png;base64,%%%", field);
        for (var h : hostile.entrySet()) {
            long t = System.nanoTime();
            HttpResponse<String> r = post(withImage(h.getKey()));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            JsonNode error = Http.JSON.readTree(r.body()).path("error");
            assertThat(error.path("param").asText()).isEqualTo(field);
            assertThat(error.path("message").asText()).contains(field).contains(h.getValue());
            assertThat((System.nanoTime() - t) / 1e9)
                    .as("refused before decoding")
                    .isLessThan(10);
        }
        // a header that passes but data that does not decode: the model's decoder fails with a 4xx, not a 500
        HttpResponse<String> broken = post(
                withImage("data:image/png;base64," + Base64.getEncoder().encodeToString(pngDeclaring(56, 56, 64))));
        assertThat(broken.statusCode()).as(broken.body()).isBetween(400, 499);
        // every field of an image request mutated
        List<String> bad = new java.util.ArrayList<>();
        int sent = 0;
        for (org.pettingllms.testkit.HttpFuzz.Mutation m : org.pettingllms.testkit.HttpFuzz.mutations(request(false))) {
            HttpResponse<String> r = post(m.body());
            sent++;
            if (r.statusCode() >= 500
                    || r.statusCode() >= 400
                            && Http.JSON
                                    .readTree(r.body())
                                    .path("error")
                                    .path("message")
                                    .asText()
                                    .isBlank()) {
                bad.add(r.statusCode() + " " + r.body() + " for "
                        + m.body().substring(0, Math.min(200, m.body().length())));
            }
        }
        assertThat(sent).isGreaterThan(20);
        assertThat(bad).isEmpty();
        HttpResponse<String> after = post(request(false));
        assertThat(Http.JSON.readTree(after.body()).path("choices"))
                .isEqualTo(Http.JSON.readTree(before.body()).path("choices"));
    }
}
