#!/bin/sh
# meson's custom_target for the Go plugin (plugins/meson.build):
#   go-build.sh GO SOURCE_DIR OUTPUT
# Builds offline from go.mod/go.sum (scripts/install-deps ran `go mod download`, which filled the
# module cache): GOPROXY=off and -mod=readonly, so a module missing from the cache is an error, not
# a download, and the build never edits go.mod; GOTOOLCHAIN=local, so go.mod's `go` line never
# fetches another toolchain. cgo compiles shim.c with maps.go's #cgo CFLAGS (include/), not with
# the build directory's flags: like the Rust plugin, it is the same library in every build type.
set -eu
go=$1 src=$2 out=$3
case $out in /*) ;; *) out=$PWD/$out ;; esac   # go -C changes directory first
tmp=$out.tmp.d
rm -rf "$tmp"
mkdir -p "$tmp"
# Go's build cache does not see a change to a header outside the package (include/, by #cgo
# CFLAGS -I): after a CHT_ABI_VERSION bump it served the shim compiled against the old headers. The
# headers' hash in CGO_CFLAGS is part of the cache key, so new headers mean a new compile.
sdk_sha=$(cat "$src"/../../include/*.h | sha256sum | cut -c1-16)
CGO_ENABLED=1 GOPROXY=off GOTOOLCHAIN=local GOFLAGS="-mod=readonly -buildvcs=false" \
  CGO_CFLAGS="-g -O2 -DCHT_SDK_HEADERS_SHA=0x$sdk_sha" \
  "$go" -C "$src" build -trimpath -buildmode=c-shared -o "$tmp/libcht_go.so" .
mv "$tmp/libcht_go.so" "$out"
rm -rf "$tmp"   # and the header go build writes beside the library
