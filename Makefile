# Sluice: the two set-up commands are `make run` and `make test`; everything else is optional.
MVN ?= mvn -B -ntp
JAR := broker/target/sluice.jar
# make run's ports and data directory: empty means the broker's own (gRPC 8300, admin 8301, embedded
# PostgreSQL 8302, ./data, or the SLUICE_... variables): make run GRPC_PORT=9300 ADMIN_PORT=9301 EMBEDDED_PORT=9302
GRPC_PORT ?=
ADMIN_PORT ?=
EMBEDDED_PORT ?=
DATA_DIR ?=
RUN_OPTIONS = $(if $(GRPC_PORT),--grpc-port $(GRPC_PORT)) $(if $(ADMIN_PORT),--admin-port $(ADMIN_PORT)) \
  $(if $(EMBEDDED_PORT),--embedded-port $(EMBEDDED_PORT)) $(if $(DATA_DIR),--data-dir $(DATA_DIR))
RUN_ARGS ?= server --demo-workload $(strip $(RUN_OPTIONS))

.PHONY: run test build it bench bench-quick deps clean

## run: one broker on the embedded default (embedded PostgreSQL + demo workload), gRPC :8300, admin :8301,
## embedded PostgreSQL :8302; other ports: make run GRPC_PORT=9300 ADMIN_PORT=9301 EMBEDDED_PORT=9302
run: build
	java -jar $(JAR) $(RUN_ARGS)

build:
	$(MVN) -q -DskipTests install

## test: install what tests need that Maven cannot bring (and the Node.js example's packages), then run every
## module's tests, including the quick tier of the integration suite (it/: every *IT scenario shortened, about
## 5 minutes on 2 cores) and the examples/ against a real broker (ExamplesIT)
test: deps
	$(MVN) install

## deps: what Maven cannot bring (MariaDB, pgbench, a Docker engine, Node.js; npm ci in examples/node) and the test images (scripts/install-test-deps.sh;
## MVN fetches the Kafka image's jars)
deps:
	MVN="$(MVN)" ./scripts/install-test-deps.sh

## it: the integration suite's full tier (real processes, fault injection, the issue's sizes; ~8 min of tests)
it: deps
	$(MVN) -DskipTests install
	$(MVN) verify -pl it -Dit.tier=full

## bench: every benchmark: the it/ harness (capture vs Debezium, end-to-end latency, catch-up, stalled
## sink, event service; medians of 3 runs), then the modules' own (capture vs raw pgoutput, event store and
## schema store JMH); writes docs/BENCHMARKS.md and docs/benchmarks.json. About 35-40 minutes on 2 cores.
bench: deps
	./scripts/bench.sh full
	./scripts/bench-capture.sh
	./scripts/bench-event-store.sh
	./scripts/bench-schema-store.sh

## bench-quick: a reduced version of every harness figure, one run each, for regressions (under 10 minutes)
bench-quick: deps
	./scripts/bench.sh quick

clean:
	$(MVN) -q clean
