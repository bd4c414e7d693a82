#!/bin/sh
# Builds the Go anchor of the benchmarks (bench/go-anchor/main.go) into bench/.go-anchor/, from
# Debian's packages alone: no Go module proxy, GOPATH mode. The tfplugin6 stubs are generated here
# by protoc from our own src/protocol/proto/tfplugin6.proto; neither they nor the binary are
# committed (bench/.go-anchor/ is ignored). A benchmark tool only: nothing in the packages, the
# tests or CI uses it.
#
# Needs (Debian bookworm; `apt-get update` first):
#   apt-get install -y golang-1.19-go golang-google-grpc-dev golang-google-protobuf-dev \
#     golang-github-golang-protobuf-1-5-dev protobuf-compiler protoc-gen-go protoc-gen-go-grpc \
#     golang-github-hashicorp-go-plugin-dev golang-github-hashicorp-go-hclog-dev \
#     golang-github-hashicorp-yamux-dev golang-github-zclconf-go-cty-dev \
#     golang-github-vmihailenco-msgpack.v5-dev
#
#   sh bench/go-anchor/build.sh      (or npm run bench:go-anchor)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/bench/.go-anchor"
GO=/usr/lib/go-1.19/bin/go
for tool in "$GO" protoc protoc-gen-go protoc-gen-go-grpc; do
  command -v "$tool" >/dev/null 2>&1 || { echo "bench/go-anchor: $tool is missing; install the Debian packages listed in $0" >&2; exit 1; }
done

# A private GOPATH for the generated package and the command, before Debian's source tree.
SRC="$OUT/gopath/src/goanchor"
rm -rf "$OUT/gopath"
mkdir -p "$SRC/tfplugin6" "$SRC/cmd/terraform-provider-goanchor"
# Our .proto has no go_package option: the M flag gives the Go import path instead.
protoc -I "$ROOT/src/protocol/proto" -I /usr/include \
  --go_out="$SRC/tfplugin6" --go_opt=paths=source_relative --go_opt=Mtfplugin6.proto=goanchor/tfplugin6 \
  --go-grpc_out="$SRC/tfplugin6" --go-grpc_opt=paths=source_relative --go-grpc_opt=Mtfplugin6.proto=goanchor/tfplugin6 \
  tfplugin6.proto
cp "$HERE/main.go" "$SRC/cmd/terraform-provider-goanchor/main.go"

GOPATH="$OUT/gopath:/usr/share/gocode" GO111MODULE=off GOFLAGS= GOCACHE="$OUT/cache" \
  "$GO" build -o "$OUT/terraform-provider-goanchor" goanchor/cmd/terraform-provider-goanchor
echo "built $OUT/terraform-provider-goanchor ($("$GO" version | cut -d' ' -f3))"
