#!/bin/sh
# plugins/meson.build's JDK probe:  find-jdk.sh  ->  "HOME<TAB>VERSION" of a JDK with jni.h, libjvm.so
# and javac, or exit 1 with why on stderr. $JAVA_HOME first; else the JDK the javac on PATH belongs
# to (Debian's /usr/bin/javac -> /usr/lib/jvm/java-17-openjdk-amd64/bin/javac).
set -eu
home=${JAVA_HOME:-}
if [ -z "$home" ]; then
  javac=$(command -v javac) || { echo "no javac on PATH and JAVA_HOME unset" >&2; exit 1; }
  home=$(dirname "$(dirname "$(readlink -f "$javac")")")
fi
for f in bin/javac bin/jar include/jni.h include/linux/jni_md.h lib/server/libjvm.so; do
  [ -e "$home/$f" ] || { echo "$home: no $f (not a JDK)" >&2; exit 1; }
done
version=$(sed -n 's/^JAVA_VERSION="\(.*\)"$/\1/p' "$home/release" 2>/dev/null || true)
printf '%s\t%s\n' "$home" "${version:-unknown}"
