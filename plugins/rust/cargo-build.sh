#!/bin/sh
# meson's custom_target for the Rust plugin (plugins/meson.build):
#   cargo-build.sh CARGO MANIFEST TARGET_DIR OUTPUT
# Builds offline from the lock file (scripts/install-deps has run `cargo fetch --locked`)
# and copies the cdylib to OUTPUT in the build directory.
set -eu
cargo=$1 manifest=$2 target=$3 out=$4
CARGO_TARGET_DIR=$target "$cargo" build --release --offline --locked --quiet --manifest-path "$manifest"
cp "$target/release/libcht_rust.so" "$out.tmp"
mv "$out.tmp" "$out"
