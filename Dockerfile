# The controller image: built with the workspace's pinned toolchain, run as non-root on a
# distroless base (no shell, no package manager).
#   docker build -t kube-codegen-controller:latest .
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
# Without the `embedded` feature: a cluster image carries no in-memory API server.
RUN cargo build --release --locked -p controller --no-default-features \
 && cp target/release/controller /controller

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /controller /controller
USER 65532:65532
ENTRYPOINT ["/controller"]
