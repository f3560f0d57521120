package org.pettingllms.envs.sandbox;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How a program is walled off. {@link #NAMESPACES} (when the trainer runs as root with util-linux): new network,
 * PID and mount namespaces, an unprivileged user id per concurrent slot, a file-system view that holds only the
 * system directories (read-only) and the program's own directory, resource limits; killing the launcher kills
 * every process the program started. {@link #BASIC} (elsewhere): resource limits, an empty environment and
 * process-tree kill only: no network isolation, and the program can read what the trainer's user can read.
 */
public enum Isolation {
    NAMESPACES,
    BASIC;

    /** First user id of the sandbox slots; slot {@code i} runs as {@code BASE_UID + i}. */
    static final int BASE_UID = 61000;

    /**
     * Runs as root inside the new namespaces, builds the program's file-system view and drops to the slot's user:
     * $1 work dir, $2 uid, $3 an extra read-only directory (the interpreter's prefix outside /usr) or "-", rest the
     * command. The view is a fresh tmpfs holding only the system directories (read-only), /dev's null, zero and
     * random devices, a /proc of the new PID namespace, and the work dir (read-write): no project, home, dataset or
     * other run's directory exists in it. The mount point lives in the work dir, which the caller removes. Every
     * command here is a process start, most of an execution's cost: the top-level symbolic links (merged /usr) are
     * copied by one cp, the directories made by one mkdir, and each read-only bind is one mount (util-linux
     * remounts it read-only itself).
     */
    private static final String SETUP = """
            d="$1"; u="$2"; x="$3"; shift 3
            fail() { : > "$d.setup-failed"; exit 120; }
            r="$d/.root"
            mkdir "$r" && mount -t tmpfs -o size=1m,mode=755 sandbox "$r" || fail
            links=""; dirs=""; made=""
            for p in /usr /bin /sbin /lib /lib32 /lib64 /libx32 /etc $x; do
              [ "$p" = "-" ] && continue
              if [ -L "$p" ]; then links="$links $p"; elif [ -d "$p" ]; then dirs="$dirs $p"; made="$made $r$p"; fi
            done
            [ -z "$links" ] || cp -P $links "$r/" || fail
            mkdir -p "$r/dev" "$r/proc" "$r/tmp" "$r$d" $made || fail
            for p in $dirs; do mount --rbind -o ro "$p" "$r$p" || fail; done
            touch "$r/dev/null" "$r/dev/zero" "$r/dev/random" "$r/dev/urandom" || fail
            for n in null zero random urandom; do mount --bind "/dev/$n" "$r/dev/$n" || fail; done
            mount -t proc proc "$r/proc" && mount --bind "$d" "$r$d" && chown "$u:$u" "$d" || fail
            chroot "$r" setpriv --reuid="$u" --regid="$u" --clear-groups --inh-caps=-all --bounding-set=-all \\
              --no-new-privs -- /bin/sh -c 'cd "$0" && exec "$@"' "$d" "$@"
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

    /**
     * The command line that runs {@code program} (already limited by prlimit) in {@code dir} for {@code slot};
     * {@code extra} is a directory the program's interpreter needs outside the system directories, or null.
     */
    List<String> wrap(List<String> program, Path dir, int slot, Path extra) {
        List<String> cmd = new ArrayList<>();
        if (this == NAMESPACES) {
            cmd.addAll(List.of(
                    "unshare",
                    "--mount",
                    "--net",
                    "--pid",
                    "--fork",
                    "--kill-child",
                    "--mount-proc",
                    "--",
                    "/bin/sh",
                    "-c",
                    SETUP,
                    "sandbox",
                    dir.toString(),
                    Integer.toString(BASE_UID + slot),
                    extra == null ? "-" : extra.toString()));
        } else {
            cmd.add("setsid");
        }
        cmd.addAll(program);
        return cmd;
    }
}
