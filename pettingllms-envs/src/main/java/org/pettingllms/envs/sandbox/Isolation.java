package org.pettingllms.envs.sandbox;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How a program is walled off. Both namespace modes give the program new network, PID and mount namespaces, a
 * file-system view that holds only the system directories (read-only), four devices, its /proc and its own directory
 * (a tmpfs capped at {@link SandboxLimits#dirBytes()}, into which the caller's files are copied), and a process-count
 * limit; when its first process exits the kernel ends every process of its PID namespace, so nothing it started
 * outlives the run. {@link #NAMESPACES} (the trainer runs as root with util-linux): the program runs as an
 * unprivileged user id of its own, free on the machine while it runs ({@link RunUsers}). {@link #USER_NAMESPACES} (not root, and the kernel lets unprivileged
 * users create user namespaces): the program runs as the trainer's own user, mapped to a user without capabilities
 * inside its namespaces. {@link #BASIC} (elsewhere): resource limits, an empty environment, its own session whose
 * process group is killed at the end of the run, a process-count limit (not as root) and a directory measured while
 * it runs; no network isolation, and the program can read and write what the trainer's user can.
 */
public enum Isolation {
    NAMESPACES,
    USER_NAMESPACES,
    BASIC;

    /**
     * Runs as root inside the new namespaces, builds the program's file-system view and drops privileges: $1 work
     * dir, $2 uid to run as or "-" (stay the namespace's user, without capabilities), $3 an extra read-only directory
     * (the interpreter's prefix outside /usr) or "-", $4 the work directory's size in bytes, rest the command. The
     * view is a fresh tmpfs holding only the system directories (read-only), /dev's null, zero and random devices, a
     * /proc of the new PID namespace, and the work dir: a tmpfs of its own (size and inode count capped) holding
     * copies of the caller's files. The view's own folders are made without write permission (so not even the
     * namespace's root, once without capabilities, writes there). No project, home, dataset or other run's directory exists in it. The mount point
     * lives in the work dir, which the caller removes; a failure leaves "$1.setup-failed", outside the view, where
     * the program cannot forge it. Every command here is a process start, most of an execution's cost: the
     * top-level symbolic links (merged /usr) are copied by one cp, the directories made by one mkdir, the caller's
     * files copied by one cp, and each read-only bind is one mount (util-linux remounts it read-only itself). Only
     * the fixed system names are ever split into words; the work dir and the interpreter's prefix are quoted
     * wherever they appear (a temporary directory may hold spaces).
     */
    private static final String SETUP = """
            d="$1"; u="$2"; x="$3"; q="$4"; shift 4
            fail() { : > "$d.setup-failed"; exit 120; }
            r="$d/.root"
            mkdir "$r" && mount -t tmpfs -o size=1m,mode=755 sandbox "$r" && cd "$r" || fail
            links=""; dirs=""
            for p in usr bin sbin lib lib32 lib64 libx32 etc; do
              if [ -L "/$p" ]; then links="$links /$p"; elif [ -d "/$p" ]; then dirs="$dirs $p"; fi
            done
            [ -z "$links" ] || cp -P $links "$r/" || fail
            [ "$x" = "-" ] && x=
            mkdir -p dev proc tmp "./$d" $dirs ${x:+"./$x"} || fail
            for p in $dirs; do mount --rbind -o ro "/$p" "$r/$p" || fail; done
            [ -z "$x" ] || mount --rbind -o ro "$x" "$r$x" || fail
            touch "$r/dev/null" "$r/dev/zero" "$r/dev/random" "$r/dev/urandom" || fail
            for n in null zero random urandom; do mount --bind "/dev/$n" "$r/dev/$n" || fail; done
            mount -t proc proc "$r/proc" || fail
            mount -t tmpfs -o "size=$q,nr_inodes=4096,mode=700" work "$r$d" || fail
            c=$(echo "$d"/*); [ "$c" = "$d/*" ] || cp -- "$d"/* "$r$d/" || fail
            mount -o remount,bind,ro "$r" || fail
            if [ "$u" = "-" ]; then
              chroot "$r" setpriv --inh-caps=-all --bounding-set=-all --no-new-privs \\
                -- /bin/sh -c 'cd "$0" && exec "$@"' "$d" "$@"
            else
              chown -R "$u:$u" "$r$d" || fail
              chroot "$r" setpriv --reuid="$u" --regid="$u" --clear-groups --inh-caps=-all --bounding-set=-all \\
                --no-new-privs -- /bin/sh -c 'cd "$0" && exec "$@"' "$d" "$@"
            fi
            """;

    /** The namespaces every namespaced run gets; {@code --kill-child} ends the PID namespace with the launcher. */
    private static final List<String> UNSHARE =
            List.of("unshare", "--mount", "--net", "--pid", "--fork", "--kill-child", "--mount-proc");

    /** The best isolation this machine allows. */
    static Isolation detect() {
        if (!onPath("unshare") || !onPath("setpriv") || !onPath("prlimit")) {
            return BASIC;
        }
        if (uid() == 0) {
            return NAMESPACES;
        }
        return userNamespacesWork() ? USER_NAMESPACES : BASIC;
    }

    /** This process's user id, or -1 off Linux. */
    static int uid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (Exception e) {
            return -1;
        }
    }

    /** Whether this user may create the namespaces (some kernels and container profiles refuse unprivileged ones). */
    static boolean userNamespacesWork() {
        List<String> probe = new ArrayList<>(List.of("unshare", "--user", "--map-root-user"));
        probe.addAll(UNSHARE.subList(1, UNSHARE.size()));
        probe.addAll(List.of("--", "/bin/sh", "-c", "mount -t tmpfs -o size=1m probe /tmp"));
        try {
            Process p = new ProcessBuilder(probe).redirectErrorStream(true).start();
            p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
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

    /** Whether a program in this mode runs in its own namespaces (so the kernel ends all it started with it). */
    public boolean namespaced() {
        return this != BASIC;
    }

    /**
     * The command line that runs {@code program} (already limited by prlimit) in {@code dir} as user {@code uid}
     * (NAMESPACES: the run's own, {@link RunUsers});
     * {@code extra} is a directory the program's interpreter needs outside the system directories, or null;
     * {@code dirBytes} the size of the program's directory.
     */
    List<String> wrap(List<String> program, Path dir, int uid, Path extra, long dirBytes) {
        List<String> cmd = new ArrayList<>();
        if (this == BASIC) {
            cmd.add("setsid"); // its own session and process group, killed whole at the end of the run
        } else {
            if (this == USER_NAMESPACES) {
                cmd.addAll(List.of("unshare", "--user", "--map-root-user"));
                cmd.addAll(UNSHARE.subList(1, UNSHARE.size()));
            } else {
                cmd.addAll(UNSHARE);
            }
            cmd.addAll(List.of(
                    "--",
                    "/bin/sh",
                    "-c",
                    SETUP,
                    "sandbox",
                    dir.toString(),
                    this == NAMESPACES ? Integer.toString(uid) : "-",
                    extra == null ? "-" : extra.toString(),
                    Long.toString(dirBytes)));
        }
        cmd.addAll(program);
        return cmd;
    }
}
