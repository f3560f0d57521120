package org.pettingllms.core.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event file read back by an independent reader (Python: the protobuf library parsing each Event from
 * event.proto's fields, every record's CRCs checked with crcmod's CRC-32C), so the file is what TensorBoard reads.
 */
class TensorBoardLogTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void stepsReadBackWithVerlTagsAndCheckedCrcs() throws Exception {
        TensorBoardLog log = TensorBoardLog.start(dir, 3);
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("success/rate", 0.75);
        m.put("reward/tool/mean", 1.5);
        m.put("train/loss/tool", -0.125);
        m.put("train/grad_norm/plan", 2.0e-3);
        m.put("time/rollout_s", 12.25);
        m.put("val/success/rate", 0.5);
        m.put("adv/abs_mean", Double.NaN);
        log.append(new StepReport(3, m));
        log.append(new StepReport(4, Map.of("success/rate", 1.0)));
        assertThat(log.file().getFileName().toString()).startsWith("events.out.tfevents.");

        List<JsonNode> events = read(log.file());
        assertThat(events).hasSize(4);
        assertThat(events.get(0).get("file_version").asText()).isEqualTo("brain.Event:2");
        assertThat(events.get(1).get("session_log").asInt()).isEqualTo(1); // START at the run's first step
        assertThat(events.get(1).get("step").asLong()).isEqualTo(3);
        JsonNode step3 = events.get(2);
        assertThat(step3.get("step").asLong()).isEqualTo(3);
        assertThat(step3.get("wall_time").asDouble())
                .isCloseTo(System.currentTimeMillis() / 1000.0, org.assertj.core.data.Offset.offset(60.0));
        JsonNode v = step3.get("values");
        assertThat(v.get("success/rate").asDouble()).isEqualTo(0.75);
        assertThat(v.get("critic/score/tool/mean").asDouble()).isEqualTo(1.5);
        assertThat(v.get("actor/tool/pg_loss").asDouble()).isEqualTo(-0.125);
        assertThat(v.get("actor/plan/grad_norm").asDouble()).isEqualTo((double) 2.0e-3f); // a float32
        assertThat(v.get("timing_s/gen").asDouble()).isEqualTo(12.25);
        assertThat(v.get("val-core/success/rate").asDouble()).isEqualTo(0.5);
        assertThat(v.has("adv/abs_mean")).isFalse(); // NaN is not plotted
        assertThat(events.get(3).get("values").get("success/rate").asDouble()).isEqualTo(1.0);
    }

    @Test
    void theReaderCatchesACorruptByte() throws Exception {
        TensorBoardLog log = TensorBoardLog.start(dir, 0);
        log.append(new StepReport(0, Map.of("success/rate", 0.5)));
        byte[] b = Files.readAllBytes(log.file());
        b[b.length - 6] ^= 1; // inside the last record's data
        Files.write(log.file(), b);
        Result r = run(log.file());
        assertThat(r.code).isEqualTo(1);
        assertThat(r.err).contains("record 2: bad data CRC");
    }

    @Test
    void maskedCrcIsTensorFlows() {
        // CRC-32C("123456789") = 0xE3069283, masked: rotated right by 15, plus 0xa282ead8
        int c = 0xE3069283;
        assertThat(TensorBoardLog.masked("123456789".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo(((c >>> 15) | (c << 17)) + 0xa282ead8);
    }

    @Test
    void tagsAreVerls() {
        assertThat(TensorBoardLog.tag("train/clip_frac/model:tool")).isEqualTo("actor/model:tool/pg_clipfrac");
        assertThat(TensorBoardLog.tag("train/kl/p")).isEqualTo("actor/p/ppo_kl");
        assertThat(TensorBoardLog.tag("time/update_s")).isEqualTo("timing_s/update_actor");
        assertThat(TensorBoardLog.tag("time/validate_s")).isEqualTo("timing_s/testing");
        assertThat(TensorBoardLog.tag("groups/constant_frac")).isEqualTo("groups/constant_frac");
    }

    record Result(int code, String out, String err) {}

    static List<JsonNode> read(Path file) throws Exception {
        Result r = run(file);
        assertThat(r.code).as(r.err).isZero();
        List<JsonNode> out = new ArrayList<>();
        for (String line : r.out.strip().split("\n")) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    /** The reader on {@code file}; a Python without protobuf or crcmod is an error saying what to install. */
    static Result run(Path file) throws IOException, InterruptedException {
        Path script = Path.of("src/test/resources/org/pettingllms/core/train/read_tfevents.py");
        String python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        Process p = new ProcessBuilder(python, script.toString(), file.toString()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        if (code != 0 && err.contains("ModuleNotFoundError")) {
            throw new AssertionError("the event reader needs Python's protobuf and crcmod (Debian: apt-get install"
                    + " python3-protobuf python3-crcmod): " + err.strip());
        }
        return new Result(code, out, err);
    }
}
