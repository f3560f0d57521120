package org.pettingllms.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.text.TextCodec;

/**
 * A {@link Sampler} over inference servers speaking vLLM's or SGLang's protocol ({@link Protocol}). Prompts are
 * tokenised here (the model's chat template included) and sent as ids; the sampled ids and their logprobs come
 * back. An adapter policy's requests name the adapter version the servers hold ({@link #useAdapter}, e.g.
 * {@code plan-v12}), and every completion carries the version named by the server's answer, so the trainer's
 * on-policy check sees the weights that were used.
 *
 * <p>Several replicas: least outstanding requests first, at most {@code maxInFlight} requests in flight, a
 * deadline per request; connection errors, timeouts, 429 and 5xx are retried with backoff on another replica
 * (a replica failing three times in a row is dropped and re-admitted after a health check); other answers fail
 * the call. Each call returns the completions of exactly one successful response: none lost, none twice.
 */
public final class OpenAiSampler implements Sampler, AutoCloseable {
    private static final Pattern VERSIONED = Pattern.compile("^(.*)-v(\\d+)$");

    /**
     * @param servers     base URIs of the replicas (e.g. {@code http://gpu1:8000})
     * @param servedModel the base model's id on the servers
     * @param maxInFlight requests in flight across all replicas
     * @param timeout     deadline of one request
     * @param maxAttempts tries per call before it fails
     */
    public record Options(
            List<URI> servers,
            Protocol protocol,
            String servedModel,
            int maxInFlight,
            Duration timeout,
            int maxAttempts) {
        public Options {
            servers = List.copyOf(servers);
            if (servers.isEmpty() || maxInFlight < 1 || maxAttempts < 1) {
                throw new IllegalArgumentException("need at least one server, maxInFlight >= 1 and maxAttempts >= 1");
            }
        }
    }

    private final Options options;
    private final Function<String, TextCodec> codecs;
    private final HttpClient http;
    private final Replicas replicas;
    private final Semaphore inFlight;
    private final Map<PolicyRef, String> adapterNames = new ConcurrentHashMap<>();

    /** @param codecs the tokenizer (and chat template) of a policy's model name */
    public OpenAiSampler(Options options, Function<String, TextCodec> codecs) {
        this.options = options;
        this.codecs = codecs;
        this.http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        this.replicas = new Replicas(options.servers(), http, 3, Duration.ofSeconds(2));
        this.inFlight = new Semaphore(options.maxInFlight());
    }

    public Options options() {
        return options;
    }

    /** The replicas' base URIs. */
    public List<URI> servers() {
        return options.servers();
    }

    /** From now on an adapter policy's requests name {@code name} (a loaded adapter: {@code <adapter>-v<version>}). */
    public void useAdapter(PolicyRef policy, String name) {
        adapterNames.put(policy, name);
    }

    /** The version a served model name says: {@code plan-v12} is 12; a name without a version is 0. */
    public static long versionOf(String servedName) {
        Matcher m = VERSIONED.matcher(servedName == null ? "" : servedName);
        return m.matches() ? Long.parseLong(m.group(2)) : 0;
    }

    /** SGLang's {@code weight_version} as {@link ServedWeights} sets it: {@code v12} is 12; anything else is 0. */
    static long weightVersionOf(String weightVersion) {
        return weightVersion.matches("v\\d+") ? Long.parseLong(weightVersion.substring(1)) : 0;
    }

    /** The served name of an adapter policy's weights at {@code version}. */
    public static String adapterName(PolicyRef policy, long version) {
        return policy.adapter() + "-v" + version;
    }

    @Override
    public List<Completion> sample(PolicyRef policy, Prompt prompt, int n, SamplingParams params) {
        if (!prompt.images().isEmpty()) {
            // prompts go out as token ids: the pixels would not reach the server, and the model would play blind
            throw new UnsupportedOperationException("rollouts on inference servers send token ids and no images yet;"
                    + " this prompt shows " + prompt.images().size() + " (use the embedded engine)");
        }
        int[] ids = codecs.apply(policy.model()).encodePrompt(prompt);
        return sampleTokens(policy, ids, n, params);
    }

    /** As {@link #sample}, for a prompt already given as token ids. */
    public List<Completion> sampleTokens(PolicyRef policy, int[] ids, int n, SamplingParams params) {
        String model;
        if (policy.adapter() == null) {
            model = options.protocol() == Protocol.VLLM ? options.servedModel() : null;
        } else {
            model = adapterNames.get(policy);
            if (model == null) {
                throw new IllegalStateException("no adapter of " + policy + " has been loaded on the servers yet"
                        + " (publish the policy's weights first)");
            }
        }
        return request(null, policy, model, ids, n, params);
    }

    /** Samples on one given replica under the served name {@code model} (null: the base model). */
    public List<Completion> sampleOn(
            URI replica, PolicyRef policy, String model, int[] ids, int n, SamplingParams params) {
        if (model == null && options.protocol() == Protocol.VLLM) {
            model = options.servedModel();
        }
        return request(replica, policy, model, ids, n, params);
    }

    private List<Completion> request(
            URI only, PolicyRef policy, String model, int[] ids, int n, SamplingParams params) {
        String body = options.protocol().request(model, ids, n, params).toString();
        Answer answer = send(
                only,
                options.protocol().generatePath,
                body,
                "sampling " + policy + (only == null ? "" : " on " + only));
        List<Completion> out = new ArrayList<>(n);
        for (Protocol.Choice c : options.protocol().parse(answer.body(), n, model)) {
            out.add(new Completion(
                    IntSeq.of(ids),
                    IntSeq.of(c.tokens()),
                    FloatSeq.of(c.logprobs()),
                    c.text(),
                    c.finish(),
                    c.weightVersion() != null && policy.adapter() == null
                            ? weightVersionOf(c.weightVersion())
                            : versionOf(c.model()),
                    answer.replica() + " " + (c.model() == null ? "base" : c.model())
                            + (c.weightVersion() == null ? "" : " " + c.weightVersion())));
        }
        return out;
    }

    /** A successful answer and the replica that gave it. */
    private record Answer(JsonNode body, URI replica) {}

    /** POSTs to one given replica (adapter loading), with the same retries on that replica only. */
    JsonNode postTo(URI replica, String path, String body, String what) {
        return send(replica, path, body, what).body();
    }

    /**
     * POSTs {@code body} to {@code only}, or to a replica picked as the class describes (null), retrying; returns
     * the parsed JSON answer (a text answer wrapped as a JSON string) and the replica that gave it.
     */
    private Answer send(URI only, String path, String body, String what) {
        Set<Replicas.Replica> avoid = new HashSet<>();
        String last = "no replica answered";
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + what, e);
        }
        try {
            for (int attempt = 0; attempt < options.maxAttempts(); attempt++) {
                if (attempt > 0) {
                    sleep(Math.min(2000, 50L << Math.min(attempt, 6)));
                }
                Replicas.Replica r = only == null ? replicas.pick(avoid) : pinned(only);
                if (r == null) {
                    last = "every replica is down";
                    continue;
                }
                boolean ok = false;
                try {
                    HttpResponse<String> res = http.send(
                            HttpRequest.newBuilder(r.uri.resolve(path))
                                    .timeout(options.timeout())
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(body))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    int status = res.statusCode();
                    if (status == 200) {
                        ok = true;
                        String text = res.body();
                        return new Answer(
                                text.startsWith("{") || text.startsWith("[")
                                        ? Protocol.JSON.readTree(text)
                                        : Protocol.JSON.getNodeFactory().textNode(text),
                                r.uri);
                    }
                    last = r + " answered " + status + ": " + abbreviate(res.body());
                    if (status != 429 && status < 500) {
                        ok = true; // the replica works; the request is wrong and would be wrong anywhere
                        throw new IllegalStateException(what + ": " + last);
                    }
                } catch (HttpTimeoutException e) {
                    last = r + " timed out after " + options.timeout().toMillis() + " ms";
                } catch (IOException e) {
                    last = r + ": " + e.getClass().getSimpleName()
                            + (e.getMessage() == null ? "" : " " + e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while " + what, e);
                } finally {
                    if (only == null) {
                        replicas.done(r, ok);
                    }
                }
                avoid.add(r);
            }
        } finally {
            inFlight.release();
        }
        throw new IllegalStateException(what + " failed after " + options.maxAttempts() + " attempts; last: " + last);
    }

    private Replicas.Replica pinned(URI uri) {
        for (Replicas.Replica r : replicas.all()) {
            if (r.uri.equals(uri)) {
                return r;
            }
        }
        throw new IllegalArgumentException("not a replica of this sampler: " + uri);
    }

    private static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        http.close();
    }
}
