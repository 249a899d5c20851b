# The lab's image: Debian bookworm with the same Debian packages and the same build script
# the README uses (.ci/install-deps, .ci/build), so what CI proves is what the image runs.
FROM debian:bookworm
WORKDIR /opt/quote-lab
COPY .ci/install-deps .ci/install-deps
RUN bash .ci/install-deps && rm -rf /var/lib/apt/lists/*
# Only what the binary is built from and reads when it runs: a change to the docs or the
# tests then reuses the compiled layer, so a student's rebuild after `git pull` is seconds.
COPY CMakeLists.txt .
COPY .ci .ci
COPY lab lab
COPY bench/minimal_server.cpp bench/minimal_server.cpp
COPY scenarios scenarios
COPY public public
# Only the binary, with only the run packages: the tests are off (BUILD_TESTING=OFF).
RUN BUILD_TARGET=quote-lab bash .ci/build build -DBUILD_TESTING=OFF
# The persisted breaker and fallback quotes (a named volume in compose.yml).
VOLUME /var/lib/quote-lab
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=2s --retries=5 CMD curl -fsS http://127.0.0.1:8080/health || exit 1
CMD ["build/quote-lab", "serve", "--host", "0.0.0.0", "--port", "8080", "--state-file", "/var/lib/quote-lab/state.json"]
