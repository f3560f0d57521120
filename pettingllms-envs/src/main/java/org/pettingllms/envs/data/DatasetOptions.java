package org.pettingllms.envs.data;

/**
 * The options that say where a dataset task's rows come from ({@link DatasetSources#items}): a generator, or a train
 * and a test file. A task's options record has these three keys and implements this.
 */
public interface DatasetOptions {
    /** The generator's name ({@code task.options.generator}); empty for data files. */
    String generator();

    /** The file to train on ({@code task.options.train}); empty for evaluation only, and for a generator. */
    String train();

    /** The file to test on ({@code task.options.test}); empty for a generator. */
    String test();
}
