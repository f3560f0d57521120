package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.io.Tensor;

class SafeTensorsTest {
    /** Writes a safetensors file by hand: header JSON, then raw little-endian bytes. */
    static void raw(Path file, String header, byte[] data) throws IOException {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + h.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(h.length).put(h).put(data);
        Files.write(file, b.array());
    }

    @Test
    void readsHalfAndBfloat16(@TempDir Path dir) throws Exception {
        // F16: 1.0 = 0x3C00, -2.5 = 0xC100; BF16: 1.0 = 0x3F80, 0.15625 = 0x3E20
        ByteBuffer d = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        d.putShort((short) 0x3C00)
                .putShort((short) 0xC100)
                .putShort((short) 0x3F80)
                .putShort((short) 0x3E20);
        raw(
                dir.resolve("m.safetensors"),
                "{\"h\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]},"
                        + "\"b\":{\"dtype\":\"BF16\",\"shape\":[1,2],\"data_offsets\":[4,8]}}",
                d.array());
        Map<String, Tensor> t = SafeTensors.read(dir.resolve("m.safetensors"));
        assertThat(t.get("h").data()).containsExactly(1.0f, -2.5f);
        assertThat(t.get("b").data()).containsExactly(1.0f, 0.15625f);
        assertThat(t.get("b").shape()).containsExactly(1, 2);
    }

    @Test
    void writeThenReadRoundTripsAndReadsShards(@TempDir Path dir) throws Exception {
        Map<String, Tensor> a = new LinkedHashMap<>();
        a.put("x.weight", new Tensor(new long[] {2, 3}, new float[] {1, 2, 3, 4, 5, 6}));
        Map<String, Tensor> b = Map.of("y.bias", new Tensor(new long[] {1}, new float[] {-7}));
        SafeTensors.write(dir.resolve("model-00001-of-00002.safetensors"), a);
        SafeTensors.write(dir.resolve("model-00002-of-00002.safetensors"), b);
        Files.writeString(
                dir.resolve("model.safetensors.index.json"),
                "{\"metadata\":{},\"weight_map\":{"
                        + "\"x.weight\":\"model-00001-of-00002.safetensors\",\"y.bias\":\"model-00002-of-00002.safetensors\"}}");
        Map<String, Tensor> all = SafeTensors.readModelDir(dir);
        assertThat(all.get("x.weight").data()).containsExactly(1, 2, 3, 4, 5, 6);
        assertThat(all.get("y.bias").data()).containsExactly(-7);
        try (var files = Files.list(dir)) {
            assertThat(files.filter(p -> p.toString().endsWith(".tmp"))).isEmpty();
        }
    }

    @Test
    void badFilesNameTheProblem(@TempDir Path dir) throws Exception {
        raw(
                dir.resolve("bad.safetensors"),
                "{\"x\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]}}",
                new byte[8]);
        assertThatThrownBy(() -> SafeTensors.read(dir.resolve("bad.safetensors")))
                .hasMessageContaining("'x'")
                .hasMessageContaining("I64")
                .hasMessageContaining("F32, F16, BF16");
        raw(
                dir.resolve("short.safetensors"),
                "{\"x\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}",
                new byte[8]);
        assertThatThrownBy(() -> SafeTensors.read(dir.resolve("short.safetensors")))
                .hasMessageContaining("offsets");
        Files.write(dir.resolve("junk.safetensors"), new byte[] {1, 2, 3});
        assertThatThrownBy(() -> SafeTensors.read(dir.resolve("junk.safetensors")))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> SafeTensors.readModelDir(dir.resolve("nothing")))
                .hasMessageContaining("no model.safetensors");
    }
}
