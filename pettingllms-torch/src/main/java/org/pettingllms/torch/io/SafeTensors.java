package org.pettingllms.torch.io;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.ShortBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.pettingllms.core.util.AtomicFiles;

/**
 * Reads and writes the safetensors format: an 8-byte little-endian header length, a JSON header mapping names to
 * {@code dtype}, {@code shape} and {@code data_offsets}, then the raw little-endian data. F32, F16 and BF16 are
 * read (as float32); F32 is written. Writes are atomic: a temporary file, then a rename.
 */
public final class SafeTensors {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MAX_HEADER = 100L << 20;

    private SafeTensors() {}

    public static Map<String, Tensor> read(Path file) throws IOException {
        return read(file, false);
    }

    /**
     * The floating-point tensors of a file that also holds I64 ones (a fixture's ids and positions, read with
     * {@link #readInt64}); {@link #read} refuses those, as no model weight is an integer.
     */
    public static Map<String, Tensor> readFloats(Path file) throws IOException {
        return read(file, true);
    }

    private static Map<String, Tensor> read(Path file, boolean skipIntegers) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            Header h = header(ch, file);
            JsonNode header = h.json();
            long base = h.dataStart();
            Map<String, Tensor> out = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getKey().equals("__metadata__")
                        || (skipIntegers && e.getValue().path("dtype").asText().equals("I64"))) {
                    continue;
                }
                out.put(e.getKey(), tensor(ch, base, e.getKey(), e.getValue(), file));
            }
            return out;
        }
    }

    /** A file's JSON header and where its data starts (after the 8-byte length and the header). */
    private record Header(JsonNode json, long dataStart) {}

    private static Header header(FileChannel ch, Path file) throws IOException {
        ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        readFully(ch, len, 0, file);
        long headerLen = len.flip().getLong();
        if (headerLen <= 0 || headerLen > MAX_HEADER || 8 + headerLen > ch.size()) {
            throw new IOException(file + ": not a safetensors file (header length " + headerLen + ")");
        }
        ByteBuffer hb = ByteBuffer.allocate((int) headerLen);
        readFully(ch, hb, 8, file);
        return new Header(JSON.readTree(new String(hb.array(), StandardCharsets.UTF_8)), 8 + headerLen);
    }

    /** An I64 tensor's values, row-major (fixtures keep token ids, grids and positions so). */
    public static long[] readInt64(Path file, String name) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            Header h = header(ch, file);
            JsonNode info = h.json().get(name);
            if (info == null || !info.path("dtype").asText().equals("I64")) {
                throw new IOException(file + ": no I64 tensor '" + name + "'");
            }
            long begin = info.path("data_offsets").path(0).asLong();
            long end = info.path("data_offsets").path(1).asLong();
            long base = h.dataStart();
            if (end < begin || (end - begin) % 8 != 0 || base + end > ch.size()) {
                throw new IOException(file + ": tensor '" + name + "' has bad offsets [" + begin + ", " + end + ")");
            }
            long[] out = new long[(int) ((end - begin) / 8)];
            ch.map(FileChannel.MapMode.READ_ONLY, base + begin, end - begin)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .asLongBuffer()
                    .get(out);
            return out;
        }
    }

    private static Tensor tensor(FileChannel ch, long base, String name, JsonNode info, Path file) throws IOException {
        String dtype = info.path("dtype").asText();
        JsonNode shapeNode = info.path("shape");
        long[] shape = new long[shapeNode.size()];
        long numel = 1;
        for (int i = 0; i < shape.length; i++) {
            shape[i] = shapeNode.get(i).asLong();
            numel *= shape[i];
        }
        long begin = info.path("data_offsets").path(0).asLong();
        long end = info.path("data_offsets").path(1).asLong();
        int width = switch (dtype) {
            case "F32" -> 4;
            case "F16", "BF16" -> 2;
            default ->
                throw new IOException(
                        file + ": tensor '" + name + "' has dtype " + dtype + "; supported: F32, F16, BF16");
        };
        if (end - begin != numel * width || base + end > ch.size() || numel > Integer.MAX_VALUE) {
            throw new IOException(file + ": tensor '" + name + "' offsets [" + begin + ", " + end
                    + ") do not match its shape and dtype");
        }
        ByteBuffer buf =
                ch.map(FileChannel.MapMode.READ_ONLY, base + begin, end - begin).order(ByteOrder.LITTLE_ENDIAN);
        float[] data = new float[(int) numel];
        switch (dtype) {
            case "F32" -> buf.asFloatBuffer().get(data);
            case "F16" -> {
                ShortBuffer s = buf.asShortBuffer();
                for (int i = 0; i < data.length; i++) {
                    data[i] = Float.float16ToFloat(s.get(i));
                }
            }
            default -> { // BF16: the upper half of a float32
                ShortBuffer s = buf.asShortBuffer();
                for (int i = 0; i < data.length; i++) {
                    data[i] = Float.intBitsToFloat((s.get(i) & 0xFFFF) << 16);
                }
            }
        }
        return new Tensor(shape, data);
    }

    /** Writes {@code tensors} as F32 (sorted by name), atomically. */
    public static void write(Path file, Map<String, Tensor> tensors) throws IOException {
        Map<String, Tensor> sorted = new TreeMap<>(tensors);
        ObjectNode header = JSON.createObjectNode();
        header.putObject("__metadata__").put("format", "pt");
        long offset = 0;
        for (Map.Entry<String, Tensor> e : sorted.entrySet()) {
            ObjectNode t = header.putObject(e.getKey());
            t.put("dtype", "F32");
            var shape = t.putArray("shape");
            for (long d : e.getValue().shape()) {
                shape.add(d);
            }
            long bytes = e.getValue().numel() * 4;
            t.putArray("data_offsets").add(offset).add(offset + bytes);
            offset += bytes;
        }
        byte[] json = JSON.writeValueAsBytes(header);
        int padded = (json.length + 7) / 8 * 8; // keep the data 8-byte aligned, as the reference writer does
        Path tmp = AtomicFiles.tempBeside(file);
        try (OutputStream out = Files.newOutputStream(tmp)) {
            ByteBuffer len =
                    ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(padded);
            out.write(len.array());
            out.write(json);
            out.write(" ".repeat(padded - json.length).getBytes(StandardCharsets.US_ASCII));
            for (Tensor t : sorted.values()) {
                ByteBuffer b = ByteBuffer.allocate(t.data().length * 4).order(ByteOrder.LITTLE_ENDIAN);
                FloatBuffer fb = b.asFloatBuffer();
                fb.put(t.data());
                out.write(b.array());
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        AtomicFiles.publish(tmp, file);
    }

    /**
     * Reads a model directory's weights: {@code model.safetensors}, or the shards named by
     * {@code model.safetensors.index.json}.
     */
    public static Map<String, Tensor> readModelDir(Path dir) throws IOException {
        Path single = dir.resolve("model.safetensors");
        Path index = dir.resolve("model.safetensors.index.json");
        if (Files.exists(single)) {
            return read(single);
        }
        if (!Files.exists(index)) {
            throw new IOException(dir + ": no model.safetensors or model.safetensors.index.json");
        }
        JsonNode map = JSON.readTree(index.toFile()).path("weight_map");
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (String shard : new TreeSet<>(valuesOf(map))) {
            Map<String, Tensor> part = read(dir.resolve(shard));
            out.putAll(part);
        }
        for (Iterator<String> it = map.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!out.containsKey(name)) {
                throw new IOException(index + ": tensor '" + name + "' is not in its shard "
                        + map.get(name).asText());
            }
        }
        return out;
    }

    private static List<String> valuesOf(JsonNode map) {
        List<String> shards = new ArrayList<>();
        map.elements().forEachRemaining(n -> shards.add(n.asText()));
        return shards;
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long pos, Path file) throws IOException {
        while (buf.hasRemaining()) {
            int n = ch.read(buf, pos + buf.position());
            if (n < 0) {
                throw new IOException(file + ": truncated safetensors file");
            }
        }
    }
}
