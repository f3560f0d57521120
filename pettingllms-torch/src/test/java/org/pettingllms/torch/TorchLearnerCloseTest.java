package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.torch.engine.TorchLearner;
import org.pettingllms.torch.engine.TrainSettings;

/**
 * Closing a learner while a release waits behind other work on its thread (a Tinker session unloaded as the server
 * stops) ends. The release's body takes the learner's lock on the learner thread, so a close that held that lock
 * while it waited for the same thread never returned (found as a hung TinkerLearnerTest). Here the learner thread is
 * held in a load that reads a named pipe, a release queues behind it, close is called, and then the pipe ends.
 */
class TorchLearnerCloseTest {
    @Test
    void closeWhileAReleaseIsQueuedOnTheLearnerThreadEnds(@TempDir Path dir) throws Exception {
        // on a learner thread of its own, as the engine runs it (engine.learnerThreads: 1)
        TorchLearner learner =
                new TorchLearner(TorchLearnerTest.registry(), new TrainSettings(2, true, true, false, 1));
        Path pipe = dir.resolve("adapter_model.safetensors");
        assertThat(new ProcessBuilder("mkfifo", pipe.toString()).start().waitFor())
                .isZero();
        Thread loading = Thread.ofPlatform().daemon().start(() -> {
            try {
                learner.load(TorchLearnerTest.TOOL, dir);
            } catch (Exception expected) {
                // the pipe ends without a file in it
            }
        });
        awaitLearnerThreadIn("SafeTensors");
        Thread releasing = Thread.ofPlatform().daemon().start(() -> learner.release(TorchLearnerTest.TOOL));
        awaitParked(releasing);
        Thread closing = Thread.ofPlatform().daemon().start(learner::close);
        awaitParked(closing);
        try (FileOutputStream end = new FileOutputStream(pipe.toFile())) {
            // opening the writing end lets the load read, and closing it ends the pipe
        }
        for (Thread t : new Thread[] {loading, releasing, closing}) {
            t.join(Duration.ofSeconds(30));
        }
        assertThat(loading.isAlive()).as("load").isFalse();
        assertThat(releasing.isAlive()).as("release").isFalse();
        assertThat(closing.isAlive()).as("close").isFalse();
        Files.deleteIfExists(pipe);
    }

    /** Until the learner thread runs a frame of {@code frame} (the load reading the pipe). */
    private static void awaitLearnerThreadIn(String frame) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < end) {
            for (var e : Thread.getAllStackTraces().entrySet()) {
                if (e.getKey().getName().equals("pettingllms-learner")
                        && Arrays.stream(e.getValue())
                                .anyMatch(f -> f.getClassName().contains(frame))) {
                    return;
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the load never reached the pipe");
    }

    private static void awaitParked(Thread t) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (t.getState() != Thread.State.BLOCKED && t.getState() != Thread.State.WAITING) {
            if (System.nanoTime() > end) {
                throw new AssertionError(t + " neither waits for a lock nor for the learner: " + t.getState());
            }
            Thread.sleep(5);
        }
    }
}
