package org.pettingllms.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.hub.FileFilter;
import org.pettingllms.hub.HfUrl;
import org.pettingllms.hub.HubClient;
import org.pettingllms.hub.HubException;
import org.pettingllms.hub.HubRef;
import org.pettingllms.hub.HubSettings;
import org.pettingllms.hub.RepoType;

/**
 * The one place where names of Hub repos and files in what a user gives (a config's {@code policy.model} and
 * {@code task.options}, {@code serve --model}) become local paths in the Hugging Face cache, downloading what the
 * cache lacks (with a progress bar on standard error) unless {@code HF_HUB_OFFLINE} is set. It knows no task: any
 * string option that starts with {@code hf://} is a file.
 */
final class HubResolver {
    /** What the embedded engine reads of a model repo: config, weights, tokenizer and chat template. */
    static final FileFilter MODEL_FILES = new FileFilter(List.of("*.json", "*.safetensors", "*.jinja"), List.of());
    /** What a dry run reads of a model repo: all of the above but the weights. */
    static final FileFilter CONFIG_FILES = new FileFilter(List.of("*.json", "*.jinja"), List.of());

    /**
     * What a command needs of a Hub model: nothing (scripted policies play without one, and a recipe for a model
     * nobody has downloaded must still load), its config, tokenizer and chat template (a dry run), or all of it.
     */
    enum ModelFiles {
        NONE,
        CONFIG,
        ALL
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, String> env;
    private HubClient client;

    HubResolver(Map<String, String> env) {
        this.env = env;
    }

    /**
     * A model option's value as a local folder: a directory or a {@code fresh:} preset as is; a Hub id
     * ({@code org/name} or {@code org/name@rev}) that is no directory here as its snapshot folder. Anything else is
     * returned unchanged, for the engine to report.
     *
     * @param what the option, for errors: {@code config key 'policy.model'} or {@code --model}
     */
    String model(String value, String what) {
        return model(value, what, MODEL_FILES);
    }

    /** As {@link #model(String, String)}, downloading only the files {@code filter} lets through. */
    String model(String value, String what, FileFilter filter) {
        if (value == null
                || value.startsWith("fresh:")
                || Files.isDirectory(Path.of(value))
                || !HubRef.looksLikeId(value)
                || localFolder(value.substring(0, value.indexOf('/')))) {
            return value;
        }
        HubRef ref = HubRef.parse(value, RepoType.MODEL);
        try {
            return client().snapshot(ref, filter, new DownloadBar(ref.repo().id()))
                    .folder()
                    .toString();
        } catch (HubException e) {
            throw new ConfigException(
                    what + ": '" + value + "' is no directory here, and from the Hugging Face Hub: " + e.getMessage(),
                    e);
        }
    }

    /**
     * The {@code --set} overrides that replace Hub names in {@code cfg} with local paths: {@code policy.model} (as
     * far as {@code need} asks), and
     * each top-level {@code task.options} entry holding an {@code hf://} string (at any depth of lists and maps).
     * Values are written as JSON, which the YAML reading of overrides takes as is, whatever the path holds.
     */
    List<String> overrides(RunConfig cfg, ModelFiles need) {
        List<String> sets = new ArrayList<>();
        String model = cfg.policy().model();
        String local = need == ModelFiles.NONE
                ? model
                : model(model, "config key 'policy.model'", need == ModelFiles.CONFIG ? CONFIG_FILES : MODEL_FILES);
        if (local != null && !local.equals(model)) {
            sets.add("policy.model=" + json(local));
            if (cfg.rollout().servedModel().isEmpty()) {
                // inference servers name a Hub model by its id (vLLM's default, and serve's), not by our cache path
                sets.add("rollout.servedModel="
                        + json(HubRef.parse(model, RepoType.MODEL).repo().id()));
            }
        }
        for (Map.Entry<String, Object> e : cfg.task().options().entrySet()) {
            Object resolved = files(e.getValue(), "task.options." + e.getKey());
            if (!resolved.equals(e.getValue())) {
                sets.add("task.options." + e.getKey() + "=" + json(resolved));
            }
        }
        return sets;
    }

    /**
     * Whether {@code name}, the first part of an id-like value, is a folder here or in the installation: then
     * {@code models/some-model} is a local path (perhaps mistyped), not the Hub's repo {@code some-model} of a user
     * called {@code models}. The installation is {@link RunSetup#home}.
     */
    private boolean localFolder(String name) {
        return Files.isDirectory(Path.of(name))
                || Files.isDirectory(RunSetup.home(env).resolve(name));
    }

    /** {@code value} with every {@code hf://} string replaced by its local file. */
    private Object files(Object value, String key) {
        if (value instanceof String s && HfUrl.isHfUrl(s)) {
            try {
                HfUrl url = HfUrl.parse(s);
                return client().file(url, new DownloadBar(url.ref().repo().id()))
                        .toString();
            } catch (HubException e) {
                throw new ConfigException("config key '" + key + "': " + e.getMessage(), e);
            }
        }
        if (value instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put(k, files(v, key + "." + k)));
            return out;
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < l.size(); i++) {
                out.add(files(l.get(i), key + "[" + i + "]"));
            }
            return out;
        }
        return value;
    }

    /** The client, made on first use: settings errors (a bad HF_ENDPOINT) only matter when the Hub is used. */
    private HubClient client() {
        if (client == null) {
            client = new HubClient(HubSettings.fromEnv(env));
        }
        return client;
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("strings, lists and maps always serialise", e);
        }
    }
}
