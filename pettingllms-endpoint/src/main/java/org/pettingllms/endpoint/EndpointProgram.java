package org.pettingllms.endpoint;

import java.net.URI;
import org.pettingllms.core.data.Problem;

/**
 * An agent program that reaches its models over HTTP, in any language: it gets an OpenAI base URL of its own for
 * the episode (the model name is the role) and returns, or posts to {@code <base>/reward}, the episode's reward.
 * {@link RecordingEndpoint#program} turns it into an {@code AgentProgram}, so it trains with per-call groups.
 */
@FunctionalInterface
public interface EndpointProgram {
    double run(Problem problem, URI baseUrl) throws Exception;
}
