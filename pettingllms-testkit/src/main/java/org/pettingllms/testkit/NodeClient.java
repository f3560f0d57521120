package org.pettingllms.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** The official OpenAI Node client for the servers' tests, where it is installed (scripts/test-clients). */
public final class NodeClient {
    private NodeClient() {}

    /**
     * The {@code node_modules} folder named by {@code PETTINGLLMS_NODE_MODULES} that holds the {@code openai} package;
     * the calling test is skipped without one.
     */
    public static String modules() {
        String modules = System.getenv("PETTINGLLMS_NODE_MODULES");
        Assumptions.assumeTrue(
                modules != null && Files.isDirectory(Path.of(modules, "openai")),
                "PETTINGLLMS_NODE_MODULES does not name a node_modules folder with the openai package");
        return modules;
    }
}
