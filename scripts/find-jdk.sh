# Sourced by ./build and ./pettingllms: selects a JDK >= 21 and exports JAVA_HOME.
# Order: $JAVA_HOME if it is >= 21, else the newest JDK >= 21 in the usual install locations.
# Why: the project targets Java 21, while many machines still default to an older `java`.

pettingllms_jdk_major() {
  # Prints the feature version of the JDK at $1 (e.g. 21), or nothing if $1 is not a JDK.
  local home="$1"
  [ -x "$home/bin/javac" ] || return 0
  local release="$home/release"
  if [ -f "$release" ]; then
    sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release" | head -n 1
  else
    "$home/bin/javac" -version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p' | head -n 1
  fi
}

pettingllms_find_jdk() {
  local min=21
  if [ -n "${JAVA_HOME:-}" ]; then
    local v; v=$(pettingllms_jdk_major "$JAVA_HOME")
    if [ -n "$v" ] && [ "$v" -ge "$min" ]; then export JAVA_HOME; return 0; fi
  fi
  local best="" best_v=0 dir v
  for dir in /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* /Library/Java/JavaVirtualMachines/*/Contents/Home \
             "$HOME"/.sdkman/candidates/java/* "$HOME"/.jdks/*; do
    [ -d "$dir" ] || continue
    v=$(pettingllms_jdk_major "$dir")
    [ -n "$v" ] || continue
    if [ "$v" -ge "$min" ] && [ "$v" -gt "$best_v" ]; then best="$dir"; best_v="$v"; fi
  done
  if [ -z "$best" ]; then
    echo "error: pettingllms needs a JDK 21 or newer; none found (JAVA_HOME=${JAVA_HOME:-unset}, searched /usr/lib/jvm and the usual places). Install one, e.g. 'apt-get install openjdk-21-jdk' or Temurin 21, or set JAVA_HOME to it." >&2
    return 1
  fi
  export JAVA_HOME="$best"
}
