#!/bin/sh
# meson's custom_target for the Java side of the Java maps plugin (plugins/meson.build):
#   java-build.sh JAVA_HOME JCTOOLS_JAR OUTPUT_JAR SOURCES...
# Compiles for Java 11 (the class files run on any JDK from 11) against the pinned JCTools jar
# (fetched by scripts/install-deps) and packs chtbench-java.jar.
set -eu
home=$1 jctools=$2 out=$3
shift 3
tmp=$out.tmp.d
rm -rf "$tmp"
mkdir -p "$tmp"
"$home/bin/javac" -nowarn -Xlint:none --release 11 -encoding UTF-8 -cp "$jctools" -d "$tmp" "$@"
"$home/bin/jar" --create --file "$out.tmp" -C "$tmp" .
mv "$out.tmp" "$out"
rm -rf "$tmp"
