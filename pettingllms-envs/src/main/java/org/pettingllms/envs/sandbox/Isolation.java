package org.pettingllms.envs.sandbox;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How a program is walled off. {@link #NAMESPACES} (when the trainer runs as root with util-linux): new network,
 * PID and mount namespaces, an unprivileged user id per concurrent slot, shared writable directories remounted
 * read-only, resource limits; killing the launcher kills every process the program started. {@link #BASIC}
 * (elsewhere): resource limits, an empty environment and process-tree kill only; no network isolation.
 */
public enum Isolation {
    NAMESPACES, BASIC;

    /** First user id of the sandbox slots; slot {@code i} runs as {@code BASE_UID + i}. */
    static final int BASE_UID = 61000;

    /** Runs as root inside the new namespaces, then drops to the slot's user: $1 work dir, $2 uid, rest command. */
    private static final String SETUP = """
            d="$1"; u="$2"; shift 2
            for m in /tmp /var/tmp /dev/shm /run/lock; do
              if [ -d "$m" ]; then mount --bind "$m" "$m" && mount -o remount,bind,ro "$m" || exit 120; fi
            done
            mount --bind "$d" "$d" && mount -o remount,bind,rw "$d" && chown "$u:$u" "$d" && cd "$d" || exit 120
            setpriv --reuid="$u" --regid="$u" --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"
            """;

    /** The best isolation this machine allows. */
    static Isolation detect() {
        boolean root = false;
        try {
            root = ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (Exception e) {
            // not Linux: basic isolation
        }
        return root && onPath("unshare") && onPath("setpriv") && onPath("prlimit") ? NAMESPACES : BASIC;
    }

    static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/bin", tool));
    }

    /** The command line that runs {@code program} (already limited by prlimit) in {@code dir} for {@code slot}. */
    List<String> wrap(List<String> program, Path dir, int slot) {
        List<String> cmd = new ArrayList<>();
        if (this == NAMESPACES) {
            cmd.addAll(List.of("unshare", "--mount", "--net", "--pid", "--fork", "--kill-child", "--mount-proc",
                    "--", "/bin/sh", "-c", SETUP, "sandbox", dir.toString(), Integer.toString(BASE_UID + slot)));
        } else {
            cmd.add("setsid");
        }
        cmd.addAll(program);
        return cmd;
    }
}
