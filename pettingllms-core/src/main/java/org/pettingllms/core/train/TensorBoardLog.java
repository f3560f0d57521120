package org.pettingllms.core.train;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * TensorBoard's event file beside {@code metrics.jsonl} ({@code events.out.tfevents.<seconds>.<host>.<pid>}, a new
 * one each time a run starts or resumes), so TensorBoard (and anything that reads its files) shows a run as it trains.
 *
 * <p>The format, as TensorFlow's record writer and {@code event.proto} / {@code summary.proto} define it: each record
 * is the data's length (uint64, little-endian), the masked CRC-32C of those 8 bytes, the data, the masked CRC-32C of
 * the data (mask: {@code ((crc >>> 15) | (crc << 17)) + 0xa282ead8}); the data is an {@code Event}: {@code wall_time}
 * (field 1, double), {@code step} (2, int64), then {@code file_version} (3, {@code "brain.Event:2"}, the first
 * record), {@code summary} (5: {@code value} (1) each with {@code tag} (1) and {@code simple_value} (2, float)) or
 * {@code session_log} (7: {@code status} (1) = START), which a run writes at its first step so that TensorBoard drops
 * the points a resumed run measures again, as it does for a restarted TensorFlow job. Protobuf's wire format is
 * written by hand: the two messages have five fields between them. Each record is written and flushed whole.
 *
 * <p>Tags follow verl's where there is one ({@link #tag}): {@code actor/<policy>/pg_loss}, {@code pg_clipfrac},
 * {@code ppo_kl}, {@code grad_norm}; {@code critic/score/<role>/mean} for the rewards; {@code timing_s/gen},
 * {@code update_actor}, {@code testing}, {@code step}; {@code val-core/...} for validation; the rest under their
 * {@code metrics.jsonl} names.
 */
public final class TensorBoardLog {
    public static final String PREFIX = "events.out.tfevents.";
    private static final int MASK_DELTA = 0xa282ead8;

    private final Path file;

    private TensorBoardLog(Path file) {
        this.file = file;
    }

    /** A new event file in {@code dir} for a run that starts (or resumes) at step {@code firstStep}. */
    public static TensorBoardLog start(Path dir, int firstStep) {
        long now = System.currentTimeMillis();
        Path file = dir.resolve(PREFIX + now / 1000 + "." + host() + "."
                + ProcessHandle.current().pid());
        TensorBoardLog log = new TensorBoardLog(file);
        double wall = now / 1000.0;
        log.write(event(wall, 0, 3, utf8("brain.Event:2")));
        ByteArrayOutputStream start = new ByteArrayOutputStream();
        varintField(start, 1, 1); // SessionLog.status = START
        log.write(event(wall, firstStep, 7, start.toByteArray()));
        return log;
    }

    public Path file() {
        return file;
    }

    /** One step's numbers, as one event with a simple value per number. */
    public void append(StepReport report) {
        ByteArrayOutputStream summary = new ByteArrayOutputStream();
        for (Map.Entry<String, Double> e : report.values().entrySet()) {
            if (!Double.isFinite(e.getValue())) {
                continue; // TensorBoard plots no NaN; metrics.jsonl keeps it
            }
            ByteArrayOutputStream value = new ByteArrayOutputStream();
            bytesField(value, 1, utf8(tag(e.getKey())));
            value.write(0x15); // field 2, fixed32
            writeLittle(value, Float.floatToIntBits(e.getValue().floatValue()), 4);
            bytesField(summary, 1, value.toByteArray());
        }
        write(event(System.currentTimeMillis() / 1000.0, report.step(), 5, summary.toByteArray()));
    }

    /** The TensorBoard tag of a {@code metrics.jsonl} name (verl's names where it has one). */
    public static String tag(String metric) {
        if (metric.startsWith(Metric.VAL)) {
            return "val-core/" + metric.substring(Metric.VAL.length());
        }
        String[] p = metric.split("/", 3);
        if (p[0].equals("train") && p.length == 3) {
            String name = switch (p[1]) {
                case "loss" -> "pg_loss";
                case "clip_frac" -> "pg_clipfrac";
                case "kl" -> "ppo_kl";
                default -> p[1];
            };
            return "actor/" + p[2] + "/" + name;
        }
        if (p[0].equals("reward")) {
            return "critic/score/" + metric.substring("reward/".length());
        }
        return switch (metric) {
            case Metric.ROLLOUT_S -> "timing_s/gen";
            case Metric.UPDATE_S -> "timing_s/update_actor";
            case Metric.VALIDATE_S -> "timing_s/testing";
            case Metric.STEP_S -> "timing_s/step";
            default -> metric;
        };
    }

    private void write(byte[] data) {
        byte[] length = new byte[8];
        ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).putLong(data.length);
        ByteArrayOutputStream record = new ByteArrayOutputStream(data.length + 16);
        record.writeBytes(length);
        writeLittle(record, masked(length), 4);
        record.writeBytes(data);
        writeLittle(record, masked(data), 4);
        try (OutputStream out = Files.newOutputStream(
                file, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE)) {
            out.write(record.toByteArray()); // one write a record: a killed run leaves whole records
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** TensorFlow's masked CRC-32C of {@code data}. */
    static int masked(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        int c = (int) crc.getValue();
        return ((c >>> 15) | (c << 17)) + MASK_DELTA;
    }

    private static byte[] event(double wallTime, long step, int field, byte[] message) {
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        e.write(0x09); // field 1, fixed64
        writeLittle(e, Double.doubleToLongBits(wallTime), 8);
        varintField(e, 2, step);
        bytesField(e, field, message);
        return e.toByteArray();
    }

    private static void varintField(ByteArrayOutputStream out, int field, long v) {
        varint(out, (long) field << 3);
        varint(out, v);
    }

    private static void bytesField(ByteArrayOutputStream out, int field, byte[] bytes) {
        varint(out, ((long) field << 3) | 2);
        varint(out, bytes.length);
        out.writeBytes(bytes);
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static void writeLittle(ByteArrayOutputStream out, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            out.write((int) (v >>> (8 * i)) & 0xFF);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "_");
        } catch (IOException e) {
            return "localhost";
        }
    }
}
