package org.pettingllms.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.pettingllms.hub.FileFilter;
import org.pettingllms.hub.HubClient;
import org.pettingllms.hub.HubException;
import org.pettingllms.hub.HubException.Reason;
import org.pettingllms.hub.HubRef;
import org.pettingllms.hub.HubSettings;
import org.pettingllms.hub.RepoType;
import org.pettingllms.hub.Snapshot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fetch}: a model or dataset repo from the Hugging Face Hub into the Hugging Face cache, shared with Python's
 * huggingface_hub (what one downloaded the other uses), as {@code hf download} does. Prints the snapshot folder, so
 * that {@code $(pettingllms fetch org/name)} can be handed to anything that reads a model directory.
 */
@Command(
        name = "fetch",
        mixinStandardHelpOptions = true,
        description = "Download a model or dataset repo from the Hugging Face Hub into the Hugging Face cache (the one"
                + " Python's huggingface_hub uses; HF_HUB_CACHE, HF_HOME, HF_TOKEN, HF_ENDPOINT and HF_HUB_OFFLINE"
                + " apply) and print its snapshot folder.")
final class FetchCommand implements Callable<Integer> {
    /** The failures after which a repo id that is no model may still be a dataset. */
    private static final Set<Reason> NOT_A_MODEL = Set.of(Reason.REPO_NOT_FOUND, Reason.NOT_CACHED);

    @Parameters(
            index = "0",
            paramLabel = "REPO",
            description = "org/name (a model; a dataset if no model has that"
                    + " name), datasets/org/name (a dataset); org/name@REV names a revision")
    String repo;

    @Option(names = "--revision", paramLabel = "REV", description = "a branch, tag or commit sha (default: main)")
    String revision;

    @Option(names = "--dataset", description = "REPO is a dataset repo")
    boolean dataset;

    @Option(
            names = "--include",
            paramLabel = "GLOB",
            description = "only files matching GLOB (as allow_patterns:" + " * also matches '/'), repeatable")
    List<String> include = new ArrayList<>();

    @Option(names = "--exclude", paramLabel = "GLOB", description = "no files matching GLOB, repeatable")
    List<String> exclude = new ArrayList<>();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        HubRef ref = ref();
        HubClient client = new HubClient(HubSettings.fromEnv(Main.env(spec)));
        FileFilter filter = new FileFilter(include, exclude);
        boolean typeGiven = dataset || repo.strip().startsWith("datasets/");
        Snapshot s;
        try {
            s = client.snapshot(ref, filter, new DownloadBar(ref.toString()));
        } catch (HubException e) {
            if (typeGiven || !NOT_A_MODEL.contains(e.reason())) {
                throw e;
            }
            HubRef asDataset = new HubRef(ref.repo().as(RepoType.DATASET), ref.revision());
            PrintWriter err = spec.commandLine().getErr();
            err.println("no " + ref.repo() + (e.reason() == Reason.NOT_CACHED ? " in the cache" : " on the Hub")
                    + "; trying the dataset repo " + asDataset);
            err.flush();
            try {
                s = client.snapshot(asDataset, filter, new DownloadBar(asDataset.toString()));
            } catch (HubException d) {
                if (!NOT_A_MODEL.contains(d.reason())) {
                    throw d;
                }
                throw new HubException(
                        e.reason(),
                        e.getMessage()
                                + (e.reason() == Reason.NOT_CACHED
                                        ? "; the cache has no dataset repo of that name either"
                                        : "; no dataset repo of that name either"),
                        e);
            }
        }
        PrintWriter err = spec.commandLine().getErr();
        err.printf(
                "%s at %s: %d file%s%n",
                s.repo(), s.commit(), s.files().size(), s.files().size() == 1 ? "" : "s");
        err.flush();
        PrintWriter out = spec.commandLine().getOut();
        out.println(s.folder());
        out.flush();
        return 0;
    }

    private HubRef ref() {
        HubRef ref = HubRef.parse(repo, dataset ? RepoType.DATASET : RepoType.MODEL);
        if (revision == null) {
            return ref;
        }
        if (repo.contains("@") && !ref.revision().equals(revision)) {
            throw new IllegalArgumentException("REPO " + repo + " names revision '" + ref.revision()
                    + "' and --revision names '" + revision + "': give one");
        }
        return new HubRef(ref.repo(), revision);
    }
}
