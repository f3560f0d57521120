package org.pettingllms.core.train;

/**
 * When a step began on the trainer's thread and when its update began ({@link System#nanoTime}): synchronously its
 * rollout lies between them; asynchronously the wait for rollouts that ran beside earlier updates.
 */
record StepTiming(long start, long updateStart) {}
