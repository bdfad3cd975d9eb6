# Sluice: the two set-up commands are `make run` and `make test`; everything else is optional.
MVN ?= mvn -B -ntp
JAR := broker/target/sluice.jar
RUN_ARGS ?= server --demo-workload

.PHONY: run test build it bench bench-quick deps clean

## run: one broker on the embedded default (embedded PostgreSQL + demo workload), gRPC :8300, admin :8301
run: build
	java -jar $(JAR) $(RUN_ARGS)

build:
	$(MVN) -q -DskipTests install

## test: install what tests need that Maven cannot bring, then run every module's tests, including the
## quick tier of the integration suite (it/: every *IT scenario shortened, about 5 minutes on 2 cores)
test: deps
	$(MVN) install

deps:
	./scripts/install-test-deps.sh

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
